"""The camera page in a real browser (tests/page_browser.py): it opens the camera, captures, shows
the right tiles with their set numbers, a tile is corrected by touch or keyboard, live mode
merges frames and sends one only when the picture changed, and every failure says what to do.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.page_browser import (
    CAMERA_TILES,
    PHOTOS,
    camera_on,
    capture,
    phone_page,
    read_labels,
    reads,
    screenshot,
    tap_tile,
    upload,
    wait_for_reading,
)

pytestmark = pytest.mark.browser


def test_the_page_opens_the_camera_captures_and_shows_the_tiles(page, tmp_path: Path) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li.valid", timeout=30_000)

    assert Counter(read_labels(page)) == Counter(CAMERA_TILES), f"read {sorted(read_labels(page))}"
    assert page.locator("#table-sets li").count() == 4
    assert page.locator("#table-sets li.valid").count() == 4
    # Each set is numbered in the list as on the picture: set 1 is the run of blacks.
    first = page.locator("#table-sets li").first
    assert first.locator(".set-number").text_content() == "Set 1"
    assert "k6 k7 k8 k9" in first.inner_text()
    assert "Rack in the table photo" not in page.locator("#read-text").inner_text()
    # Every tile is a button too (the keyboard's way to correct one).
    assert page.locator("#tile-list button").count() == 13

    screenshot(page, tmp_path, "page")
    if os.environ.get("RUMMI_SCREENSHOT"):
        # The README's picture: what a phone shows at once, the picture and the sets.
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=os.environ["RUMMI_SCREENSHOT"])
        from PIL import Image  # 256 colours: a third of the size, no visible difference at this scale

        Image.open(os.environ["RUMMI_SCREENSHOT"]).quantize(256).save(
            os.environ["RUMMI_SCREENSHOT"], optimize=True
        )


def test_labels_are_readable_at_phone_size_and_can_be_hidden(page) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li", timeout=30_000)
    # Every label at least 12 CSS px tall, and no label on top of another.
    drawn = page.evaluate("window.__rummi.state.drawn")
    labels, scale = drawn["labels"], drawn["cssScale"]
    assert len(labels) == 13 + 4  # a label per tile, a number per set
    assert min(label["font"] for label in labels) * scale >= 12
    for n, a in enumerate(labels):
        for b in labels[n + 1 :]:
            apart = (
                a["right"] <= b["left"]
                or b["right"] <= a["left"]
                or a["bottom"] <= b["top"]
                or b["bottom"] <= a["top"]
            )
            assert apart, f"{a['text']} covers {b['text']}"
    shown = page.evaluate("document.querySelector('#photo').toDataURL()")
    page.locator("#show-labels").uncheck()
    hidden = page.evaluate("document.querySelector('#photo').toDataURL()")
    assert shown != hidden  # the labels went away


def test_a_tile_can_be_corrected_by_tapping_it(page) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li", timeout=30_000)
    tap_tile(page, "k6")
    assert page.locator("#fix-was").inner_text() == "k6"
    assert "table set 1" in page.locator("#fix-where").inner_text()
    page.locator("#fix [data-colour='k']").click()
    page.locator("#fix .numbers button", has_text="13").first.click()
    # The corrected table is checked again: set 1 (k13 k7 k8 k9) is now invalid.
    page.wait_for_selector("#table-sets li.invalid", timeout=30_000)
    assert "k13" in page.locator("#table-sets li.invalid").first.inner_text()
    assert not page.locator("#save-corrections").is_disabled()


def test_a_tile_can_be_corrected_with_the_keyboard_alone(page) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li", timeout=30_000)
    # Photo… is a real button: Tab reaches it and Enter opens the file chooser.
    pick = page.locator("#pick-file")
    pick.focus()
    assert page.evaluate("document.activeElement.id") == "pick-file"
    with page.expect_file_chooser(timeout=60_000):
        pick.press("Enter")
    # On the picture: arrow keys walk the tiles in reading order, Enter opens the dialog.
    page.locator("#photo").focus()
    page.keyboard.press("ArrowRight")  # from k6 (focused first) to k7
    page.keyboard.press("Enter")
    page.locator("#fix").wait_for(state="visible")
    assert page.locator("#fix-was").inner_text() == "k7"
    page.keyboard.press("Escape")
    page.locator("#fix").wait_for(state="hidden")
    # The tile list: Tab to a tile's button, Enter, pick the colour and number by keyboard.
    page.locator("#tile-list button", has_text="b8").focus()
    page.keyboard.press("Enter")
    page.locator("#fix").wait_for(state="visible")
    page.locator("#fix [data-colour='r']").focus()
    page.keyboard.press("Enter")
    page.locator("#fix .numbers button", has_text="9").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("window.__rummi.state.scan.tiles.some(t => t.tile === 'r9')")
    page.wait_for_selector("#table-sets li.invalid", timeout=30_000)


def test_live_mode_reads_the_table_and_stops_sending_a_still_picture(page) -> None:
    camera_on(page)
    page.locator("#live").check()
    page.wait_for_function(
        "document.querySelector('#status-text').textContent.startsWith('Live:')", timeout=60_000
    )
    page.wait_for_selector("#table-sets li", timeout=30_000)
    assert Counter(read_labels(page)) == Counter(CAMERA_TILES)
    # The fake camera films one still photo: after the frames the tracker needs, nothing more
    # is sent, however long live mode stays on.
    time.sleep(1.5)
    sent = page.evaluate("window.__rummi.state.scansSent")
    assert sent <= 4, sent
    time.sleep(2.0)
    assert page.evaluate("window.__rummi.state.scansSent") == sent
    page.locator("#live").uncheck()


#: A camera the test can point at any photo: getUserMedia answers with a canvas's stream, and
#: window.__film(dataUrl) puts a photo on that canvas.
CANVAS_CAMERA = """
navigator.mediaDevices.getUserMedia = async () => {
  const canvas = document.createElement('canvas');
  canvas.width = 1000; canvas.height = 750;
  const ctx = canvas.getContext('2d');
  window.__film = (url) => new Promise(resolve => {
    const image = new Image();
    image.onload = () => { ctx.drawImage(image, 0, 0, canvas.width, canvas.height); resolve(); };
    image.src = url;
  });
  // Keep painting so the stream has frames even when the picture does not change.
  setInterval(() => { ctx.fillStyle = 'rgba(0,0,0,0)'; ctx.fillRect(0, 0, 1, 1); }, 100);
  return canvas.captureStream(10);
};
"""


def data_url(photo: Path) -> str:
    import base64

    return "data:image/jpeg;base64," + base64.b64encode(photo.read_bytes()).decode()


def test_live_mode_sends_again_when_the_table_changes(browser, api_server) -> None:
    with phone_page(browser, api_server, init_script=CANVAS_CAMERA) as page:
        page.wait_for_function("typeof window.__film === 'function'")
        page.evaluate("(url) => window.__film(url)", data_url(PHOTOS / "table-wood.jpg"))
        camera_on(page)
        page.locator("#live").check()
        page.wait_for_function(
            "window.__rummi.state.scan && window.__rummi.state.scan.tiles.length === 15", timeout=60_000
        )
        time.sleep(1.5)
        still = page.evaluate("window.__rummi.state.scansSent")
        time.sleep(1.5)
        assert page.evaluate("window.__rummi.state.scansSent") == still  # nothing new to send
        # Someone plays: the picture changes, frames go out again and the new table shows.
        page.evaluate("(url) => window.__film(url)", data_url(PHOTOS / "two-runs.jpg"))
        page.wait_for_function("window.__rummi.state.scan.tiles.length === 8", timeout=60_000)
        assert page.evaluate("window.__rummi.state.scansSent") > still
        page.wait_for_selector("#table-sets li", timeout=30_000)
        assert "r5 r6 r7" in page.locator("#table-sets").inner_text()
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
    assert steps == [[False, ""], [True, "r5"]] + [[False, "r5"]] * 5


def test_the_tracker_follows_a_real_change_after_two_frames(page) -> None:
    steps = page.evaluate(TRACK, ["r5"] * 8 + ["r6", "r6", "r6"])
    assert [shown for _, shown in steps[8:]] == ["r5", "r6", "r6"]
    assert [changed for changed, _ in steps[8:]] == [False, True, False]


# ---- when things go wrong -------------------------------------------------------------------------


def service_fails(page, path: str, detail: str, status: int = 503) -> None:
    """From now on the page's calls to ``/api/v1/<path>`` get this status with this ``detail``."""
    body = json.dumps({"detail": detail})
    page.route(
        f"**/api/v1/{path}",
        lambda route: route.fulfill(status=status, content_type="application/json", body=body),
    )


