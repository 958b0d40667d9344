"""Where a box at the photo's edge counts as cut: the figures behind ``CUT_SHARE``.

    .venv/bin/python benchmarks/edge_cut.py                 # the held-out photos' half crops
    .venv/bin/python benchmarks/edge_cut.py --limit 10

A tile the photo's edge cuts shows only part of its face and can be read wrongly with
confidence (a real 2 cut in half read as 13 at 0.96), so the scanner flags it uncertain
(``TileDetections.cut_by_the_edge``, vision/detections.py). Flagging every box that touches the
edge costs too much: a tightly framed rack or table has whole tiles on its border, and an
uncertain spot turns an "illegal" verdict into "uncertain". So a box at the edge is flagged when
the part of it inside the photo is less than ``CUT_SHARE`` of the photo's median tile.

This prints, for the boxes at the edge of the held-out real photos cropped to their middle half
(the robustness benchmark's ``crop-half``, where most boxes at an edge are cut ones), how many
each share would flag, and every wrong read among them with the share of a tile inside it and
whether the reader was sure of it: a good share flags the wrong reads and as few right ones as
it can.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummi.datasets.real import default_real_photos  # noqa: E402
from rummi.vision.detections import CUT_SHARE  # noqa: E402
from rummi.vision.evaluation import Evaluation  # noqa: E402
from rummi.vision.scanner import UNCERTAIN_BELOW, Scanner  # noqa: E402

from benchmarks.vision_robustness import MANIFEST, cropped_half, real_cases  # noqa: E402

SHARES = (0.5, 0.6, 0.75, 0.9, 1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=None, help="the real photos (default: the shared ones)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="the split `rummi dataset real` wrote")
    parser.add_argument("--limit", type=int, default=None, help="at most this many photos")
    args = parser.parse_args()
    if not args.manifest.is_file():
        parser.error(f"no manifest at {args.manifest}: run `rummi dataset real --out data/real` first")
    photos = args.photos or default_real_photos()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    scanner = Scanner.load()
    cases = real_cases(photos, args.manifest, args.limit)
    edge_boxes: list[tuple[float, bool, bool, str]] = []  # (share inside, read right, sure, name)
    for number, case in enumerate(cases, start=1):
        changed = cropped_half(case)
        result = scanner.scan(changed.image)
        matched = Evaluation().add(changed.name, changed.labels, changed.outlines, result, 0.0, changed.counted)
        height, width = changed.image.shape[:2]
        shares = result.found.inside_shares(width, height)
        for i in np.flatnonzero(~np.isnan(shares)):
            if i in matched.ignored:
                continue  # a tile the crop left under half of: neither right nor wrong
            sure = float(result.found.confidence[i]) >= UNCERTAIN_BELOW
            edge_boxes.append((float(shares[i]), i in matched.right, sure, changed.name))
        print(f"\r  {number}/{len(cases)} photos", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    wrong = sorted((b for b in edge_boxes if not b[1]), key=lambda b: b[0])
    print(f"{len(cases)} held-out photos cropped to their middle half: {len(edge_boxes)} boxes at the edge, "
          f"{len(wrong)} of them read wrongly ({sum(b[2] for b in wrong)} of those surely)")
    print("| share of the median tile inside, below which a box is flagged | boxes flagged | "
          "right reads flagged | wrong reads flagged | sure wrong reads left unflagged |")
    print("|---|---|---|---|---|")
    for share in sorted({*SHARES, CUT_SHARE}):
        flagged = [b for b in edge_boxes if b[0] < share]
        mark = " (CUT_SHARE)" if share == CUT_SHARE else ""
        print(f"| {share:g}{mark} | {len(flagged)} | {sum(b[1] for b in flagged)} | "
              f"{sum(not b[1] for b in flagged)} | {sum(1 for b in wrong if b[2] and b[0] >= share)} |")
    if wrong:
        print("\nwrong reads at the edge (share inside, sure):")
        for share, _, sure, name in wrong:
            print(f"  {name}: {share:.2f}{', sure' if sure else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
