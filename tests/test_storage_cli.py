"""`rummi game`: a whole game kept from the command line, then exported."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rummi.api.cli import main


@pytest.fixture
def rummi(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    db = f"sqlite:///{tmp_path / 'games.db'}"

    def run(*argv: str) -> tuple[int, str]:
        code = main(["game", *argv, "--db", db])
        out, err = capsys.readouterr()
        return code, out + err

    return run


def test_a_game_from_first_turn_to_score_sheet(rummi, tmp_path: Path) -> None:
    code, out = rummi("new", "--players", "Ann", "Bob", "--preset", "pressman_us_2009")
    assert (code, out.strip()) == (0, "1")
    assert rummi("turn", "1", "--after", "r10 r11 r12", "--seconds", "31")[0] == 0
    code, out = rummi("turn", "1", "--after", "r10 r11 r12 | k1 k2")  # Bob lays an invalid set
    assert code == 1 and "[invalid_set]" in out and "draws 3 tiles" in out
    assert rummi("turn", "1", "--drew")[0] == 0  # Ann draws; turn 3 starts from the restored table
    code, out = rummi("show", "1")
    assert "  3 Ann: legal, drew 1  ->  r10 r11 r12" in out
    code, out = rummi("end", "1", "--winner", "Ann", "--rack", "Ann=", "--rack", "Bob=k5 J")
    assert code == 0 and "Bob: -35" in out
    code, out = rummi("export", "1", "--format", "json")
    data = json.loads(out)
    assert [t["verdict"]["status"] for t in data["turns"]] == ["legal", "illegal", "legal"]
    assert data["ending"]["scores"] == {"Ann": 35, "Bob": -35}
    sheet = tmp_path / "sheet.csv"
    assert rummi("export", "1", "--format", "csv", "-o", str(sheet))[0] == 0
    rows = list(csv.reader(io.StringIO(sheet.read_text())))
    assert rows[-1] == ["total", "", "", "Ann", "35", "-35"]
    code, out = rummi("turn", "1", "--after", "r10 r11 r12 r13")
    assert code == 2 and "is over" in out


def test_unknown_games_and_bad_urls_are_bad_input(rummi, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = rummi("show", "7")
    assert code == 2 and out.strip() == "rummi game: no game 7"
    assert main(["game", "list", "--db", "mysql://nowhere"]) == 2


def test_a_bad_not_opened_reason_names_the_choices(rummi) -> None:
    rummi("new", "--players", "Ann", "Bob", "--preset", "pl_wikipedia_tournament")
    racks = ("--rack", "Ann=", "--rack", "Bob=k5")
    code, out = rummi("end", "1", "--winner", "Ann", *racks, "--not-opened", "Bob=maybe")
    assert code == 2 and "WHY one of could_not, could_have, announced" in out


def test_a_game_started_here_enforces_its_order_in_the_service_as_the_services_own(rummi, tmp_path: Path) -> None:
    """`rummi game new` and `POST /games` give a game the same turn order rule (one default)."""
    from rummi.api.storage import GameStore

    rummi("new", "--players", "Ann", "Bob")
    rummi("new", "--players", "Ann", "Bob", "--free-order")
    with GameStore.open(f"sqlite:///{tmp_path / 'games.db'}") as store:
        assert [store.load_record(n).enforce_order for n in (1, 2)] == [True, False]


def test_a_turn_out_of_order_is_refused_unless_the_organiser_says_so(rummi) -> None:
    """The command line keeps a game to its turn order as the service does; `--out-of-turn`
    is the organiser's correction, and a free-order game takes anyone."""
    rummi("new", "--players", "Ann", "Bob")
    code, out = rummi("turn", "1", "--player", "Bob", "--after", "r10 r11 r12")
    assert code == 2 and "turn 1 is Ann's, not Bob's" in out and "nothing was recorded" in out
    assert "in progress; next: Ann" in rummi("show", "1")[1]
    code, out = rummi("turn", "1", "--player", "Bob", "--after", "r10 r11 r12", "--out-of-turn")
    assert code == 0 and out.startswith("turn 1, Bob: legal")
    rummi("new", "--players", "Ann", "Bob", "--free-order")
    assert rummi("turn", "2", "--player", "Bob", "--after", "r10 r11 r12")[0] == 0
