"""Check of the integer program's floor and ceiling: every hint that reaches it told what the
fast routes proved is solved again by the plain integer program, and both must agree.

    nice .venv/bin/python benchmarks/solver_cuts.py --count 100 --classes "default: late-game, 2 table jokers"

The positions are the speed benchmark's preset classes (benchmarks/positions.py), big tables
with jokers that no exhaustive reference can answer; there the plain integer program (which
encodes every preset rule) is the reference. Per class it prints how many hints reached the
integer program with a floor or a ceiling (engine.solver._beyond_the_fast_routes) and how many
of those scored (tiles, value, sets kept) differently from the plain one, which would be a
defect in the cuts (turn._between); each such case is printed. Exits 1 on any.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rummi.engine.solver as solver_package  # noqa: E402
from rummi.engine.rules import get_rules  # noqa: E402
from rummi.engine.solver import fates, solve  # noqa: E402
from rummi.engine.solver.turn import solve_turn  # noqa: E402

from benchmarks.positions import PRESET_CLASSES, deal  # noqa: E402


def check_class(name: str, count: int, first: int) -> tuple[int, int]:
    """Hints that reached the bounded integer program, and those that disagree with the plain one."""
    kind = PRESET_CLASSES[name]
    rules = get_rules(kind.preset, edition=kind.edition)
    bounded = solver_package._beyond_the_fast_routes
    reached = wrong = 0
    seed = first

    def compared(pos, opened, goal, floor, ceiling):
        nonlocal reached, wrong
        answer = bounded(pos, opened, goal, floor, ceiling)
        if floor is None and ceiling is None:
            return answer
        reached += 1
        plain = solve_turn(pos, opened, goal)
        mine = None if answer is None else fates.score(answer, goal)
        theirs = None if plain is None else fates.score(plain, goal)
        if mine != theirs:
            wrong += 1
            print(f"DIFFERS {name} seed {seed} {goal.value}: bounded {mine}, plain {theirs}, floor "
                  f"{floor and fates.score(floor, goal)}, ceiling {ceiling and fates.score(ceiling, goal)}", flush=True)
        return answer

    solver_package._beyond_the_fast_routes = compared
    try:
        for seed in range(first, first + count):
            position = deal(kind, seed)
            for objective in ("tiles", "value"):
                solve(position.table, position.rack, opened=position.opened, edition=position.edition,
                      rules=rules, objective=objective)
    finally:
        solver_package._beyond_the_fast_routes = bounded
    return reached, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="positions per class (default 100)")
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--classes", nargs="*", default=list(PRESET_CLASSES), help="classes to check")
    args = parser.parse_args(argv)
    unknown = [name for name in args.classes if name not in PRESET_CLASSES]
    if unknown:
        print(f"unknown class {unknown[0]!r}: choose from {', '.join(PRESET_CLASSES)}", file=sys.stderr)
        return 2
    failed = False
    for name in args.classes:
        started = time.perf_counter()
        reached, wrong = check_class(name, args.count, args.first)
        failed |= wrong > 0
        print(f"{name:45} seeds {args.first}-{args.first + args.count - 1}: {reached} hints reached the "
              f"bounded integer program, {wrong} differ from the plain one ({time.perf_counter() - started:.0f} s)",
              flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
