"""Twist's special jokers (double, mirror, colour change) played from the rack.

The solver's models know plain jokers only: a run is a flow along one colour, a group a pattern
of colours, and a special joker fits neither (a double fills two places, a mirror makes a set
read the same both ways, a colour change joins two colours). So a special joker is placed by a
search around them: every set a special rack joker can make (checked by
:func:`engine.melds.classify`, which reads Twist sets as rules.md 2.4 says), from rack tiles alone
or by growing one table set, and for each the best play of the rest of the rack by the exact
methods. The best of all these, and of the play without special jokers, is the hint.

What the search covers (docs/solver.md): one special joker per set, sets of up to five numbered
rack tiles and one plain rack joker beside it, or of one or two rack tiles and one tile taken
from a table set (its other tiles left loose for the rest of the turn to place), a table set
grown by it and up to two rack tiles (or a table set holding a special joker grown by up to two
rack tiles and a plain rack joker, or split: its jokers keep some of its tiles, with up to two
rack tiles, the others left loose), and up to two such sets in one turn. A play that needs more
(a special joker in a set rebuilt from several table sets) is not found, so these hints are
marked not proven optimal.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from rummi.engine.melds import classify
from rummi.engine.solver.position import ANY, Position, TableSet
from rummi.engine.solver.turn import Objective, TurnAnswer, played_value
from rummi.engine.tiles import Tile

RestSolver = Callable[[Position, bool], "TurnAnswer | None"]

#: numbered rack tiles a new set beside a special joker may hold
MAX_NUMBERED = 5
#: single special sets tried in pairs (the best by their own tiles and value)
PAIR_POOL = 12
#: sets that leave tiles of a table set loose, tried at most (the most promising): on a
#: 40-tile table there are 40-100, each a solve of the rest of the turn. With 16 the
#: benchmark's Twist class took about 90 ms more per hint than with none (median of 12
#: positions, one process, two rounds, load average about 9 on the 2 shared cores)
MAX_LOOSE = 16


@dataclass(frozen=True)
class SpecialSet:
    """A set holding a special rack joker, or a special table set grown from the rack."""

    tiles: tuple[Tile, ...]
    rack: tuple[Tile, ...]  # the rack tiles it uses
    table_set: int | None  # the table set it grows (or takes tiles from); None for a new set
    opening_value: int
    #: the tiles of ``table_set`` it leaves behind, loose, for the rest of the turn to place
    leftover: tuple[Tile, ...] = ()


def applies(pos: Position) -> bool:
    """Special jokers on the rack, or table sets holding one that might grow."""
    return bool(pos.unplayable_rack) or any(
        s.locked and not s.joker_keys and any(t.is_joker for t in s.tiles) for s in pos.sets
    )


def candidates(pos: Position, opened: bool) -> list[SpecialSet]:
    """Every special set the rack can make, new or by growing a table set."""
    specials = sorted(set(pos.unplayable_rack), key=str)
    plain = [pos.joker_tile[ANY]] if pos.rack_jokers.get(ANY) else []
    numbered = sorted((t for t in pos.rack_in if not t.is_joker), key=Tile.sort_key)
    found: dict[tuple[tuple[Tile, ...], int | None], SpecialSet] = {}

    def offer(tiles: list[Tile], rack: list[Tile], table_set: int | None, leftover: tuple[Tile, ...] = ()) -> None:
        verdict = classify(tiles, pos.edition)
        if not verdict.valid:
            return
        laid = tuple(reading_order(tiles, verdict))
        key = (tuple(sorted(tiles, key=str)), table_set, tuple(sorted(leftover, key=str)))
        if key not in found:
            found[key] = SpecialSet(laid, tuple(rack), table_set, verdict.value, leftover)

    if opened or pos.rules.joker_in_opening:
        for size in range(1, MAX_NUMBERED + 1):
            for combo in _multisets(numbered, size):
                for special in specials:
                    for extra in ([], plain):
                        offer([*combo, special, *extra], [*combo, special, *extra], None)
    if opened:
        for k, s in enumerate(pos.sets):
            holds_special = any(t.is_joker and t.joker.is_special for t in s.tiles)  # type: ignore[union-attr]
            adds = [[special] for special in specials] if not holds_special else [[]] + [[x] for x in specials]
            for add in adds:
                for size in range(0, 3):
                    for combo in _multisets(numbered, size):
                        for extra in ([], plain):  # and a plain rack joker beside them
                            if add or combo or extra:
                                offer([*s.tiles, *combo, *add, *extra], [*combo, *add, *extra], k)
            if holds_special:  # split it: its jokers keep some of its tiles, the rest go loose
                _split(s.tiles, numbered, plain, k, offer)
            elif not any(t.is_joker for t in s.tiles):  # a special rack joker takes one of its tiles
                for taken in sorted(set(s.tiles), key=Tile.sort_key):
                    leftover = list(s.tiles)
                    leftover.remove(taken)
                    for size in range(1, 3):
                        for combo in _multisets(numbered, size):
                            if not _could_share((*combo, taken)):
                                continue
                            for special in specials:
                                for extra in ([], plain):
                                    offer([*combo, taken, special, *extra], [*combo, special, *extra], k,
                                          tuple(leftover))
    whole = [c for c in found.values() if not c.leftover]
    loose = sorted((c for c in found.values() if c.leftover), key=_promise, reverse=True)
    return whole + loose[:MAX_LOOSE]


def _promise(c: SpecialSet) -> tuple[int, int, int]:
    """What a set leaving tiles loose promises: rack tiles used, their points, fewer loose."""
    return len(c.rack), sum(t.face_value for t in c.rack), -len(c.leftover)


def _split(
    tiles: tuple[Tile, ...], numbered: list[Tile], plain: list[Tile], k: int,
    offer: Callable[[list[Tile], list[Tile], int | None, tuple[Tile, ...]], None],
) -> None:
    """Sets made of a table set's jokers, some of its numbered tiles and up to two rack tiles,
    its other numbered tiles left loose (``o6 o7 o8 o9 o10 Jd`` + ``o8 o9``: ``o8 o9 o10 Jd``,
    with ``o6 o7 o8 o9`` for the rest of the turn to place)."""
    jokers = [t for t in tiles if t.is_joker]
    reals = [t for t in tiles if not t.is_joker]
    for size in range(0, len(reals)):
        for kept in set(itertools.combinations(reals, size)):
            leftover = list(reals)
            for t in kept:
                leftover.remove(t)
            for extra in range(0, 3):
                for combo in _multisets(numbered, extra):
                    if not _could_share((*kept, *combo)) if kept or combo else False:
                        continue
                    for spare in ([], plain):
                        offer([*jokers, *kept, *combo, *spare], [*combo, *spare], k, tuple(leftover))


def reading_order(tiles: list[Tile], verdict) -> list[Tile]:  # type: ignore[no-untyped-def]
    """The set laid out as it reads (``r2 r3 Jm r3 r2``, ``k10 Jd k13``), from its first reading."""
    reading = verdict.readings[0]
    numbered = Counter(t for t in tiles if not t.is_joker)
    jokers = [t for t in tiles if t.is_joker]
    reps = reading.joker_tiles()
    placed: set[int] = set()
    out: list[Tile] = []
    for stands in reading.stands_for:
        if stands.is_joker:  # a mirror joker stands for itself: the axis
            i = next((i for i, j in enumerate(jokers) if i not in placed and j == stands), None)
            if i is not None:
                placed.add(i)
                out.append(stands)
            continue
        if numbered[stands] > 0:
            numbered[stands] -= 1
            out.append(stands)
            continue
        i = next((i for i, rep in enumerate(reps) if i not in placed and stands in rep), None)
        if i is not None:
            placed.add(i)
            out.append(jokers[i])
    return out + list(numbered.elements()) + [j for i, j in enumerate(jokers) if i not in placed]


def _could_share(tiles: tuple[Tile, ...]) -> bool:
    """One number, or two colours within seven numbers: the shapes a special set can take."""
    numbers = {t.number for t in tiles}
    colours = {t.colour for t in tiles}
    return len(numbers) <= 1 or (len(colours) <= 2 and max(numbers) - min(numbers) <= 6)  # type: ignore[operator]


def _multisets(tiles: list[Tile], size: int) -> list[tuple[Tile, ...]]:
    """Sub-multisets of ``size`` tiles that could share a set: one number, or two colours within
    seven numbers (a run, possibly changing colour once)."""
    out = set()
    for combo in itertools.combinations(tiles, size):
        numbers = {t.number for t in combo}
        colours = {t.colour for t in combo}
        if len(numbers) <= 1 or (len(colours) <= 2 and max(numbers) - min(numbers) <= 6):  # type: ignore[operator]
            out.add(combo)
    return sorted(out, key=lambda c: [t.sort_key() for t in c])


def solve(
    pos: Position,
    opened: bool,
    objective: Objective,
    plain: TurnAnswer | None,
    rest: RestSolver,
    legal: Callable[[TurnAnswer], bool] = lambda answer: True,
) -> TurnAnswer | None:
    """The best legal play with special jokers, or ``plain`` (the best without) when none beats
    it. ``legal`` judges a play before it becomes the best (growing a table set around its
    joker can free that joker, which the preset's rules then judge)."""
    found = candidates(pos, opened)
    best = plain if plain is not None and plain.tiles > 0 else None
    answers = [_with(pos, opened, objective, [c], rest) for c in found]
    specials = len(pos.unplayable_rack) + sum(1 for c in found if c.table_set is not None and not any(
        t.is_joker and t.joker.is_special for t in c.rack))  # type: ignore[union-attr]
    pool = sorted(found, key=lambda c: (len(c.rack), sum(t.face_value for t in c.rack)), reverse=True)
    pool = pool[:PAIR_POOL] if specials >= 2 else []
    for a, b in itertools.combinations(pool, 2):
        if a.table_set is not None and a.table_set == b.table_set:
            continue
        if Counter(a.rack) + Counter(b.rack) - Counter(pos.rack_in):
            continue
        answers.append(_with(pos, opened, objective, [a, b], rest))
    # judged best first: the first the referee accepts is the best (each judgement costs
    # about as much as a solve, and most plays of a big table beat the plain one)
    for answer in sorted((a for a in answers if a is not None), key=lambda a: _score(a, objective), reverse=True):
        if best is not None and _score(answer, objective) <= _score(best, objective):
            break
        if legal(answer):
            best = answer
            break
    if best is None:
        return plain  # nothing with a special joker is legal: the play (or draw) without
    if best is not plain:
        best = replace(best, proven=False)
    return best


def _score(answer: TurnAnswer, objective: Objective) -> tuple[int, int, int]:
    first, second = (answer.tiles, answer.value) if objective is Objective.TILES else (answer.value, answer.tiles)
    return first, second, sum(answer.untouched)


def _with(
    pos: Position, opened: bool, objective: Objective, chosen: list[SpecialSet], rest: RestSolver
) -> TurnAnswer | None:
    """The special sets ``chosen`` and the best play of the rest of the rack around them."""
    used = Counter(t for c in chosen for t in c.rack)
    left_rack = list((Counter(pos.rack_in) - used).elements())
    grown = {c.table_set for c in chosen if c.table_set is not None}
    table = [s for k, s in enumerate(pos.table_sets_in) if k not in grown]
    value = sum(c.opening_value for c in chosen)
    rules = pos.rules
    if not opened:
        rules = replace(rules, threshold=max(0, rules.threshold - value))
    sub = Position(table, left_rack, pos.edition, rules)
    loose = [t for c in chosen for t in c.leftover]
    if loose:
        sub = _with_loose(sub, loose)
    answer = rest(sub, opened) if sub.rack_in or loose else None
    if loose and answer is None:
        return None  # the tiles left loose fit nowhere
    if answer is None or (answer.tiles == 0 and not loose):
        if not opened and rules.threshold > 0:
            return None  # the special sets alone do not open
        played: list[Tile] = []
        new_table = [list(s) for s in table]
        untouched = [True] * len(table)
        rest_opening = 0
    else:
        played = list(answer.played)
        new_table = [list(s) for s in answer.table]
        untouched = list(answer.untouched)
        rest_opening = answer.opening_value
    played += [t for c in chosen for t in c.rack]
    new_table += [list(c.tiles) for c in chosen]
    untouched += [False] * len(chosen)
    return TurnAnswer(
        played=played,
        table=new_table,
        untouched=untouched,
        tiles=len(played),
        value=played_value(pos, played),
        opening_value=(rest_opening + value) if not opened else 0,
    )


def _with_loose(sub: Position, loose: list[Tile]) -> Position:
    """``sub`` with ``loose`` tiles on the table that must be placed but belong to no old set
    (what a special set left of the table set it took tiles from)."""
    out = copy.copy(sub)
    out.table_count = list(sub.table_count)
    for t in loose:
        out.table_count[sub.index(t)] += 1
    counts = tuple(sorted(Counter(sub.index(t) for t in loose).items()))
    out.sets = [*sub.sets, TableSet(tuple(loose), counts, (), locked=False, keepable=False)]
    return out
