"""Sets with Twist's special jokers: double, mirror and colour change (rules.md 2.3 and 2.4).

:func:`engine.melds.classify` hands a set here when it holds a special joker. Plain jokers (``J``,
Twist's red ``Js``) may share a set with special jokers ("a series may contain more than one
joker, special or regular", TWIST-EN).

What the sources say, and what this module had to decide **[inferred]** where they are silent:

* **Double** (``Jd``) stands for two tiles: two consecutive numbers of a run (``r2 Jd r5``: r3 and
  r4, worth 7) or two missing colours of a group. It may be first, middle or last; it cannot
  reach below the lowest number or above the highest (TWIST-EN: "not before 2 or after 12"). A set
  still needs three physical tiles, so ``r5 Jd`` is not a set.
* **Mirror** (``Jm``) makes the set read the same on both sides of it (``r2 r3 Jm r3 r2``). It is
  worth 0. *Inferred:* the tiles on one side (each side's tiles with the plain jokers standing for
  them) must form a piece of a run or of a group, of any length; the mirror is the axis between the
  two halves and stands for no tile (the Polish page's "it replaces the 4" gives it no points
  either). One mirror joker per set, and no double or colour-change joker beside it: no source
  shows such a set, and the halves would no longer be plain copies of each other.
* **Colour change** (``Jc``) goes in runs only. It stands for one number, and the tiles on its left
  and on its right have different colours, so ``r3 r4 Jc b6 b7`` is the run 3-7. *Inferred:* it
  may also sit at either end of a run (there is no tile on one side to differ from), several
  colour-change jokers may share a run, and for the opening it counts the number it stands for,
  given the colour of the tiles before it.

The set is read as the tiles it holds, like every other set; the reading puts them in order.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence

from rummi.engine.editions import Edition, get_edition
from rummi.engine.notation import format_tiles
from rummi.engine.readings import (
    Reading,
    SetKind,
    SetVerdict,
    group_readings,
    invalid_verdict,
    repeated_colour_reason,
    run_readings,
)
from rummi.engine.tiles import Colour, JokerKind, Tile

_DOUBLE, _MIRROR, _CHANGE = JokerKind.DOUBLE, JokerKind.MIRROR, JokerKind.COLOUR_CHANGE


def classify_twist(tiles: Sequence[Tile], edition: Edition | str | None = None) -> SetVerdict:
    """Classify a set that holds at least one of Twist's special jokers."""
    ed = get_edition(edition)
    given = tuple(tiles)
    if len(given) < 3:
        return invalid_verdict(given, f"only {len(given)} tile{'s' if len(given) != 1 else ''}")
    numbered = [t for t in given if not t.is_joker]
    jokers = [(i, t) for i, t in enumerate(given) if t.is_joker]
    if not numbered:
        return invalid_verdict(given, "a set of jokers only stands for nothing")
    kinds = Counter(t.joker for _, t in jokers)
    if kinds[_MIRROR]:
        return _mirror_verdict(given, numbered, jokers, kinds, ed)
    group, group_reason = _group_with_specials(numbered, jokers, kinds, ed)
    run, run_reason = _run_with_specials(numbered, jokers, ed)
    readings = group + run
    if not readings:
        if len({t.number for t in numbered}) == 1 and not kinds[_CHANGE]:
            reason = group_reason
        elif len({t.colour for t in numbered}) == 1 or kinds[_CHANGE]:
            reason = run_reason
        else:
            reason = "neither one number in different colours nor one colour in sequence"
        return invalid_verdict(given, reason)
    kind = max(readings, key=lambda r: r.value).kind
    return SetVerdict(tiles=given, kind=kind, readings=tuple(readings), notes=_notes(kinds))


def _notes(kinds: Counter) -> tuple[str, ...]:
    notes = []
    if kinds[_DOUBLE]:
        notes.append("a double joker stands for two tiles")
    if kinds[_CHANGE]:
        notes.append("the colour changes across a colour-change joker")
    return tuple(notes)


def _slots(joker: Tile) -> int:
    return 2 if joker.joker is _DOUBLE else 1


def _reading(kind: SetKind, stands_for: list[Tile], meaning: dict[int, tuple[Tile, ...]]) -> Reading:
    """A reading whose ``jokers`` holds each joker's first tile and ``represents`` all of them."""
    ordered = [meaning[i] for i in sorted(meaning)]
    return Reading(kind, tuple(stands_for), tuple(m[0] for m in ordered), tuple(ordered))


# --- groups with double jokers ------------------------------------------------------------------


