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
import operator
from collections.abc import Iterable
from dataclasses import dataclass, fields


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


#: A colour's and a joker kind's place in the key of a tile (0: none). Taken from the members'
#: order of definition, never from their identity, so the key is the same in every process.
_COLOUR_SLOT: dict[Colour | None, int] = {None: 0} | {c: i + 1 for i, c in enumerate(Colour)}
_JOKER_SLOT: dict[JokerKind | None, int] = {None: 0} | {k: i + 1 for i, k in enumerate(JokerKind)}
#: Colour and joker slots fit below this, so ``number * _KEY_BASE + kinds`` is one-to-one.
_KEY_BASE = 64
assert len(_COLOUR_SLOT) * 8 <= _KEY_BASE and len(_JOKER_SLOT) <= 8


class _KeySlot:
    """Holds a tile's key in a slot that is not a dataclass field.

    The dataclass makes ``__slots__`` from its fields only; keeping the key out of them leaves
    ``dataclasses.fields``, ``repr``, ``replace`` and the pickled state exactly the three values.
    """

    __slots__ = ("_key",)


@dataclass(frozen=True, slots=True)
class Tile(_KeySlot):
    """One tile. Numbered tiles have ``number`` and ``colour``; jokers have ``joker``.

    Equal tiles are indistinguishable: two red sevens compare equal, which is what counting
    copies against an edition's inventory needs.

    Tiles are hashed and compared in every Counter, set and dict of the engine, so equality and
    hashing go through one small int made once per tile from its three values, instead of the
    dataclass's tuple of three fields built on every call.
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
        try:
            number = 0 if self.number is None else operator.index(self.number)
            kinds = _COLOUR_SLOT[self.colour] * 8 + _JOKER_SLOT[self.joker]
        except (TypeError, KeyError):
            raise ValueError(
                f"a tile is a whole number, a Colour and a JokerKind, not {self.number!r}, "
                f"{self.colour!r}, {self.joker!r}"
            ) from None
        object.__setattr__(self, "_key", number * _KEY_BASE + kinds)

    # --- identity: through the key ------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key == other._key  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return self._key

    def __setstate__(self, state: list[object]) -> None:
        """Unpickling and ``copy`` set the fields without ``__init__``: the key is made here too."""
        for field, value in zip(fields(self), state, strict=True):
            object.__setattr__(self, field.name, value)
        self.__post_init__()

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
