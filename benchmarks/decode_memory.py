"""Peak memory of decoding one photo, as the service decodes it (api/routers/photos.py).

    .venv/bin/python benchmarks/decode_memory.py

Each case runs in a fresh Python process and prints how far its resident memory peaked above
where it stood before the decode (Linux: the peak is reset through /proc/self/clear_refs): a
40-megapixel JPEG decoded whole and as a scan decodes it (``load_for_scan``: JPEG draft down to
a long side of 2000 px or more, here a quarter), and a 39.9-megapixel PNG (no draft possible),
which the default ``decode_budget_mb`` of 256 refuses before decoding.
The photos are made in a temporary folder (smooth noise, so they compress as photos do).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

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
    paths = {"jpeg": folder / "big.jpg", "png": folder / "big.png"}
    jpeg.save(paths["jpeg"], quality=85)
    png.save(paths["png"], compress_level=6)
    return paths


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        photos = make_photos(Path(tmp))
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
