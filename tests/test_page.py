"""The camera page in a real browser: Debian's chromium, headless, with a fake camera that
films a bundled table photo. The page must open the camera, capture, and show the right tiles.

Chromium plays a .y4m file as the camera (``--use-file-for-fake-video-capture``); the file is
made here from ``tests/data/photos/table-wood.jpg`` with OpenCV. The test keeps a screenshot in
its temporary folder (and ``RUMMI_SCREENSHOT=path`` saves one more copy, e.g. for the README).
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.api_server import DATA, Server

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PHOTO = DATA / "photos" / "table-wood.jpg"
#: The 15 tiles of that photo: four sets of three or more, and a pair (o7 r7) the layout takes
#: for a rack.
TRUTH = ["k6", "k7", "k8", "k9", "b8", "r8", "o8", "o2", "o3", "J", "r1", "o1", "b1", "o7", "r7"]
#: A phone-sized viewport (CSS pixels), as the page is meant to be used.
PHONE = {"width": 412, "height": 915}


def write_y4m(photo: Path, target: Path, frames: int = 4) -> Path:
    """A short Y4M clip of one photo (4:2:0, even size), the format chromium's fake camera reads."""
    image = cv2.imread(str(photo))
    height, width = image.shape[0] // 2 * 2, image.shape[1] // 2 * 2
    yuv = cv2.cvtColor(np.ascontiguousarray(image[:height, :width]), cv2.COLOR_BGR2YUV_I420)
    with target.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F5:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n")
            out.write(yuv.tobytes())
    return target


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"chromium not found at {CHROMIUM}: run scripts/setup-system.sh (apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    clip = write_y4m(PHOTO, tmp_path_factory.mktemp("camera") / "table.y4m")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--headless",
                "--disable-gpu",
                "--use-fake-ui-for-media-stream",
                "--use-fake-device-for-media-stream",
                f"--use-file-for-fake-video-capture={clip}",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture()
def page(browser, api_server: Server):
    # bypass_csp: playwright's wait_for_function evaluates its string with eval(), which the
    # page's Content-Security-Policy forbids; tests/test_api_page_csp.py runs the page under it.
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(api_server.url + "/")
    yield page
    context.close()
    assert not errors, f"script errors on the page: {errors}"


def camera_on(page) -> None:
    """Wait until the page has the (fake) camera streaming: Capture is enabled then."""
    page.wait_for_function("!document.querySelector('#capture').disabled", timeout=20_000)
    assert page.evaluate("document.querySelector('#video').videoWidth") > 0


def capture(page) -> None:
    """Press Capture and wait for the reading, or fail with what the page said instead."""
    page.locator("#capture").click()
    page.wait_for_function(
        "window.__rummi.state.scan !== null || document.querySelector('#status').classList.contains('error')",
        timeout=60_000,
    )
    status = page.locator("#status")
    assert "error" not in (status.get_attribute("class") or ""), status.inner_text()


def test_the_page_opens_the_camera_captures_and_shows_the_tiles(page, tmp_path: Path) -> None:
    camera_on(page)
    capture(page)
    # Table mode checks every set once the reading is in.
    page.wait_for_selector("#table-sets li.valid", timeout=30_000)

    read = page.evaluate("window.__rummi.state.scan.tiles.map(t => t.tile)")
    assert Counter(read) == Counter(TRUTH), f"read {sorted(read)}"
    assert page.locator("#table-sets li").count() == 4
    assert page.locator("#table-sets li.valid").count() == 4
    assert "k6 k7 k8 k9" in page.locator("#table-sets").inner_text()
    assert "Rack: o7 r7" in page.locator("#read-text").inner_text()

    shot = tmp_path / "page.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("RUMMI_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["RUMMI_SCREENSHOT"])


def test_a_tile_can_be_corrected_by_tapping_it(page) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li", timeout=30_000)

    # Tap the middle of the first tile of the first set, as a finger would.
    point = page.evaluate(
        """() => {
          const {scan} = window.__rummi.state;
          const canvas = document.querySelector('#photo');
          const rect = canvas.getBoundingClientRect();
          const scale = Math.min(rect.width / canvas.width, rect.height / canvas.height);
          const i = scan.sets[0][0];
          const c = scan.tiles[i].corners;
          const x = c.reduce((s, p) => s + p[0], 0) / 4, y = c.reduce((s, p) => s + p[1], 0) / 4;
          return {i, label: scan.tiles[i].tile,
                  x: rect.left + (rect.width - canvas.width * scale) / 2 + x * scale,
                  y: rect.top + (rect.height - canvas.height * scale) / 2 + y * scale};
        }"""
    )
    page.mouse.click(point["x"], point["y"])
    dialog = page.locator("#fix")
    dialog.wait_for(state="visible")
    assert page.locator("#fix-was").inner_text() == point["label"]
    dialog.locator("[data-colour='k']").click()
    dialog.locator(".numbers button", has_text="13").first.click()
    page.wait_for_function(f"window.__rummi.state.scan.tiles[{point['i']}].tile === 'k13'")
    # The corrected table is checked again: that set is now invalid.
    page.wait_for_selector("#table-sets li.invalid", timeout=30_000)
    assert not page.locator("#save-corrections").is_disabled()


def test_live_mode_merges_frames_and_reads_the_table(page) -> None:
    camera_on(page)
    page.locator("#live").check()
    page.wait_for_function(
        "document.querySelector('#status').textContent.startsWith('Live:')", timeout=60_000
    )
    page.wait_for_selector("#table-sets li", timeout=30_000)
    read = page.evaluate("window.__rummi.state.scan.tiles.map(t => t.tile)")
    assert Counter(read) == Counter(TRUTH)
    page.locator("#live").uncheck()


