"""`rummi referee`: was a turn legal? Or: could this rack have opened?

    rummi referee --before "r5 r6 r7" --after "r5 r6 r7 r8" --opened
    rummi referee --before "r4 J r6" --after "r4 r5 r6 | J k7 k8" --opened --preset goliath_modern --json
    rummi referee --before "" --after "r10 r11 r12?" --rack "r10 r11 k12"   # ? = unsure reading
    rummi referee --could-open --rack "k10 b10 r10 o2" --preset pl_wikipedia_tournament

Exit codes: 0 legal turn (or: the rack could open), 1 illegal turn (or: it could not),
2 bad input, 3 undecided: the turn is legal under another reading of a tile marked ``?``.
"""

from __future__ import annotations

import argparse

from rummi.api.commands._common import add_rules_arguments, json_errors, print_json, rules_from_args
from rummi.engine.errors import RummiError
from rummi.engine.referee.seen import Side, parse_seen
from rummi.engine.referee.verdicts import Status, TurnVerdict
from rummi.engine.rules import PRESETS

EXIT_LEGAL, EXIT_ILLEGAL, EXIT_BAD_INPUT, EXIT_UNCERTAIN = 0, 1, 2, 3
_EXIT = {Status.LEGAL: EXIT_LEGAL, Status.ILLEGAL: EXIT_ILLEGAL, Status.UNCERTAIN: EXIT_UNCERTAIN}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="judge one turn from the table before and after it",
        description=__doc__.splitlines()[0],
        epilog="Exit 0 legal, 1 illegal, 2 bad input, 3 undecided (depends on a tile marked ?). "
        "Presets: " + ", ".join(PRESETS) + ".",
    )
    parser.add_argument("--before", help='the table before the turn, e.g. "r5 r6 r7 | k9 b9 o9" ("" = empty)')
    parser.add_argument("--after", help="the table after the turn")
    parser.add_argument("--rack", help="the player's rack before the turn (optional)")
    parser.add_argument("--opened", action="store_true", help="the player had already made the opening")
    parser.add_argument("--drew", action="store_true", help="the player drew a tile this turn")
    parser.add_argument("--seconds", type=float, help="how long the turn took")
    add_rules_arguments(parser)
    parser.add_argument("--edition", help="tile box (default: the preset's)")
    parser.add_argument(
        "--could-open", action="store_true", help="instead: could --rack have opened? (never-opened penalty)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=handle)


@json_errors
def handle(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    edition = args.edition or rules.edition
    if args.could_open:
        return _could_open(args, rules, edition)
    verdict = _judge(args, rules, edition)
    if args.json:
        print_json(verdict.to_dict())
    else:
        print(describe(verdict))
    return _EXIT[verdict.status]


def _judge(args: argparse.Namespace, rules, edition: str) -> TurnVerdict:
    from rummi.engine.referee.judge import judge_turn  # the rules of every set: only when judging

    if args.before is None or args.after is None:
        raise RummiError('give --before and --after (use --before "" for an empty table)')
    if args.seconds is not None and args.seconds < 0:
        raise RummiError("--seconds cannot be negative")
    before, spots_before = parse_seen(args.before, Side.BEFORE, edition)
    after, spots_after = parse_seen(args.after, Side.AFTER, edition)
    rack, spots_rack = (None, []) if args.rack is None else parse_seen(args.rack, Side.RACK, edition)
    return judge_turn(
        before,
        after,
        opened=args.opened,
        rack=None if rack is None else rack[0],
        rules=rules,
        edition=edition,
        seconds=args.seconds,
        drew=args.drew,
        uncertain=spots_before + spots_after + spots_rack,
    )


def _could_open(args: argparse.Namespace, rules, edition: str) -> int:
    from rummi.engine.notation import parse_tiles
    from rummi.engine.referee.never_opened import (
        could_have_opened,  # loads the solver (SciPy) only when asked
    )

    if args.rack is None:
        raise RummiError("--could-open needs --rack")
    check = could_have_opened(parse_tiles(args.rack, edition), rules=rules, edition=edition)
    if args.json:
        print_json(check.to_dict())
    else:
        print(check.text)
    return EXIT_LEGAL if check.could_open else EXIT_ILLEGAL


def describe(verdict: TurnVerdict) -> str:
    """The verdict as a referee says it: the outcome, what was played, each reason, what next."""
    heading = {
        Status.LEGAL: "legal turn",
        Status.ILLEGAL: "illegal turn",
        Status.UNCERTAIN: "undecided: depends on tiles read with low confidence",
    }[verdict.status]
    lines = [f"{heading} (rules: {verdict.rules})"]
    played = " ".join(str(t) for t in verdict.played) or "nothing"
    lines.append(f"played: {played}")
    if verdict.opens:
        lines.append(f"opening: {verdict.opening_value} points")
    for violation in verdict.violations:
        lines.append(f"- {violation.message} [{violation.code.value}]")
        for doubt in violation.doubts:
            lines.append(f"    unsure: {doubt.describe()}")
    for note in verdict.notes:
        lines.append(f"note: {note}")
    if verdict.violations:
        lines.append(f"consequence: {verdict.consequence.text}")
    return "\n".join(lines)
