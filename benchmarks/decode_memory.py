"""Peak memory of decoding one photo, as the service decodes it (api/routers/photos.py).

    .venv/bin/python benchmarks/decode_memory.py

Each case runs in a fresh Python process and prints how far its resident memory peaked above
where it stood before the decode (Linux: the peak is reset through /proc/self/clear_refs): a
40-megapixel JPEG decoded whole and as a scan decodes it (``load_for_scan``: JPEG draft down to
a long side of 2000 px or more, here a quarter), and a 39.9-megapixel PNG (no draft possible),
which the default ``decode_budget_mb`` of 256 refuses before decoding.
The photos are made in a temporary folder (smooth noise, so they compress as photos do).

Then a real server (``rummi serve``, SQLite in a temporary folder): its resident memory after a
small scan has loaded the models (the baseline), its peak while six 40 MP JPEGs are scanned at
once (sampled every 20 ms), and where it stands 2 s after the last answer, with the default
2 scan workers and with 6 (all six decoding at once), each with ``RUMMI_TRIM_MEMORY`` on (the
default: malloc_trim after each scan job) and off.

    .venv/bin/python benchmarks/decode_memory.py --server-only
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
SMALL_PHOTO = ROOT / "tests" / "data" / "photos" / "table-wood.jpg"

CHILD = r"""
import sys
from rummi.vision.image_io import ImageError, load_for_scan, load_image

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])

data = open(sys.argv[1], "rb").read()
for_scan = sys.argv[2] == "scan"
budget = None if sys.argv[3] == "none" else int(sys.argv[3]) * 1_000_000
open("/proc/self/clear_refs", "w").write("5")  # the peak (VmHWM) starts again from now
before = status("VmRSS:")
try:
    if for_scan:
        image = load_for_scan(data, max_pixels=64_000_000, max_decode_bytes=budget).image
    else:
        image = load_image(data, max_pixels=64_000_000, max_decode_bytes=budget)
    shape = f"{image.shape[1]}x{image.shape[0]}"
except ImageError as error:
    shape = "refused: " + str(error)[:70]
after = status("VmHWM:")
print(f"{(after - before) / 1024:.0f}\t{shape}")
"""


def make_photos(folder: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    small = rng.integers(0, 255, (90, 120, 3), dtype=np.uint8)
    jpeg = Image.fromarray(small).resize((7300, 5480), Image.BILINEAR)  # 40.0 MP
    png = Image.fromarray(small).resize((7300, 5466), Image.BILINEAR)  # 39.9 MP
    paths = {"jpeg": folder / "big.jpg", "png": folder / "big.png", "server": folder / "server.jpg"}
    jpeg.save(paths["jpeg"], quality=85)
    # Within the service's default 40 MP: 7290 x 5480 = 39.95 MP.
    Image.fromarray(small).resize((7290, 5480), Image.BILINEAR).save(paths["server"], quality=85)
    png.save(paths["png"], compress_level=6)
    return paths


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_case(workdir: Path, photo: bytes, scan_workers: int, trim: bool) -> tuple[float, float, float, list[int]]:
    """Baseline, peak and after (MB) of a real server scanning six copies of ``photo`` at once."""
    workdir.mkdir()
    port = free_port()
    env = {
        **os.environ,
        "RUMMI_DATABASE_URL": f"sqlite:///{workdir / 'games.db'}",
        "RUMMI_DATA_DIR": str(workdir / "data"),
        "RUMMI_CORRECTIONS_DIR": str(workdir / "corrections"),
        "RUMMI_SCAN_WORKERS": str(scan_workers),
        "RUMMI_MAX_QUEUED_SCANS": "8",
        "RUMMI_TRIM_MEMORY": "1" if trim else "0",
    }
    log = (workdir / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "rummi.api.cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/api/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit(f"rummi serve did not start:\n{(workdir / 'server.log').read_text()}") from None
                time.sleep(0.3)

        def scan(data: bytes) -> int:
            files = {"photo": ("p.jpg", data, "image/jpeg")}
            response = httpx.post(f"{url}/scan", files=files, timeout=600)
            if response.status_code != 200:
                print(f"\t(scan answered {response.status_code}: {response.text[:200]})", flush=True)
            return response.status_code

        assert scan(SMALL_PHOTO.read_bytes()) == 200  # the models load: part of the baseline
        time.sleep(2)
        baseline = rss_mb(server.pid)
        peak = [baseline]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss_mb(server.pid))
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        with ThreadPoolExecutor(6) as pool:
            statuses = list(pool.map(scan, [photo] * 6))
        done.set()
        sampler.join()
        time.sleep(2)
        return baseline, peak[0], rss_mb(server.pid), statuses
    finally:
        server.terminate()
        server.wait(timeout=30)


def server_cases(folder: Path, photos: dict[str, Path]) -> None:
    photo = photos["server"].read_bytes()
    print("\nserver: six 40 MP JPEG scans at once\tscan_workers\ttrim\tbaseline_MB\tpeak_MB\tafter_MB\tstatuses",
          flush=True)
    for scan_workers in (2, 6):
        for trim in (True, False):
            baseline, peak, after, statuses = server_case(
                folder / f"server-{scan_workers}-{trim}", photo, scan_workers, trim
            )
            print(f"\t{scan_workers}\t{'on' if trim else 'off'}\t{baseline:.0f}\t{peak:.0f}\t{after:.0f}\t"
                  f"{','.join(map(str, statuses))}", flush=True)


def main() -> int:
    server_only = "--server-only" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        photos = make_photos(Path(tmp))
        if server_only:
            server_cases(Path(tmp), photos)
            return 0
        print("case\tpeak_growth_MB\tdecoded", flush=True)
        for case, photo, draft, budget in (
            ("40 MP JPEG, whole", "jpeg", "whole", "none"),
            ("40 MP JPEG, as a scan decodes it (service default)", "jpeg", "scan", "256"),
            ("39.9 MP PNG, whole", "png", "whole", "none"),
            ("39.9 MP PNG, budget 256 MB (service default)", "png", "scan", "256"),
        ):
            out = subprocess.run([sys.executable, "-c", CHILD, str(photos[photo]), draft, budget],
                                 check=True, capture_output=True, text=True).stdout.strip()
            print(f"{case}\t{out}", flush=True)
        server_cases(Path(tmp), photos)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
