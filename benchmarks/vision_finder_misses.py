"""Which tiles the finder misses, and why: their size in the finder's own input pixels.

    .venv/bin/python benchmarks/vision_finder_misses.py --variants tilt-30,crop-half --limit 20
    .venv/bin/python benchmarks/vision_finder_misses.py --draw runs/misses   # pictures too

The finder sees every photo letterboxed to its input (320 px). For each variant of
``benchmarks/vision_robustness.py`` this runs the finder alone (``TileFinder.find``, no reader)
on the held-out real photos and matches its boxes to the labelled tiles (centre inside the
outline, as the scoring does). Per variant it prints, for the tiles found and the tiles missed,
the tile's short side in finder pixels (percentiles) and the share of missed tiles that the
photo's edge cuts; and the recall of the finder in bands of tile size, so a cause (tiles too
small at 320, too large, cut at the edge) shows as figures. ``--timing`` adds, per variant, how
many photos got a second look (finer, coarser) and the finder's median time with the second
look and with the whole-photo look alone (``find`` and ``find_once``, alternated per photo so
both see the same load). ``--trained`` prints instead the sizes of the tiles the finder was
taught on (its training labels), the figures behind ``tile_px`` in the finder's model.json. ``--draw`` writes one picture a
photo with misses: found boxes green, missed outlines red, false finds blue.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from rummi.datasets.real import default_real_photos  # noqa: E402
from rummi.vision.detections import TileDetections  # noqa: E402
from rummi.vision.evaluation import match_indices  # noqa: E402
from rummi.vision.finder import TileFinder  # noqa: E402
from rummi.vision.scanner import Scanner  # noqa: E402
from vision_robustness import MANIFEST, VARIANTS, Case, real_cases  # noqa: E402

#: Bands of a tile's short side in finder pixels for the recall table.
BANDS = (0, 8, 10, 12, 14, 16, 20, 25, 35, 50, 80, 1000)


def short_side(outline: np.ndarray) -> float:
    (_, _), (w, h), _ = cv2.minAreaRect(outline.astype(np.float32))
    return float(min(w, h))


def cut_by_frame(outline: np.ndarray, width: int, height: int) -> bool:
    low, high = outline.min(axis=0), outline.max(axis=0)
    return bool(low[0] < 0 or low[1] < 0 or high[0] > width or high[1] > height)


def looked(scanner: Scanner, case: Case, look: Callable[[np.ndarray], TileDetections]) -> dict:
    """Finder-only figures of one photo: per counted tile its size (finder px), found or not."""
    h, w = case.image.shape[:2]
    scale = scanner.finder.size / max(h, w)
    found = look(case.image)
    partner = match_indices(found.centers, case.outlines)  # labelled -> found
    rows = []
    for t, outline in enumerate(case.outlines):
        if not case.counted[t]:
            continue
        rows.append((short_side(outline) * scale, t in partner, cut_by_frame(outline, w, h)))
    taken = set(partner.values())
    false = [f for f in range(len(found)) if f not in taken
             and not any(cv2.pointPolygonTest(o.astype(np.float32), tuple(map(float, found.centers[f])), False) >= 0
                         for o in case.outlines)]
    return {"tiles": rows, "found": found, "partner": partner, "false": false}


def draw(case: Case, figures: dict, path: Path) -> None:
    image = case.image.copy()
    found = figures["found"]
    for f in range(len(found)):
        colour = (255, 0, 0) if f in figures["false"] else (0, 200, 0)
        cv2.polylines(image, [found.corners[f].astype(np.int32)], True, colour, 2)
    for t, outline in enumerate(case.outlines):
        if case.counted[t] and t not in figures["partner"]:
            cv2.polylines(image, [outline.astype(np.int32)], True, (0, 0, 255), 3)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), image)


def summarise(name: str, rows: list[tuple[float, bool, bool]], false_finds: int, photos: int) -> None:
    sizes = np.array([r[0] for r in rows])
    hit = np.array([r[1] for r in rows], bool)
    cut = np.array([r[2] for r in rows], bool)
    pct = lambda a: " / ".join(f"{v:.1f}" for v in np.percentile(a, [10, 50, 90])) if len(a) else "-"  # noqa: E731
    print(f"| {name} | {len(rows)} | {int((~hit).sum())} | {false_finds} | {pct(sizes[hit])} | {pct(sizes[~hit])} "
          f"| {int((~hit & cut).sum())}/{int((~hit).sum())} |")
    bands = []
    for low, high in zip(BANDS, BANDS[1:]):
        inside = (sizes >= low) & (sizes < high)
        if inside.any():
            bands.append(f"{low}-{high}: {hit[inside].mean():.2f} of {int(inside.sum())}")
    print(f"|  recall by short side (finder px) | {'; '.join(bands)} |||||||")


def timing(finder: TileFinder, images: list[np.ndarray]) -> str:
    """Photos that got a finer / coarser second look, and the finder's median milliseconds
    with them and with the whole-photo look alone (alternated per photo, same load)."""
    zooms: list[float] = []
    real_look = finder.look

    def counting_look(image_bgr: np.ndarray, zoom: float = 1.0):
        zooms.append(zoom)
        return real_look(image_bgr, zoom)
    finer = coarser = 0
    twice, once = [], []
    for image in images:
        zooms.clear()
        finder.look = counting_look
        started = time.perf_counter()
        finder.find(image)
        twice.append((time.perf_counter() - started) * 1000)
        finder.look = real_look
        finer += len(zooms) > 2 or (len(zooms) == 2 and zooms[1] == 1.0)
        coarser += any(z < 1.0 for z in zooms)
        started = time.perf_counter()
        finder.find_once(image)
        once.append((time.perf_counter() - started) * 1000)
    return (f"finer look {finer}/{len(images)} photos, coarser {coarser}/{len(images)}; finder median "
            f"{statistics.median(twice):.1f} ms with the second look, {statistics.median(once):.1f} ms without")


def trained_sizes(folders: list[tuple[Path, int | None]], size: int) -> str:
    """Percentiles of the short side, in ``size`` input pixels, of the tiles in YOLO OBB dataset
    folders (``labels/train/*.txt`` of normalised corners, the image beside in ``images/train``),
    each with at most so many images (None: all)."""
    from PIL import Image

    sides = []
    for folder, limit in folders:
        for label in sorted((folder / "labels" / "train").glob("*.txt"))[:limit]:
            images = list((folder / "images" / "train").glob(label.stem + ".*"))
            if not images:
                continue
            width, height = Image.open(images[0]).size
            scale = size / max(width, height)
            for line in label.read_text().splitlines():
                corners = np.array(line.split()[1:], float).reshape(-1, 2) * [width, height]
                sides.append(short_side(corners) * scale)
    values = np.percentile(sides, [1, 5, 50, 95, 99, 100])
    return (f"{len(sides)} training tiles, short side in the {size} px input: p1 {values[0]:.1f}, "
            f"p5 {values[1]:.1f}, median {values[2]:.1f}, p95 {values[3]:.1f}, p99 {values[4]:.1f}, "
            f"largest {values[5]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="original,tilt-30,tilt-50-side-tele,crop-half,crop-third-off-centre")
    parser.add_argument("--limit", type=int, default=None, help="real photos a variant (spread over sessions)")
    parser.add_argument("--real", type=Path, default=default_real_photos())
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--draw", type=Path, default=None, help="folder for pictures of photos with misses")
    parser.add_argument("--timing", action="store_true",
                        help="also count second looks and time the finder with and without them")
    parser.add_argument("--single-look", action="store_true",
                        help="the finder's whole-photo look only (no second look), to compare")
    parser.add_argument("--trained", type=Path, nargs="*", default=None,
                        help="OBB dataset folders the finder was trained on (e.g. data/real/obb data/synth/obb): "
                             "print their tiles' sizes and stop")
    parser.add_argument("--per-folder", type=int, default=1000,
                        help="with --trained: at most this many images of each folder after the first "
                             "(the finder's recipe took 1,000 generated scenes)")
    args = parser.parse_args()
    if args.trained is not None:
        given = args.trained or [ROOT / "data" / "real" / "obb", ROOT / "data" / "synth" / "obb"]
        folders = [(folder, None if i == 0 else args.per_folder) for i, folder in enumerate(given)]
        for folder in folders:
            print(f"{folder[0]}: {trained_sizes([folder], 320)}")
        print(f"together: {trained_sizes(folders, 320)}")
        return 0
    scanner = Scanner.load(threads=1)
    finder = scanner.finder
    look = finder.find_once if args.single_look else finder.find
    cases = real_cases(args.real, args.manifest, args.limit)
    print("| variant | tiles | missed | false finds | found: short side p10 / p50 / p90 (finder px) "
          "| missed: short side p10 / p50 / p90 | missed cut by the frame |")
    print("|---|---|---|---|---|---|---|")
    for name in [v.strip() for v in args.variants.split(",") if v.strip()]:
        rows, false_finds = [], 0
        for case in cases:
            changed = VARIANTS[name](case)
            figures = looked(scanner, changed, look)
            rows += figures["tiles"]
            false_finds += len(figures["false"])
            if args.draw and (not all(r[1] for r in figures["tiles"]) or figures["false"]):
                draw(changed, figures, args.draw / name / f"{changed.name}.jpg")
        summarise(name, rows, false_finds, len(cases))
        if args.timing:
            print(f"|  second looks, time | {timing(finder, [VARIANTS[name](case).image for case in cases])} |||||||")
    return 0


if __name__ == "__main__":
    sys.exit(main())
