"""Helpers shared by the sub-commands: reading ``NAME=tiles`` arguments and printing JSON."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rummi.engine.editions import Edition
from rummi.engine.errors import NotationError, RummiError
from rummi.engine.notation import parse_tiles
from rummi.engine.rules import DEFAULT_PRESET, Rules, get_rules, parse_override
from rummi.engine.scoring import NotOpened
from rummi.engine.tiles import Tile


def parse_named_racks(values: Sequence[str] | None, edition: Edition | str | None) -> dict[str, list[Tile]]:
    """Read ``--rack "B=r4 b8"`` arguments into ``{"B": [r4, b8]}``, keeping their order."""
    racks: dict[str, list[Tile]] = {}
    for value in values or ():
        name, sep, tiles = value.partition("=")
        name = name.strip()
        if not sep or not name:
            raise RummiError(f'--rack {value!r}: write PLAYER=TILES, e.g. --rack "B=r4 b8"')
        if name in racks:
            raise RummiError(f"--rack: player {name!r} given twice")
        try:
            racks[name] = parse_tiles(tiles, edition)
        except NotationError as error:
            raise RummiError(f"rack of {name}: {error.reason} (in {tiles.strip()!r})") from None
    return racks


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """``--preset NAME`` and repeatable ``--set RULE=VALUE``; read them back with :func:`rules_from_args`."""
    parser.add_argument("--preset", default=DEFAULT_PRESET, help=f"rule preset (default {DEFAULT_PRESET})")
    parser.add_argument("--set", action="append", metavar="RULE=VALUE", default=[], help="override one rule")


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The preset named by ``--preset`` with every ``--set`` override applied."""
    return get_rules(args.preset, **dict(parse_override(o) for o in args.set))


def add_game_end_arguments(parser: argparse.ArgumentParser, *, not_opened_help: str) -> None:
    """The end of a game as `rummi score` and `rummi game end` both take it."""
    parser.add_argument(
        "--rack", action="append", metavar="PLAYER=TILES", help='tiles left on a rack, e.g. "B=r4 b8 J"'
    )
    parser.add_argument("--winner", help="the player who went out (with --bank-empty: optional)")
    parser.add_argument("--bank-empty", action="store_true", help="the pool ran dry; the lowest rack wins")
    parser.add_argument(
        "--not-opened",
        action="append",
        metavar="PLAYER=WHY",
        default=[],
        help=f"{not_opened_help}: {', '.join(k.value for k in NotOpened)}",
    )


def parse_not_opened(values: Sequence[str]) -> dict[str, NotOpened]:
    """Read ``--not-opened "B=could_have"`` arguments: who never opened, and why."""
    out: dict[str, NotOpened] = {}
    for value in values:
        player, _, why = value.partition("=")
        try:
            out[player.strip()] = NotOpened(why.strip().lower().replace("-", "_"))
        except ValueError:
            known = ", ".join(k.value for k in NotOpened)
            raise RummiError(f"--not-opened {value!r}: write PLAYER=WHY, WHY one of {known}") from None
    return out


def print_json(payload: dict[str, Any]) -> None:
    """One JSON object on stdout, as ``--json`` promises."""
    json.dump(payload, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def error_payload(error: RummiError) -> dict[str, Any]:
    """A user error as the single JSON object ``--json`` prints (exit code 2)."""
    payload: dict[str, Any] = {"error": str(error)}
    if isinstance(error, NotationError):
        payload["reason"] = error.reason
        payload["position"] = error.position
    return payload


Handler = Callable[[argparse.Namespace], int]


def json_errors(handle: Handler) -> Handler:
    """Let a sub-command's ``--json`` keep its promise of one JSON object, errors included.

    With ``--json`` a user error becomes :func:`error_payload` on stdout and exit code 2;
    without it the error goes on to :mod:`api.cli`, which prints it as one line.
    """

    @functools.wraps(handle)
    def handle_with_json_errors(args: argparse.Namespace) -> int:
        try:
            return handle(args)
        except RummiError as error:
            if not getattr(args, "json", False):
                raise
            print_json(error_payload(error))
            return 2

    return handle_with_json_errors
