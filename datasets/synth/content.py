"""What is on the table: valid sets as players lay them, rack hands and loose tiles.

Tiles are engine notation strings. Jokers mostly plain (``J``), sometimes a Twist special joker
(``Jd`` double, ``Jm`` mirror, ``Jc`` colour change, ``Js`` standard) or an Expert coloured one
(``Jk Jb Jo Jr``); the truth keeps which.
"""

from __future__ import annotations

import numpy as np

COLOURS = ("k", "b", "o", "r")
TWIST_JOKERS = ("Jd", "Jm", "Jc", "Js")
EXPERT_JOKERS = ("Jk", "Jb", "Jo", "Jr")
JOKER_RATE = 0.05


def random_joker(rng: np.random.Generator) -> str:
    draw = rng.random()
    if draw < 0.7:
        return "J"
    pool = TWIST_JOKERS if draw < 0.85 else EXPERT_JOKERS
    return pool[int(rng.integers(len(pool)))]


def random_tile(rng: np.random.Generator) -> str:
    if rng.random() < JOKER_RATE:
        return random_joker(rng)
    return f"{COLOURS[int(rng.integers(4))]}{int(rng.integers(1, 14))}"


def random_set(rng: np.random.Generator) -> list[str]:
    """A legal run (same colour, consecutive) or group (same number, distinct colours)."""
    if rng.random() < 0.5:
        length = int(rng.choice([3, 3, 4, 4, 5, 6]))
        start = int(rng.integers(1, 15 - length))
        colour = COLOURS[int(rng.integers(4))]
        tiles = [f"{colour}{n}" for n in range(start, start + length)]
    else:
        number = int(rng.integers(1, 14))
        colours = list(rng.permutation(COLOURS))[: int(rng.choice([3, 4]))]
        tiles = [f"{c}{number}" for c in colours]
    if rng.random() < 0.12:
        slot = int(rng.integers(len(tiles)))
        tiles[slot] = _joker_for_set(rng, tiles, slot)
    return tiles


def _joker_for_set(rng: np.random.Generator, tiles: list[str], slot: int) -> str:
    """A joker that keeps the set legal: plain (or Twist's standard), or Expert's in the right colour.

    Twist's double, mirror and colour-change jokers change what a set means, so they appear
    only as loose tiles and on racks, never inside a generated set.
    """
    draw = rng.random()
    if draw < 0.75:
        return "J"
    if draw < 0.85:
        return "Js"
    colours = {t[0] for t in tiles}
    if len(colours) == 1:  # a run: the joker takes the run's colour
        return f"J{tiles[slot][0]}"
    missing = [c for c in COLOURS if c not in colours] or [tiles[slot][0]]
    return f"J{missing[int(rng.integers(len(missing)))]}"

