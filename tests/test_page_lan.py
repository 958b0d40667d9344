"""The page as a phone on the venue's Wi-Fi reaches it: `rummi serve --lan` (https with the
certificate it makes itself, a token, the LAN address), opened at the URL it prints. The camera
works (https is a secure context), the token comes from the link's #token=... and goes with
every call, so a capture is read and checked; without the token the service refuses.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.api_server import ROOT, free_port, stop
from tests.page_browser import CAMERA_TILES, PHONE, camera_on, capture, read_labels

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def lan_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`rummi serve --lan` on a free port; yields the join URL it prints (with the token)."""
    home = tmp_path_factory.mktemp("rummi-lan")
    env = {
        **os.environ,
        "RUMMI_DATA_DIR": str(home / "data"),
        "RUMMI_DATABASE_URL": f"sqlite:///{home / 'games.db'}",
        "RUMMI_CORRECTIONS_DIR": str(home / "corrections"),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("RUMMI_TOKEN", None)
    port = free_port()
    log = (home / "serve.log").open("w+")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rummi.api.cli",
            "serve",
            "--lan",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        url = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            found = re.search(r"the page is at (https://\S+)", (home / "serve.log").read_text())
            if found:
                url = found.group(1)
                try:
                    if (
                        httpx.get(url.split("#")[0] + "api/v1/health", verify=False, timeout=2).status_code
                        == 200
                    ):
                        break
                except httpx.TransportError:
                    pass
            time.sleep(0.3)
        else:
            pytest.fail(f"rummi serve --lan did not come up:\n{(home / 'serve.log').read_text()}")
        assert url and "#token=" in url, url
        yield url
    finally:
        stop(process)
        log.close()


def test_a_phone_opens_the_printed_lan_url_over_https_and_reads_the_table(browser, lan_url: str) -> None:
    base = lan_url.split("#")[0]
    # Without the token the service answers nothing about photos.
    assert (
        httpx.post(base + "api/v1/table/check", json={"table": "r5 r6 r7"}, verify=False).status_code == 401
    )

    # The phone accepts the self-made certificate (what a user taps through once).
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, ignore_https_errors=True, bypass_csp=True
    )
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(lan_url)
        assert page.evaluate("location.protocol") == "https:"
        assert page.evaluate("isSecureContext")
        assert page.evaluate("location.hash") == ""  # the token left the address bar
        camera_on(page)  # the camera opens: https
        capture(page)
        page.wait_for_selector("#table-sets li.valid", timeout=30_000)
        assert sorted(read_labels(page)) == sorted(CAMERA_TILES)
        assert not errors, errors
    finally:
        context.close()
