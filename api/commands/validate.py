"""`rummi validate`: is this table legal? A verdict per set, then one for the whole table.

    rummi validate "r5 r6 r7 | k9 b9 o9" [--edition standard] [--rack "A=r7 r7"] [--json]

Exit 0: valid table; 1: a set is invalid or the tiles cannot exist in the edition; 2: bad input.
"""

from __future__ import annotations

import argparse

from rummi.api.commands._common import json_errors, parse_named_racks, print_json
from rummi.engine.editions import EDITIONS, get_edition
from rummi.engine.notation import parse_sets

EXIT_OK, EXIT_INVALID = 0, 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check the sets on a table",
        description=__doc__.splitlines()[0],
        epilog='Notation: r7 k13 b1 o9, J for a joker; sets separated by "|". See docs/notation.md.',
    )
    parser.add_argument("table", help='the table, e.g. "r5 r6 r7 | k9 b9 o9"')
    parser.add_argument("--edition", default="standard", help=f"tile box: {', '.join(EDITIONS)}")
    parser.add_argument(
        "--rack",
        action="append",
        metavar="PLAYER=TILES",
        help="a rack counted with the table for the tile-count check (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=handle)


@json_errors
def handle(args: argparse.Namespace) -> int:
    from rummi.engine.table import validate_table  # every set's rules: only when checking

    edition = get_edition(args.edition)
    sets = parse_sets(args.table, edition)
    racks = parse_named_racks(args.rack, edition)
    verdict = validate_table(sets, edition, racks)
    if args.json:
        print_json(verdict.to_dict())
    else:
        print(verdict.describe())
    return EXIT_OK if verdict.valid else EXIT_INVALID
