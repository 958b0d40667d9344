"""Load test of the service scaled out: several uvicorn worker processes on one PostgreSQL.

    .venv/bin/python benchmarks/service_load.py                          # 2, 3 and 4 processes
    .venv/bin/python benchmarks/service_load.py --processes 2 --seconds 10

For each process count it starts `rummi serve --workers N` on a free loopback port with its
games in a fresh PostgreSQL database (``RUMMI_TEST_POSTGRES_URL``, else a throw-away server from
scripts/start-postgres.sh), then ``--clients`` concurrent clients (asyncio, one connection each)
post turns to ``--games`` games and scan photos, for ``--seconds`` or ``--max-requests``,
whichever comes first. Every turn carries its own Idempotency-Key; a 409 or a lost connection
is retried with the same key, as a phone would. Traffic goes to 127.0.0.1 only.

At the end the database is read directly and compared with what the clients were told:

* lost: turns a client got a 200 for that the database does not hold under that key and number;
* duplicated: stored turns beyond one per key (a retry recorded twice);
* 5xx, 409 (each retried) and 429 answers; turns and scans per second; latency percentiles;
  the machine's load average at the end of the run (it may be shared).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "data" / "photos" / "two-runs.jpg"
RETRIES = 8


@dataclass
class Tally:
    statuses: Counter = field(default_factory=Counter)  # answers to turn posts
    scan_statuses: Counter = field(default_factory=Counter)
    acknowledged: dict[tuple[int, str], int] = field(default_factory=dict)  # (game, key) -> number
    turn_ms: list[float] = field(default_factory=list)
    scan_ms: list[float] = field(default_factory=list)
    requests: int = 0
    transport_errors: int = 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_admin_url() -> tuple[str, subprocess.Popen | None]:
    url = os.environ.get("RUMMI_TEST_POSTGRES_URL")
    if url:
        return url, None
    keeper = subprocess.Popen(["sleep", "3600"])  # the throw-away server stops when this does
    lines = subprocess.run(
        ["bash", str(ROOT / "scripts" / "start-postgres.sh"), str(keeper.pid)],
        check=True, capture_output=True, text=True,
    ).stdout
    for line in lines.splitlines():
        if line.startswith("export RUMMI_TEST_POSTGRES_URL="):
            return line.partition("=")[2], keeper
    raise SystemExit("start-postgres.sh printed no URL")


def start_service(processes: int, database_url: str, workdir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "RUMMI_DATABASE_URL": database_url,
        "RUMMI_DATA_DIR": str(workdir / "data"),
        "RUMMI_CORRECTIONS_DIR": str(workdir / "corrections"),
        # Every client is 127.0.0.1 here: the per-address allowances would be the bottleneck.
        "RUMMI_WRITES_PER_MINUTE": "1000000",
        "RUMMI_SCANS_PER_MINUTE": "1000000",
        "RUMMI_SCAN_WORKERS": "1",
        "RUMMI_MAX_QUEUED_SCANS": "4",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "rummi.api.cli", "serve", "--port", str(port), "--workers", str(processes),
         "--log-level", "warning"],
        cwd=workdir, env=env, stdout=(workdir / "server.log").open("w"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"rummi serve exited:\n{(workdir / 'server.log').read_text()}")
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit("rummi serve did not come up in 120 s")


async def client_loop(n: int, url: str, games: list[int], stop_at: float, budget: list[int],
                      scan_every: int, tally: Tally) -> None:
    photo = PHOTO.read_bytes()
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        i = 0
        while time.monotonic() < stop_at and budget[0] > 0:
            budget[0] -= 1
            i += 1
            if scan_every and i % scan_every == 0:
                start = time.perf_counter()
                try:
                    r = await client.post("/api/v1/scan", files={"photo": ("p.jpg", photo, "image/jpeg")})
                except httpx.TransportError:
                    tally.transport_errors += 1
                    continue
                tally.requests += 1
                tally.scan_statuses[r.status_code] += 1
                if r.status_code == 200:
                    tally.scan_ms.append((time.perf_counter() - start) * 1000)
                continue
            game = games[n % len(games)]
            key = f"c{n}-{i}-{uuid.uuid4().hex[:8]}"
            start = time.perf_counter()
            for _ in range(RETRIES):
                try:
                    r = await client.post(f"/api/v1/games/{game}/turns", json={"after": ""},
                                          headers={"Idempotency-Key": key})
                except httpx.TransportError:
                    tally.transport_errors += 1
                    continue
                tally.requests += 1
                tally.statuses[r.status_code] += 1
                if r.status_code == 200:
                    tally.acknowledged[(game, key)] = r.json()["turn"]["number"]
                    tally.turn_ms.append((time.perf_counter() - start) * 1000)
                    break
                if r.status_code != 409:
                    break
                await asyncio.sleep(0.01)


def check_database(database_url: str, tally: Tally) -> tuple[int, int, int]:
    """(turns stored, lost, duplicated) against what the clients were told."""
    with psycopg.connect(database_url) as db:
        stored = {(g, k): n for g, k, n in db.execute("SELECT game_id, request_key, number FROM turn_requests")}
        turns = db.execute("SELECT count(*) FROM turns").fetchone()[0]
        keyed = db.execute("SELECT count(*) FROM turns t JOIN turn_requests r "
                           "ON r.game_id = t.game_id AND r.number = t.number").fetchone()[0]
    lost = sum(1 for item, number in tally.acknowledged.items() if stored.get(item) != number)
    duplicated = turns - keyed  # every turn here is posted with a key; the key is unique per game
    return turns, lost, duplicated


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(processes: int, admin_url: str, args: argparse.Namespace) -> dict[str, object]:
    name = f"rummi_load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    database_url = f"{admin_url.rpartition('/')[0]}/{name}"
    workdir = Path(tempfile.mkdtemp(prefix="rummi-load-"))
    process, url = start_service(processes, database_url, workdir)
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            games = [client.post("/api/v1/games", json={"players": ["Ann", "Bob", "Cy", "Di"]}).json()["id"]
                     for _ in range(args.games)]
            client.post("/api/v1/scan", files={"photo": ("p.jpg", PHOTO.read_bytes(), "image/jpeg")})
        tally = Tally()
        budget = [args.max_requests]
        start = time.monotonic()
        stop_at = start + args.seconds

        async def all_clients() -> None:
            await asyncio.gather(*(client_loop(n, url, games, stop_at, budget, args.scan_every, tally)
                                   for n in range(args.clients)))

        asyncio.run(all_clients())
        elapsed = time.monotonic() - start
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    turns, lost, duplicated = check_database(database_url, tally)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    # A scan refused as busy (503 + Retry-After) is the queue cap at work; any other 5xx counts.
    fivexx = sum(c for s, c in tally.statuses.items() if s >= 500)
    fivexx += sum(c for s, c in tally.scan_statuses.items() if s >= 500 and s != 503)
    return {
        "processes": processes,
        "seconds": round(elapsed, 1),
        "requests": tally.requests,
        "turns_acknowledged": len(tally.acknowledged),
        "turns_stored": turns,
        "lost": lost,
        "duplicated": duplicated,
        "5xx": fivexx,
        "503_busy_scans": tally.scan_statuses.get(503, 0),
        "409": tally.statuses.get(409, 0),
        "429": tally.statuses.get(429, 0),
        "other_4xx": sum(c for s, c in tally.statuses.items() if 400 <= s < 500 and s not in (409, 429)),
        "transport_errors": tally.transport_errors,
        "turns_per_s": round(len(tally.acknowledged) / elapsed, 1),
        "scans_per_s": round(len(tally.scan_ms) / elapsed, 1),
        "turn_ms_p50": round(statistics.median(tally.turn_ms), 1) if tally.turn_ms else None,
        "turn_ms_p95": round(percentile(tally.turn_ms, 0.95), 1),
        "scan_ms_p50": round(statistics.median(tally.scan_ms), 1) if tally.scan_ms else None,
        # The machine may be shared: the figures mean little without how busy it was.
        "load_avg_1m": round(os.getloadavg()[0], 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="per process count")
    parser.add_argument("--max-requests", type=int, default=6000, help="per process count")
    parser.add_argument("--scan-every", type=int, default=10, help="every Nth request of a client is a scan (0: none)")
    args = parser.parse_args()
    if not all(1 <= p <= 8 for p in args.processes) or not 1 <= args.clients <= 500 or args.seconds > 300:
        parser.error("1-8 processes, 1-500 clients, at most 300 s")
    admin_url, keeper = postgres_admin_url()
    try:
        columns = ["processes", "seconds", "requests", "turns_acknowledged", "turns_stored", "lost", "duplicated",
                   "5xx", "503_busy_scans", "409", "429", "other_4xx", "transport_errors", "turns_per_s",
                   "scans_per_s", "turn_ms_p50", "turn_ms_p95", "scan_ms_p50", "load_avg_1m"]
        print(f"# {args.clients} clients, {args.games} games, {args.seconds:g} s or {args.max_requests} requests, "
              f"a scan every {args.scan_every} requests; {os.cpu_count()} CPUs; PostgreSQL", flush=True)
        print("\t".join(columns), flush=True)
        for processes in args.processes:
            result = run(processes, admin_url, args)
            print("\t".join(str(result[c]) for c in columns), flush=True)
    finally:
        if keeper is not None:
            keeper.terminate()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
