"""`rummi score`: the points of one game under a named rule preset.

    rummi score --preset pressman_us_2009 --winner A --rack "B=r4 b8" --rack "C=k10 k11 o2"
    rummi score --preset pl_wikipedia_tournament --bank-empty --rack "A=r1" --rack "B=r5" ...
    rummi score --list-presets

Exit 0 on success, 2 on bad input. ``--set RULE=VALUE`` overrides one rule of the preset.
"""

from __future__ import annotations

import argparse

from rummi.api.commands._common import (
    add_game_end_arguments,
    add_rules_arguments,
    json_errors,
    parse_named_racks,
    parse_not_opened,
    print_json,
    rules_from_args,
)
from rummi.api.presets_doc import presets_markdown
from rummi.engine.errors import RummiError
from rummi.engine.rules import DEFAULT_PRESET, PRESETS
from rummi.engine.scoring import score_game

EXIT_OK = 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score one game under a rule preset",
        description=__doc__.splitlines()[0],
        epilog="Presets: " + ", ".join(PRESETS) + ". See docs/rules-presets.md.",
    )
    add_rules_arguments(parser)
    add_game_end_arguments(parser, not_opened_help="a player who never opened (tournament presets)")
    parser.add_argument("--list-presets", action="store_true", help="print the presets and their rules")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=handle)


@json_errors
def handle(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if args.list_presets:
        if args.json:
            print_json({"default": DEFAULT_PRESET, "presets": {n: r.to_dict() for n, r in PRESETS.items()}})
        else:
            print(presets_markdown())
        return EXIT_OK
    result = score_game(
        _racks(args, rules.edition),
        rules,
        winner=args.winner,
        bank_empty=args.bank_empty,
        not_opened=parse_not_opened(args.not_opened),
    )
    if args.json:
        print_json(result.to_dict())
    else:
        print(result.describe())
    return EXIT_OK


def _racks(args: argparse.Namespace, edition: str) -> dict[str, list]:
    racks = parse_named_racks(args.rack, edition)
    if not racks:
        raise RummiError('give every losing player\'s rack, e.g. --rack "B=r4 b8"')
    if args.winner and args.winner not in racks:
        if args.bank_empty:
            raise RummiError(f'with --bank-empty give the winner\'s rack too (--rack "{args.winner}=...")')
        racks = {args.winner: [], **racks}
    return racks
