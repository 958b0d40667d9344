"""What the browser tests of the page share (a pytest plugin, see tests/conftest.py): Debian's chromium, headless, with a fake camera that
films a bundled table photo, a fresh phone-sized page on the real `rummi serve`, and the steps a
user takes (capture, upload a photo, tap a tile), each waiting for the page's answer.

Chromium plays a .y4m file as the camera (``--use-file-for-fake-video-capture``); the file is
made here from ``tests/data/photos/table-wood.jpg`` with OpenCV. Screenshots go to the test's
temporary folder; ``RUMMI_PAGE_SHOTS=folder`` keeps a copy of each (to look at them), and
``RUMMI_SCREENSHOT=path`` keeps the README's.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.api_server import DATA, ROOT, Server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PHOTOS = DATA / "photos"
SAMPLES = ROOT / "vision" / "samples" / "images"
#: The photo the fake camera films: ``table-wood.jpg`` without the pair o7 r7 that lies apart
#: from its four sets (:func:`table_of_sets`). On the photo itself the pair lies on the table,
#: stands on no rack, and is read as an unfinished table set (the rack is seen by its ledge).
TABLE_WOOD = PHOTOS / "table-wood.jpg"
CAMERA_PHOTO = TABLE_WOOD
#: The 13 tiles the camera shows: four sets of three or more.
CAMERA_TILES = ["k6", "k7", "k8", "k9", "b8", "r8", "o8", "o2", "o3", "J", "r1", "o1", "b1"]
#: Where o7 r7 lie on ``table-wood.jpg`` (pixels), painted out by :func:`table_of_sets`.
_PAIR = [(800, 253), (863, 226), (926, 191), (972, 307), (904, 334), (841, 348)]
#: CSS pixels: a common phone, a small one, the common one on its side, a laptop.
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}
LANDSCAPE = {"width": 844, "height": 390}
DESKTOP = {"width": 1280, "height": 800}


def table_of_sets(target: Path) -> Path:
    """``table-wood.jpg`` with the pair o7 r7 painted out (OpenCV inpainting): four sets alone."""
    import cv2
    import numpy as np

    image = cv2.imread(str(TABLE_WOOD))
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.array(_PAIR, np.int32)], 255)
    mask = cv2.dilate(mask, np.ones((25, 25), np.uint8))
    cv2.imwrite(str(target), cv2.inpaint(image, mask, 9, cv2.INPAINT_TELEA), [cv2.IMWRITE_JPEG_QUALITY, 92])
    return target


def write_y4m(photo: Path, target: Path, frames: int = 4) -> Path:
    """A short Y4M clip of one photo (4:2:0, even size), the format chromium's fake camera reads."""
    import cv2  # only the browser tests need OpenCV here
    import numpy as np

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

    folder = tmp_path_factory.mktemp("camera")
    clip = write_y4m(table_of_sets(folder / "table.jpg"), folder / "table.y4m")
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
                "--autoplay-policy=no-user-gesture-required",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@contextmanager
def phone_page(
    browser,
    server: Server,
    viewport: dict | None = None,
    *,
    mobile: bool = True,
    path: str = "/",
    init_script: str | None = None,
    bypass_csp: bool = True,
) -> Iterator:
    """A fresh browser context (empty localStorage) with the page open; fails on script errors."""
    context = browser.new_context(
        viewport=viewport or PHONE,
        device_scale_factor=2 if mobile else 1,
        is_mobile=mobile,
        has_touch=mobile,
        accept_downloads=True,
        # Playwright's wait_for_function compiles its predicate with eval, which a strict
        # Content-Security-Policy forbids; the page itself is checked under such a policy in
        # tests/test_page_layout.py (with evaluate(), which CSP does not restrict).
        bypass_csp=bypass_csp,
    )
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + path)
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"script errors on the page: {errors}"


@pytest.fixture()
def page(browser, api_server: Server):
    with phone_page(browser, api_server) as page:
        yield page


