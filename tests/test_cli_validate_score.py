"""`rummi validate` and `rummi score`: output, --json, and the exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from rummi.api.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- validate -----------------------------------------------------------------------------------


def test_validate_a_valid_table(capsys) -> None:
    code, out, _ = run(capsys, "validate", "r5 r6 r7 | k9 b9 o9")
    assert code == 0
    assert out.splitlines() == [
        "1. r5 r6 r7: run worth 18",
        "2. k9 b9 o9: group worth 27",
        "valid table: 2 sets (Standard)",
    ]


def test_validate_an_invalid_table_exits_1(capsys) -> None:
    code, out, _ = run(capsys, "validate", "r5 r6 r7 | k12 k13 k1")
    assert code == 1
    assert "2. k12 k13 k1: invalid, 13 does not wrap to 1" in out


def test_validate_counts_racks_with_the_table(capsys) -> None:
    code, out, _ = run(capsys, "validate", "r7 r8 r9 | k7 b7 r7", "--rack", "A=r7")
    assert code == 1
    assert "3 x r7, but the Standard edition has only 2" in out
    assert run(capsys, "validate", "r7 r8 r9 | k7 b7 r7", "--rack", "A=r7", "--edition", "xp")[0] == 0


def test_validate_json_is_one_object(capsys) -> None:
    code, out, _ = run(capsys, "validate", "r5 b5 J", "--json")
    data = json.loads(out)
    assert code == 0 and data["valid"] is True
    assert data["sets"][0]["jokers"] == [[["k5"], ["o5"]]]


def test_validate_bad_notation_exits_2_with_what_and_where(capsys) -> None:
    code, out, err = run(capsys, "validate", "r5 r6 r14")
    assert code == 2 and out == ""
    assert err.startswith('rummi validate: "r14": no number 14 in this edition')
    assert "Traceback" not in err


def test_validate_bad_notation_with_json_is_still_one_object(capsys) -> None:
    code, out, _ = run(capsys, "validate", "r5 r6 r14", "--json")
    data = json.loads(out)
    assert code == 2 and data["position"] == 6 and data["reason"].startswith('"r14"')


def test_validate_unknown_edition_exits_2(capsys) -> None:
    code, _, err = run(capsys, "validate", "r5 r6 r7", "--edition", "deluxe")
    assert code == 2 and "known editions" in err


# --- score --------------------------------------------------------------------------------------


def test_score_the_issue_example(capsys) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "--preset",
        "pressman_us_2009",
        "--winner",
        "A",
        "--rack",
        "B=r4 b8",
        "--rack",
        "C=k10 k11 o2",
    )
    assert code == 0
    assert out.splitlines()[1:] == [
        "  A: +35  (sum of what the others lost)",
        "  B: -12  (rack r4 b8 = 12)",
        "  C: -23  (rack k10 k11 o2 = 23)",
    ]


def test_score_bank_empty_json(capsys) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "--preset",
        "pl_wikipedia_tournament",
        "--bank-empty",
        "--json",
        "--rack",
        "A=r1",
        "--rack",
        "B=r5",
        "--rack",
        "C=r10",
        "--rack",
        "D=r7 r8",
    )
    data = json.loads(out)
    assert code == 0
    assert data["scores"] == {"A": 29, "B": -5, "C": -10, "D": -15}
    assert data["zero_sum"] is False


def test_score_overrides_one_rule(capsys) -> None:
    code, out, _ = run(
        capsys, "score", "--set", "joker_penalty=50", "--winner", "A", "--rack", "D=r1 J", "--json"
    )
    assert code == 0 and json.loads(out)["scores"] == {"A": 51, "D": -51}


def test_score_never_opened(capsys) -> None:
    code, out, _ = run(
        capsys,
        "score",
        "--preset",
        "mso_2019",
        "--winner",
        "A",
        "--rack",
        "B=r4",
        "--not-opened",
        "B=could_have",
        "--json",
    )
    assert code == 0 and json.loads(out)["scores"] == {"A": 200, "B": -200}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--preset", "house", "--winner", "A", "--rack", "B=r4"], "unknown preset 'house'"),
        (["--winner", "A", "--rack", "B r4"], "write PLAYER=TILES"),
        (["--winner", "A", "--rack", "B=r4 r99"], 'rack of B: "r99": no number 99'),
        (["--winner", "A"], "give every losing player's rack"),
        (["--winner", "A", "--rack", "A=r4", "--rack", "B=r5"], "A went out but still holds r4"),
        (["--set", "joker=1", "--winner", "A", "--rack", "B=r4"], "unknown rule joker"),
        (["--winner", "A", "--rack", "B=r4", "--not-opened", "B=maybe"], "WHY one of could_not"),
        (["--bank-empty", "--winner", "A", "--rack", "B=r4"], "give the winner's rack too"),
    ],
)
def test_score_bad_input_exits_2(capsys, argv: list[str], message: str) -> None:
    code, _, err = run(capsys, "score", *argv)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_score_bad_input_with_json_prints_an_error_object(capsys) -> None:
    code, out, _ = run(capsys, "score", "--preset", "house", "--winner", "A", "--rack", "B=r4", "--json")
    assert code == 2 and "unknown preset" in json.loads(out)["error"]


def test_score_lists_presets(capsys) -> None:
    code, out, _ = run(capsys, "score", "--list-presets")
    assert code == 0 and "| `mso_2019` |" in out


def test_the_installed_command_keeps_the_exit_codes() -> None:
    # Through a real process, as a shell script would call it.
    done = subprocess.run(
        [sys.executable, "-m", "rummi.api.cli", "validate", "r5 r6 r7 | r8 r8 k8"], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "colour repeated: r8 r8 k8" in done.stdout
