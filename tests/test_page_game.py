"""A whole match as a table of three plays it, on a phone-sized page with the fake camera:

new match (8 s a turn), Referee: Ann opens (the big Capture button, the camera films the table),
a reload in the middle of Bob's turn, Bob over time (warning, alarm, vibration) who draws, Cy's
illegal turn (the broken sets drawn red, the table put back), then the end of the game with two
racks scanned, a second and a third game, the second deleted. Each turn must be on record at the
service (/games/{id}) with its verdict and time; the sheet is checked number by number against
the engine's scoring. Screenshots are saved in the test's folder (RUMMI_PAGE_SHOTS keeps copies).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from rummi.engine.notation import parse_tiles
from rummi.engine.referee.never_opened import could_have_opened
from rummi.engine.scoring import score_game

from tests.page_browser import (
    LANDSCAPE,
    PHOTOS,
    SAMPLES,
    SMALL_PHONE,
    answer_dialog,
    camera_on,
    capture,
    phone_page,
    screenshot,
    tap_tile,
    upload,
)

pytestmark = pytest.mark.browser

#: navigator.vibrate as the page calls it, kept where the test can read it.
RECORD_VIBRATION = (
    "window.__vibrations = []; navigator.vibrate = (p) => { window.__vibrations.push(p); return true; };"
)
LIMIT_S = 8
PLAYERS = ["Ann", "Bob", "Cy"]
TABLE_WOOD = "k6 k7 k8 k9 | b8 r8 o8 | o2 o3 J | r1 o1 b1"


def sets_text(sets: list[list[str]]) -> str:
    """A table in the service's JSON form (sets of tiles) as notation text."""
    return " | ".join(" ".join(s) for s in sets)


def referee_tab(page) -> None:
    page.locator("#modes [data-mode='referee']").click()


def start_refereed_match(page) -> None:
    """Referee mode, a new match of Ann and Bob, Ann's turn started: its clock shows once the
    service has made the game."""
    referee_tab(page)
    page.locator("#players").fill("Ann, Bob")
    page.locator("#new-match button[type='submit']").click()
    page.locator("#ref-start").click()
    page.locator("#turn-clock").wait_for(state="visible")


def wait_turns(page, n: int) -> None:
    page.wait_for_function(f"document.querySelectorAll('#turns li').length === {n}", timeout=60_000)


def whose_turn(page) -> str:
    return page.locator("#turn-player").inner_text()


def sheet_rows(page) -> tuple[list[list[str]], list[str]]:
    rows = [
        [c.inner_text() for c in r.locator("td:not(.actions)").all()]
        for r in page.locator("#sheet tbody tr").all()
    ]
    return rows, [c.inner_text() for c in page.locator("#sheet tfoot td").all()][:-1]


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def expected(winner: str, racks: dict[str, str]) -> list[int]:
    result = score_game(
        {p: parse_tiles(racks.get(p, "")) for p in PLAYERS}, "pressman_us_2009", winner=winner
    )
    return [result.scores[p] for p in PLAYERS]