def test_a_failed_hint_after_ticking_opened_says_why_and_offers_a_retry(page) -> None:
    camera_on(page)
    page.locator("#modes [data-mode='rack']").click()
    capture(page)
    tap_tile(page, "r1")  # r1 o1 b1 is my rack: one tap moves the row there, and a hint is asked
    page.locator("#move-set-rack").click()
    page.wait_for_selector("#hint-result .verdict", timeout=60_000)
    service_fails(page, "hint", "solver unavailable")
    page.locator("#opened").check()
    page.wait_for_selector("#status.error", timeout=10_000)
    assert page.locator("#status-text").inner_text() == "solver unavailable"
    page.unroute("**/api/v1/hint")
    page.locator("#retry").click()
    page.wait_for_function("!document.querySelector('#status').classList.contains('error')", timeout=30_000)
    page.wait_for_selector("#hint-result .verdict", timeout=30_000)


def test_a_service_that_wants_a_token_says_to_open_its_link(page) -> None:
    camera_on(page)
    service_fails(page, "table/check", "this service needs its token", status=401)
    page.locator("#capture").click()
    page.wait_for_selector("#status.error", timeout=30_000)
    assert page.locator("#status-text").inner_text().startswith("This server wants the organiser's link")


def test_a_server_out_of_reach_is_explained_with_a_retry(page) -> None:
    camera_on(page)
    page.route("**/api/v1/scan*", lambda route: route.abort("connectionrefused"))
    before = reads(page)
    page.locator("#capture").click()
    page.wait_for_selector("#status.error", timeout=10_000)
    assert page.locator("#status-text").inner_text().startswith("Can't reach the Rummi server — same Wi-Fi?")
    assert page.locator("#retry").is_visible()
    page.unroute("**/api/v1/scan*")
    page.locator("#retry").click()
    wait_for_reading(page, before)
    assert Counter(read_labels(page)) == Counter(CAMERA_TILES)


