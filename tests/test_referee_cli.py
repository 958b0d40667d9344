"""`rummi referee` from the command line: verdicts, exit codes and JSON, as a user runs it."""

from __future__ import annotations

import json

import pytest
from rummi.api.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["referee", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_legal_turn_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--before", "r5 r6 r7", "--after", "r5 r6 r7 r8", "--opened")
    assert code == 0
    assert out.splitlines()[:2] == ["legal turn (rules: pressman_us_2009)", "played: r8"]


def test_an_illegal_turn_exits_1_with_reasons_and_consequence(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--before", "r4 J r6 | b5 k5 o5 r5", "--after", "r4 r5 r6 | b5 k5 o5 | J k7 k8", "--opened"
    )
    assert code == 1
    assert "[joker_replaced_from_table]" in out
    assert (
        "consequence: Put the table back as it was before the turn. The player takes back k7 k8 and draws 3"
        in out
    )


def test_json_output_and_the_preset_and_time(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "--before",
        "r5 r6 r7",
        "--after",
        "r5 r6 r7 r8",
        "--opened",
        "--preset",
        "goliath_modern",
        "--seconds",
        "75",
        "--json",
    )
    data = json.loads(out)
    assert code == 1
    assert data["violations"][0]["code"] == "over_time"
    assert data["consequence"] == {
        "restore_table": True,
        "take_back": ["r8"],
        "draw": 3,
        "check_tiles": False,
        "text": "Put the table back as it was before the turn. The player takes back r8 and draws 3 tiles.",
    }


def test_a_rule_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run(capsys, "--before", "", "--after", "b10 b11 b12", "--set", "opening_threshold=50")
    assert code == 1


def test_an_unsure_reading_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--before", "", "--after", "r10 r11 r12", "--rack", "r10 r11 k12?")
    assert code == 3
    assert "unsure: rack tile 3 was read as k12" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--before", "r5 r6 r7", "--after", "r5 r6 r14"],
        ["--before", "r5 r6 r7"],
        ["--before", "", "--after", "r1 r2 r3", "--preset", "nonsense"],
        ["--before", "", "--after", "r1 r2 r3", "--seconds", "-4"],
        ["--before", "", "--after", "r1 ? r3"],
    ],
)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("rummi referee: ") and len(err.strip().splitlines()) == 1


def test_bad_input_with_json_is_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--before", "", "--after", "r10 r11 r14", "--json")
    assert code == 2 and json.loads(out)["position"] == 8


def test_could_open_shows_an_opening_and_the_never_opened_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--could-open", "--rack", "k10 b10 r10 o2", "--preset", "pl_wikipedia_tournament"
    )
    assert code == 0
    assert (
        out.strip()
        == "could have opened: k10 b10 r10 is worth 30 (the opening needs 30); never-opened penalty 200"
    )
    code, out, _ = run(
        capsys, "--could-open", "--rack", "k1 b1 o2", "--preset", "pl_wikipedia_tournament", "--json"
    )
    assert code == 1
    assert json.loads(out)["penalty"] == 100
