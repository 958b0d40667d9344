"""`rummi game`: keep a game's record (turns judged by the referee, the end, the scores) and export it.

    rummi game new --players Ann Bob Cem --preset pl_wikipedia_tournament      # prints the game id
    rummi game turn 1 --after "r10 r11 r12" --seconds 31                      # Ann's turn, judged
    rummi game turn 1 --drew                                                  # Bob draws
    rummi game end 1 --winner Ann --rack "Ann=" --rack "Bob=k5 J" --rack "Cem=o2"
    rummi game show 1
    rummi game export 1 --format json          # the whole record
    rummi game export 1 2 3 --format csv       # the score sheet of several games

Games are kept in ``--db`` (default ``$RUMMI_DATABASE_URL``, else ``games.db`` in the user's data folder); a
``postgresql://`` URL works too. ``turn`` exits like ``rummi referee``: 0 legal, 1 illegal,
3 undecided; every command exits 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rummi.api.commands._common import (
    add_game_end_arguments,
    add_rules_arguments,
    parse_named_racks,
    parse_not_opened,
    print_json,
    rules_from_args,
)
from rummi.api.commands.referee import EXIT_LEGAL
from rummi.engine.errors import RummiError
from rummi.engine.notation import format_sets
from rummi.engine.referee.seen import Side, parse_seen

if TYPE_CHECKING:  # the storage (SQLite, psycopg) is loaded only when a game command runs
    from rummi.api.storage import GameStore
    from rummi.engine.game import Turn

_EXIT = {"legal": 0, "illegal": 1, "uncertain": 3}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "game", help="record a game's turns and scores; export it", description=__doc__.splitlines()[0]
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    new = _action(actions, "new", "start a game; prints its id")
    new.add_argument(
        "--players", nargs="+", required=True, help="names in seating order, first to play first"
    )
    new.add_argument(
        "--free-order", action="store_true",
        help="the service takes turns in any order (default: only the next player's, as the service's own games)",
    )
    add_rules_arguments(new)

    turn = _action(actions, "turn", "judge and record the next turn")
    turn.add_argument("game", type=int, help="game id")
    turn.add_argument("--after", help="the table after the turn (default: unchanged)")
    turn.add_argument("--before", help="the table before the turn (default: the table the last turn left)")
    turn.add_argument("--player", help="who played (default: next in seating order)")
    turn.add_argument("--rack", help="the player's rack before the turn (optional)")
    turn.add_argument(
        "--drew", nargs="?", type=int, const=1, default=0, metavar="N", help="tiles drawn (default 1)"
    )
    turn.add_argument("--seconds", type=float, help="how long the turn took")
    turn.add_argument(
        "--out-of-turn", action="store_true",
        help="record it even if --player is not next in a game that enforces its order (an organiser's correction)",
    )
    turn.add_argument("--json", action="store_true", help="print the turn as JSON")

    end = _action(actions, "end", "score the end of the game")
    end.add_argument("game", type=int, help="game id")
    add_game_end_arguments(end, not_opened_help="override the solver's answer for a player who never opened")

    show = _action(actions, "show", "print a game's record")
    show.add_argument("game", type=int, help="game id")

    _action(actions, "list", "list the games on record")

    export = _action(actions, "export", "write a game as JSON, or games as a CSV score sheet")
    export.add_argument("games", type=int, nargs="+", help="game id(s); CSV takes several")
    export.add_argument("--format", choices=("json", "csv"), default="json")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")


def _action(actions: argparse._SubParsersAction, name: str, help_text: str) -> argparse.ArgumentParser:
    parser = actions.add_parser(name, help=help_text, description=help_text)
    parser.add_argument("--db", help="database URL (default $RUMMI_DATABASE_URL, else games.db in the user's data folder)")
    parser.set_defaults(func=handle)
    return parser


def handle(args: argparse.Namespace) -> int:
    from rummi.api.storage import GameStore

    with GameStore.open(args.db) as store:
        return _HANDLERS[args.action](args, store)


def _new(args: argparse.Namespace, store: GameStore) -> int:
    from rummi.engine.game import Game

    rules = rules_from_args(args)
    game_id = store.create(Game(players=tuple(args.players), rules=rules), enforce_order=not args.free_order)
    print(game_id)
    return EXIT_LEGAL


def _turn(args: argparse.Namespace, store: GameStore) -> int:
    from rummi.api.game_records import GameRecords

    game = store.load(args.game)
    edition = game.edition
    before, spots_before = (
        ([list(s) for s in game.table], [])
        if args.before is None
        else parse_seen(args.before, Side.BEFORE, edition)
    )
    after, spots_after = (
        ([list(s) for s in before], []) if args.after is None else parse_seen(args.after, Side.AFTER, edition)
    )
    rack, spots_rack = (None, []) if args.rack is None else parse_seen(args.rack, Side.RACK, edition)
    if args.drew < 0 or (args.seconds is not None and args.seconds < 0):
        raise RummiError("--drew and --seconds cannot be negative")
    # through the service's own records, so a game that enforces its order is kept to it here too
    _, turn, _ = GameRecords(store).play(
        args.game,
        after,
        player=args.player,
        before=before,
        rack=None if rack is None else rack[0],
        drew=args.drew,
        seconds=args.seconds,
        uncertain=spots_before + spots_after + spots_rack,
        check_order=not args.out_of_turn,
    )
    status = turn.verdict["status"]
    if args.json:
        print_json(turn.to_dict())
    else:
        print(f"turn {turn.number}, {turn.player}: {_verdict_text(turn)}")
    return _EXIT[status]


def _verdict_text(turn: Turn) -> str:
    """The stored verdict (what the referee said when the turn was recorded), for people."""
    data = turn.verdict
    lines = [f"{data['status']} (played: {' '.join(data['played']) or 'nothing'})"]
    lines += [f"- {v['message']} [{v['code']}]" for v in data["violations"]]
    if data["violations"]:
        lines.append(f"consequence: {data['consequence']['text']}")
    return "\n".join(lines)


def _end(args: argparse.Namespace, store: GameStore) -> int:
    game = store.load(args.game)
    racks = parse_named_racks(args.rack, game.edition)
    not_opened = parse_not_opened(args.not_opened) if args.not_opened else None
    ending = game.finish(racks, winner=args.winner, bank_empty=args.bank_empty, not_opened=not_opened)
    store.finish(args.game, game)
    for player in game.players:
        print(f"{player}: {ending.scores[player]:+d}  ({ending.explanations[player]})")
    return EXIT_LEGAL


def _show(args: argparse.Namespace, store: GameStore) -> int:
    game = store.load(args.game)
    print(f"game {game.id}: {', '.join(game.players)}; rules {game.preset.name}; started {game.started_at}")
    for turn in game.turns:
        drew = f", drew {turn.drew}" if turn.drew else ""
        took = f", {turn.seconds:g} s" if turn.seconds is not None else ""
        table = format_sets(turn.after) or "(empty table)"
        print(f"{turn.number:>3} {turn.player}: {turn.verdict['status']}{drew}{took}  ->  {table}")
        for violation in turn.verdict["violations"]:
            print(f"      - {violation['message']}")
    if game.ending is not None:
        print(f"end: {game.ending.winner} wins ({game.ending.end.value})")
        for player in game.players:
            print(f"  {player}: {game.ending.scores[player]:+d}")
    else:
        print(f"in progress; next: {game.next_player}")
    return EXIT_LEGAL


def _list(args: argparse.Namespace, store: GameStore) -> int:
    for g in store.list_games():
        state = "finished" if g.finished else "in progress"
        print(f"{g.id:>4}  {g.started_at}  {', '.join(g.players)}  {g.preset}  {g.turns} turns  {state}")
    return EXIT_LEGAL


def _export(args: argparse.Namespace, store: GameStore) -> int:
    from rummi.api.storage import game_to_json, score_sheet_csv

    games = [store.load(i) for i in args.games]
    if args.format == "json":
        if len(games) != 1:
            raise RummiError("JSON export takes one game; the CSV score sheet takes several")
        text = game_to_json(games[0])
    else:
        text = score_sheet_csv(games)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return EXIT_LEGAL


_HANDLERS = {"new": _new, "turn": _turn, "end": _end, "show": _show, "list": _list, "export": _export}
