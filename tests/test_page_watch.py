"""The Referee mode's automatic referee in chromium, on a real `rummi serve` with its models.

A phone on a stand films the table: table A, then a hand and arm over it that lays down a set,
then table B with the set added. The frames are drawn from the bundled tile photos the way the
watch test videos are (datasets/videos.TableView, draw_hand) and played by a scripted camera
(the page's getUserMedia gets a canvas stream whose picture the test sets), so the test decides
when the hand comes, whatever the machine's speed. The service's tracker must find the turn, the
page must show it (player, tiles, seconds, verdict, its consequence) and the stored game must
hold it; then Drew a tile and Stop. The server wants a token, so every watch call must carry
the one the page took from its link. Screenshots: phone portrait and a tablet on its side
(RUMMI_PAGE_SHOTS keeps copies).
"""

from __future__ import annotations

import base64
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import Error as PlaywrightError
from rummi.datasets.videos import TableView, draw_hand, sample_tile_bank

from tests.api_server import Server, serving_with_token
from tests.page_browser import PHONE, phone_page, poll, screenshot
from tests.test_page_layout import axe_problems

pytestmark = pytest.mark.browser

TOKEN = "organiser-watch-5678"
SIZE = (1280, 720)
TABLET_LANDSCAPE = {"width": 1180, "height": 820}
TABLE_A = {0: ("k3", "k4", "k5"), 4: ("b8", "k8", "o8", "r8")}
TABLE_B = {**TABLE_A, 2: ("r11", "r12", "r13")}  # Ann opens with 36 points
#: The page's camera: a canvas stream showing whatever picture the test last gave it.
SCRIPTED_CAMERA = """
(() => {
  const canvas = document.createElement("canvas");
  canvas.width = WIDTH; canvas.height = HEIGHT;
  const ctx = canvas.getContext("2d");
  let picture = null;
  // A stream with no frame would hold the page's load event (the video waits for its first).
  const paint = () => {
    if (picture) ctx.drawImage(picture, 0, 0, canvas.width, canvas.height);
    else { ctx.fillStyle = "#333"; ctx.fillRect(0, 0, canvas.width, canvas.height); }
  };
  setInterval(paint, 50);
  window.__camera = {
    show: async (url) => { const image = new Image(); image.src = url; await image.decode(); picture = image; paint(); },
  };
  navigator.mediaDevices.getUserMedia = async () => canvas.captureStream(20);
})();
""".replace("WIDTH", str(SIZE[0])).replace("HEIGHT", str(SIZE[1]))


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Server:
    workdir = tmp_path_factory.mktemp("rummi-watch-page")
    with serving_with_token(workdir, TOKEN) as server:
        yield server


@pytest.fixture(scope="module")
def film() -> dict[str, list[str]]:
    """The camera's pictures as data URLs: table A, the hand laying the set, table B."""
    view = TableView(np.random.default_rng(5), SIZE, sample_tile_bank(), "wood")

    def url(image: np.ndarray) -> str:
        jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
        return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode()

    entry = np.array([SIZE[0] * 0.5, SIZE[1] + 40.0])
    target = np.array([*view.slot_origin(2)]) + [view.tile_width * 2, view.tile_width]
    hand = []
    for k in range(8):
        reach = np.sin(np.pi * (k + 0.5) / 8)
        tip = entry + (target - entry) * min(1.0, reach * 1.25) + np.array([np.sin(k * 2.1), np.cos(k * 1.7)]) * 25
        image = view.draw(TABLE_A if k < 4 else TABLE_B).copy()
        draw_hand(image, entry, tip, SIZE[0] / 1280)
        hand.append(url(image))
    return {"a": [url(view.draw(TABLE_A))], "hand": hand, "b": [url(view.draw(TABLE_B))]}


def show(page, picture: str) -> None:
    page.evaluate("(url) => window.__camera.show(url)", picture)


