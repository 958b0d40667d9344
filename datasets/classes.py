"""Class names for every dataset we write: the engine's tile notation, never source indices.

Three class lists, fixed so that every dataset (real photos, generated scenes) agrees and can
be trained together by listing several folders in one ``data.yaml``:

* ``FINDER_CLASSES``: one class, ``tile`` — the detector that only finds tiles.
* ``TILE_CLASSES``: 53 classes in engine order ``k1..k13 b1..b13 o1..o13 r1..r13 J`` — the
  detector that also reads, and the reader (crop classifier).
* Truth files keep the full notation, so Twist's ``Jd``/``Jm``/``Jc``/``Js`` and Expert's
  ``Jk``/``Jb``/``Jo``/``Jr`` survive there; :func:`reader_class` folds every joker to ``J``.

    >>> source_name_to_notation("black_7"), source_name_to_notation("joker")
    ('k7', 'J')
    >>> TILE_CLASSES.index("J")
    52
"""

from __future__ import annotations

from rummi.engine.tiles import Colour, Tile

FINDER_CLASSES: tuple[str, ...] = ("tile",)

#: The 52 numbered tiles in the engine's colour order, then the joker.
TILE_CLASSES: tuple[str, ...] = tuple(
    str(Tile.numbered(colour, number)) for colour in Colour for number in range(1, 14)
) + ("J",)

_SOURCE_COLOURS = {"black": Colour.BLACK, "blue": Colour.BLUE, "orange": Colour.ORANGE,
                   "yellow": Colour.ORANGE, "red": Colour.RED}


class UnknownClassError(ValueError):
    """A label names a class we cannot map to a tile."""


def source_name_to_notation(name: str) -> str:
    """Map a class *name* of the Roboflow export (``black_7``, ``joker``) to engine notation."""
    key = name.strip().lower()
    if key == "joker":
        return "J"
    colour_name, _, number = key.partition("_")
    if colour_name not in _SOURCE_COLOURS or not number.isdigit() or not 1 <= int(number) <= 13:
        raise UnknownClassError(f"unknown source class name {name!r} (expected e.g. black_7 or joker)")
    return str(Tile.numbered(_SOURCE_COLOURS[colour_name], int(number)))


def reader_class(notation: str) -> str:
    """The reader's class for a tile in notation: numbered tiles as they are, every joker ``J``."""
    if notation.startswith("J"):
        return "J"
    if notation not in TILE_CLASSES:
        raise UnknownClassError(f"{notation!r} is not a tile class")
    return notation


def tile_class_index(notation: str) -> int:
    """Index of a tile in :data:`TILE_CLASSES` (every joker kind is ``J``)."""
    return TILE_CLASSES.index(reader_class(notation))
