"""Where a hint's time goes: the compiled kernel, the Python around it, the referee, HiGHS.

    nice .venv/bin/python benchmarks/solver_profile.py --count 30 --classes "hard: xp jokers"
    nice .venv/bin/python benchmarks/solver_profile.py --count 30 --worst 5   # the slowest seeds too

Each position of a class (benchmarks/positions.py, the speed benchmark's own deals and rules) is
solved once with the solver's parts wrapped by timers that count *exclusive* time (a part's time
less the parts it calls). Per class it prints the mean milliseconds per hint of each part, its
calls per hint and, for the kernel, the states its walks and tail bounds stored; ``--worst N`` also prints the
same for the N slowest positions one by one (which parts make them slow). The wrapping costs a
few microseconds a call, so the figures are for finding causes, not for the README (that is
benchmarks/solver.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rummi.engine.solver as solver_package  # noqa: E402
from rummi.engine.solver import dp, dp_kernel, fates, locked  # noqa: E402

from benchmarks.positions import CLASSES, PRESET_CLASSES, deal  # noqa: E402
from benchmarks.solver import rules_of  # noqa: E402


class Timers:
    """Exclusive time and calls per part, and the kernel's states, for one hint at a time."""

    def __init__(self) -> None:
        self.stack: list[list[float]] = []  # per open call: [started, time of the calls inside]
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.states = 0

    def reset(self) -> None:
        self.seconds.clear()
        self.calls.clear()
        self.states = 0

    def wrap(self, owner: Any, attribute: str, part: str) -> None:
        inner: Callable[..., Any] = getattr(owner, attribute)

        def timed(*args: Any, **kwargs: Any) -> Any:
            self.stack.append([time.perf_counter(), 0.0])
            try:
                out = inner(*args, **kwargs)
            finally:
                started, nested = self.stack.pop()
                spent = time.perf_counter() - started
                self.seconds[part] += spent - nested
                self.calls[part] += 1
                if self.stack:
                    self.stack[-1][1] += spent
            if part == "kernel walk":
                self.states += len(out[2])
            elif part == "kernel tail bounds":  # (box, bound, ..., budget, ...) -> (status, budget left)
                self.states += args[9] - out[1]
            return out

        setattr(owner, attribute, timed)


#: the kernel as dp.py sees it: the compiled module's own names stay untouched (a compiled
#: function calls solve_dp by its global name), dp.py calls through this copy
KERNEL = types.SimpleNamespace(**{k: v for k, v in vars(dp_kernel).items() if not k.startswith("__")})

#: (module, attribute, part): what is timed. The solver's modules call these through their
#: module attributes, so the wrappers see every call.
PARTS = [
    (KERNEL, "solve_dp", "kernel walk"),
    (KERNEL, "tighten_kept_bounds", "kernel tail bounds"),
    (KERNEL, "path", "kernel path"),
    (dp, "_Walks", "dp: arrays of a position (_Walks)"),
    (dp, "_two_phases", "dp: _two_phases (Python)"),
    (dp, "_fewest_changes", "dp: _fewest_changes (Python)"),
    (dp, "_tighten_kept_bounds", "dp: tail set-up (Python)"),
    (dp, "_lay_out", "dp: laying out the sets"),
    (dp, "solve_after_opening", "dp: rest of a solve"),
    (fates, "settle", "fates: settle a combination"),
    (fates, "restore", "fates: restore an answer"),
    (fates, "solve", "fates: rest"),
    (locked, "_fixed_part", "locked: a growth's rest position"),
    (locked, "solve", "locked: rest"),
    (solver_package, "judge_turn", "referee judge_turn"),
    (solver_package, "read_joker_fates", "referee: joker question alone (read_joker_fates)"),
    (solver_package, "solve_turn", "integer program (HiGHS)"),
    (solver_package, "explain", "explanation"),
    (solver_package, "Position", "Position (reading the turn)"),
    (solver_package, "_jokers_free", "relaxed position"),
]


def profile(timers: Timers, name: str, count: int, first: int, worst: int) -> None:
    """Solve ``count`` positions of class ``name`` and print where their time went."""
    kind = CLASSES[name] if name in CLASSES else PRESET_CLASSES[name]
    rules = rules_of(kind)
    warm = deal(kind, 10_000 + count)  # loads the compiled kernel, untimed
    solver_package.solve(warm.table, warm.rack, opened=warm.opened, edition=rules.box, rules=rules)
    per_hint: list[tuple[float, int, dict[str, float], dict[str, int], int]] = []
    for seed in range(first, first + count):
        position = deal(kind, seed)
        timers.reset()
        started = time.perf_counter()
        solver_package.solve(position.table, position.rack, opened=position.opened, edition=rules.box, rules=rules)
        total = time.perf_counter() - started
        per_hint.append((total, seed, dict(timers.seconds), dict(timers.calls), timers.states))
    totals = [h[0] for h in per_hint]
    print(f"\n## {name}: {count} positions, median {1000 * statistics.median(totals):.1f} ms, "
          f"mean {1000 * statistics.mean(totals):.1f} ms, worst {1000 * max(totals):.1f} ms")
    _print_parts(per_hint)
    for total, seed, seconds, calls, states in sorted(per_hint, reverse=True)[:worst]:
        print(f"\n### {name}, seed {seed}: {1000 * total:.1f} ms, kernel states {states}")
        _print_parts([(total, seed, seconds, calls, states)])


def _print_parts(hints: list[tuple[float, int, dict[str, float], dict[str, int], int]]) -> None:
    n = len(hints)
    parts = [part for _, _, part in PARTS]
    print("| part | ms per hint | calls per hint |")
    print("|---|---|---|")
    timed = 0.0
    for part in parts:
        seconds = sum(h[2].get(part, 0.0) for h in hints) / n
        calls = sum(h[3].get(part, 0) for h in hints) / n
        timed += seconds
        if calls:
            print(f"| {part} | {1000 * seconds:.2f} | {calls:.1f} |")
    rest = sum(h[0] for h in hints) / n - timed
    print(f"| everything else (solve(), the opening search, ...) | {1000 * rest:.2f} | |")
    print(f"| kernel states per hint (walks and tail bounds) | {sum(h[4] for h in hints) / n:.0f} | |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30, help="positions per class (default 30)")
    parser.add_argument("--first", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--worst", type=int, default=0, help="also show the N slowest positions")
    parser.add_argument("--classes", nargs="*", default=[*CLASSES, *PRESET_CLASSES])
    args = parser.parse_args(argv)
    timers = Timers()
    dp.kernel = KERNEL
    for owner, attribute, part in PARTS:
        timers.wrap(owner, attribute, part)
    for name in args.classes:
        profile(timers, name, args.count, args.first, args.worst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