def poll(page, expression: str, timeout_s: float = 60.0) -> None:
    """Wait until a JS expression is true, with evaluate() alone (works under a strict CSP)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s} s: {expression}")
        time.sleep(0.1)


def camera_on(page) -> None:
    """Wait until the page has the (fake) camera streaming: Capture is enabled then."""
    page.wait_for_function("!document.querySelector('#capture').disabled", timeout=20_000)
    assert page.evaluate("document.querySelector('#video').videoWidth") > 0


def reads(page) -> int:
    return page.evaluate("window.__rummi.state.reads")


def wait_for_reading(page, before: int, *, allow_error: bool = False) -> None:
    """Wait until a reading newer than ``before`` is shown (or the page reports an error)."""
    page.wait_for_function(
        f"window.__rummi.state.reads > {before} || document.querySelector('#status').classList.contains('error')",
        timeout=60_000,
    )
    if not allow_error:
        status = page.locator("#status")
        assert "error" not in (status.get_attribute("class") or ""), status.inner_text()
    # The mode's answer follows the reading; the page is idle again once it is shown.
    page.wait_for_function("!window.__rummi.state.busy", timeout=60_000)


def capture(page, button: str = "#capture") -> None:
    """Press Capture (or another button that captures) and wait for the reading."""
    before = reads(page)
    page.locator(button).click()
    wait_for_reading(page, before)


def upload(page, photo: Path, *, allow_error: bool = False) -> None:
    """Choose a photo with Photo… as a user would, and wait for its reading."""
    before = reads(page)
    with page.expect_file_chooser() as chooser:
        page.locator("#pick-file").click()
    chooser.value.set_files(str(photo))
    wait_for_reading(page, before, allow_error=allow_error)


def tile_point(page, index: int) -> dict:
    """Where on the screen the middle of tile ``index`` of the shown picture is."""
    return page.evaluate(
        """(i) => {
          const {scan} = window.__rummi.state;
          const canvas = document.querySelector('#photo');
          const rect = canvas.getBoundingClientRect();
          const scale = Math.min(rect.width / canvas.width, rect.height / canvas.height);
          const c = scan.tiles[i].corners;
          const x = c.reduce((s, p) => s + p[0], 0) / 4, y = c.reduce((s, p) => s + p[1], 0) / 4;
          return {label: scan.tiles[i].tile,
                  x: rect.left + (rect.width - canvas.width * scale) / 2 + x * scale,
                  y: rect.top + (rect.height - canvas.height * scale) / 2 + y * scale};
        }""",
        index,
    )


def tile_index(page, label: str) -> int:
    index = page.evaluate(f"window.__rummi.state.scan.tiles.findIndex(t => t.tile === {label!r})")
    assert index >= 0, f"no {label} in the picture"
    return index


def tap_tile(page, label: str) -> None:
    """Tap a tile on the picture, as a finger would, and wait for its correction dialog."""
    # Bring the picture to the middle of the screen, clear of the sticky header.
    page.evaluate("document.querySelector('#photo').scrollIntoView({block: 'center'})")
    point = tile_point(page, tile_index(page, label))
    page.mouse.click(point["x"], point["y"])
    page.locator("#fix").wait_for(state="visible")


def read_labels(page) -> list[str]:
    return page.evaluate("window.__rummi.state.scan.tiles.map(t => t.tile)")


def screenshot(page, folder: Path, name: str) -> Path:
    """Save a screenshot of the whole page; keep a copy under $RUMMI_PAGE_SHOTS when set."""
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / f"{name}.png"
    page.evaluate("window.scrollTo(0, 0)")  # else the sticky header lands mid-picture
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("RUMMI_PAGE_SHOTS"):
        keep = Path(os.environ["RUMMI_PAGE_SHOTS"])
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, keep / shot.name)
    return shot


def answer_dialog(page, yes: bool) -> str:
    """Answer the page's own question dialog; returns the question."""
    dialog = page.locator("#ask")
    dialog.wait_for(state="visible")
    question = page.locator("#ask-text").inner_text()
    page.locator("#ask-yes" if yes else "#ask-no").click()
    dialog.wait_for(state="hidden")
    return question
