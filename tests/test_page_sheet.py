"""The score sheet in a real browser: players kept in seating order, the preset fixed per match
and changed only on purpose, a question before a new match or an empty rack, undo, edit and
delete, the end of a match at a target, never-opened penalties, unsure tiles confirmed before
they count, export, and all of it still there after a reload. Every number is checked against
the engine's own scoring (:func:`rummi.engine.scoring.score_game`).
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from rummi.engine.notation import parse_tiles
from rummi.engine.scoring import score_game

from tests.page_browser import (
    SAMPLES,
    answer_dialog,
    screenshot,
    tap_tile,
    upload,
)

pytestmark = pytest.mark.browser


def start_match(
    page,
    players: str,
    *,
    preset: str | None = None,
    end: str = "none",
    goal: int | None = None,
    limit: int | None = None,
) -> None:
    page.locator("#modes [data-mode='score']").click()
    if preset:
        page.locator("#settings summary").click()
        page.locator("#preset").select_option(preset)
    page.locator("#players").fill(players)
    page.locator("#match-end").select_option(end)
    if goal is not None:
        page.locator("#match-goal").fill(str(goal))
    if limit is not None:
        page.locator("#turn-limit").fill(str(limit))
    page.locator("#new-match button[type='submit']").click()
    page.locator("#match-info").wait_for(state="visible")


def enter_round(page, winner: str, racks: dict[str, str]) -> None:
    page.locator("#winner").select_option(winner)
    for name, tiles in racks.items():
        page.locator(f"#losers input[data-player='{name}']").fill(tiles)


def score(page, rows: int) -> None:
    page.locator("#score-round").click()
    page.wait_for_function(f"document.querySelectorAll('#sheet tbody tr').length === {rows}", timeout=30_000)


def sheet(page) -> tuple[list[list[str]], list[str]]:
    """The sheet as shown: each game's row (scores only) and the totals."""
    rows = [
        [cell.inner_text() for cell in row.locator("td:not(.actions)").all()]
        for row in page.locator("#sheet tbody tr").all()
    ]
    totals = [cell.inner_text() for cell in page.locator("#sheet tfoot td").all()][:-1]
    return rows, totals


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def engine_row(players: list[str], winner: str, racks: dict[str, str], preset: str, **kwargs) -> list[int]:
    full = {p: parse_tiles(racks.get(p, "")) for p in players}
    result = score_game(full, preset, winner=winner, **kwargs)
    return [result.scores[p] for p in players]


PLAYERS = ["Ann", "Bob", "Cy"]


def test_a_match_sheet_is_kept_corrected_and_exported(page, tmp_path: Path) -> None:
    start_match(page, "Ann, Bob, Cy")
    preset = page.evaluate("window.__rummi.modes.match.current().rules.preset")
    assert preset == "pressman_us_2009"
    assert (
        "Pressman US rulebook (2009) (fixed for this match) · joker 30"
        in page.locator("#match-preset").inner_text()
    )

    game1 = {"Bob": "r4 b8", "Cy": "r1 J"}
    enter_round(page, "Ann", game1)
    score(page, 1)
    assert (
        sheet(page)[0]
        == [[signed(n) for n in engine_row(PLAYERS, "Ann", game1, preset)]]
        == [["+43", "-12", "-31"]]
    )

    # The Rules menu changes to a 50-point joker: the running match is not touched by it.
    page.locator("#settings summary").click()
    page.locator("#preset").select_option("pl_wikipedia_tournament")
    change = page.locator("#change-preset")
    assert (
        change.is_visible()
        and change.inner_text().startswith("Use ")
        and change.inner_text().endswith("for this match…")
    )
    assert "Pressman" in page.locator("#match-preset").inner_text()
    # An empty rack is a question, not a silent zero.
    enter_round(page, "Cy", {"Ann": "k13", "Bob": ""})
    page.locator("#score-round").click()
    assert "Bob has no tiles entered" in answer_dialog(page, yes=False)
    assert page.locator("#sheet tbody tr").count() == 1
    game2 = {"Ann": "k13 J", "Bob": "o2 o3"}
    enter_round(page, "Cy", game2)
    score(page, 2)
    rows, totals = sheet(page)
    expected2 = engine_row(PLAYERS, "Cy", game2, preset)  # the joker still at 30
    assert rows[1] == [signed(n) for n in expected2] == ["-43", "-5", "+48"]
    assert totals == ["0", "-17", "+17"]
    screenshot(page, tmp_path, "sheet-two-games")

    # A reload keeps everything.
    page.reload()
    page.locator("#modes [data-mode='score']").click()
    page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 2")
    assert sheet(page) == (rows, totals)

    # Edit game 1: Cy's joker was a misread.
    page.locator("#sheet button", has_text="Edit").first.click()
    assert page.locator("#score-round").inner_text() == "Save game 1"
    page.locator("#losers input[data-player='Cy']").fill("r1")
    page.locator("#score-round").click()
    page.wait_for_function("document.querySelector('#sheet tbody td').textContent === '+13'", timeout=30_000)
    rows, totals = sheet(page)
    assert (
        rows[0]
        == [signed(n) for n in engine_row(PLAYERS, "Ann", {"Bob": "r4 b8", "Cy": "r1"}, preset)]
        == ["+13", "-12", "-1"]
    )
    assert totals == ["-30", "-17", "+47"]

    # Delete game 2, then undo it.
    page.locator("#sheet button[aria-label='Delete game 2']").click()
    assert "Delete game 2" in answer_dialog(page, yes=True)
    page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 1")
    assert sheet(page)[1] == ["+13", "-12", "-1"]
    page.locator("#undo").click()
    page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 2")
    assert sheet(page) == (rows, totals)

    # A new match asks first; saying no keeps the sheet.
    page.locator("#new-match-button").click()
    assert "Start a new match?" in answer_dialog(page, yes=False)
    assert sheet(page) == (rows, totals)

    # Export: CSV and JSON with the same numbers.
    with page.expect_download() as download:
        page.locator("#export-csv").click()
    csv = Path(download.value.path()).read_text()
    assert csv.splitlines() == [
        "game,winner,Ann,Bob,Cy",
        "1,Ann,13,-12,-1",
        "2,Cy,-43,-5,48",
        "total,,-30,-17,47",
    ]
    with page.expect_download() as download:
        page.locator("#export-json").click()
    exported = json.loads(Path(download.value.path()).read_text())
    assert exported["players"] == PLAYERS and exported["preset"] == "pressman_us_2009"
    assert exported["totals"] == {"Ann": -30, "Bob": -17, "Cy": 47}

    # Changing the match's preset is its own action: every game is scored again under it.
    page.locator("#change-preset").click()
    assert "Every game on the sheet is scored again" in answer_dialog(page, yes=True)
    page.wait_for_function(
        "window.__rummi.modes.match.current().rules.preset === 'pl_wikipedia_tournament'", timeout=30_000
    )
    page.wait_for_function(
        "document.querySelector('#sheet tbody tr:nth-child(2) td').textContent === '-63'", timeout=30_000
    )
    rows, totals = sheet(page)
    assert rows[1] == [
        signed(n) for n in engine_row(PLAYERS, "Cy", game2, "pl_wikipedia_tournament", not_opened={})
    ]
    assert "Polish" in page.locator("#match-preset").inner_text()
    screenshot(page, tmp_path, "sheet-rescored")