def test_a_damaged_upload_clears_the_last_verdict(page, tmp_path: Path) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li.valid", timeout=30_000)
    broken = tmp_path / "broken.jpg"
    broken.write_bytes((PHOTOS / "two-runs.jpg").read_bytes()[:2000])  # a truncated JPEG
    upload(page, broken, allow_error=True)
    assert "could not be read" in page.locator("#status-text").inner_text()
    assert page.locator("#table-sets li").count() == 0
    assert page.evaluate("window.__rummi.state.scan") is None


def blurred(photo: Path, target: Path, kernel: int = 21, gain: float = 1.0) -> Path:
    import cv2

    image = (
        cv2.GaussianBlur(cv2.imread(str(photo)), (kernel, kernel), 0) if kernel else cv2.imread(str(photo))
    )
    cv2.imwrite(str(target), (image * gain).clip(0, 255).astype("uint8"))
    return target


def test_a_far_photo_says_come_closer(page, tmp_path: Path) -> None:
    """A table photo whose tiles are about 20 px: the page says to come closer, not to hold
    steady (the photo is still; its tiles are too few pixels), and every tile is unsure."""
    import cv2

    image = cv2.imread(str(PHOTOS / "table-wood.jpg"))
    far = tmp_path / "far.jpg"
    cv2.imwrite(str(far), cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA))
    upload(page, far)
    page.wait_for_selector("#table-sets li", timeout=30_000)
    assert page.locator("#stage-text").inner_text().startswith("Tiles too small to read surely — come closer")
    assert page.evaluate("window.__rummi.state.scan.uncertain.length") == page.evaluate("window.__rummi.state.scan.tiles.length")
    screenshot(page, tmp_path, "far-photo")