TRACK = """async (frames) => {
  const { TileTracker } = await import('/static/merge.js');
  const tracker = new TileTracker();
  const box = [[0, 0], [30, 0], [30, 40], [0, 40]];
  const shifted = box.map(([x, y]) => [x + 2, y + 1]);  // a hand-held camera moves a little
  return frames.map((tile, n) => {
    const { changed, tiles } = tracker.update([{ tile, confidence: 0.9, corners: n % 2 ? shifted : box }]);
    return [changed, tiles.map(t => t.tile).join(' ')];
  });
}"""


def test_the_tracker_ignores_a_tile_misread_in_one_frame(page) -> None:
    """merge.js on its own: r5 read in every frame but one stays r5, and the flicker is no change."""
    steps = page.evaluate(TRACK, ["r5", "r5", "r5", "r5", "r6", "r5", "r5"])
    # Nothing is shown until the tile was seen twice; then r5 throughout.
    assert steps == [[False, ""], [True, "r5"]] + [[False, "r5"]] * 5


def test_the_tracker_follows_a_real_change_after_two_frames(page) -> None:
    steps = page.evaluate(TRACK, ["r5"] * 8 + ["r6", "r6", "r6"])
    assert [shown for _, shown in steps[8:]] == ["r5", "r6", "r6"]
    assert [changed for changed, _ in steps[8:]] == [False, True, False]


def test_the_end_of_game_sheet_adds_up_rounds(page) -> None:
    """End of game, with the racks typed instead of scanned: two rounds on the running sheet."""
    page.locator("#modes [data-mode='score']").click()
    page.locator("#players").fill("Ann, Bob, Cy")
    page.locator("#new-game button").click()
    page.locator("#winner").select_option("Ann")
    page.locator("#losers input[data-player='Bob']").fill("r4 b8")
    page.locator("#losers input[data-player='Cy']").fill("r1 J")
    page.locator("#score-round").click()
    page.wait_for_selector("#sheet table tbody tr")

    page.locator("#winner").select_option("Cy")
    page.locator("#losers input[data-player='Ann']").fill("k13")
    page.locator("#losers input[data-player='Bob']").fill("o2 o3")
    page.locator("#score-round").click()
    page.wait_for_function("document.querySelectorAll('#sheet tbody tr').length === 2")

    totals = page.locator("#sheet tfoot td").all_inner_texts()
    assert totals == ["Total", "+30", "-17", "-13"]  # Ann 43-13, Bob -12-5, Cy -31+18
    assert "Leading: Ann" in page.locator("#sheet").inner_text()


def test_my_rack_mode_asks_for_the_best_move(page) -> None:
    """Table and rack in one picture: the rack here is o7 r7, and nothing on this table takes them."""
    camera_on(page)
    page.locator("#modes [data-mode='rack']").click()
    page.locator("#opened").check()
    capture(page)
    page.wait_for_selector("#hint-result .verdict", timeout=60_000)
    assert page.locator("#hint-result .verdict").inner_text() == "Draw a tile"
    assert "no rack tile fits on the table" in page.locator("#hint-result").inner_text()


def test_the_referee_times_a_turn_and_gives_the_verdict(page) -> None:
    """Before and after pictures of the same table: the player played nothing and must draw."""
    camera_on(page)
    page.locator("#modes [data-mode='referee']").click()
    page.locator("#ref-before").click()  # captures the table before the turn
    page.wait_for_function("!document.querySelector('#ref-after').disabled", timeout=60_000)
    page.wait_for_function("document.querySelector('#timer').textContent.startsWith('0:01')", timeout=10_000)
    assert page.locator("#timer").inner_text().endswith("/ 2:00")  # the default preset's turn limit
    page.locator("#ref-after").click()
    page.wait_for_function(
        "document.querySelector('#verdict .verdict') || document.querySelector('#status.error')",
        timeout=60_000,
    )
    assert not page.locator("#status.error").count(), page.locator("#status").inner_text()
    assert page.locator("#verdict .verdict").inner_text() == "ILLEGAL"
    verdict = page.locator("#verdict").inner_text()
    assert "no tile was played from the rack" in verdict
    assert "The player draws 1 tile." in verdict


def service_fails(page, path: str, detail: str) -> None:
    """From now on the page's calls to ``/api/v1/<path>`` get a 503 with this ``detail``."""
    body = json.dumps({"detail": detail})
    page.route(
        f"**/api/v1/{path}",
        lambda route: route.fulfill(status=503, content_type="application/json", body=body),
    )


def test_a_failed_hint_after_ticking_opened_says_why(page) -> None:
    """Ticking "already opened" asks for a new hint; when the service fails the page must say so."""
    camera_on(page)
    page.locator("#modes [data-mode='rack']").click()
    capture(page)
    page.wait_for_selector("#hint-result .verdict", timeout=60_000)
    service_fails(page, "hint", "solver unavailable")
    page.locator("#opened").check()
    page.wait_for_selector("#status.error", timeout=10_000)
    assert page.locator("#status").inner_text() == "solver unavailable"


def test_a_failed_verdict_lets_the_referee_capture_the_table_again(page) -> None:
    """The turn goes on when the service cannot judge it: the message shows, "after" is offered again."""
    camera_on(page)
    page.locator("#modes [data-mode='referee']").click()
    page.locator("#ref-before").click()
    page.wait_for_function("!document.querySelector('#ref-after').disabled", timeout=60_000)
    service_fails(page, "turns/judge", "referee unavailable")
    page.locator("#ref-after").click()
    page.wait_for_selector("#status.error", timeout=60_000)
    assert page.locator("#status").inner_text() == "referee unavailable"
    page.wait_for_function("!document.querySelector('#ref-after').disabled", timeout=5_000)
