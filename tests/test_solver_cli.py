"""`rummi hint` end to end: text, JSON, draws and bad input."""

from __future__ import annotations

import json

from rummi.api.cli import main


def test_hint_prints_the_play_and_the_new_table(capsys):
    code = main(["hint", "--table", "r5 r6 r7 | k9 b9 o9", "--rack", "r8 J o9 k1", "--opened"])
    out = capsys.readouterr().out
    assert code == 0
    assert "play r8 J: 2 tiles" in out
    assert "table after: k9 b9 o9 | r5 r6 r7 r8 J" in out


def test_hint_json(capsys):
    assert main(["hint", "--rack", "k10 b10 r10 o2", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["play"] == ["k10", "b10", "r10"] and answer["opening_value"] == 30 and not answer["draw"]


def test_draw_exits_1_and_says_why(capsys):
    assert main(["hint", "--rack", "k10 b10 r10", "--preset", "sabra_way_50"]) == 1
    assert "draw: " in capsys.readouterr().out


def test_rule_override_and_objective(capsys):
    rack = "k1 k2 k4 k5 r13 b13 J"
    assert main(["hint", "--rack", rack, "--opened", "--objective", "value", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["value_played"] == 56
    assert main(["hint", "--rack", "k10 b10 r10", "--rule", "opening_threshold=31"]) == 1


def test_bad_input_exits_2_without_traceback(capsys):
    assert main(["hint", "--rack", "r5 x7"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rummi hint:") and "Traceback" not in err


def test_bad_input_with_json_is_one_json_object(capsys):
    """`--json` promises one JSON object on stdout, errors included, as the other commands do."""
    assert main(["hint", "--rack", "r5 x7", "--json"]) == 2
    answer = json.loads(capsys.readouterr().out)
    assert "x7" in answer["error"] and answer["position"] is not None


def test_rules_are_overridden_with_set_as_in_the_other_commands(capsys):
    assert main(["hint", "--rack", "k10 b10 r10", "--set", "opening_threshold=31"]) == 1
    assert "the opening needs 31" in capsys.readouterr().out


def test_hint_says_when_it_is_not_proven_optimal(capsys, monkeypatch):
    # a search cut short (here by a budget of no special set; once by the referee rejecting the
    # special sets' best play, which the search now never makes: the draw is proven since
    # 2026-12-05) says so
    from rummi.engine.solver import specials

    monkeypatch.setattr(specials, "MAX_CANDIDATES", 0)
    args = ["hint", "--edition", "twist", "--table", "k12 o12 Js | k4 o4 r4", "--rack", "o13 k4 o12 o4 r13 Jm", "--opened"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "not proven that none exists" in out and "(not proven optimal)" in out
    assert main([*args, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["proven_optimal"] is False
