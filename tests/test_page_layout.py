"""The page's shape on real screens and for every user: no serious accessibility problem
(axe-core, installed by `make page-tools`), tabs that fit a 360 px phone, Capture beside the
camera on a phone on its side, two columns on a desktop with the join QR code, pinch-zoom left
to the browser, the organiser's token taken from the link, and a web-app manifest with icons.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
from PIL import Image

from tests.api_server import ROOT
from tests.page_browser import (
    DESKTOP,
    LANDSCAPE,
    SMALL_PHONE,
    camera_on,
    capture,
    phone_page,
    poll,
    screenshot,
    tap_tile,
)

pytestmark = pytest.mark.browser

AXE = ROOT / ".venv" / "page-tools" / "node_modules" / "axe-core" / "axe.min.js"


def axe_problems(page) -> list[str]:
    """Serious and critical axe-core violations of the page as it is now, one line each."""
    if not AXE.exists():
        pytest.fail(f"axe-core not found at {AXE}: run `make page-tools` (npm install of axe-core)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    results = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -- {[n['target'] for n in v['nodes']][:4]}"
        for v in results
        if v["impact"] in ("serious", "critical")
    ]


def test_no_serious_accessibility_problems_in_any_mode(page, tmp_path: Path) -> None:
    camera_on(page)
    capture(page)
    page.wait_for_selector("#table-sets li", timeout=30_000)
    problems = {"table": axe_problems(page)}
    tap_tile(page, "k7")
    problems["correction dialog"] = axe_problems(page)
    page.keyboard.press("Escape")
    page.locator("#modes [data-mode='rack']").click()
    page.wait_for_selector("#hint-result:has-text('scan your rack')", timeout=30_000)  # no rack in view
    problems["my rack"] = axe_problems(page)
    page.locator("#modes [data-mode='score']").click()
    page.locator("#players").fill("Ann, Bob")
    page.locator("#new-match button[type='submit']").click()
    page.locator("#losers input[data-player='Bob']").fill("r4 b8")
    page.locator("#score-round").click()
    page.wait_for_selector("#sheet tbody tr")
    problems["score sheet"] = axe_problems(page)
    page.locator("#modes [data-mode='referee']").click()
    page.locator("#ref-start").click()
    page.locator("#turn-clock").wait_for(state="visible")
    problems["referee"] = axe_problems(page)
    screenshot(page, tmp_path, "axe-referee")
    assert all(not found for found in problems.values()), json.dumps(problems, indent=1)


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_the_tabs_and_controls_fit_a_360_px_phone(browser, api_server, tmp_path: Path) -> None:
    with phone_page(browser, api_server, SMALL_PHONE) as page:
        camera_on(page)
        capture(page)
        for tab in page.locator("#modes button").all():
            box = tab.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= SMALL_PHONE["width"], tab.inner_text()
            # The label is not cut off inside its button.
            assert tab.evaluate("b => b.scrollWidth <= b.clientWidth"), tab.inner_text()
        page.locator("#modes [data-mode='referee']").click()
        no_sideways_scroll(page)
        screenshot(page, tmp_path, "phone-360")


def test_on_its_side_the_controls_sit_beside_the_camera(browser, api_server, tmp_path: Path) -> None:
    with phone_page(browser, api_server, LANDSCAPE) as page:
        camera_on(page)
        stage = page.locator("#stage").bounding_box()
        button = page.locator("#capture").bounding_box()
        assert button["x"] >= stage["x"] + stage["width"] - 1  # beside the picture, not under it
        assert button["y"] + button["height"] <= LANDSCAPE["height"]  # on screen without scrolling
        assert stage["y"] + stage["height"] <= LANDSCAPE["height"]
        capture(page)
        page.wait_for_selector("#table-sets li", timeout=30_000)
        no_sideways_scroll(page)
        screenshot(page, tmp_path, "landscape")


JOIN = {
    "url": "https://192.168.1.20:8443/#token=abc",
    "qr_svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>',
}


def test_a_desktop_has_two_columns_and_shows_the_join_code(browser, api_server, tmp_path: Path) -> None:
    with phone_page(browser, api_server, DESKTOP, mobile=False) as page:
        # This server has no LAN address: /join is a 404 and nothing is offered.
        page.wait_for_function("window.__rummi.state.joinChecked")
        assert page.locator("#join").is_hidden()
        stage = page.locator("#stage").bounding_box()
        panel = page.locator("#panel-table").bounding_box()
        assert panel["x"] >= stage["x"] + stage["width"]  # the panels beside the picture
        assert stage["width"] >= 640
    with phone_page(browser, api_server, DESKTOP, mobile=False) as page:
        page.route(
            "**/api/v1/join",
            lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(JOIN)),
        )
        page.reload()
        page.locator("#join").wait_for(state="visible")
        assert page.locator("#join-url").inner_text() == JOIN["url"]
        assert page.locator("#join-qr img").get_attribute("alt") == f"QR code for {JOIN['url']}"
        screenshot(page, tmp_path, "desktop")
    with phone_page(browser, api_server, DESKTOP, mobile=False) as page:
        # A join link to this machine's loopback address is no use to a phone.
        loopback = {"url": "http://127.0.0.1:8000/", "qr_svg": JOIN["qr_svg"]}
        page.route(
            "**/api/v1/join",
            lambda route: route.fulfill(
                status=200, content_type="application/json", body=json.dumps(loopback)
            ),
        )
        page.reload()
        page.wait_for_function("window.__rummi && window.__rummi.state.joinChecked")
        assert page.locator("#join").is_hidden()


def test_pinch_zoom_is_left_to_the_browser(page) -> None:
    viewport = page.locator("meta[name='viewport']").get_attribute("content")
    assert "user-scalable=no" not in viewport and "maximum-scale" not in viewport
    assert page.evaluate("getComputedStyle(document.querySelector('#photo')).touchAction") == "manipulation"


def test_the_organisers_token_is_kept_hidden_and_sent(browser, api_server) -> None:
    with phone_page(browser, api_server, path="/#token=s3cret-t0ken") as page:
        seen: list[str | None] = []
        page.on("request", lambda r: "/api/v1/" in r.url and seen.append(r.headers.get("authorization")))
        assert page.evaluate("location.hash") == ""  # out of the address bar
        assert page.evaluate("localStorage.getItem('rummi.token')") == "s3cret-t0ken"
        page.reload()  # kept for the next visit
        page.wait_for_load_state("networkidle")
        assert seen and all(header == "Bearer s3cret-t0ken" for header in seen)


def test_the_page_can_be_added_to_a_home_screen(page, api_server) -> None:
    href = page.locator("link[rel='manifest']").get_attribute("href")
    with httpx.Client(base_url=api_server.url, timeout=30) as client:
        answer = client.get(href)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("application/manifest+json")
        manifest = answer.json()
        assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
        sizes = set()
        for icon in manifest["icons"]:
            data = client.get(icon["src"])
            assert data.status_code == 200, icon["src"]
            if icon["type"] == "image/png":
                width, height = Image.open(io.BytesIO(data.content)).size
                assert icon["sizes"] == f"{width}x{height}"
                sizes.add(width)
        assert {192, 512} <= sizes


#: The policy the service puts on the page (no inline script or style, no eval; photos as
#: blob:/data: URLs): the page must work under it.
STRICT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def test_the_page_works_under_a_strict_content_security_policy(browser, api_server) -> None:
    def with_policy(route):
        answer = route.fetch()
        route.fulfill(response=answer, headers={**answer.headers, "content-security-policy": STRICT_CSP})

    with phone_page(browser, api_server, bypass_csp=False) as page:
        refused: list[str] = []
        page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
        page.route("**/*", with_policy)
        page.reload()  # now with the policy on the page and everything it loads
        poll(page, "window.__rummi && !document.querySelector('#capture').disabled")
        page.locator("#capture").click()
        poll(page, "window.__rummi.state.reads > 0 && !window.__rummi.state.busy")
        poll(page, "document.querySelectorAll('#table-sets li.valid').length === 4")
        assert page.evaluate("getComputedStyle(document.querySelector('#stage')).aspectRatio") != "4 / 3"
        assert not refused, refused