def new_match_on_camera(page, picture: str) -> None:
    """The camera shows ``picture``; referee mode, a new match of Ann and Bob (not yet started:
    each test starts watching its own way)."""
    show(page, picture)
    page.wait_for_function("!document.querySelector('#capture').disabled", timeout=20_000)
    page.locator("#modes [data-mode='referee']").click()
    page.locator("#players").fill("Ann, Bob")
    page.locator("#new-match button[type='submit']").click()


def watch_state(page) -> str:
    return page.evaluate("document.querySelector('#ref-auto-state').dataset.state || ''")


@pytest.mark.slow  # about 20 s: the models read the table a few times
def test_the_camera_finds_the_turn_and_the_game_records_it(browser, guarded, film, tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    with phone_page(browser, guarded, PHONE, path=f"/#token={TOKEN}", init_script=SCRIPTED_CAMERA) as page:
        new_match_on_camera(page, film["a"][0])

        # Keyboard: the toggle is a real checkbox.
        page.locator("#ref-auto").focus()
        page.keyboard.press("Space")
        poll(page, "window.__rummi.state.watch.session !== null", 60)
        session = page.evaluate("window.__rummi.state.watch.session")
        game_id = page.evaluate("window.__rummi.modes.match.current().game.id")
        assert page.locator("#live").is_disabled() and page.locator("#capture").is_disabled()
        poll(page, "document.querySelector('#ref-auto-state').dataset.state === 'settled'", 60)
        assert page.locator("#ref-auto-state").inner_text() == "Settled: 7 tiles read, the table is still."
        page.locator("#turn-clock").wait_for(state="visible")
        assert page.locator("#turn-player").inner_text() == "Ann's turn"
        assert page.locator("#turn-state").inner_text().lower() == "settled"
        assert_clock_under_the_picture(page)
        # The Read panel shows what the tracker read, not "Nothing read yet."
        assert page.locator("#read-text").text_content() == "Table, as the camera reads it: 1: k3 k4 k5  2: b8 k8 o8 r8"
        assert not axe_problems(page)

        # A hand reaches in and lays r11 r12 r13; the page sees it move, then the new table.
        for picture in film["hand"]:
            show(page, picture)
            time.sleep(0.25)
        show(page, film["b"][0])
        events = page.evaluate("window.__rummi.state.watch.events.map(e => e.event)")
        assert "disturbed" in events
        page.wait_for_function("document.querySelectorAll('#turns li').length === 1", timeout=60_000)
        verdict = page.locator("#verdict").inner_text()
        assert "Turn 1, Ann: LEGAL" in verdict and "Played: r11 r12 r13" in verdict, verdict
        assert "No penalty" in verdict or "stands" in verdict, verdict
        assert page.locator("#turns li").first.inner_text().startswith("Ann: legal")
        assert page.locator("#turn-player").inner_text() == "Bob's turn"  # the clock moved on
        assert "r11 r12 r13" in page.locator("#read-text").inner_text()
        screenshot(page, shots, "watch-phone")
        page.set_viewport_size(TABLET_LANDSCAPE)
        assert_clock_under_the_picture(page)
        screenshot(page, shots, "watch-tablet-landscape")
        page.set_viewport_size(PHONE)

        # Every frame waited for the answer to the one before: the service never had to skip
        # one, and ticks that came while a frame was being read dropped theirs.
        counts = page.evaluate("window.__rummi.state.watch")
        assert counts["sent"] >= 10 and counts["skipped"] == 0 and counts["dropped"] >= 1, counts

        with guarded.client() as client:
            stored = client.get(f"/api/v1/games/{game_id}").json()
            assert [t["player"] for t in stored["turns"]] == ["Ann"]
            assert stored["turns"][0]["verdict"]["status"] == "legal" and stored["turns"][0]["verdict"]["opens"]
            assert sorted(stored["turns"][0]["verdict"]["played"]) == ["r11", "r12", "r13"]
            assert stored["next_player"] == "Bob"

        # Bob draws: the operator's button posts it to the session, and the game records it.
        page.locator("#ref-drew").click()
        page.wait_for_function("document.querySelectorAll('#turns li').length === 2", timeout=30_000)
        assert "Bob: legal" in page.locator("#turns li").nth(1).inner_text()
        assert page.locator("#turn-player").inner_text() == "Ann's turn"

        # A reload carries on with the same session (the camera shows table B again first).
        page.reload()
        show(page, film["b"][0])
        page.wait_for_function("!document.querySelector('#capture').disabled", timeout=20_000)
        page.locator("#modes [data-mode='referee']").click()
        poll(page, f"window.__rummi.state.watch.session === {session!r}", 20)
        assert page.locator("#ref-auto").is_checked() and page.locator("#turns li").count() == 2
        page.locator("#turn-clock").wait_for(state="visible")
        assert page.locator("#turn-player").inner_text() == "Ann's turn"

        # Stop ends the session at the service.
        page.locator("#ref-auto-stop").click()
        poll(page, "document.querySelector('#status-text').textContent.startsWith('Stopped watching')", 10)
        assert not page.locator("#ref-auto").is_checked() and page.locator("#ref-auto-stop").is_hidden()
        assert page.locator("#stage > #turn-clock").count() == 1  # by hand, the clock is over the picture again
        with guarded.client() as client:
            assert client.get(f"/api/v1/watch/{session}").status_code == 404
            stored = client.get(f"/api/v1/games/{game_id}").json()
            assert [t["player"] for t in stored["turns"]] == ["Ann", "Bob"] and stored["turns"][1]["drew"]
        assert not page.locator("#capture").is_disabled()


def assert_clock_under_the_picture(page) -> None:
    """Watching, the clock hides no part of the camera's picture: it sits below it."""
    clock, stage = page.locator("#turn-clock").bounding_box(), page.locator("#stage").bounding_box()
    assert clock and stage and clock["y"] >= stage["y"] + stage["height"] - 0.5, (clock, stage)


def amended_turn(at: float) -> dict:
    """Ann went on after the pause: turn 1 again, r5 r6 r7 laid, legal, as the tracker reports it."""
    from rummi.engine.notation import parse_tiles
    from rummi.engine.referee import judge_turn

    before = [parse_tiles("k3 k4 k5")]
    after = [parse_tiles("k3 k4 k5"), parse_tiles("r5 r6 r7")]
    verdict = judge_turn(before, after, opened=True, rules="pressman_us_2009", seconds=9.0)
    return {"event": "turn", "time": at, "number": 1, "amends": 1, "player": "Ann",
            "before": [[str(t) for t in s] for s in before], "after": [[str(t) for t in s] for s in after],
            "played": [str(t) for t in verdict.played], "seconds": 9.0, "started": 0.0, "first_hand": None,
            "settled_at": at, "drew": False, "opened": True, "verdict": verdict.to_dict(), "game_turn": 4}


def unjudged_amend(at: float) -> dict:
    """Ann went on after the pause and the tracker could not judge that reading: no verdict."""
    event = {**amended_turn(at), "event": "uncertain", "reason": "the reading cannot be judged: too many tiles"}
    del event["verdict"], event["played"], event["game_turn"]
    return event


def uncertain_turn(at: float) -> dict:
    """An `uncertain` event as the tracker reports one: Ann laid r5 r6 and a tile read o7 (unsure,
    could be r7); the engine's own verdict on it, with the tiles it hangs on."""
    from rummi.engine.notation import parse_tiles
    from rummi.engine.referee import Side, Spot, judge_turn

    before = [parse_tiles("k3 k4 k5")]
    after = [parse_tiles("k3 k4 k5"), parse_tiles("r5 r6 o7")]
    verdict = judge_turn(before, after, opened=True, rules="pressman_us_2009", seconds=4.2,
                         uncertain=[Spot(Side.AFTER, 1, 2)])
    assert verdict.status.value == "uncertain"
    depends_on = [{"tile": str(d.seen), "where": str(d.spot), "alternatives": [str(t) for t in d.alternatives],
                   "violation": v.code.value} for v in verdict.violations for d in v.doubts]
    return {"event": "uncertain", "time": at, "number": 1, "player": "Ann",
            "before": [[str(t) for t in s] for s in before], "after": [[str(t) for t in s] for s in after],
            "played": [str(t) for t in verdict.played], "seconds": 4.2, "started": 0.0, "first_hand": None,
            "settled_at": at, "drew": False, "opened": True, "verdict": verdict.to_dict(), "depends_on": depends_on,
            "game_turn": 4}


def test_an_uncertain_turn_asks_to_check_the_tiles_and_accuses_nobody(browser, guarded, film) -> None:
    # The service's answer to one frame, once the table is read, also carries an uncertain turn
    # (reading a tile unsure on purpose is not something a test can ask of the models), and a
    # later one the turn amended (Ann went on after a pause), which replaces it in the list.
    # The first frame meets a busy service (503): the page loses that frame and goes on watching.
    injected, refused, amend = [], [], []

    def answer(route) -> None:
        if not refused:
            refused.append(route.request.url)
            route.fulfill(status=503, json={"detail": "busy", "error": "ScansBusy"}, headers={"Retry-After": "2"})
            return
        try:
            response = route.fetch()
            body = response.json()
            if response.status == 200 and body.get("state") == "settled" and not injected:
                injected.append(uncertain_turn(body["time"]))
                body["events"].append(injected[0])
            elif response.status == 200 and 0 < len(injected) <= len(amend):
                injected.append((unjudged_amend if len(injected) == 1 else amended_turn)(body["time"]))
                body["events"].append(injected[-1])
            route.fulfill(response=response, json=body)
        except PlaywrightError:
            pass  # a frame still in flight when the test closes the page

    with phone_page(browser, guarded, PHONE, path=f"/#token={TOKEN}", init_script=SCRIPTED_CAMERA) as page:
        page.route("**/api/v1/watch/frame*", answer)
        new_match_on_camera(page, film["a"][0])
        # Amending a pause is the session's setting, sent when watching starts (and fixed then).
        page.locator("#ref-amend").uncheck()
        with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/v1/watch")) as started:
            page.locator("#ref-auto").check()
        assert started.value.post_data_json["amend_pauses"] is False
        page.wait_for_function("document.querySelectorAll('#turns li').length === 1", timeout=60_000)
        assert page.locator("#ref-amend").is_disabled() and not page.locator("#ref-amend").is_checked()
        verdict = page.locator("#verdict").inner_text()
        # The session's turn 1 is the game's turn 4 (three were recorded before watching began):
        # the page shows the game's number and replaces that turn when the tracker amends its 1.
        assert "Turn 4, Ann: not sure, check tiles o7 (or r4, r7, J)" in verdict, verdict
        assert "ILLEGAL" not in verdict.upper().replace("NOT SURE", "") and "Penalty" not in verdict, verdict
        listed = page.locator("#turns li").first.inner_text()
        assert listed.startswith("Ann: not sure") and "check tiles o7" in listed, listed
        assert "not sure, check tiles o7" in page.locator("#status-text").inner_text()
        assert len(refused) == 1  # the turn above came after the refused frame: watching went on
        # Ann goes on after a pause, but that reading cannot be judged: her turn as listed stands.
        amend.append(True)
        page.wait_for_function("document.querySelector('#verdict').textContent.includes('check the table')", timeout=30_000)
        assert page.locator("#turns li").count() == 1
        listed = page.locator("#turns li").first.inner_text()
        assert "check tiles o7" in listed and "played o7 r5 r6" in listed, listed  # the first part's turn
        # Then the tracker amends turn 1 again, judged this time, and the page replaces it.
        amend.append(True)
        page.wait_for_function("document.querySelector('#verdict').textContent.includes('after a pause): LEGAL')",
                               timeout=30_000)
        assert page.locator("#turns li").count() == 1
        assert page.locator("#turns li").first.inner_text().startswith("Ann: legal")
        assert "Turn 4, Ann (went on after a pause): LEGAL" in page.locator("#verdict").inner_text()
        page.locator("#ref-auto-stop").click()
