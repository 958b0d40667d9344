"""A fresh `rummi serve` started from any folder: its files go to the user's data folder (never
the current one), and hints are answered at once while the solver's kernel compiles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.api_server import DATA, free_port

HINT = {"table": "r5 r6 r7 | k9 b9 o9", "rack": "r8 J o9 k1", "opened": True, "rules": {"preset": "goliath_modern"}}


def test_files_go_to_the_user_data_folder_and_hints_do_not_wait(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "somewhere"
    home.mkdir()
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RUMMI_", "XDG_"))}
    env.update(HOME=str(home), PYTHONUNBUFFERED="1")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "rummi.api.cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api/v1"
    try:
        with httpx.Client(timeout=60) as client:
            deadline = time.monotonic() + 60
            while True:
                assert time.monotonic() < deadline and process.poll() is None
                try:
                    if client.get(f"{url}/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            first = client.post(f"{url}/hint", json=HINT)  # maybe before the kernel is ready
            assert first.status_code == 200, first.text
            assert client.post(f"{url}/games", json={"players": ["Ann", "Bob"]}).status_code == 201
            saved = client.post(
                f"{url}/corrections",
                files={"photo": ("p.jpg", (DATA / "photos" / "two-runs.jpg").read_bytes(), "image/jpeg")},
                data={"labels": json.dumps({"tiles": [{"tile": "r5", "corners": [[135, 331], [181, 254],
                                                                                [289, 318], [244, 395]]}]})},
            )
            assert saved.status_code == 201, saved.text
            while not client.get(f"{url}/health").json()["hints_compiled"]:
                assert time.monotonic() < deadline + 120, "the kernel never became ready"
                time.sleep(0.2)
            assert client.post(f"{url}/hint", json=HINT).json()["play"] == first.json()["play"]
    finally:
        process.terminate()
        process.wait(timeout=20)
    data = home / ".local" / "share" / "rummi"
    assert (data / "games.db").is_file() and (data / "corrections" / "manifest.json").is_file()
    assert list(cwd.iterdir()) == []


def test_the_services_warm_up_keeps_its_long_lived_objects_out_of_garbage_collections() -> None:
    """What the process holds once the kernel is ready (numba's typing, the service's start)
    lives as long as it: frozen, a full collection no longer walks it, only later objects."""
    import gc

    from rummi.api.solver_warmup import settle_heap

    try:
        frozen = settle_heap()
        assert frozen > 0 and frozen == gc.get_freeze_count()
        assert len(gc.get_objects()) < frozen  # what collections still walk: what came since
        later = [[] for _ in range(1000)]  # objects made after the warm-up
        assert settle_heap() == frozen  # once per process: an app started again freezes nothing more
        assert any(x is later for x in gc.get_objects())
    finally:
        gc.unfreeze()  # the rest of the test session is collected as before
