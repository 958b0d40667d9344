"""Tiles: the smallest value type of the game.

A tile is either a numbered tile (a colour and a number) or a joker. Jokers come in kinds:
the plain joker of the standard box, the four special jokers of Twist and the coloured jokers of
Expert (a plain joker whose colour matters).

The text notation (see :mod:`engine.notation`) is the tile's ``str``::

    >>> from rummi.engine import Colour, Tile
    >>> str(Tile.numbered(Colour.RED, 7)), str(Tile.make_joker())
    ('r7', 'J')

Reading a tile from text is :func:`rummi.engine.notation.parse_tile`'s job (it checks the tile
against an edition), so this module depends on nothing else of the engine.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Colour(enum.Enum):
    """A tile colour. The value is the notation letter.

    Printings differ (orange or yellow; Twist's pink or red): recognition and notation treat each
    pair as one colour slot, as rules.md section 7 advises.
    """

    BLACK = "k"
    BLUE = "b"
    ORANGE = "o"
    RED = "r"

    # members are singletons compared by identity: hashing by identity (in C) instead of
    # Enum's hash of the name (in Python) makes hashing a tile, done in every Counter and set
    # of tiles, about a third faster
    __hash__ = object.__hash__

    @property
    def letter(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        return self.name.lower()


#: A colour's place in printed order (racks sort by it).
_COLOUR_ORDER: dict[Colour, int] = {c: i for i, c in enumerate(Colour)}
#: A colour's letter, looked up without Enum's descriptor (tiles are printed very often).
_LETTER: dict[Colour, str] = {c: c.value for c in Colour}

#: Letters accepted for a colour on input; ``y`` (yellow printings) is the orange slot.
COLOUR_LETTERS: dict[str, Colour] = {c.value: c for c in Colour} | {"y": Colour.ORANGE}


class JokerKind(enum.Enum):
    """Kinds of joker. The value is the notation suffix after ``J``.

    ``COLOURED`` is the Expert joker: it behaves like a plain joker but may only join sets of
    its own colour, so a coloured joker tile also carries a colour.
    """

    PLAIN = ""
    STANDARD = "s"  # Twist's red joker: a plain joker in a Twist box
    DOUBLE = "d"  # Twist: stands for two tiles
    MIRROR = "m"  # Twist: the set reads the same both ways; worth 0
    COLOUR_CHANGE = "c"  # Twist: runs only, the colour changes across it
    COLOURED = "*"  # Expert: suffix is the colour letter instead

    __hash__ = object.__hash__  # as Colour: identity, in C

    @property
    def is_special(self) -> bool:
        """True for the Twist jokers whose behaviour differs from a plain joker."""
        return self in (JokerKind.DOUBLE, JokerKind.MIRROR, JokerKind.COLOUR_CHANGE)


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile. Numbered tiles have ``number`` and ``colour``; jokers have ``joker``.

    Equal tiles are indistinguishable: two red sevens compare equal, which is what counting
    copies against an edition's inventory needs.
    """

    number: int | None = None
    colour: Colour | None = None
    joker: JokerKind | None = None

    def __post_init__(self) -> None:
        if self.joker is None:
            if self.number is None or self.colour is None:
                raise ValueError("a numbered tile needs a number and a colour")
        else:
            if self.number is not None:
                raise ValueError("a joker has no number")
            if (self.joker is JokerKind.COLOURED) != (self.colour is not None):
                raise ValueError("only Expert's coloured jokers carry a colour")

    # --- constructors -------------------------------------------------------------------
    @classmethod
    def numbered(cls, colour: Colour, number: int) -> Tile:
        return cls(number=number, colour=colour)

    @classmethod
    def make_joker(cls, kind: JokerKind = JokerKind.PLAIN, colour: Colour | None = None) -> Tile:
        return cls(joker=kind, colour=colour)

    # --- questions ----------------------------------------------------------------------
    @property
    def is_joker(self) -> bool:
        return self.joker is not None

    @property
    def face_value(self) -> int:
        """Points of a numbered tile (jokers: 0 here; their penalty is a rule-preset matter)."""
        return self.number or 0

    def sort_key(self) -> tuple[int, int, str]:
        """Colour, then number; jokers last. Used for printing racks in a stable order."""
        if self.joker is not None:
            return (1, 0, str(self))
        return (0, _COLOUR_ORDER[self.colour] * 100 + (self.number or 0), "")  # type: ignore[index]

    def __str__(self) -> str:
        if self.joker is None:
            return f"{_LETTER[self.colour]}{self.number}"  # type: ignore[index]
        if self.joker is JokerKind.COLOURED:
            return f"J{_LETTER[self.colour]}"  # type: ignore[index]
        return f"J{self.joker.value}"

    def __repr__(self) -> str:
        return f"parse_tile({str(self)!r})"


JOKER = Tile(joker=JokerKind.PLAIN)


def sort_tiles(tiles: Iterable[Tile]) -> list[Tile]:
    """Tiles in the order a person reads a tidy rack: by colour, then number, jokers last."""
    return sorted(tiles, key=Tile.sort_key)
