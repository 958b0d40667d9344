"""`rummi`: the command line.

Exit codes are part of the contract: 0 success (a legal turn, a valid table), 1 a negative
verdict (invalid table, illegal turn), 2 bad input, 70 an internal error. A user never sees a
traceback: errors the user caused (:class:`rummi.engine.RummiError`, unreadable files) become
one clear line on stderr, and anything else one line that says it is a bug
(``RUMMI_DEBUG=1`` shows the traceback).

Start-up stays fast because building the parser imports only the command modules, and each of
them imports its heavy parts (the solver, OpenCV, the storage) inside its handler.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from rummi.api import commands
from rummi.engine.errors import RummiError

from rummi import __version__
from rummi.places import use_numba_cache

EXIT_OK = 0
EXIT_NEGATIVE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rummi",
        description="A camera assistant for Rummikub: read the tiles in a photo, check the sets, "
        "hint the best move, referee a turn, keep the score.",
    )
    parser.add_argument("--version", action="version", version=f"rummi {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    use_numba_cache()  # before anything imports numba
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
    except Exception as error:  # noqa: BLE001 - the last line of defence against a traceback
        if os.environ.get("RUMMI_DEBUG"):
            raise
        print(
            f"rummi {args.command}: internal error ({type(error).__name__}: {error}); "
            "this is a bug: please report it, with RUMMI_DEBUG=1 for the details",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
