"""The page works under the service's Content-Security-Policy: in Debian's chromium, headless,
with the policy enforced, it loads its modules, opens the (fake) camera, captures and shows
tiles, with no policy violation reported."""

from __future__ import annotations

import time

import pytest

from tests.api_server import Server
from tests.page_browser import CAMERA_PHOTO as PHOTO
from tests.page_browser import CHROMIUM, PHONE, write_y4m

pytestmark = pytest.mark.browser


def test_the_page_runs_under_its_content_security_policy(api_server: Server, tmp_path) -> None:
    from playwright.sync_api import sync_playwright

    clip = write_y4m(PHOTO, tmp_path / "table.y4m")
    violations: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--headless", "--disable-gpu", "--use-fake-ui-for-media-stream",
                  "--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={clip}"],
        )
        try:
            page = browser.new_context(viewport=PHONE).new_page()
            page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
            page.on("pageerror", lambda error: violations.append(str(error)))
            response = page.goto(api_server.url + "/")
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
            deadline = time.monotonic() + 30
            while page.evaluate("document.querySelector('#capture').disabled"):
                assert time.monotonic() < deadline, "the camera never came up"
                time.sleep(0.2)
            page.click("#capture")
            while not page.evaluate("(window.__rummi?.state?.scan?.tiles || []).length"):
                assert time.monotonic() < deadline + 30, "the capture was never read"
                time.sleep(0.2)
        finally:
            browser.close()
    assert violations == []