def _group_with_specials(
    numbered: list[Tile], jokers: list[tuple[int, Tile]], kinds: Counter, ed: Edition
) -> tuple[list[Reading], str]:
    if kinds[_CHANGE]:
        return [], "a colour-change joker only goes in runs"
    if len({t.number for t in numbered}) > 1:
        return [], "numbers differ"
    repeated = repeated_colour_reason(numbered)
    if repeated:
        return [], repeated
    colours = {t.colour for t in numbered}
    size = len(numbered) + sum(_slots(j) for _, j in jokers)
    if size > ed.max_group_size:
        return [], f"a group has at most {ed.max_group_size} tiles (one per colour; a double joker is two)"
    number = numbered[0].number
    missing = [Tile(number=number, colour=c) for c in ed.colours if c not in colours]
    readings: list[Reading] = []
    seen: set[tuple] = set()
    for meaning in _fill_colours(jokers, missing):
        key = tuple(sorted(meaning.items()))
        if key in seen:
            continue
        seen.add(key)
        members = numbered + [t for tiles in meaning.values() for t in tiles]
        members.sort(key=lambda t: ed.colours.index(t.colour))
        readings.append(_reading(SetKind.GROUP, members, meaning))
    return readings, ""


def _fill_colours(
    jokers: list[tuple[int, Tile]], missing: list[Tile]
) -> Iterator[dict[int, tuple[Tile, ...]]]:
    """Every way to give each joker its missing tiles (two for a double joker)."""
    if not jokers:
        yield {}
        return
    (index, joker), rest = jokers[0], jokers[1:]
    for chosen in itertools.combinations(missing, _slots(joker)):
        left = [t for t in missing if t not in chosen]
        for others in _fill_colours(rest, left):
            yield {index: chosen, **others}


# --- runs with double and colour-change jokers --------------------------------------------------


def _run_with_specials(
    numbered: list[Tile], jokers: list[tuple[int, Tile]], ed: Edition
) -> tuple[list[Reading], str]:
    numbers = sorted(t.number for t in numbered)  # type: ignore[misc]
    if len(set(numbers)) != len(numbers):
        dup = next(t for t, k in Counter(numbered).items() if k > 1 or numbers.count(t.number) > 1)
        return [], f"number repeated in a run: {dup.number} twice"
    changes = sum(1 for _, j in jokers if j.joker is _CHANGE)
    if not changes and len({t.colour for t in numbered}) > 1:
        return [], "colours differ (only a colour-change joker lets a run change colour)"
    size = len(numbered) + sum(_slots(j) for _, j in jokers)
    if size > ed.max_run_length:
        return [], f"a run has at most {ed.max_run_length} tiles (a double joker is two)"
    low, high = numbers[0], numbers[-1]
    if high - low + 1 > size:
        if low == ed.min_number and high == ed.max_number:
            return [], f"{ed.max_number} does not wrap to {ed.min_number}"
        return [], f"gap between {low} and {high} that the jokers cannot fill"
    by_number = {t.number: t for t in numbered}
    change_jokers = {i for i, j in jokers if j.joker is _CHANGE}
    readings: list[Reading] = []
    reason = f"a double joker cannot reach below {ed.min_number} or above {ed.max_number}"
    for start in range(max(ed.min_number, high - size + 1), min(low, ed.max_number - size + 1) + 1):
        span = list(range(start, start + size))
        free = [n for n in span if n not in by_number]
        for placed in _place(jokers, free):
            reading = _colour_run(span, by_number, placed, change_jokers, ed)
            if reading is None:
                reason = "a colour-change joker needs different colours on its two sides"
            elif all(r.jokers != reading.jokers or r.stands_for != reading.stands_for for r in readings):
                readings.append(reading)
    return readings, "" if readings else reason


def _place(jokers: list[tuple[int, Tile]], free: list[int]) -> Iterator[dict[int, tuple[int, ...]]]:
    """Every way to put the jokers on the free numbers; a double joker takes two in a row."""
    if not jokers:
        if not free:
            yield {}
        return
    (index, joker), rest = jokers[0], jokers[1:]
    if joker.joker is _DOUBLE:
        options = [(n, n + 1) for n in free if n + 1 in free]
    else:
        options = [(n,) for n in free]
    for option in options:
        left = [n for n in free if n not in option]
        for others in _place(rest, left):
            yield {index: option, **others}