@pytest.mark.slow  # about 15 s: Bob's turn must run past its 8 s limit
def test_a_whole_match_refereed_and_scored(browser, api_server, tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    with phone_page(browser, api_server, init_script=RECORD_VIBRATION) as page:
        camera_on(page)
        # ---- a new match -------------------------------------------------------------------
        referee_tab(page)
        assert "Start a match above" in page.locator("#ref-whose").inner_text()
        page.locator("#players").fill("Ann, Bob, Cy")
        page.locator("#turn-limit").fill(str(LIMIT_S))
        page.locator("#new-match button[type='submit']").click()
        assert f"{LIMIT_S} s a turn" in page.locator("#match-preset").inner_text()

        # ---- turn 1: Ann opens; the big Capture button takes the table after it ----------------
        page.locator("#ref-start").click()
        page.locator("#turn-clock").wait_for(state="visible")
        assert whose_turn(page) == "Ann's turn"
        assert page.locator("#turn-time").inner_text().endswith(f"/ 0:0{LIMIT_S}")
        assert "then Bob" in page.locator("#ref-whose").inner_text()
        capture(page)
        wait_turns(page, 1)
        assert page.locator("#verdict .verdict").inner_text() == "Ann: LEGAL"
        game_id = page.evaluate("window.__rummi.modes.match.current().game.id")
        # The next turn started by itself.
        assert whose_turn(page) == "Bob's turn"
        assert page.evaluate("window.__rummi.state.wakeLock") == "held"  # the screen stays on

        # ---- a reload in the middle of Bob's turn: the game and the clock go on ----------------
        started = page.evaluate("window.__rummi.modes.match.current().game.turn.startedAt")
        page.reload()
        camera_on(page)
        referee_tab(page)
        page.locator("#turn-clock").wait_for(state="visible")
        assert whose_turn(page) == "Bob's turn"
        assert page.evaluate("window.__rummi.modes.match.current().game.turn.startedAt") == started
        assert page.locator("#turns li").count() == 1

        # ---- turn 2: Bob thinks too long: a warning, then the alarm; he draws ------------------
        page.wait_for_selector("#turn-clock.warn", timeout=(LIMIT_S + 2) * 1000)
        screenshot(page, shots, "1-warning")
        page.wait_for_selector("#turn-clock.over", timeout=(LIMIT_S + 2) * 1000)
        alarms = page.evaluate("window.__rummi.state.alarms.map(a => a.kind)")
        assert alarms == ["warning", "limit"]
        assert page.evaluate("window.__vibrations.length") == 2  # a buzz for each
        screenshot(page, shots, "2-over-time")
        page.locator("#ref-drew").click()
        wait_turns(page, 2)
        verdict = page.locator("#verdict").inner_text()
        assert "Bob: ILLEGAL" in verdict and f"allows {LIMIT_S} s" in verdict and "draws 1 tile" in verdict
        assert whose_turn(page) == "Cy's turn"
        assert page.locator("#turn-clock.over").count() == 0  # a fresh clock for Cy

        # ---- turn 3: Cy breaks the table up into single tiles: illegal, drawn red --------------
        upload(page, SAMPLES / "loose-rummy3-29.jpg")
        wait_turns(page, 3)
        verdict = page.locator("#verdict").inner_text()
        assert verdict.startswith("Cy: ILLEGAL")
        assert "Put the table back as it was before the turn" in verdict
        broken = page.evaluate(
            "[...window.__rummi.state.styles.values()].filter(s => s === 'invalid').length"
        )
        assert broken == 10  # every single tile is a broken set
        screenshot(page, shots, "3-illegal")
        assert whose_turn(page) == "Ann's turn"

        # Everything is on record at the service, with verdicts and times.
        record = httpx.get(f"{api_server.url}/api/v1/games/{game_id}", timeout=30).json()
        statuses = [(t["player"], t["verdict"]["status"]) for t in record["turns"]]
        assert statuses == [("Ann", "legal"), ("Bob", "illegal"), ("Cy", "illegal")]
        assert sets_text(record["turns"][0]["after"]) == TABLE_WOOD
        assert record["turns"][1]["seconds"] > LIMIT_S and record["turns"][1]["drew"] == 1
        assert all(t["seconds"] is not None for t in record["turns"])
        assert sets_text(record["table"]) == TABLE_WOOD  # Cy's turn was undone

        # ---- the end of the game: Ann went out; Bob's and Cy's racks scanned --------------------
        page.locator("#modes [data-mode='score']").click()
        page.locator("#winner").select_option("Ann")
        upload(page, PHOTOS / "rack.jpg")  # the first rack still empty: Bob's
        upload(page, SAMPLES / "rack-rummy4-87.jpg")  # then Cy's
        bob = page.locator("#losers input[data-player='Bob']").input_value()
        cy = page.locator("#losers input[data-player='Cy']").input_value()
        assert bob == "b5 b9 o3 r1 r2 r4"
        assert sorted(cy.split()) == sorted(
            ["b2", "b5", "b6", "o2", "o2", "o9", "o13", "r2", "r4", "r13", "k3", "k8", "k13"]
        )
        page.locator("#score-round").click()
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 1", timeout=30_000)
        game1 = expected("Ann", {"Bob": bob, "Cy": cy})
        assert game1 == [24 + 82, -24, -82]
        assert sheet_rows(page) == ([[signed(n) for n in game1]], [signed(n) for n in game1])
        record = httpx.get(f"{api_server.url}/api/v1/games/{game_id}", timeout=30).json()
        assert record["finished"] and record["ending"]["scores"] == dict(zip(PLAYERS, game1, strict=True))

        # ---- a second and a third game, typed in; the second one deleted ------------------------
        page.locator("#winner").select_option("Bob")
        page.locator("#losers input[data-player='Ann']").fill("k13")
        page.locator("#losers input[data-player='Cy']").fill("o2 o3 J")
        page.locator("#score-round").click()
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 2", timeout=30_000)
        game2 = expected("Bob", {"Ann": "k13", "Cy": "o2 o3 J"})
        page.locator("#winner").select_option("Cy")
        page.locator("#losers input[data-player='Ann']").fill("r10 r11")
        page.locator("#losers input[data-player='Bob']").fill("b1")
        page.locator("#score-round").click()
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 3", timeout=30_000)
        game3 = expected("Cy", {"Ann": "r10 r11", "Bob": "b1"})
        rows, totals = sheet_rows(page)
        assert rows == [[signed(n) for n in g] for g in (game1, game2, game3)]
        assert totals == [signed(sum(g[i] for g in (game1, game2, game3))) for i in range(3)]

        page.locator("#sheet button[aria-label='Delete game 2']").click()
        answer_dialog(page, yes=True)
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 2", timeout=30_000)
        rows, totals = sheet_rows(page)
        assert rows == [[signed(n) for n in g] for g in (game1, game3)]
        assert totals == [signed(game1[i] + game3[i]) for i in range(3)] == ["+85", "-25", "-60"]
        screenshot(page, shots, "4-sheet")


def test_restarting_a_running_turn_asks_first(browser, api_server) -> None:
    with phone_page(browser, api_server) as page:
        camera_on(page)
        start_refereed_match(page)
        started = page.evaluate("window.__rummi.modes.match.current().game.turn.startedAt")
        page.locator("#ref-before").click()
        assert "Restart Ann's turn?" in answer_dialog(page, yes=False)
        assert page.evaluate("window.__rummi.modes.match.current().game.turn.startedAt") == started
        page.locator("#ref-before").click()
        answer_dialog(page, yes=True)
        page.wait_for_function(
            f"window.__rummi.modes.match.current().game.turn.startedAt > {started}", timeout=60_000
        )
        page.wait_for_function("!window.__rummi.state.busy")
        # The restarted turn keeps the table the camera saw as its "before".
        assert page.evaluate("window.__rummi.modes.match.current().game.turn.before.text") == TABLE_WOOD
        assert whose_turn(page) == "Ann's turn"
        assert page.locator("#turns li").count() == 0


@pytest.mark.parametrize("viewport", [SMALL_PHONE, LANDSCAPE], ids=["360x640", "landscape"])
def test_a_refereed_turn_on_a_small_phone_and_on_its_side(
    browser, api_server, tmp_path: Path, viewport
) -> None:
    with phone_page(browser, api_server, viewport) as page:
        camera_on(page)
        start_refereed_match(page)
        page.evaluate("window.scrollTo(0, 0)")
        clock, stage = page.locator("#turn-clock").bounding_box(), page.locator("#stage").bounding_box()
        assert (
            stage["x"] <= clock["x"] and clock["x"] + clock["width"] <= stage["x"] + stage["width"]
        )  # over the camera
        assert page.locator("#capture").inner_text() == "Capture: turn done"
        button = page.locator("#capture").bounding_box()
        assert button["y"] + button["height"] <= viewport["height"]  # no scrolling to end a turn
        capture(page)
        wait_turns(page, 1)
        assert page.locator("#verdict .verdict").inner_text() == "Ann: LEGAL"
        assert whose_turn(page) == "Bob's turn"
        screenshot(page, tmp_path, f"referee-{viewport['width']}x{viewport['height']}")
        # A misread tile in the table before Bob's turn is corrected before he plays.
        tap_tile(page, "k6")
        page.locator("#fix [data-colour='k']").click()
        page.locator("#fix .numbers button", has_text="5").first.click()
        page.wait_for_function(
            "window.__rummi.modes.match.current().game.turn.before.text.startsWith('k5 k7')"
        )
        assert "Corrected: Bob's turn starts from k5 k7 k8 k9" in page.locator("#status-text").inner_text()


def test_a_refereed_game_knows_who_never_opened(browser, api_server) -> None:
    """Under PL-WIKI a loser who never opened pays 100 or 200: the referee's record says who
    opened, and the service decides from the rack whether the others could have."""
    with phone_page(browser, api_server) as page:
        camera_on(page)
        page.locator("#settings summary").click()
        page.locator("#preset").select_option("pl_wikipedia_tournament")
        start_refereed_match(page)
        capture(page)  # Ann opens with the table the camera films
        wait_turns(page, 1)
        page.locator("#modes [data-mode='score']").click()
        page.locator("#winner").select_option("Ann")
        upload(page, PHOTOS / "rack.jpg")  # Bob's rack
        bob = page.locator("#losers select[data-player='Bob']")
        assert bob.input_value() == "auto"
        assert bob.locator("option:checked").inner_text() == "As refereed (never opened)"
        rack = page.locator("#losers input[data-player='Bob']").input_value()
        assert rack == "b5 b9 o3 r1 r2 r4"
        page.locator("#score-round").click()
        page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 1", timeout=30_000)
        check = could_have_opened(parse_tiles(rack), rules="pl_wikipedia_tournament")
        assert sheet_rows(page)[0] == [[signed(check.penalty), signed(-check.penalty)]]


def test_a_turn_whose_answer_was_lost_is_recorded_once(browser, api_server) -> None:
    """The service records the turn but the answer never reaches the phone: Retry sends the
    same turn again with the same Idempotency-Key, and the game has it once."""
    with phone_page(browser, api_server) as page:
        camera_on(page)
        start_refereed_match(page)
        keys: list[str | None] = []

        def lose_the_answer(route) -> None:
            keys.append(route.request.headers.get("idempotency-key"))
            if len(keys) == 1:
                route.fetch()  # the service records the turn...
                route.abort("connectionreset")  # ...and the phone never hears back
            else:
                route.continue_()

        page.route("**/api/v1/games/*/turns", lose_the_answer)
        page.locator("#capture").click()
        page.wait_for_selector("#status.error", timeout=60_000)
        assert "Can't reach the Rummi server" in page.locator("#status-text").inner_text()
        page.locator("#retry").click()
        wait_turns(page, 1)
        assert len(keys) == 2 and keys[0] == keys[1] and keys[0]
        game_id = page.evaluate("window.__rummi.modes.match.current().game.id")
        record = httpx.get(f"{api_server.url}/api/v1/games/{game_id}", timeout=30).json()
        assert [t["player"] for t in record["turns"]] == ["Ann"]
        assert whose_turn(page) == "Bob's turn"
