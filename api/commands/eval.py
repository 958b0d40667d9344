"""`rummi eval DIR`: score the tile reading on labelled photos (the shared photos' format).

Prints per-tile precision and recall of the read (number and colour both right), the share of
photos read perfectly and the median latency of a scan; with ``--confusion OUT.png`` it also
draws the confusion matrix (nothing is written unless asked).

    rummi eval ../shared/datasets/rummikub-photos --holdout data/real/manifest.json

``--holdout MANIFEST`` keeps only the photos a dataset manifest holds out for validation
(by shooting session), so photos the models were trained on are not scored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("eval", help="precision/recall of the tile reading on labelled photos",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, metavar="DIR", help="images/ + labels/ (or split folders of them)")
    parser.add_argument("--holdout", type=Path, metavar="MANIFEST",
                        help="only the photos this dataset manifest puts in its val split")
    parser.add_argument("--confusion", type=Path, default=None, metavar="OUT.png",
                        help="also write the confusion matrix as a picture")
    parser.add_argument("--models", type=Path, default=None, help="folder with tile-finder/ and tile-reader/")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from rummi.vision.evaluation import confusion_image, evaluate, holdout_filter, labelled_photos
    from rummi.vision.image_io import check_image_target, save_image
    from rummi.vision.scanner import Scanner

    if args.confusion is not None:
        check_image_target(args.confusion)
    only = holdout_filter(args.holdout) if args.holdout else None
    photos = labelled_photos(args.folder, only)
    if not photos:
        raise ValueError(f"{args.folder}: no labelled photos to score")
    scanner = Scanner.load(args.models)

    def progress(done: int, total: int, name: str) -> None:
        print(f"\r[{done}/{total}] {name[:60]:60}", end="" if done < total else "\n", file=sys.stderr, flush=True)

    scores = evaluate(scanner, photos, progress)
    classes = list(scanner.reader.tile_names)
    if args.confusion is not None:
        save_image(args.confusion, confusion_image(scores.confusion, classes))
    summary = scores.summary()
    if args.json:
        extra = {"confusion_png": str(args.confusion)} if args.confusion is not None else {}
        print(json.dumps({**summary, "imperfect": scores.imperfect, **extra}))
        return 0
    print(f"photos: {summary['photos']}  tiles labelled: {summary['tiles_labelled']}  "
          f"reported: {summary['tiles_reported']}")
    print(f"tile read precision: {summary['precision']:.4f}")
    print(f"tile read recall:    {summary['recall']:.4f}")
    print(f"photos read perfectly: {summary['perfect_photos']}/{summary['photos']} ({summary['perfect_share']:.1%})")
    print(f"median latency per photo: {summary['median_latency_ms']:.0f} ms (find + read + layout)")
    errors = sorted(((t, r, n) for (t, r), n in scores.confusion.items() if t != r), key=lambda x: -x[2])
    if errors:
        print("most frequent errors (truth -> read, '-' = none): "
              + ", ".join(f"{t}->{r} x{n}" for t, r, n in errors[:10]))
    if args.confusion is not None:
        print(f"confusion matrix: {args.confusion}")
    return 0