def _colour_run(
    span: list[int],
    by_number: dict[int, Tile],
    placed: dict[int, tuple[int, ...]],
    change_jokers: set[int],
    ed: Edition,
) -> Reading | None:
    """Give every stretch between colour-change jokers one colour, neighbours different."""
    change_at = {placed[i][0] for i in change_jokers}
    stretches: list[list[int]] = [[]]
    for n in span:
        if n in change_at:
            stretches.append([])
        else:
            stretches[-1].append(n)
    fixed: list[Colour | None] = []
    for stretch in stretches:
        colours = {by_number[n].colour for n in stretch if n in by_number}
        if len(colours) > 1:
            return None
        fixed.append(colours.pop() if colours else None)
    chosen = _choose_colours(fixed, ed.colours)
    if chosen is None:
        return None
    colour_of: dict[int, Colour] = {}
    for stretch, colour in zip(stretches, chosen):
        for n in stretch:
            colour_of[n] = colour
    for n in sorted(change_at):
        # a colour-change joker counts in the colour before it: every number below it in the
        # span has its colour by now (a stretch's, or an earlier change joker's)
        colour_of[n] = colour_of[n - 1] if n > span[0] else chosen[1]
    stands_for = [by_number.get(n) or _tile(n, colour_of[n]) for n in span]
    meaning = {i: tuple(_tile(n, colour_of[n]) for n in ns) for i, ns in placed.items()}
    return _reading(SetKind.RUN, stands_for, meaning)


_TILES: dict[tuple[int, Colour], Tile] = {}


def _tile(number: int, colour: Colour) -> Tile:
    """The tile a joker stands for, made once: a run's readings name thousands of them per hint
    of the solver's Twist search, and tiles are equal by value, so one of each serves all."""
    tile = _TILES.get((number, colour))
    if tile is None:
        tile = _TILES[(number, colour)] = Tile(number=number, colour=colour)
    return tile


def _choose_colours(fixed: list[Colour | None], colours: tuple[Colour, ...]) -> list[Colour] | None:
    """Colours for the stretches: fixed ones kept, free ones picked, neighbours always different."""
    options = [[c] if c is not None else list(colours) for c in fixed]
    # Dynamic programming over stretches: best[c] = a valid colouring of the prefix ending in c.
    best: dict[Colour, list[Colour]] = {c: [c] for c in options[0]}
    for opts in options[1:]:
        best = {
            c: next(path for prev, path in best.items() if prev != c) + [c]
            for c in opts
            if any(prev != c for prev in best)
        }
        if not best:
            return None
    return next(iter(best.values()), None)


# --- mirror sets --------------------------------------------------------------------------------


def _mirror_verdict(
    given: tuple[Tile, ...],
    numbered: list[Tile],
    jokers: list[tuple[int, Tile]],
    kinds: Counter,
    ed: Edition,
) -> SetVerdict:
    if kinds[_MIRROR] > 1:
        return invalid_verdict(given, "a set holds at most one mirror joker")
    if kinds[_DOUBLE] or kinds[_CHANGE]:
        return invalid_verdict(given, "a mirror set holds only numbered tiles and plain jokers besides the mirror")
    counts = Counter(numbered)
    singles = sorted((t for t, n in counts.items() if n % 2), key=Tile.sort_key)
    plain = [i for i, j in jokers if j.joker is not _MIRROR]
    mirror_index = next(i for i, j in jokers if j.joker is _MIRROR)
    if len(singles) > len(plain) or (len(plain) - len(singles)) % 2:
        unmatched = format_tiles(singles) or "a joker"
        return invalid_verdict(given, f"not the same on both sides of the mirror: {unmatched} has no partner")
    half = sorted((t for t, n in counts.items() for _ in range((n + 1) // 2)), key=Tile.sort_key)
    free = (len(plain) - len(singles)) // 2
    joker_stand_in = [Tile(joker=JokerKind.PLAIN)] * free
    group, group_reason = group_readings(half, joker_stand_in, ed)
    run, run_reason = run_readings(half, joker_stand_in, ed)
    if not group and not run:
        reason = group_reason if len({t.number for t in half}) == 1 else run_reason
        return invalid_verdict(given, f"one side of the mirror is not part of a group or run: {reason}")
    readings = []
    for side in group + run:
        stands_for = side.stands_for + (given[mirror_index],) + tuple(reversed(side.stands_for))
        meaning: dict[int, tuple[Tile, ...]] = {mirror_index: ()}
        pairs_for = list(singles) + [t for t in side.jokers for _ in (0, 1)]
        for index, tile in zip(plain, pairs_for):
            meaning[index] = (tile,)
        ordered = [meaning[i] for i in sorted(meaning)]
        lead = tuple(m[0] if m else given[mirror_index] for m in ordered)
        readings.append(Reading(side.kind, stands_for, lead, tuple(ordered)))
    kind = max(readings, key=lambda r: r.value).kind
    note = "the mirror joker is worth 0"
    return SetVerdict(tiles=given, kind=kind, readings=tuple(readings), notes=(note,))
