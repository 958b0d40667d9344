"""A fixed pool of tile printings (font, plastic colour, inks, marks), the same for every run.

A scene uses one printing, as one box would. A fixed pool keeps the rendered faces cacheable:
each worker draws a face once per (printing, tile) and reuses it for the rest of the run.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from rummi.datasets.synth.fonts import tile_fonts
from rummi.datasets.synth.tile_art import EMBLEM_DESIGNS, JOKER_DESIGNS, TileStyle

CLASSIC_BODIES = ((236, 229, 210), (240, 235, 220), (231, 223, 202), (244, 241, 230), (235, 232, 224))
MODERN_BODIES = ((248, 248, 246), (242, 244, 246), (251, 250, 248))
PRESSMAN_BODIES = ((246, 243, 232), (250, 249, 243), (240, 237, 226))
#: Each pressman box's inks, drawn per box from these (RGB): teal blues from green-blue to a
#: greyer petrol, reds from crimson to scarlet, oranges from amber to a deep orange.
PRESSMAN_INKS = {
    "b": ((0, 128, 150), (12, 142, 172), (28, 118, 160), (0, 150, 160)),
    "r": ((206, 30, 46), (222, 52, 50), (190, 28, 60)),
    "o": ((246, 150, 30), (236, 118, 22), (250, 168, 40)),
    "k": ((20, 20, 26), (40, 40, 46)),
}
#: The classic and modern boxes (the same 32 since the pool was made: their rng is unchanged).
POOL_SIZE = 32
#: The pressman boxes after them, with an rng of their own.
PRESSMAN_POOL_SIZE = 8
#: The share of generated scenes whose box is a pressman one.
PRESSMAN_SHARE = 0.2


@lru_cache(maxsize=1)
def style_pool() -> tuple[TileStyle, ...]:
    rng = np.random.default_rng(20260101)
    fonts = tile_fonts()
    styles = []
    for index in range(POOL_SIZE):
        classic = index % 5 < 3
        bodies = CLASSIC_BODIES if classic else MODERN_BODIES
        styles.append(TileStyle(
            printing="classic" if classic else "modern",
            font=fonts[index % len(fonts)],
            body_rgb=bodies[int(rng.integers(len(bodies)))],
            mark_6_9=(not classic) and rng.random() < 0.6,
            yellow=rng.random() < (0.1 if classic else 0.35),
            joker_design=JOKER_DESIGNS[int(rng.integers(len(JOKER_DESIGNS)))],
            number_scale=float(rng.choice([0.9, 1.0, 1.1])),
        ))
    return tuple(styles) + _pressman_styles(fonts)


def _pressman_styles(fonts: tuple) -> tuple[TileStyle, ...]:
    """The US print issue 15 met in the kept-back photos: teal blue, a dot under 6 and 9, a
    butterfly or sun joker, no disc and no brand mark."""
    rng = np.random.default_rng(20261202)
    styles = []
    for index in range(PRESSMAN_POOL_SIZE):
        inks = tuple((letter, choices[int(rng.integers(len(choices)))]) for letter, choices in PRESSMAN_INKS.items())
        styles.append(TileStyle(
            printing="pressman",
            font=fonts[(index * 3 + 1) % len(fonts)],
            body_rgb=PRESSMAN_BODIES[int(rng.integers(len(PRESSMAN_BODIES)))],
            mark_6_9=rng.random() < 0.85,
            mark_shape="dot",
            yellow=False,
            joker_design=EMBLEM_DESIGNS[index % len(EMBLEM_DESIGNS)],
            number_scale=float(rng.choice([0.9, 1.0, 1.1])),
            inks=inks,
        ))
    return tuple(styles)
