"""How fast does `rummi dataset synth` write scenes here? Prints scenes/s and the time for 5,000.

    .venv/bin/python benchmarks/synth_speed.py --n 500 --workers 2

Writes into a temporary folder and deletes it. The machine's load average is printed with the
figure, because on a shared 2-core machine other jobs change it a lot.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from rummi.datasets.real import default_real_photos
from rummi.datasets.synth.generate import generate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--real", type=Path, default=default_real_photos())
    args = parser.parse_args()
    real = args.real if (args.real / "data.yaml").is_file() else None
    out = Path(tempfile.mkdtemp(prefix="synth-speed-")) / "data"
    load_before = os.getloadavg()
    start = time.monotonic()
    try:
        manifest = generate(out, n=args.n, seed=args.seed, real_source=real, workers=args.workers)
        total = time.monotonic() - start
    finally:
        shutil.rmtree(out.parent, ignore_errors=True)
    load_after = os.getloadavg()
    rate = args.n / total
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; load average {load_before[0]:.1f} -> {load_after[0]:.1f}")
    print(f"scenes: {args.n} with {args.workers} workers, real tiles: {manifest['real_tiles']['count']}")
    print(f"total: {total:.1f} s (incl. cutting real tiles and warming the face cache)  = {rate:.2f} scenes/s")
    print(f"projected for 5,000 scenes: {5000 / rate / 60:.1f} min")


if __name__ == "__main__":
    main()
