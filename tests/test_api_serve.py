"""`rummi serve` itself: its limits come from the environment, and bad options get a clear
message instead of a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.api_server import DATA, ROOT, serving

PHOTOS = DATA / "photos"


@pytest.fixture(scope="module")
def strict_server(tmp_path_factory: pytest.TempPathFactory):
    workdir = tmp_path_factory.mktemp("rummi-strict")
    with serving(
        workdir,
        f"sqlite:///{workdir / 'games.db'}",
        RUMMI_MAX_JSON_BYTES="1000",
        RUMMI_MAX_UPLOAD_BYTES="100000",
        RUMMI_MAX_MEGAPIXELS="0.5",
    ) as server:
        yield server


def post_photo(client: httpx.Client, path: Path) -> httpx.Response:
    return client.post("/api/v1/scan", files={"photo": (path.name, path.read_bytes(), "image/jpeg")})


def test_the_limits_are_settings(strict_server) -> None:
    with strict_server.client() as client:
        response = client.post("/api/v1/table/check", json={"table": "r5 r6 r7 " * 200})
        assert response.status_code == 413 and "1000 bytes" in response.json()["detail"]

        too_big = post_photo(client, PHOTOS / "table-wood.jpg")  # 120 kB
        assert too_big.status_code == 413 and "100000 bytes" in too_big.json()["detail"]

        too_many_pixels = post_photo(client, PHOTOS / "two-runs.jpg")  # 50 kB, but 0.75 megapixels
        assert too_many_pixels.status_code == 413
        assert "1000x750" in too_many_pixels.json()["detail"]

        assert client.post("/api/v1/table/check", json={"table": "r5 r6 r7"}).json()["valid"] is True


def rummi(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummi.api.cli", *args],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )


def test_a_port_out_of_range_is_refused_clearly() -> None:
    result = rummi("serve", "--port", "70000")
    assert result.returncode == 2
    assert result.stderr.strip() == "rummi serve: --port 70000: not a TCP port (1-65535)"


def test_a_limit_that_is_not_a_number_is_refused_clearly() -> None:
    result = rummi("serve", "--port", "1", RUMMI_MAX_UPLOAD_BYTES="lots")
    assert result.returncode == 2
    assert "rummi serve:" in result.stderr and "max_upload_bytes" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_database_that_cannot_be_opened_is_refused_clearly(tmp_path: Path) -> None:
    result = rummi("serve", "--port", "1", RUMMI_DATABASE_URL=f"sqlite:///{tmp_path}/missing/games.db")
    assert result.returncode == 2
    assert result.stderr.startswith("rummi serve: cannot create") and "does not exist" in result.stderr
