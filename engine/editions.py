"""Editions: which tiles a box holds, and how many of each.

An edition is data, not code: numbers, colours, copies and jokers. Nothing else in the engine
assumes 13 numbers or 4 colours; it asks the edition. Sources: rules.md section 1.

    >>> from rummi.engine.editions import EDITIONS
    >>> EDITIONS["standard"].tile_count, EDITIONS["xp"].tile_count
    (106, 160)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rummi.engine.errors import ImpossibleStateError, RummiError
from rummi.engine.tiles import Colour, JokerKind, Tile

_STANDARD_COLOURS = (Colour.BLACK, Colour.BLUE, Colour.ORANGE, Colour.RED)


@dataclass(frozen=True)
class Edition:
    """A box of tiles.

    ``jokers`` maps each joker tile to how many the box holds. ``colour_names`` lets an edition
    name its colours its own way (the card version's suits) while the notation keeps the letters.
    ``coloured_jokers``: Expert's rule that a joker may only join a set of its own colour.
    """

    name: str
    title: str
    jokers: Mapping[Tile, int]
    # The standard box's shape is the default, so an edition states only how it differs.
    max_number: int = 13
    colours: tuple[Colour, ...] = _STANDARD_COLOURS
    copies: int = 2
    min_number: int = 1
    coloured_jokers: bool = False
    colour_names: Mapping[Colour, str] = field(default_factory=dict)
    source: str = ""

    @property
    def numbers(self) -> range:
        return range(self.min_number, self.max_number + 1)

    @property
    def max_group_size(self) -> int:
        """A group holds one tile of each colour, so at most as many as there are colours."""
        return len(self.colours)

    @property
    def max_run_length(self) -> int:
        return self.max_number - self.min_number + 1

    @property
    def joker_count(self) -> int:
        return sum(self.jokers.values())

    @property
    def tile_count(self) -> int:
        return len(self.numbers) * len(self.colours) * self.copies + self.joker_count

    def colour_name(self, colour: Colour) -> str:
        return self.colour_names.get(colour, colour.label)

    def inventory(self) -> Counter[Tile]:
        """Every distinct tile of the box with its number of copies."""
        counts: Counter[Tile] = Counter()
        for colour in self.colours:
            for number in self.numbers:
                counts[Tile(number=number, colour=colour)] = self.copies
        counts.update(dict(self.jokers))
        return counts

    def copies_of(self, tile: Tile) -> int:
        """How many copies of ``tile`` the box holds (0: the tile does not exist here)."""
        if tile.is_joker:
            return self.jokers.get(tile, 0)
        if tile.colour in self.colours and tile.number in self.numbers:
            return self.copies
        return 0

    def holds(self, tile: Tile) -> bool:
        return self.copies_of(tile) > 0

    def explain_missing(self, tile: Tile) -> str:
        """Why ``tile`` is not in this edition, in words a player understands."""
        if tile.is_joker:
            return f"no joker {tile} in the {self.title} edition"
        if tile.colour not in self.colours:
            return f"no colour {tile.colour.label} in the {self.title} edition"  # type: ignore[union-attr]
        return self.explain_missing_number(str(tile.number))

    def explain_missing_number(self, number: str) -> str:
        """Why a tile numbered ``number`` is not in this edition (text: it may be too long for int)."""
        return f"no number {number} in this edition ({self.title}: {self.min_number}-{self.max_number})"

    def check_inventory(self, tiles: Iterable[Tile]) -> None:
        """Raise :class:`ImpossibleStateError` when ``tiles`` cannot all exist at once."""
        problems = inventory_problems(self, tiles)
        if problems:
            raise ImpossibleStateError("; ".join(problems))


def inventory_problems(edition: Edition, tiles: Iterable[Tile]) -> list[str]:
    """Every reason why ``tiles`` (table and racks together) cannot come from one box."""
    problems: list[str] = []
    box = [(tile, seen, edition.copies_of(tile)) for tile, seen in Counter(tiles).items()]
    too_many = [item for item in box if item[1] > item[2]]
    for tile, seen, have in sorted(too_many, key=lambda item: item[0].sort_key()):  # only if wrong
        if have == 0:
            problems.append(edition.explain_missing(tile))
        else:
            problems.append(f"{seen} x {tile}, but the {edition.title} edition has only {have}")
    return problems


def _plain_jokers(count: int) -> dict[Tile, int]:
    return {Tile(joker=JokerKind.PLAIN): count}


_TWIST_JOKERS = {
    Tile(joker=JokerKind.STANDARD): 2,
    Tile(joker=JokerKind.DOUBLE): 2,
    Tile(joker=JokerKind.MIRROR): 2,
    Tile(joker=JokerKind.COLOUR_CHANGE): 2,
}
_EXPERT_JOKERS = {Tile(joker=JokerKind.COLOURED, colour=c): 2 for c in _STANDARD_COLOURS}

STANDARD = Edition(
    name="standard",
    title="Standard",
    jokers=_plain_jokers(2),
    source="rules.md 1.1: 104 numbered + 2 jokers",
)

EDITIONS: dict[str, Edition] = {
    e.name: e
    for e in (
        STANDARD,
        Edition(
            name="standard4j",
            title="Standard with 4 jokers",
            jokers=_plain_jokers(4),
            source="rules.md 1.1: CZ-SHOP (Piatnik) counts 4 jokers",
        ),
        Edition(
            name="xp",
            title="XP",
            copies=3,
            jokers=_plain_jokers(4),
            source="rules.md 1.2: 156 numbered (x3) + 4 jokers, 2-6 players",
        ),
        Edition(
            name="start_right",
            title="Start Right",
            max_number=10,
            copies=1,
            jokers=_plain_jokers(2),
            source="rules.md 1.5: 40 tiles 1-10 in four colours + 2 jokers",
        ),
        Edition(
            name="twist",
            title="Twist",
            jokers=_TWIST_JOKERS,
            source="rules.md 1.3: 104 numbered + 8 special jokers (2 each)",
        ),
        Edition(
            name="expert",
            title="Expert",
            jokers=_EXPERT_JOKERS,
            coloured_jokers=True,
            source="rules.md 1.4: 104 numbered + 8 jokers in four colours",
        ),
        Edition(
            name="cards",
            title="Playing cards",
            jokers=_plain_jokers(2),
            colour_names={
                Colour.BLACK: "spades",
                Colour.BLUE: "clubs",
                Colour.ORANGE: "diamonds",
                Colour.RED: "hearts",
            },
            source="rules.md 1.7: two 52-card decks + 2 jokers; A=1, J=11, Q=12, K=13",
        ),
    )
}


def get_edition(name: str | Edition | None) -> Edition:
    """Look an edition up by name (case-insensitive); ``None`` gives the standard box."""
    if name is None:
        return STANDARD
    if isinstance(name, Edition):
        return name
    key = name.strip().lower().replace("-", "_")
    try:
        return EDITIONS[key]
    except KeyError:
        known = ", ".join(EDITIONS)
        raise RummiError(f"unknown edition {name!r}; known editions: {known}") from None
