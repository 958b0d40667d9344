"""How soon a fresh `rummi serve` answers, and what its first hint costs while the hint
solver's compiled kernel is still being prepared in the background (api/solver_warmup.py).

    .venv/bin/python benchmarks/service_start.py            # numba's cache as installed, and an empty one

For each case it starts `rummi serve` on a free loopback port (SQLite in a temp folder), then
prints: seconds until /health answers, the first /api/v1/hint (a position of the compiled
route: opened, a run to extend), whether the kernel was ready then, seconds until /health says
``hints_compiled``, and the same hint once it is. ``NUMBA_CACHE_DIR`` pointed at an empty
folder stands for a fresh install (the kernel compiled from scratch, about 25 s alone).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
HINT = {"table": "r5 r6 r7 | k9 b9 o9 | b1 b2 b3", "rack": "r8 J o9 k1 b4 k7", "opened": True,
        "rules": {"preset": "goliath_modern"}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def time_fresh_server(case: str, serve: list[str], env: dict[str, str], cwd: Path) -> None:
    """Start ``serve`` (a ``rummi serve`` command line, without the port) and print one row.

    The row: seconds until /health answers, the first hint's milliseconds, whether the kernel was
    compiled by then, seconds until it is, and the hint once it is (both routes must agree).
    ``benchmarks/startup.py`` calls this for a freshly installed wheel too.
    """
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [*serve, "--port", str(port), "--log-level", "warning"],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api/v1"
    try:
        with httpx.Client(timeout=300) as client:
            while True:
                try:
                    if client.get(f"{url}/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.05)
            up = time.perf_counter() - started
            ready_at_first = client.get(f"{url}/health").json()["hints_compiled"]
            t = time.perf_counter()
            first = client.post(f"{url}/hint", json=HINT)
            first_ms = (time.perf_counter() - t) * 1000
            if first.status_code != 200:
                raise SystemExit(f"{case}: the first hint answered {first.status_code}: {first.text}")
            while not client.get(f"{url}/health").json()["hints_compiled"]:
                time.sleep(0.1)
            compiled = time.perf_counter() - started
            t = time.perf_counter()
            warm = client.post(f"{url}/hint", json=HINT)
            warm_ms = (time.perf_counter() - t) * 1000
            if warm.json()["play"] != first.json()["play"]:
                raise SystemExit(f"{case}: the integer program and the compiled kernel disagree")
    finally:
        process.terminate()
        process.wait(timeout=20)
    print(f"{case}\t{up:.1f}\t{first_ms:.0f}\t{ready_at_first}\t{compiled:.1f}\t{warm_ms:.0f}", flush=True)


HEADER = "case\tup_s\tfirst_hint_ms\tkernel_ready_then\tkernel_ready_s\twarm_hint_ms"


def one(case: str, extra_env: dict[str, str]) -> None:
    """This checkout's ``rummi serve`` with SQLite in a temporary folder."""
    workdir = Path(tempfile.mkdtemp(prefix="rummi-start-"))
    env = {**os.environ, "RUMMI_DATA_DIR": str(workdir), **extra_env}
    env.pop("RUMMI_DATABASE_URL", None)
    time_fresh_server(case, [sys.executable, "-m", "rummi.api.cli", "serve"], env, workdir)


def main() -> int:
    print(HEADER, flush=True)
    one("numba cache as installed", {})
    with tempfile.TemporaryDirectory() as empty:
        one("empty numba cache (fresh install)", {"NUMBA_CACHE_DIR": empty})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
