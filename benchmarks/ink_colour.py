"""How blue black and blue ink look next to their own plastic (``vision.white_balance.ink_blueness``).

    .venv/bin/python benchmarks/ink_colour.py                    # held out + 4 variants + both prints
    .venv/bin/python benchmarks/ink_colour.py --variants original --scenes 0

The reader takes a far tile's few pixels of blue ink for black; the ink's own colour, measured
next to the tile's plastic, tells them apart whatever the light. This prints, for every black and
every blue tile the scanner found (matched to its label; whatever it was read as), the spread of
that measure per set of photos, and how many cross ``vision.reader.INK_NOT_BLACK``: black tiles
above it would be turned blue, blue ones below it are left to the reader. Photos: the held-out
real photos (``rummi dataset real``) as they are and under a warm cast, gamma 2.2, motion blur
and at 640 px (the robustness benchmark's variants), and the generated scenes of every print.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rummi.datasets.real import default_real_photos  # noqa: E402
from rummi.vision.evaluation import Evaluation  # noqa: E402
from rummi.vision.reader import INK_NOT_BLACK  # noqa: E402
from rummi.vision.scanner import Scanner  # noqa: E402
from rummi.vision.white_balance import ink_blueness  # noqa: E402

from benchmarks.vision_robustness import (  # noqa: E402
    MANIFEST,
    PRINTS,
    VARIANTS,
    Case,
    generated_cases,
    real_cases,
)


def measures(scanner: Scanner, cases: list[Case]) -> dict[str, list[float]]:
    """``ink_blueness`` of every found black (``k``) and blue (``b``) numbered tile, by its label's colour."""
    found_ink: dict[str, list[float]] = {"k": [], "b": []}
    for number, case in enumerate(cases, start=1):
        result = scanner.scan(case.image)
        matched = Evaluation().add(case.name, case.labels, case.outlines, result, 0.0, case.counted)
        for box, tile in matched.of_found.items():
            label = case.labels[tile]
            if label[0] in found_ink and label[1:].isdigit():
                found_ink[label[0]].append(ink_blueness(scanner.reader.crop(case.image, result.found.corners[box])))
        print(f"\r  {number}/{len(cases)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return found_ink


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="original,warm-cast,gamma-2.2,motion-blur-9px,640px")
    parser.add_argument("--scenes", type=int, default=40, help="generated scenes per print (0: none)")
    parser.add_argument("--real", type=Path, default=default_real_photos())
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="held-out split (rummi dataset real)")
    args = parser.parse_args()
    if not args.manifest.is_file() or not args.real.is_dir():
        parser.error(f"needs {args.manifest} (`rummi dataset real --out data/real`) and the photos at {args.real}")
    scanner = Scanner.load()
    real = real_cases(args.real, args.manifest, None)
    groups = [(name, [VARIANTS[name](c) for c in real]) for name in args.variants.split(",") if name]
    groups += [(f"generated {p}", list(generated_cases(p, args.scenes))) for p in PRINTS if args.scenes]
    print(f"ink blueness next to the tile's own plastic; a black tile above {INK_NOT_BLACK} is turned blue")
    print("| photos | ink | tiles | 1st | 5th | median | 95th | 99th | max | above the line |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, cases in groups:
        for colour, values in measures(scanner, cases).items():
            if not values:
                continue
            v = np.array(values)
            pct = " | ".join(f"{x:.2f}" for x in np.percentile(v, [1, 5, 50, 95, 99]))
            print(f"| {name} | {'black' if colour == 'k' else 'blue'} | {len(v)} | {pct} | {v.max():.2f} "
                  f"| {int((v > INK_NOT_BLACK).sum())} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
