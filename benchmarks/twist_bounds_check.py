"""Twist search with and without its shortcuts: the same hints, or a defect in a bound.

``benchmarks/solver_exactness.py`` has no reference for the Twist mid-game class (40 table
tiles: too big to enumerate, so legality only). The search's shortcuts over plain branch and
bound are its families' bounds (``engine/solver/rest_families.py``) and each rest solved once
(``specials._rest_of``); both only skip work, so the search without them, each rest bounded
alone and solved afresh, must give hints of the same score (tiles, points, old sets kept),
both objectives. Prints one line per difference and a summary; exits 1 on any.

    .venv/bin/python benchmarks/twist_bounds_check.py --count 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummi.engine.solver import solve, specials  # noqa: E402
from rummi.engine.solver.turn import Objective  # noqa: E402

from benchmarks.positions import PRESET_CLASSES, deal  # noqa: E402
from benchmarks.solver import rules_of  # noqa: E402

CLASS = "twist: mid-game, special joker on the table"


def _without_shortcuts() -> tuple:
    """Switch the shortcuts off; returns what switches them back on."""
    saved = specials._family_bounds, specials._rest_of
    specials._family_bounds = lambda *args, **kwargs: None
    specials._rest_of = lambda chosen, sub, opened, objective, beat, rest, cache: rest(sub, opened, beat)
    return saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="positions (default 300)")
    parser.add_argument("--first", type=int, default=0, help="first seed")
    args = parser.parse_args()
    kind = PRESET_CLASSES[CLASS]
    rules = rules_of(kind)
    differences = unproven = 0
    started = time.monotonic()
    for number, seed in enumerate(range(args.first, args.first + args.count), start=1):
        position = deal(kind, seed)
        for objective in Objective:
            hints = []
            for shortcuts in (True, False):
                saved = None if shortcuts else _without_shortcuts()
                try:
                    hints.append(solve(position.table, position.rack, opened=position.opened,
                                       edition=rules.box, rules=rules, objective=objective))
                finally:
                    if saved is not None:
                        specials._family_bounds, specials._rest_of = saved
            scores = [(h.tiles_played, h.value_played, sum(h.untouched)) for h in hints]
            unproven += sum(not h.proven for h in hints)
            if scores[0] != scores[1]:
                differences += 1
                print(f"seed {seed} {objective.value}: with the shortcuts {scores[0]}, without {scores[1]}")
        print(f"\r{CLASS}: {number}/{args.count}, {differences} differences", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{CLASS}, seeds {args.first}-{args.first + args.count - 1}, both objectives: {differences} differences, "
          f"{unproven} hints not proven, {time.monotonic() - started:.0f} s")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
