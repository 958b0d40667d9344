"""A fixed pool of tile printings (font, plastic colour, marks), the same for every run.

A scene uses one printing, as one box would. A fixed pool keeps the rendered faces cacheable:
each worker draws a face once per (printing, tile) and reuses it for the rest of the run.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from rummi.datasets.synth.fonts import tile_fonts
from rummi.datasets.synth.tile_art import JOKER_DESIGNS, TileStyle

CLASSIC_BODIES = ((236, 229, 210), (240, 235, 220), (231, 223, 202), (244, 241, 230), (235, 232, 224))
MODERN_BODIES = ((248, 248, 246), (242, 244, 246), (251, 250, 248))
POOL_SIZE = 32


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
    return tuple(styles)
