"""Locked joker sets (Pagat's Sabra, ``locked_joker_sets``) by the dynamic programme.

Under that rule a table set holding a joker may only keep its tiles or grow: at the ends of a
run or by a group's missing colours, with tiles or rack jokers, in Expert's box coloured ones of
a colour the set may take (:attr:`TableSet.extensions` and :attr:`TableSet.extension_jokers`,
the same growths the integer program of :mod:`engine.solver.turn` chooses from, and what
:mod:`engine.joker_fate` accepts). Its jokers never leave it, so once each locked set's growth
is chosen the rest of the turn is a plain position without a locked set and without a table
joker, which the compiled programme (:mod:`engine.solver.dp`) solves exactly.

So every combination of growths is walked, the rest solved by the programme, and the best total
kept. The count model is the integer program's: a growth's tile is one more copy of it on the
table, taken from the table's copies first (those must be placed anyway) and from the rack for
the rest (then it is played). The criteria (tiles, value, old sets left whole) add up over the
parts, so the best combination is the best play; each walk after the first gets the best total
so far, less its own part, as its floor and proves at once that it cannot beat it most of the
time. A locked set left as it was counts as an old set left whole.

Past :data:`MAX_WALKS` walks, or where the programme cannot answer a part, the
caller's integer program answers instead.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace

from rummi.engine.solver import dp, fates
from rummi.engine.solver.position import Position, TableSet
from rummi.engine.solver.turn import Objective, TurnAnswer, extended, less, part_score, played_value, score
from rummi.engine.tiles import Tile

#: combinations of growths walked at most (each a walk of about 0.3 ms, mid-game), past which
#: the integer program answers: a mid-game Sabra position has one locked set with 1-140 growths
#: (benchmarks/positions.py), most often settled by the bounds or the first few walks
MAX_WALKS = 150


def applies(pos: Position, opened: bool) -> bool:
    """Whether this route models the position: after the opening, some set locked by the
    locked-joker-set rule, no Twist special joker (specials lock their sets too) and no other
    table joker (the route leaves every unlocked set to the programme as plain tiles)."""
    if not opened or not pos.rules.locked_joker_sets or pos.table_jokers or pos.unplayable_rack:
        return False
    locked = [s for s in pos.sets if s.locked]
    return bool(locked) and all(len(s.joker_keys) == sum(t.is_joker for t in s.tiles) for s in locked)


def unlocked(pos: Position) -> Position:
    """``pos`` with no set locked, its jokers table jokers under free rules (read again, 0.3
    ms): :func:`kept_bounds` settles each as a tile it stands for."""
    free = replace(
        pos.rules, locked_joker_sets=False, free_by_rearranging=True, freed_min_own_tiles=0,
        freed_in_new_set=False, strict_joker_group=False,
    )
    return Position(pos.table_sets_in, pos.rack_in, pos.edition, free)


def kept_bounds(pos: Position, objective: Objective) -> list[TurnAnswer] | None:
    """Per way of reading the locked sets' jokers as tiles (each kept as a tile it stands for,
    in a set of its old kind: :func:`fates.settle`), the programme's best play of that
    position, back with the jokers in place; ``None`` where one of them is beyond it.

    Each is a relaxation: a legal play grows each locked set into one set in which its jokers
    stand for such tiles, so it is a play of one of these positions (the locked set's tiles
    need not stay together there). So the best of them bounds every legal play, and one the
    referee accepts that reaches that bound is the best legal play.
    """
    relaxed = unlocked(pos)
    kept = [[f for f in fates.fates_of(relaxed, j) if f.keep_as is not None] for j in relaxed.table_jokers]
    out = []
    for combo in itertools.product(*kept):
        settled = fates.settle(relaxed, combo)
        if settled is None or not dp.applies(settled, True):
            return None
        found = dp.solve_after_opening(settled, objective)
        if found is None:
            return None
        out.append(fates.restore(relaxed, settled, combo, found))
    return out or None


def solve(pos: Position, objective: Objective, judge: Callable[[TurnAnswer], bool]) -> TurnAnswer | None:
    """The best play with every locked set kept or grown, or ``None`` where the programme
    cannot say (the caller's integer program answers then).

    First the bounds of :func:`kept_bounds`: the best of them, when ``judge`` (the referee's
    joker question) accepts it, is the best legal play; else they bound every combination of
    growths, so the walk over those stops at the first that reaches the bound (and starts from
    the best bound the referee accepted, as a floor). The combinations are walked likeliest
    first: the growth the best bound laid beside the locked set's tiles.
    """
    bounds = kept_bounds(pos, objective)
    upper = max(bounds, key=lambda a: score(a, objective)) if bounds else None
    best: TurnAnswer | None = None
    for answer in sorted(bounds or (), key=lambda a: score(a, objective), reverse=True):
        if answer.tiles == 0 or judge(answer):
            best = answer
            break
    if best is not None and score(best, objective) >= score(upper, objective):  # type: ignore[arg-type]
        return best  # the bound is reached (or nothing fits even so)
    best_choice: tuple[int, ...] | None = None
    top = score(upper, objective) if upper is not None else None
    locked = [k for k, s in enumerate(pos.sets) if s.locked]
    no_whole_rack = False
    for walks, choice in enumerate(_likeliest_first(pos, locked, upper)):
        if walks >= MAX_WALKS:
            return None  # the integer program is as fast
        part = _fixed_part(pos, locked, choice)
        if part is None:
            continue  # the growths together take more copies than table and rack hold
        rest, played, kept = part
        if not dp.applies(rest, True):
            return None
        mine = part_score(pos, played, objective, kept)
        floor = None if best is None else less(score(best, objective), mine)
        # the bound holds every combination's play, so no rest need ask for more than it
        ceiling = None if top is None else less(top, mine)
        try:
            found = dp.solve_after_opening(rest, objective, tell_whole_rack=True, floor=floor, ceiling=ceiling)
        except dp.NoWholeRack:
            no_whole_rack = True  # this combination plays fewer than every rack tile
            continue
        except dp.BelowFloor:
            continue
        if found is None:
            return None
        every = list(found.played) + played
        answer = TurnAnswer(
            played=every,
            table=list(found.table),  # the grown sets are laid out once, for the best
            untouched=list(found.untouched) + [False] * len(locked),
            tiles=len(every),
            value=played_value(pos, every),
            opening_value=0,
        )
        answer.untouched[-len(locked):] = [k == 1 for k in _kept_each(pos, locked, choice)]
        if best is None or score(answer, objective) > score(best, objective):
            best, best_choice = answer, choice
            if top is not None and score(best, objective) >= top:
                break  # as good as the relaxation: no combination can beat it
    if best is None:
        return None
    if no_whole_rack and best.tiles < len(pos.rack_in):
        return None  # a combination the programme could not walk might beat it
    if best_choice is not None:
        best.table += _grown_sets(pos, locked, best_choice)
    return best


def _likeliest_first(pos: Position, locked: list[int], upper: TurnAnswer | None) -> Iterator[tuple[int, ...]]:
    """Every combination of growths (an index into each locked set's extensions), the likeliest
    best first: per locked set, the growth closest to what the relaxed play laid beside its
    tiles (the set of the relaxed table holding most of them), then the smaller growths."""
    ranked = []
    for k in locked:
        s = pos.sets[k]
        beside: Counter[int] = Counter()
        if upper is not None:
            own = Counter(dict(s.counts))
            host = max(upper.table, key=lambda t: sum((Counter(_indices(pos, t)) & own).values()))
            beside = Counter(_indices(pos, host)) - own
        def promise(e: int, s: TableSet = s, beside: Counter[int] = beside) -> tuple[int, int, int]:
            grown = Counter(dict(s.extensions[e]))
            jokers = sum(n for _, n in s.extension_jokers[e])
            return -sum((grown & beside).values()), sum((grown - beside).values()) + jokers, e
        ranked.append(sorted(range(len(s.extensions)), key=promise))
    return itertools.product(*ranked)  # lazily: eight locked sets have millions, MAX_WALKS are walked


def _indices(pos: Position, tiles: list[Tile]) -> list[int]:
    return [pos.index(t) for t in tiles if not t.is_joker]


def _kept_each(pos: Position, locked: list[int], choice: tuple[int, ...]) -> list[int]:
    """Per locked set, 1 where the chosen growth adds nothing (it is left as it was), else 0."""
    return [int(not pos.sets[k].extensions[e] and not pos.sets[k].extension_jokers[e]) for k, e in zip(locked, choice)]


def _grown_sets(pos: Position, locked: list[int], choice: tuple[int, ...]) -> list[list[Tile]]:
    """The locked sets with their chosen growths, in reading order (jokers where they stand)."""
    return [extended(pos, pos.sets[k], pos.sets[k].extensions[e], pos.sets[k].extension_jokers[e])
            for k, e in zip(locked, choice)]


def _fixed_part(
    pos: Position, locked: list[int], choice: tuple[int, ...]
) -> tuple[Position, list[Tile], int] | None:
    """For one growth per locked set: the rest of the position (locked sets and their growths
    taken out), the rack tiles the growths play, and how many locked sets are left as they
    were; ``None`` when the growths need more copies than there are."""
    on_table: Counter[int] = Counter()  # copies the locked sets and their growths place
    jokers: Counter[int] = Counter()  # rack jokers the growths take, by kind
    for k, e in zip(locked, choice):
        s = pos.sets[k]
        on_table.update(dict(s.counts))
        on_table.update(dict(s.extensions[e]))
        jokers.update(dict(s.extension_jokers[e]))
    if jokers - pos.rack_jokers:
        return None
    table_count, rack_count = list(pos.table_count), list(pos.rack_count)
    played: list[Tile] = []
    for i, n in on_table.items():
        from_rack = max(0, n - table_count[i])
        if from_rack > rack_count[i]:
            return None
        table_count[i] = max(0, table_count[i] - n)
        rack_count[i] -= from_rack
        played += [pos.tile(i)] * from_rack
    played += pos.joker_tiles(tuple(sorted(jokers.items())))
    rest = copy.copy(pos)
    rest.sets = [s for s in pos.sets if not s.locked]
    rest.table_count, rest.rack_count = table_count, rack_count
    if jokers:
        rest.rack_jokers = pos.rack_jokers - jokers
    return rest, played, sum(_kept_each(pos, locked, choice))