def test_a_blurred_photo_says_so_and_marks_the_unsure_tiles_in_the_sets(page, tmp_path: Path) -> None:
    upload(page, blurred(PHOTOS / "table-wood.jpg", tmp_path / "blurred.jpg"))
    page.wait_for_selector("#table-sets li", timeout=30_000)
    assert page.locator("#stage-text").inner_text().startswith("Too dark or blurry — hold steady")
    unsure = page.evaluate("window.__rummi.state.scan.uncertain.length")
    assert unsure >= 2
    # No set that holds an unsure tile is shown as plainly checked.
    assert page.locator("#table-sets .unsure-note").count() >= 1
    assert "check before trusting this" in page.locator("#table-sets").inner_text()


def test_a_dark_photo_says_too_dark(page, tmp_path: Path) -> None:
    upload(page, blurred(PHOTOS / "table-wood.jpg", tmp_path / "dark.jpg", kernel=0, gain=0.15))
    assert page.locator("#stage-text").inner_text().startswith("Too dark")


def test_no_tiles_says_move_closer(page, tmp_path: Path) -> None:
    import cv2
    import numpy as np

    blank = tmp_path / "wood.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), (40, 90, 140), np.uint8))
    upload(page, blank)
    assert page.locator("#status-text").inner_text() == "No tiles found — move closer."


#: The camera answers only when the test says so, as a slow phone camera does after a photo was chosen.
HOLD_THE_CAMERA = """
const ask = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
let release;
const released = new Promise(resolve => { release = resolve; });
window.__startTheCamera = () => release();
navigator.mediaDevices.getUserMedia = async (constraints) => { await released; return ask(constraints); };
"""


def test_a_photo_chosen_while_the_camera_starts_stays_on_show(browser, api_server, tmp_path: Path) -> None:
    """The camera becoming ready after a photo was read must not swap the reading for the video,
    nor give the photo's stage the video's shape (a square photo here, a wide camera)."""
    import cv2

    image = cv2.imread(str(PHOTOS / "table-wood.jpg"))
    side = min(image.shape[:2])
    square = tmp_path / "square.jpg"
    cv2.imwrite(str(square), image[:side, :side])
    stage_shape = "getComputedStyle(document.querySelector('#stage')).aspectRatio"
    with phone_page(browser, api_server, init_script=HOLD_THE_CAMERA) as page:
        upload(page, square)
        shown = page.locator("#stage-text").inner_text()
        assert shown != "Starting the camera…"
        page.evaluate("window.__startTheCamera()")
        camera_on(page)
        assert page.locator("#stage-text").inner_text() == shown
        assert not page.evaluate("document.querySelector('#stage').classList.contains('live')")
        assert page.evaluate(stage_shape) == f"{side} / {side}"
        camera = page.locator("#camera")
        assert camera.is_visible()
        screenshot(page, tmp_path, "photo-before-camera")
        camera.click()
        assert page.locator("#stage-text").inner_text().startswith("Point at the table")
        video = page.evaluate("[document.querySelector('#video').videoWidth, document.querySelector('#video').videoHeight]")
        assert page.evaluate(stage_shape) == f"{video[0]} / {video[1]}"


#: The first camera request is refused, as when a user taps "Block"; later ones are allowed.
REFUSE_CAMERA_ONCE = """
const ask = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
let refused = false;
navigator.mediaDevices.getUserMedia = (constraints) => {
  if (!refused) { refused = true; return Promise.reject(new DOMException('denied', 'NotAllowedError')); }
  return ask(constraints);
};
"""


def test_a_refused_camera_can_be_asked_again_and_live_says_why_it_waits(browser, api_server) -> None:
    with phone_page(browser, api_server, init_script=REFUSE_CAMERA_ONCE) as page:
        retry = page.locator("#camera-retry")
        retry.wait_for(state="visible")
        assert "The camera was not allowed" in page.locator("#stage-text").inner_text()
        # Live without a camera: a sentence, not "Failed to execute 'append' on 'FormData'".
        page.locator("#live").click()
        page.wait_for_selector("#status.error")
        assert "Live needs the camera" in page.locator("#status-text").inner_text()
        assert not page.locator("#live").is_checked()
        retry.click()
        camera_on(page)
        assert retry.is_hidden()
