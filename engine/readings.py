"""What a set of tiles can be read as: the shapes (group, run), each reading's jokers, the verdict.

The pieces that :mod:`rummi.engine.melds` (plain and coloured jokers) and
:mod:`rummi.engine.twist` (Twist's special jokers) both build their answers from. It lives apart
so that neither of those two modules has to import the other's internals.
"""

from __future__ import annotations

import enum
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from rummi.engine.editions import Edition
from rummi.engine.notation import format_tiles
from rummi.engine.tiles import Colour, JokerKind, Tile


class SetKind(enum.Enum):
    GROUP = "group"
    RUN = "run"
    INVALID = "invalid"


@dataclass(frozen=True)
class Reading:
    """One way to read a valid set: its kind and the tile each position stands for.

    ``stands_for`` lists, in reading order (runs ascending, groups in colour order), the
    numbered tile every position represents; ``jokers`` gives, for each joker of the set in the
    order they were given, the tile it stands for in this reading.
    """

    kind: SetKind
    stands_for: tuple[Tile, ...]
    jokers: tuple[Tile, ...]
    #: For each joker, every tile it stands for: one tile for most jokers, two for Twist's
    #: double joker, none for the mirror joker (an axis worth 0). Empty: one tile each, as ``jokers``.
    represents: tuple[tuple[Tile, ...], ...] = ()

    @property
    def value(self) -> int:
        return sum(t.face_value for t in self.stands_for)

    def joker_tiles(self) -> tuple[tuple[Tile, ...], ...]:
        """Per joker (input order) the tiles it stands for; see ``represents``."""
        return self.represents or tuple((t,) for t in self.jokers)


@dataclass(frozen=True)
class SetVerdict:
    """What the engine says about one set."""

    tiles: tuple[Tile, ...]
    kind: SetKind
    readings: tuple[Reading, ...] = ()
    reason: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def valid(self) -> bool:
        return self.kind is not SetKind.INVALID

    @property
    def ambiguous(self) -> bool:
        """True when its jokers can stand for more than one tile."""
        return len({r.jokers for r in self.readings}) > 1

    @property
    def value(self) -> int:
        """Points the set counts for the opening: the best reading (0 when invalid)."""
        return max((r.value for r in self.readings), default=0)

    def joker_meanings(self) -> list[list[Tile]]:
        """For each joker (in input order), every tile it may stand for.

        A double joker's meaning is its lower tile here; :meth:`joker_options` has both.
        """
        count = sum(1 for t in self.tiles if t.is_joker)
        out: list[list[Tile]] = [[] for _ in range(count)]
        for reading in self.readings:
            for i, tile in enumerate(reading.jokers):
                if tile not in out[i]:
                    out[i].append(tile)
        return out

    def joker_options(self) -> list[list[tuple[Tile, ...]]]:
        """For each joker (in input order), every group of tiles it may stand for."""
        count = sum(1 for t in self.tiles if t.is_joker)
        out: list[list[tuple[Tile, ...]]] = [[] for _ in range(count)]
        for reading in self.readings:
            for i, tiles in enumerate(reading.joker_tiles()):
                if tiles not in out[i]:
                    out[i].append(tiles)
        return out

    def describe(self) -> str:
        """One line for a person: ``r5 r6 J: run 5-7 (J = r7 or r4)``."""
        text = format_tiles(self.tiles)
        if not self.valid:
            return f"{text}: invalid, {self.reason}"
        kinds = sorted({r.kind.value for r in self.readings})
        line = f"{text}: {' or '.join(kinds)} worth {self.value}"
        options = self.joker_options()
        if options:
            jokers = [t for t in self.tiles if t.is_joker]
            parts = [
                f"{joker} = " + " or ".join("+".join(str(t) for t in o) or "mirror" for o in opts)
                for joker, opts in zip(jokers, options)
            ]
            line += " (" + "; ".join(parts) + ")"
        for note in self.notes:
            line += f"; {note}"
        return line


def invalid_verdict(tiles: tuple[Tile, ...], reason: str) -> SetVerdict:
    return SetVerdict(tiles=tiles, kind=SetKind.INVALID, reason=reason)


