"""Figures of the vision pipeline: latency of `rummi scan` and accuracy on held-out real photos.

    .venv/bin/python benchmarks/vision.py                       # both
    .venv/bin/python benchmarks/vision.py --skip-accuracy       # latency only

Latency: the median over ``--runs`` scans of a 1000x750 photo (models loaded, one warm-up run
first), find + read + layout, as `rummi scan` does it. The default photo is the hardest sample
(27 tiles at every angle, so many tiles get a second look); the accuracy run also gives the
median over every held-out photo. Also a 12 MP version of the sample (upscaled), which the
finder downscales and the reader crops at full resolution.

Accuracy: the real photos held out by shooting session (``data/real/manifest.json``'s val split,
made by `rummi dataset real`), or the bundled samples when that is absent.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummi.datasets.real import default_real_photos  # noqa: E402
from rummi.vision.evaluation import evaluate, holdout_filter, labelled_photos  # noqa: E402
from rummi.vision.image_io import load_image  # noqa: E402
from rummi.vision.scanner import Scanner  # noqa: E402

SAMPLE = ROOT / "vision" / "samples" / "images" / "scatter-rummy-42.jpg"
MANIFEST = ROOT / "data" / "real" / "manifest.json"


def latency(scanner: Scanner, image, runs: int) -> dict[str, float]:
    scanner.scan(image)
    totals, parts = [], {"find": [], "read": [], "layout": []}
    for _ in range(runs):
        started = time.perf_counter()
        result = scanner.scan(image)
        totals.append((time.perf_counter() - started) * 1000)
        for key in parts:
            parts[key].append(result.timings_ms[key])
    figures = {"median_ms": statistics.median(totals), "p90_ms": sorted(totals)[int(0.9 * (len(totals) - 1))]}
    figures.update({f"{k}_median_ms": statistics.median(v) for k, v in parts.items()})
    figures["tiles"] = len(result.found)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--photo", type=Path, default=SAMPLE)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--real", type=Path, default=default_real_photos(),
                        help="the shared labelled photos (default: $RUMMI_REAL_PHOTOS, else "
                             "../shared/datasets/rummikub-photos beside the checkout)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    scanner = Scanner.load()
    image = load_image(args.photo)
    if image.shape[0] > image.shape[1]:  # the sample with most tiles is portrait: turn it to 1000x750
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    print(f"photo: {args.photo.name} {image.shape[1]}x{image.shape[0]}")
    figures = latency(scanner, image, args.runs)
    print("latency, {w}x{h} photo, {tiles} tiles: median {median_ms:.1f} ms (p90 {p90_ms:.1f}); find {find_median_ms:.1f}"
          " + read {read_median_ms:.1f} + layout {layout_median_ms:.1f} ms".format(
              w=image.shape[1], h=image.shape[0], **figures))
    big = cv2.resize(image, (image.shape[1] * 4, image.shape[0] * 4), interpolation=cv2.INTER_CUBIC)
    figures = latency(scanner, big, max(5, args.runs // 3))
    print("latency, {w}x{h} (12 MP) photo: median {median_ms:.1f} ms; find {find_median_ms:.1f} + read "
          "{read_median_ms:.1f} ms".format(w=big.shape[1], h=big.shape[0], **figures))
    if args.skip_accuracy:
        return 0
    if MANIFEST.is_file() and args.real.is_dir():
        photos = labelled_photos(args.real, holdout_filter(MANIFEST))
        where = f"real photos held out by session ({MANIFEST.relative_to(ROOT)} val split)"
    else:
        photos = labelled_photos(ROOT / "vision" / "samples")
        where = "the bundled samples (data/real absent: run `rummi dataset real --out data/real`)"
    scores = evaluate(scanner, photos)
    s = scores.summary()
    print(f"accuracy on {where}: {s['photos']} photos, {s['tiles_labelled']} tiles")
    print(f"  tile read precision {s['precision']:.4f}, recall {s['recall']:.4f}, "
          f"perfect photos {s['perfect_photos']}/{s['photos']} ({s['perfect_share']:.1%})")
    print(f"  latency over these photos (1000x750 or 750x1000 each): median {s['median_latency_ms']:.1f} ms")
    if scores.imperfect:
        print(f"  imperfect: {', '.join(scores.imperfect)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
