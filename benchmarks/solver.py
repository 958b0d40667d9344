"""Hint solver speed and optimality against the public `rummikub-solver` package.

    .venv/bin/pip install -e '.[bench]'          # rummikub-solver==1.0.0 (cvxpy + HiGHS)
    .venv/bin/python benchmarks/solver.py --count 50

Both solvers get the same seeded positions (benchmarks/positions.py) in one run: openings (14-tile
rack, empty table), mid-game (40 on the table, 12-tile rack, 1 joker), late-game (80 on the
table, 20-tile rack, 2 jokers) and hard ones (long racks that do not all fit, jokers on the table,
the XP box). The rules are the package's: jokers may be freed and reused freely, 30 to open.
The classes of ``PRESET_CLASSES`` are played under a preset instead (the default,
``pressman_us_2009``, with jokers on the table; Expert's coloured jokers; Goliath): there the
package, which knows no joker rule, is timed but may play more than the rules allow, so its
"optimal" column says how often it played as many tiles as the legal optimum.

For the preset classes it also times the route of the solver before issue 19's fates
(:mod:`engine.solver.fates` and :mod:`engine.solver.locked` switched off: the free-joker play if
the referee accepts it, else the integer program) on the same positions in the same run, and counts our answer optimal when
its (tiles, value, sets unchanged) equals that route's, which is exact by other means.

Per class it prints the median and worst time of each solver, the ratio of the medians, and how
often each found the true optimum (most tiles played). "True" is our solver's answer, which
benchmarks/solver_exactness.py checks against independent references; a package answer with
*more* tiles than ours would be reported as an error in ours. ``--repeat 3`` times every
position three times for both solvers and keeps the best (the worst times then say what a
position costs, not when the shared machine paused). ``--clock cpu`` times by the process's CPU
time instead of the wall clock: other programs loading the machine then move a figure far less,
which a before/after comparison needs (the README's figures are wall time).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rummi.engine.solver as solver_package  # noqa: E402
from rummi.engine.rules import Rules, get_rules  # noqa: E402
from rummi.engine.solver import fates, locked, solve  # noqa: E402
from rummi.engine.solver.turn import solve_turn  # noqa: E402

from benchmarks.positions import CLASSES, PRESET_CLASSES, Deal, DealClass, deal  # noqa: E402

try:
    import rummikub_solver as rks
except ImportError:  # pragma: no cover - the bench extra is not installed
    rks = None


#: What a time is measured with; ``cpu`` counts only this process's own work (all its threads).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


class Package:
    """The `rummikub-solver` package set up for one edition (one RuleSet, built once)."""

    def __init__(self, edition_name: str, copies: int, jokers: int) -> None:
        self.ruleset = rks.RuleSet(repeats=copies, jokers=jokers)
        self.numbers = self.ruleset.numbers
        self.joker = self.ruleset.tiles[-1]
        warm = self.ruleset.new_game()
        self.ruleset.solve(warm)  # builds its cvxpy problems; not timed

    def tile(self, t, colours) -> object:
        if t.is_joker:
            return self.joker
        return self.ruleset.tiles[colours.index(t.colour) * self.numbers + t.number - 1]

    def solve(self, position: Deal, repeat: int = 1, clock: Callable[[], float] = time.perf_counter) -> tuple[int, float]:
        colours = position.edition.colours
        fastest = float("inf")
        for _ in range(repeat):
            state = self.ruleset.new_game()
            state.add_table(*[self.tile(t, colours) for s in position.table for t in s])
            state.add_rack(*[self.tile(t, colours) for t in position.rack])
            state.initial = not position.opened
            started = clock()
            answer = self.ruleset.solve(state)
            fastest = min(fastest, clock() - started)
        return (0 if answer is None else len(answer.tiles)), fastest


@contextlib.contextmanager
def route_before_fates():
    """The solver as it was before engine.solver.fates and engine.solver.locked (locked sets to
    the integer program, told nothing the fast routes found: no floor, no ceiling): for timing
    it in the same run, and as the exact answer to compare, by the plain integer program."""
    saved = fates.applies, locked.applies, solver_package._beyond_the_fast_routes
    fates.applies = locked.applies = lambda pos, opened: False
    solver_package._beyond_the_fast_routes = lambda pos, opened, goal, floor, ceiling: solve_turn(pos, opened, goal)
    try:
        yield
    finally:
        fates.applies, locked.applies, solver_package._beyond_the_fast_routes = saved


def rules_of(kind: DealClass) -> Rules:
    """The rules a class is played under: its preset, or the package's (jokers free, 30 to open)."""
    if kind.preset:
        return get_rules(kind.preset, edition=kind.edition)
    return get_rules("goliath_modern", edition=kind.edition, freed_joker_in_new_set=False, freed_joker_min_own_tiles=0)


def _score(hint) -> tuple[int, int, int]:
    return hint.tiles_played, hint.value_played, sum(hint.untouched)