def _joker_fits(joker: Tile, stands_for: Tile, edition: Edition) -> bool:
    """Expert: a coloured joker only stands for a tile of its own colour."""
    if joker.joker is JokerKind.COLOURED and edition.coloured_jokers:
        return joker.colour == stands_for.colour
    return True


def _assign(jokers: list[Tile], missing: list[Tile], edition: Edition) -> list[tuple[Tile, ...]]:
    """Every way to give each joker one distinct missing tile it may stand for."""
    found: list[tuple[Tile, ...]] = []
    for choice in itertools.permutations(missing, len(jokers)):
        if all(_joker_fits(j, t, edition) for j, t in zip(jokers, choice)):
            if choice not in found:
                found.append(choice)
    return found


def group_readings(numbered: list[Tile], jokers: list[Tile], edition: Edition) -> tuple[list[Reading], str]:
    size = len(numbered) + len(jokers)
    numbers = {t.number for t in numbered}
    if len(numbers) > 1:
        return [], "numbers differ"
    colours = {t.colour for t in numbered}
    if len(colours) < len(numbered):
        return [], repeated_colour_reason(numbered)
    if size > edition.max_group_size:
        return [], f"a group has at most {edition.max_group_size} tiles (one per colour)"
    if not jokers:  # the common case, without building the missing tiles
        members = sorted(numbered, key=lambda t: edition.colours.index(t.colour))
        return [Reading(SetKind.GROUP, tuple(members), ())], ""
    number = numbers.pop()
    missing = [Tile(number=number, colour=c) for c in edition.colours if c not in colours]
    readings = []
    for choice in _assign(jokers, missing, edition):
        members = sorted(list(numbered) + list(choice), key=lambda t: edition.colours.index(t.colour))
        readings.append(Reading(SetKind.GROUP, tuple(members), choice))
    if not readings:
        return [], "a coloured joker can only stand for a tile of its own colour"
    return readings, ""


def repeated_colour_reason(numbered: Sequence[Tile]) -> str:
    """Why these tiles cannot share a group because a colour repeats ("" when none does).

    The tiles of the repeated colour are shown first, so the reader sees the clash at once.
    """
    colours = Counter(t.colour for t in numbered)
    repeated = {c for c, n in colours.items() if n > 1}
    if not repeated:
        return ""
    shown = format_tiles(sorted(numbered, key=lambda t: (t.colour not in repeated, t.sort_key())))
    return f"colour repeated: {shown}"


def run_readings(numbered: list[Tile], jokers: list[Tile], edition: Edition) -> tuple[list[Reading], str]:
    size = len(numbered) + len(jokers)
    colours = {t.colour for t in numbered}
    if len(colours) > 1:
        return [], "colours differ"
    colour: Colour = colours.pop()
    numbers = sorted(t.number for t in numbered)  # type: ignore[misc]
    if len(set(numbers)) != len(numbers):
        dup = [n for n, k in Counter(numbers).items() if k > 1][0]
        return [], f"number repeated in a run: {colour.letter}{dup} twice"
    if size > edition.max_run_length:
        return [], f"a run has at most {edition.max_run_length} tiles"
    low, high = numbers[0], numbers[-1]
    if high - low + 1 > size:
        if low == edition.min_number and high == edition.max_number:
            return [], f"{edition.max_number} does not wrap to {edition.min_number}"
        return (
            [],
            f"gap in the run between {colour.letter}{low} and {colour.letter}{high} that jokers cannot fill",
        )
    if not jokers:  # the common case: the run is its tiles in order
        in_order = tuple(sorted(numbered, key=lambda t: t.number))  # type: ignore[arg-type,return-value]
        return [Reading(SetKind.RUN, in_order, ())], ""
    readings = []
    first_start = max(edition.min_number, high - size + 1)
    last_start = min(low, edition.max_number - size + 1)
    for start in range(first_start, last_start + 1):
        span = [Tile(number=n, colour=colour) for n in range(start, start + size)]
        missing = [t for t in span if t.number not in numbers]
        for choice in _assign(jokers, missing, edition):
            readings.append(Reading(SetKind.RUN, tuple(span), choice))
    if not readings:
        if any(j.joker is JokerKind.COLOURED for j in jokers) and edition.coloured_jokers:
            return [], "a coloured joker can only join a run of its own colour"
        return [], f"{edition.max_number} does not wrap to {edition.min_number}"
    return readings, ""
