"""`rummi scan PHOTO...`: read the tiles in photos of a table or a rack.

With ``--json`` each photo gives one line, a JSON object (the contract other tools read)::

    {"image": "path", "tiles": [{"tile": "r7", "confidence": 0.97, "corners": [[x, y], ...]}, ...],
     "sets": [["r5", "r6", "r7"], ...], "rack": ["k1", ...] or null, "uncertain": [3, 7],
     "advice": [] or ["hold steady"] / ["more light"] / ["come closer"]}

``corners`` are the tile's top-left, top-right, bottom-right and bottom-left as it reads, in
pixels of the (EXIF-turned) photo; ``uncertain`` lists indices into ``tiles``; jokers are ``J``
(``--edition expert`` or ``twist``: named by their colour, ``Jk``.. or ``Jd``..);
``advice`` says when the photo was too blurred or too dark to read surely (every tile is then
uncertain).
Without ``--json`` the state is printed for a person, with the engine's verdict on each set.
A photo that cannot be read is reported on stderr and the others still run (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: What a photo may show (rummi.vision.layout.LAYOUT_KINDS; spelt out so that building the
#: parser does not import OpenCV).
LAYOUT_KINDS = ("auto", "table", "rack")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("scan", help="read the tiles in photos (table, rack, or both)",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    parser.add_argument("--json", action="store_true", help="one JSON object per photo, one per line")
    parser.add_argument("--draw", type=Path, metavar="OUT.png",
                        help="write the photo with every tile outlined and labelled (several photos: OUT-2.png...)")
    parser.add_argument("--kind", choices=LAYOUT_KINDS, default="auto",
                        help="what the photo shows: auto (default), table, or rack")
    parser.add_argument("--edition", default="standard",
                        help="the box: Expert's and Twist's jokers are named by colour (Jk.., Jd..), others' J")
    parser.add_argument("--models", type=Path, default=None, help="folder with tile-finder/ and tile-reader/")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from rummi.engine.editions import get_edition
    from rummi.vision.draw import draw_scan
    from rummi.vision.image_io import ImageError, load_for_scan, load_image, save_image
    from rummi.vision.scanner import Scanner

    edition = get_edition(args.edition).name  # an unknown box is one clear line before any model loads
    scanner = Scanner.load(args.models)
    failed = False
    for number, photo in enumerate(args.photos, start=1):
        try:
            decoded = load_for_scan(photo)  # a big JPEG at reduced size; corners in its own pixels
        except ImageError as error:
            print(f"rummi scan: {error}", file=sys.stderr)
            failed = True
            continue
        result = scanner.scan(decoded.image, kind=args.kind, photo_scale=decoded.scale, edition=edition)
        if args.json:
            print(json.dumps(result.to_json(str(photo))), flush=True)
        else:
            print(f"{photo}:\n{result.describe()}\n", flush=True)
        if args.draw:
            target = args.draw if number == 1 else args.draw.with_name(f"{args.draw.stem}-{number}{args.draw.suffix}")
            image = decoded.image if decoded.scale == (1.0, 1.0) else load_image(photo)
            save_image(target, draw_scan(image, result))
    return 2 if failed else 0
