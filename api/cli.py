"""`rummi`: the command line.

Exit codes are part of the contract: 0 success (a legal turn, a valid table), 1 a negative
verdict (invalid table, illegal turn), 2 bad input. A user never sees a traceback: errors the
user caused (:class:`engine.RummiError`, unreadable files) become one clear line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Sequence

from rummi.api import commands
from rummi.engine.errors import RummiError

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse exits with 2 on bad usage already; keep that, but never print a traceback."""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rummi", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"rummi.api.commands.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RummiError as error:
        print(f"rummi {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (OSError, ValueError) as error:
        print(f"rummi {args.command}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