def run(
    count: int, classes: list[str], repeat: int = 1, first: int = 0, clock: Callable[[], float] = time.perf_counter
) -> list[dict]:
    rows = []
    packages: dict[str, Package] = {}
    for name in classes:
        kind = CLASSES[name] if name in CLASSES else PRESET_CLASSES[name]
        rules = rules_of(kind)
        edition = rules.box
        # the package knows plain jokers only, at most 4 (not Expert's coloured ones, not Twist's)
        plain = not edition.coloured_jokers and edition.joker_count <= 4
        if rks is not None and edition.name not in packages and plain:
            packages[edition.name] = Package(edition.name, edition.copies, edition.joker_count)
        ours_t, theirs_t, before_t, ours_ok, theirs_ok, errors = [], [], [], 0, 0, []
        seeds: list[int] = []
        # one untimed hint first, as the package's problems are built untimed: the first call
        # of the compiled kernel in a process loads it from numba's cache (about 0.2 s)
        warm = deal(kind, 10_000 + count)
        solve(warm.table, warm.rack, opened=warm.opened, edition=edition, rules=rules)
        for seed in range(first, first + count):
            position = deal(kind, seed)
            fastest = float("inf")
            for _ in range(repeat):
                started = clock()
                hint = solve(
                    position.table, position.rack, opened=position.opened, edition=edition, rules=rules
                )
                fastest = min(fastest, clock() - started)
            ours_t.append(fastest)
            seeds.append(seed)
            best = hint.tiles_played
            if kind.preset:
                with route_before_fates():
                    started = clock()
                    before = solve(
                        position.table, position.rack, opened=position.opened, edition=edition, rules=rules
                    )
                    before_t.append(clock() - started)
                ours_ok += _score(hint) == _score(before)
                if _score(hint) != _score(before):
                    errors.append(f"{name} seed {seed}: ours {_score(hint)}, the route before {_score(before)}")
            else:
                ours_ok += 1  # checked against references by benchmarks/solver_exactness.py
            if rks is not None and edition.name in packages:
                tiles, elapsed = packages[edition.name].solve(position, repeat, clock)
                theirs_t.append(elapsed)
                theirs_ok += tiles == best
                # under a preset the package, which knows no joker rule, may play more
                if tiles > best and not kind.preset:
                    errors.append(f"seed {seed}: package played {tiles} tiles, we played {best}")
            print(f"\r{name}: {seed - first + 1}/{count}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        rows.append(
            dict(name=name, count=count, ours=ours_t, theirs=theirs_t, before=before_t, ours_ok=ours_ok,
                 theirs_ok=theirs_ok, errors=errors, seeds=seeds)
        )
    return rows


def table(rows: list[dict]) -> str:
    ms = lambda xs, f: f"{f(xs) * 1000:.1f}" if xs else "-"  # noqa: E731
    lines = [
        "| class | positions | ours median ms | ours worst ms | package median ms | package worst ms "
        "| median ratio (package/ours) | ours optimal | package optimal | before fates median ms "
        "| before fates worst ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = (
            f"{statistics.median(r['theirs']) / statistics.median(r['ours']):.2f}" if r["theirs"] else "-"
        )
        theirs_ok = f"{100 * r['theirs_ok'] / r['count']:.0f} %" if r["theirs"] else "-"
        lines.append(
            f"| {r['name']} | {r['count']} | {ms(r['ours'], statistics.median)} | {ms(r['ours'], max)} "
            f"| {ms(r['theirs'], statistics.median)} | {ms(r['theirs'], max)} | {ratio} "
            f"| {100 * r['ours_ok'] / r['count']:.0f} % | {theirs_ok} "
            f"| {ms(r['before'], statistics.median)} | {ms(r['before'], max)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50, help="positions per class (default 50)")
    parser.add_argument("--classes", nargs="*", default=[*CLASSES, *PRESET_CLASSES])
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0), to time other positions")
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="time each position this many times and keep the best, for both solvers (default 1: "
        "single timings, where a pause of the shared machine can make one position look slow)",
    )
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall",
        help="wall (default: what a player waits) or cpu (this process's CPU time, which other "
        "programs on a shared machine disturb far less: for before/after comparisons under load)",
    )
    parser.add_argument(
        "--slowest", type=int, default=0,
        help="also print each class's N slowest seeds with our time (to time them again by number)",
    )
    args = parser.parse_args(argv)
    if rks is None:
        print("rummikub-solver is not installed (pip install -e '.[bench]'); timing our solver only",
              file=sys.stderr)
    rows = run(args.count, args.classes, max(1, args.repeat), args.first, CLOCKS[args.clock])
    print(table(rows))
    for r in rows if args.slowest else ():
        slow = sorted(zip(r["ours"], r["seeds"]), reverse=True)[: args.slowest]
        print(f"{r['name']}: slowest seeds " + ", ".join(f"{seed} ({t * 1000:.1f} ms)" for t, seed in slow))
    errors = [e for r in rows for e in r["errors"]]
    for e in errors:
        print("ERROR:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
