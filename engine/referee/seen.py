"""Where the camera saw a tile, and which reads it was unsure of.

A verdict about a turn must not accuse a player of what may be a misread. The vision marks the
tiles it read with low confidence by position (:class:`Spot`); on the command line a ``?`` after
a tile does the same. The referee (:mod:`engine.referee`) re-reads those tiles before it
accuses anyone.

    >>> sets, spots = parse_seen("r5 r6? r7 | k9 b9 o9", Side.AFTER)
    >>> [str(s) for s in spots]
    ['after set 1 tile 2']
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from rummi.engine.editions import Edition
from rummi.engine.errors import NotationError
from rummi.engine.notation import parse_sets, parse_tiles, shorten_token
from rummi.engine.tiles import Tile


class Side(enum.Enum):
    """Which picture a tile was seen in."""

    BEFORE = "before"
    AFTER = "after"
    RACK = "rack"

    def __lt__(self, other: Side) -> bool:
        """Spots sort by picture (before, after, rack); unordered sides made sorting spots of two
        pictures raise TypeError."""
        if not isinstance(other, Side):
            return NotImplemented
        order = list(Side)
        return order.index(self) < order.index(other)


@dataclass(frozen=True, order=True)
class Spot:
    """Where one tile was seen: the picture, the set (0 for the rack) and the place in it."""

    side: Side
    set_index: int
    index: int

    def __str__(self) -> str:
        if self.side is Side.RACK:
            return f"rack tile {self.index + 1}"
        return f"{self.side.value} set {self.set_index + 1} tile {self.index + 1}"


def parse_seen(
    text: str, side: Side, edition: Edition | str | None = None
) -> tuple[list[list[Tile]], list[Spot]]:
    """Read a table (or, for ``Side.RACK``, a rack) where ``?`` after a tile marks a low-confidence read.

    ``"r5 r6? r7"`` is the run r5 r6 r7 with the r6 uncertain. A rack comes back as one set.
    """
    spots: list[Spot] = []
    for set_index, part in enumerate(text.split("|")):
        for index, token in enumerate(_TOKEN.findall(part)):
            if token.strip("?") == "":
                raise NotationError(
                    "'?' marks the tile just before it as uncertain: write r6?, not r6 ?", text
                )
            if token.startswith("?"):
                bare, shown = shorten_token(token.strip("?")), shorten_token(token)
                raise NotationError(
                    f"'?' goes after the tile it marks as uncertain: write {bare}?, not {shown}", text
                )
            if token.endswith("?"):
                spots.append(Spot(side, 0 if side is Side.RACK else set_index, index))
    clean = text.replace("?", " ")  # a space keeps error positions where the user typed them
    if side is Side.RACK:
        return [parse_tiles(clean, edition)], spots
    return parse_sets(clean, edition), spots


_TOKEN = re.compile(r"[^\s,|]+")
