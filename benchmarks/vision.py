"""Figures of the vision pipeline: latency of `rummi scan` and accuracy on held-out real photos.

    .venv/bin/python benchmarks/vision.py                       # both
    .venv/bin/python benchmarks/vision.py --skip-accuracy       # latency only

Latency: the median over ``--runs`` scans of a 1000x750 JPEG (models loaded, one warm-up run
first), from the file's bytes to the game state: decode + find + read + layout, as `rummi scan`
does it. The default photo is the hardest sample (27 tiles at every angle, so many tiles get a
second look); the accuracy run also gives the median over every held-out photo (scan only).
Also a 12 MP JPEG of the sample (upscaled, quality 90), which is decoded at half size
(``vision.image_io.load_for_scan``) before the finder downscales it and the reader cuts crops.

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
from rummi.vision.image_io import load_for_scan, load_image  # noqa: E402
from rummi.vision.onnx_model import DEFAULT_THREADS  # noqa: E402
from rummi.vision.scanner import Scanner  # noqa: E402

SAMPLE = ROOT / "vision" / "samples" / "images" / "scatter-rummy-42.jpg"
MANIFEST = ROOT / "data" / "real" / "manifest.json"


def jpeg_bytes(image, quality: int) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("could not encode the photo as JPEG")
    return data.tobytes()


def latency(scanner: Scanner, data: bytes, runs: int) -> dict[str, float]:
    """Bytes of a JPEG to a ScanResult, ``runs`` times: decode, find, read, lay out."""
    photo = load_for_scan(data)
    scanner.scan(photo.image, photo_scale=photo.scale)
    totals, parts = [], {"decode": [], "find": [], "read": [], "layout": []}
    for _ in range(runs):
        started = time.perf_counter()
        photo = load_for_scan(data)
        decoded = time.perf_counter()
        result = scanner.scan(photo.image, photo_scale=photo.scale)
        totals.append((time.perf_counter() - started) * 1000)
        parts["decode"].append((decoded - started) * 1000)
        for key in ("find", "read", "layout"):
            parts[key].append(result.timings_ms[key])
    figures = {"median_ms": statistics.median(totals), "p90_ms": sorted(totals)[int(0.9 * (len(totals) - 1))]}
    figures.update({f"{k}_median_ms": statistics.median(v) for k, v in parts.items()})
    figures["tiles"] = len(result.found)
    figures["decoded_wh"] = f"{photo.image.shape[1]}x{photo.image.shape[0]}"
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--photo", type=Path, default=SAMPLE)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"onnxruntime intra-op threads per model (default {DEFAULT_THREADS}; "
                             "0: onnxruntime's own default, one per core)")
    parser.add_argument("--real", type=Path, default=default_real_photos(),
                        help="the shared labelled photos (default: $RUMMI_REAL_PHOTOS, else "
                             "../shared/datasets/rummikub-photos beside the checkout)")
    parser.add_argument("--single-look", action="store_true",
                        help="the finder's whole-photo look only, never a second look (to compare)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    load = os.getloadavg()[0]
    scanner = Scanner.load(threads=args.threads or None)
    if args.single_look:
        scanner.finder.tile_px = None
    print(f"load average {load:.1f}; onnxruntime threads per model: {args.threads or 'onnxruntime default'}")
    image = load_image(args.photo)
    if image.shape[0] > image.shape[1]:  # the sample with most tiles is portrait: turn it to 1000x750
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    print(f"photo: {args.photo.name} {image.shape[1]}x{image.shape[0]}")
    line = ("latency, {w}x{h} JPEG ({size}), {tiles} tiles: median {median_ms:.1f} ms (p90 {p90_ms:.1f}), decode "
            "included; decode {decode_median_ms:.1f} (to {decoded_wh}) + find {find_median_ms:.1f} + read "
            "{read_median_ms:.1f} + layout {layout_median_ms:.1f} ms")
    data = jpeg_bytes(image, 95)
    figures = latency(scanner, data, args.runs)
    print(line.format(w=image.shape[1], h=image.shape[0], size=f"{len(data) / 1e6:.1f} MB", **figures))
    big = cv2.resize(image, (image.shape[1] * 4, image.shape[0] * 4), interpolation=cv2.INTER_CUBIC)
    data = jpeg_bytes(big, 90)
    figures = latency(scanner, data, max(5, args.runs // 3))
    print(line.format(w=big.shape[1], h=big.shape[0], size=f"12 MP, {len(data) / 1e6:.1f} MB", **figures))
    full, reduced = [], []
    for _ in range(max(5, args.runs // 3)):  # alternated, so both see the same load
        started = time.perf_counter()
        load_image(data)
        full.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        load_for_scan(data)
        reduced.append((time.perf_counter() - started) * 1000)
    print(f"decoding the 12 MP JPEG: in full {statistics.median(full):.1f} ms, at reduced size for scanning "
          f"{statistics.median(reduced):.1f} ms (medians)")
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