def test_a_match_to_a_target_score_ends_there(page) -> None:
    start_match(page, "Ann, Bob", end="score", goal=50)
    enter_round(page, "Ann", {"Bob": "k13 k12 k11 k10"})
    score(page, 1)
    assert "First to 50 wins" in page.locator("#sheet").inner_text()
    enter_round(page, "Ann", {"Bob": "k9"})
    score(page, 2)
    assert sheet(page)[1] == ["+55", "-55"]
    assert "Match over: Ann wins with +55." in page.locator("#sheet").inner_text()
    assert page.locator("#round").is_hidden()


def test_a_match_of_a_number_of_games_ends_after_the_last(page) -> None:
    start_match(page, "Ann, Bob", end="games", goal=2)
    assert "2 games" in page.locator("#match-summary").inner_text()
    enter_round(page, "Bob", {"Ann": "r3"})
    score(page, 1)
    enter_round(page, "Ann", {"Bob": "r5"})
    score(page, 2)
    assert sheet(page)[1] == ["+2", "-2"]
    assert "Match over: Ann wins with +2." in page.locator("#sheet").inner_text()
    assert page.locator("#round").is_hidden()
    # Undo reopens the match.
    page.locator("#undo").click()
    page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 1")
    assert page.locator("#round").is_visible()


def test_never_opened_players_pay_the_presets_penalty(page) -> None:
    start_match(page, "Ann, Bob, Cy", preset="pl_wikipedia_tournament")
    enter_round(page, "Ann", {"Bob": "r4 b8", "Cy": "k10 b10 r10"})
    page.locator("#losers select[data-player='Cy']").select_option("could_have")
    score(page, 1)
    expected = engine_row(
        PLAYERS,
        "Ann",
        {"Bob": "r4 b8", "Cy": "k10 b10 r10"},
        "pl_wikipedia_tournament",
        not_opened={"Cy": "could_have"},
    )
    assert sheet(page)[0][0] == [signed(n) for n in expected]
    assert expected[2] == -200


def test_unsure_tiles_are_confirmed_before_they_are_scored(page, tmp_path: Path) -> None:
    """A blurred rack photo: its tiles read unsure. Scoring waits until a person has looked at them."""
    blurred = tmp_path / "rack-blurred.jpg"
    cv2.imwrite(str(blurred), cv2.GaussianBlur(cv2.imread(str(SAMPLES / "rack-rummy4-87.jpg")), (21, 21), 0))
    start_match(page, "Ann, Bob")
    page.locator("#winner").select_option("Ann")
    upload(page, blurred)  # the first empty rack: Bob's
    unsure = page.evaluate(
        "window.__rummi.state.pictures.rack.scan.uncertain.map(i => window.__rummi.state.pictures.rack.scan.tiles[i].tile)"
    )
    assert unsure, "the blurred photo should have an unsure tile"
    assert len(page.locator("#losers input[data-player='Bob']").input_value().split()) == 13
    assert "Unsure:" in page.locator("#losers .unsure-note").inner_text()
    page.locator("#score-round").click()
    page.wait_for_selector("#status.error")
    assert "Check the unsure tiles of Bob first" in page.locator("#status-text").inner_text()
    assert page.locator("#sheet tbody tr").count() == 0
    screenshot(page, tmp_path, "sheet-unsure")
    # Look at one on the picture: it is right; and the rest too ("They are right").
    tap_tile(page, unsure[0])
    page.locator("#fix-keep").click()
    if page.locator("#losers .unsure-note").count():
        page.locator("#losers .confirm-unsure").click()
    page.wait_for_function("!document.querySelector('#losers .unsure-note')")
    score(page, 1)
    bob = page.locator("#losers input[data-player='Bob']")
    assert bob.input_value() == ""
    total = sheet(page)[1]
    assert total[0].startswith("+") and total[1].startswith("-")
