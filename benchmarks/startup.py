"""How long a user waits for rummi to start: the figures of the README's "Start-up" table.

    .venv/bin/python benchmarks/startup.py [--runs 15] [--skip-service]

1. ``rummi --version``, ``rummi --help`` and ``rummi validate "r5 r6 r7"``: wall time of the whole
   process, median and worst of ``--runs`` runs (target: under 0.3 s).
2. In a fresh install of the built wheel with an empty cache (benchmarks/fresh_install.py): the
   first ``rummi hint`` (answered by the integer program while the kernel compiles in the
   background), how long that background compile takes, and the first hint after it.
3. A fresh ``rummi serve`` from that install: the time to /health and the first /api/v1/hint
   (the row of benchmarks/service_start.py, whose `time_fresh_server` both use).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.fresh_install import build_wheel, install_fresh, user_env  # noqa: E402
from benchmarks.service_start import HEADER, time_fresh_server  # noqa: E402

HINT = ["hint", "--table", "r5 r6 r7 | k9 b9 o9 | b1 b2 b3 b4", "--rack", "r8 J o9 k1 b5", "--opened"]


def wall(command: list[str], **kwargs) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, **kwargs)
    return time.perf_counter() - started


def startup_figures(rummi: str, runs: int) -> None:
    print(f"\n1. Start-up, wall time of the whole process, {runs} runs each (median / worst)")
    for args in (["--version"], ["--help"], ["validate", "r5 r6 r7"]):
        wall([rummi, *args])  # the first run warms the disk cache
        times = [wall([rummi, *args]) for _ in range(runs)]
        print(f"   rummi {' '.join(args):<22} {statistics.median(times):.3f} s / {max(times):.3f} s")


def fresh_install_figures(home: Path, skip_service: bool) -> None:
    print("\n2. A fresh install of the wheel, empty cache")
    env_dir = install_fresh(build_wheel(home / "dist"), home / "venv")
    rummi = str(env_dir / "bin" / "rummi")
    user = home / "user"
    env = user_env(user)
    cwd = home / "cwd"
    cwd.mkdir()
    first = wall([rummi, *HINT], env=env, cwd=cwd)
    print(f"   first rummi hint: {first:.2f} s (integer program; the kernel compiles in the background)")
    started = time.perf_counter()
    ready = None
    while ready is None:
        ready = next((user / "cache" / "numba").glob("*.ready"), None)
        time.sleep(0.5)
        if time.perf_counter() - started > 600:
            raise SystemExit("the background compile did not finish in 10 minutes")
    print(f"   background compile finished {time.perf_counter() - started + first:.1f} s after the first hint began")
    after = [wall([rummi, *HINT], env=env, cwd=cwd) for _ in range(3)]
    print(f"   rummi hint after it: {statistics.median(after):.2f} s (median of 3, kernel loaded from the cache)")
    if skip_service:
        return
    print("\n3. A fresh rummi serve from that install (new empty cache; benchmarks/service_start.py's row)")
    print(f"   {HEADER}")
    service_home = home / "service-user"
    time_fresh_server("   fresh wheel install", [rummi, "serve"], user_env(service_home), cwd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--skip-fresh", action="store_true", help="only the start-up figures")
    parser.add_argument("--skip-service", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}")
    startup_figures(str(Path(sys.executable).with_name("rummi")), args.runs)
    if not args.skip_fresh:
        with tempfile.TemporaryDirectory() as scratch:
            fresh_install_figures(Path(scratch), args.skip_service)


if __name__ == "__main__":
    main()
