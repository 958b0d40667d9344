"""Class names shared by datasets, training and inference: the engine's notation, never indices.

One module, because the datasets' labels, the reader's outputs and the scoring of labelled
photos must agree on every name. Three class lists, fixed so that every dataset (real photos,
generated scenes) agrees and can be trained together by listing several folders in one
``data.yaml``:

* ``FINDER_CLASSES``: one class, ``tile`` — the detector that only finds tiles.
* ``TILE_CLASSES``: 53 classes in engine order ``k1..k13 b1..b13 o1..o13 r1..r13 J`` — the
  detector that also reads, and the reader (crop classifier).
* Truth files keep the full notation, so Twist's ``Jd``/``Jm``/``Jc``/``Js`` and Expert's
  ``Jk``/``Jb``/``Jo``/``Jr`` survive there; :func:`reader_class` folds every joker to ``J``.
* ``READER_CLASSES``: what the reader answers: the 52 numbered tiles, a joker by its colour
  (``JOKER_COLOURS``, named as Expert's jokers) and ``NOT_A_TILE``, so a box on a knot in the
  wood is dropped instead of read. A crop labelled plain ``J`` is a joker of unknown colour.
  :func:`joker_names` says what a joker of each colour is called in an edition: plain ``J``
  in the standard ones, Expert's ``Jk Jb Jo Jr``, Twist's ``Jc Jd Jm Js`` (rules.md 1.3).

    >>> source_name_to_notation("black_7"), source_name_to_notation("joker")
    ('k7', 'J')
    >>> TILE_CLASSES.index("J")
    52
"""

from __future__ import annotations

from pathlib import Path

import yaml
from rummi.engine.errors import RummiError
from rummi.engine.tiles import Colour, Tile

FINDER_CLASSES: tuple[str, ...] = ("tile",)

#: The 52 numbered tiles in the engine's colour order, then the joker.
TILE_CLASSES: tuple[str, ...] = tuple(
    str(Tile.numbered(colour, number)) for colour in Colour for number in range(1, 14)
) + ("J",)

#: A joker read by its colour; the names are Expert's coloured jokers (black, blue, orange, red).
JOKER_COLOURS: tuple[str, ...] = ("Jk", "Jb", "Jo", "Jr")
#: The reader's answer for a box that holds no tile (a face-down tile, clutter, half of two tiles).
NOT_A_TILE = "none"
READER_CLASSES: tuple[str, ...] = TILE_CLASSES[:-1] + JOKER_COLOURS + (NOT_A_TILE,)
#: The colour of every joker kind whose colour its name gives (Twist's by rules.md 1.3).
_TWIST_BY_COLOUR = {"Jk": "Jc", "Jb": "Jd", "Jo": "Jm", "Jr": "Js"}
JOKER_COLOUR_OF: dict[str, str] = {**{c: c for c in JOKER_COLOURS}, **{t: c for c, t in _TWIST_BY_COLOUR.items()}}

_SOURCE_COLOURS = {"black": Colour.BLACK, "blue": Colour.BLUE, "orange": Colour.ORANGE,
                   "yellow": Colour.ORANGE, "red": Colour.RED}


class UnknownClassError(RummiError):
    """A label names a class we cannot map to a tile, or a class list cannot be read."""


def class_names_from_yaml(path: Path) -> list[str]:
    """The class names, in index order, of an ultralytics-style ``data.yaml`` (``names`` as a
    list or as an ``{index: name}`` mapping), as the shared photo export writes it."""
    path = Path(path)
    if not path.is_file():
        raise UnknownClassError(f"{path} not found: is {path.parent} a labelled photo export?")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise UnknownClassError(f"{path} is not readable YAML ({error})") from None
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    if not isinstance(names, list) or not names:
        raise UnknownClassError(f"{path}: no class names (expected a 'names:' list)")
    return [str(n) for n in names]


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


def joker_names(edition: str = "standard") -> dict[str, str]:
    """What a joker read as each of :data:`JOKER_COLOURS` is called in ``edition``.

    Only Expert and Twist tell their jokers apart (by colour); every other edition has the
    plain ``J``, so a scan's answer keeps the form it always had.

        >>> joker_names()["Jr"], joker_names("expert")["Jr"], joker_names("twist")["Jr"]
        ('J', 'Jr', 'Js')
    """
    if edition == "expert":
        return {c: c for c in JOKER_COLOURS}
    if edition == "twist":
        return dict(_TWIST_BY_COLOUR)
    return {c: "J" for c in JOKER_COLOURS}
