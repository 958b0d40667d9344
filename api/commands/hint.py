"""`rummi hint`: the best play for a rack, with the table rearrangement that makes it work.

    rummi hint --table "r5 r6 r7 | k9 b9 o9" --rack "r8 J o9 k1" --opened
    rummi hint --rack "k10 b10 r10 o2" --preset sabra_way_50 --json

Exit code 0 when there is a play, 1 when the answer is "draw", 2 for bad input.
"""

from __future__ import annotations

import argparse

from rummi.api.commands._common import add_rules_arguments, json_errors, print_json, rules_from_args
from rummi.engine.notation import format_sets, format_tiles, parse_sets, parse_tiles

#: The solver's objectives (rummi.engine.solver.Objective), spelt out so that building the
#: parser does not import the solver (numba, SciPy: over a second).
OBJECTIVES = ("tiles", "value")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hint",
        help="find the best legal play (most tiles or most points) and how to lay it",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--table", default="", help="the sets on the table, '|' between sets")
    parser.add_argument("--rack", required=True, help="the tiles on your rack, e.g. 'r8 J o9 k1'")
    parser.add_argument("--opened", action="store_true", help="you have already made your opening")
    add_rules_arguments(parser)
    # The name this command had before --set was shared by every command; kept for old scripts.
    parser.add_argument("--rule", dest="set", action="append", metavar="RULE=VALUE", help="same as --set")
    parser.add_argument("--edition", default=None, help="tile box (default: the preset's edition)")
    parser.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default=OBJECTIVES[0],
        help="most tiles (ties: most points) or most points (ties: most tiles)",
    )
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser.set_defaults(func=handle)


@json_errors
def handle(args: argparse.Namespace) -> int:
    from rummi.api.solver_warmup import prepare_for_command_line
    from rummi.engine.solver import solve

    compiled = prepare_for_command_line()
    rules = rules_from_args(args)
    edition = args.edition or rules.edition
    table = parse_sets(args.table, edition)
    rack = parse_tiles(args.rack, edition)
    hint = solve(
        table, rack, opened=args.opened, edition=edition, rules=rules, objective=args.objective, compiled=compiled
    )
    if args.json:
        print_json(hint.to_dict())
    elif hint.is_draw:
        print(f"draw: {hint.reason}")
        if not hint.proven:
            print("(not proven optimal)")
    else:
        count = f"{hint.tiles_played} tile{'s' if hint.tiles_played != 1 else ''}"
        proven = "" if hint.proven else " (not proven optimal)"
        print(f"play {format_tiles(hint.play)}: {count}, {hint.value_played} points{proven}")
        if hint.opening_value:
            print(f"opening worth {hint.opening_value} points (needs {rules.opening_threshold})")
        for line in hint.explanation:
            if not line.startswith("opening worth"):
                print(f"  - {line}")
        print(f"table after: {format_sets(hint.table)}")
    return 1 if hint.is_draw else 0
