"""The one labelled-scene type every dataset writer takes: an image and its tiles' truth.

Real photos (converted) and generated scenes (rendered) both become :class:`Scene`, so the
writer, the checker and the tests treat them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: How a tile's up direction was decided.
ORIENTATION_GENERATED = "generated"  # the generator drew it, so it is exact
ORIENTATION_INK = "ink-heuristic"  # real photo: the number's ink sits in the upper part


@dataclass
class LabelledTile:
    """One tile in a scene.

    ``quad`` is 4x2 pixels, ordered top-left, top-right, bottom-right, bottom-left *of the
    upright tile face* (see :mod:`datasets.geometry`). ``notation`` is the engine notation,
    jokers included with their kind (``J``, ``Jd``, ``Jk`` ...).
    """

    notation: str
    quad: np.ndarray
    orientation_source: str = ORIENTATION_GENERATED
    orientation_confidence: float = 1.0
    on_rack: bool = False
    set_index: int | None = None
    visible_fraction: float = 1.0

    @property
    def upside_down_in_image(self) -> bool:
        """True when the tile's top edge points down in the image (angle beyond +-90 degrees)."""
        top = (self.quad[0] + self.quad[1]) / 2.0
        bottom = (self.quad[2] + self.quad[3]) / 2.0
        return bool(top[1] > bottom[1])

    def angle_degrees(self) -> float:
        """Rotation of the tile in the image, 0 = upright, clockwise positive, in (-180, 180]."""
        top = (self.quad[0] + self.quad[1]) / 2.0
        bottom = (self.quad[2] + self.quad[3]) / 2.0
        up = top - bottom
        return float(np.degrees(np.arctan2(up[0], -up[1])))


@dataclass
class Scene:
    """An image (BGR, uint8) with every visible tile labelled, plus the table's structure.

    ``sets`` lists, per set laid out on the table, the indices into ``tiles`` in reading order;
    tiles with ``on_rack`` are a player's rack. ``meta`` carries free-form provenance (source
    file, session, generator settings) into the truth file.
    """

    name: str
    image: np.ndarray
    tiles: list[LabelledTile] = field(default_factory=list)
    sets: list[list[int]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
