"""Cost of hashing and comparing tiles, the operations under every Counter, set and dict of tiles.

    .venv/bin/python benchmarks/tiles.py

The solver's searches (Twist, explanations) count tiles all the time, so these three figures
bound what :class:`engine.tiles.Tile`'s ``__hash__`` and ``__eq__`` cost them. Each figure is the
best of ``--repeat`` rounds (the machine is shared: the best round is the one nothing paused),
in nanoseconds per operation:

* ``hash(t)`` over the tiles of an XP box;
* ``t == u`` for two equal tiles that are different objects (the case a dict lookup pays for);
* ``Counter(tiles)`` over a shuffled 106-tile standard box, per tile;
* ``Tile(...)``: making a tile, which pays once for what hashing and comparing then save.
"""

from __future__ import annotations

import argparse
import random
import sys
import timeit
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rummi.engine.editions import get_edition  # noqa: E402
from rummi.engine.tiles import Tile  # noqa: E402


def _box(edition: str, seed: int) -> list[Tile]:
    """Every tile of an edition's box, each copy its own object, in a seeded order."""
    tiles = [
        Tile(number=tile.number, colour=tile.colour, joker=tile.joker)
        for tile, copies in get_edition(edition).inventory().items()
        for _ in range(copies)
    ]
    random.Random(seed).shuffle(tiles)
    return tiles


def _best_ns(statement: object, operations: int, number: int, repeat: int) -> float:
    """Best round's nanoseconds per operation."""
    rounds = timeit.repeat(statement, number=number, repeat=repeat)  # type: ignore[arg-type]
    return min(rounds) / (number * operations) * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds per figure, best kept (default 7)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    xp = _box("xp", args.seed)
    twins = [Tile(number=t.number, colour=t.colour, joker=t.joker) for t in xp]
    standard = _box("standard", args.seed)

    def hash_all() -> None:
        for t in xp:
            hash(t)

    def compare_all() -> None:
        for t, u in zip(xp, twins):
            t == u  # noqa: B015 - the comparison is what is timed

    def count() -> None:
        Counter(standard)

    values = [(t.number, t.colour, t.joker) for t in xp]

    def make_all() -> None:
        for number, colour, joker in values:
            Tile(number=number, colour=colour, joker=joker)

    print(f"hash(t):        {_best_ns(hash_all, len(xp), 200, args.repeat):6.1f} ns")
    print(f"t == u:         {_best_ns(compare_all, len(xp), 200, args.repeat):6.1f} ns")
    print(f"Counter(tiles): {_best_ns(count, len(standard), 400, args.repeat):6.1f} ns per tile")
    print(f"Tile(...):      {_best_ns(make_all, len(values), 200, args.repeat):6.1f} ns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
