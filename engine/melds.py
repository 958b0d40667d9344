"""Sets on the table (groups and runs): what a set is, what its jokers stand for, what it is worth.

A set is read as the tiles it holds, not the order they were typed in: ``r7 r5 r6`` is the run
5-6-7. Where a joker's meaning is not fixed by the tiles (a joker in a 3-tile group, or at
either end of a run) every possible meaning is kept, as rules.md section 7 asks; the set's value
for the opening is the best of them, since the player chooses where the joker stands.

    >>> from rummi.engine.melds import classify
    >>> from rummi.engine.notation import parse_tiles
    >>> v = classify(parse_tiles("r5 r6 J"))
    >>> v.kind.value, v.value, v.ambiguous
    ('run', 18, True)
    >>> classify(parse_tiles("r8 r8 k8")).reason
    'colour repeated: r8 r8 k8'
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence

from rummi.engine.editions import EDITIONS, Edition, get_edition
from rummi.engine.readings import (
    Reading,
    SetKind,
    SetVerdict,
    group_readings,
    invalid_verdict,
    repeated_colour_reason,
    run_readings,
)
from rummi.engine.tiles import Tile
from rummi.engine.twist import classify_twist

__all__ = [
    "Reading",
    "SetKind",
    "SetVerdict",
    "classify",
    "is_valid_set",
    "repeated_colour_reason",
    "set_value",
]


def classify(tiles: Sequence[Tile], edition: Edition | str | None = None) -> SetVerdict:
    """Say whether ``tiles`` form a group, a run, or nothing valid, and why.

    Handles plain jokers, Twist's standard joker and Expert's coloured jokers. Twist's special
    jokers (double, mirror, colour change) are read by :mod:`engine.twist`.

    The solver and the referee ask about the same few sets again and again, so verdicts for the
    built-in editions are cached (a verdict is immutable, so sharing it is safe).
    """
    ed = get_edition(edition)
    given = tuple(tiles)
    if EDITIONS.get(ed.name) is ed:
        return _classify_cached(given, ed.name)
    return _classify(given, ed)


#: How many verdicts :func:`classify` keeps. Bounded well below what a long-lived process would
#: fill: every cached verdict is about ten objects the garbage collector walks on each full
#: collection, so a cache of tens of thousands made those pauses longer than a hint (8,192
#: verdicts and the special sets' opening values: about 100,000 objects, as many as the rest of
#: a service's heap). A hint asks about a few hundred new sets at most (674 in Twist's worst,
#: 366 in an XP deal), so this holds a hint's working set and a few hints' more (2,048 made
#: Twist hints measurably slower: shapes recur from one deal to the next).
CLASSIFY_CACHE_SIZE = 1 << 12


@functools.lru_cache(maxsize=CLASSIFY_CACHE_SIZE)
def _classify_cached(given: tuple[Tile, ...], edition_name: str) -> SetVerdict:
    return _classify(given, EDITIONS[edition_name])


#: :func:`classify` for a tuple of tiles and a built-in edition's name, without its checks: the
#: solver's special sets ask it thousands of times a hint (one cache, not a second in front of it).
classify_builtin = _classify_cached


def _classify(given: tuple[Tile, ...], ed: Edition) -> SetVerdict:
    if len(given) < 3:
        return invalid_verdict(given, f"only {len(given)} tile{'s' if len(given) != 1 else ''}")
    numbered = [t for t in given if not t.is_joker]
    jokers = [t for t in given if t.is_joker]
    if not numbered:
        return invalid_verdict(given, "a set of jokers only stands for nothing")
    too_many = _too_many_jokers(jokers, ed)
    if too_many:
        return invalid_verdict(given, too_many)
    if any(t.joker is not None and t.joker.is_special for t in jokers):
        return classify_twist(given, ed)
    group, group_reason = group_readings(numbered, jokers, ed)
    run, run_reason = run_readings(numbered, jokers, ed)
    readings = group + run
    if not readings:
        if len({t.number for t in numbered}) == 1:
            reason = group_reason
        elif len({t.colour for t in numbered}) == 1:
            reason = run_reason
        else:
            reason = "neither one number in different colours nor one colour in sequence"
        return invalid_verdict(given, reason)
    kinds = {r.kind for r in readings}
    kind = kinds.pop() if len(kinds) == 1 else _prefer(readings)
    return SetVerdict(tiles=given, kind=kind, readings=tuple(readings))


def _too_many_jokers(jokers: list[Tile], edition: Edition) -> str:
    """Why ``jokers`` cannot all be in one set of ``edition``'s box ("" when they can).

    Besides being impossible, such a set is costly to read: each joker may stand for each missing
    tile, so n jokers give up to n! readings, and a typed "r1" with twelve jokers never finished.
    """
    if not jokers:
        return ""
    if len(jokers) > edition.joker_count:
        have = edition.joker_count
        return f"{len(jokers)} jokers in one set, but the {edition.title} edition has only {have}"
    for joker, count in Counter(jokers).items():
        have = edition.copies_of(joker)
        if have and count > have:  # kinds the box lacks are a notation matter (J reads as Js in Twist)
            return f"{count} x {joker} in one set, but the {edition.title} edition has only {have}"
    return ""


def _prefer(readings: list[Reading]) -> SetKind:
    """A set readable both ways (one tile and jokers) is reported by its most valuable reading."""
    return max(readings, key=lambda r: r.value).kind


def is_valid_set(tiles: Sequence[Tile], edition: Edition | str | None = None) -> bool:
    return classify(tiles, edition).valid


def set_value(tiles: Sequence[Tile], edition: Edition | str | None = None) -> int:
    """Points for the opening rule; jokers count as the tile they stand for (best reading)."""
    return classify(tiles, edition).value
