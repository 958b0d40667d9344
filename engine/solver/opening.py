"""A fast exact search for an opening made from the rack alone.

Why a second method: an opening uses rack tiles only (the table stays), and a rack of 14 tiles
holds few possible sets, so a branch-and-bound over them answers in about a millisecond, where
handing HiGHS a model costs ten. The integer program remains the method for everything else and
for editions with coloured or special jokers; both are checked against the same references.

Every numbered rack tile, in a fixed order, is either left on the rack or the lowest tile of one
new set (so each packing is met once); jokers go with the sets. A set is listed with the best
value any reading gives it, because the player chooses where a joker stands.
"""

from __future__ import annotations

import itertools

from rummi.engine.melds import classify
from rummi.engine.solver.position import ANY, Position
from rummi.engine.solver.turn import Objective, TurnAnswer
from rummi.engine.tiles import Tile

Candidate = tuple[tuple[int, ...], int, int]  # (tile indices, jokers, opening value)


def handles_jokers(pos: Position) -> bool:
    """Plain jokers only (Expert's coloured jokers are left to the integer program)."""
    return set(pos.rack_jokers) <= {ANY}


def applies(pos: Position, opened: bool) -> bool:
    """A rack-only opening (the table stays as it is): the case this search covers."""
    return not opened and not pos.rules.table_play_in_opening_turn and handles_jokers(pos)


def candidates(pos: Position, jokers: int) -> list[Candidate]:
    """Every set the rack can make: runs of any length, groups of 3 or more, jokers filling in.

    A run is a window of numbers in one colour: the rack's tiles in it, jokers in the holes, and
    optionally more jokers in place of some of its tiles (to keep those tiles for another set).
    """
    best: dict[tuple[tuple[int, ...], int], int] = {}
    span, count = pos.span, pos.rack_count
    colours = len(pos.colours)

    def keep(tiles: tuple[int, ...], j: int, value: int) -> None:
        key = (tiles, j)
        if best.get(key, -1) < value:
            best[key] = value

    for c in range(colours):
        for start in range(span):
            reals: list[int] = []
            holes = 0
            value = 0
            for end in range(start, span):
                index = c * span + end
                value += pos.number_of(index)
                if count[index]:
                    reals.append(index)
                else:
                    holes += 1
                    if holes > jokers:
                        break
                if end - start >= 2 and reals:
                    for k in range(0, min(jokers - holes, len(reals) - 1) + 1):
                        for out in itertools.combinations(range(len(reals)), k):
                            kept = tuple(r for n, r in enumerate(reals) if n not in out)
                            keep(kept, holes + k, value)
    for offset in range(span):
        present = [c * span + offset for c in range(colours) if count[c * span + offset]]
        number = pos.numbers[0] + offset
        for r in range(1, len(present) + 1):
            for reals in itertools.combinations(present, r):
                for j in range(0, min(jokers, colours - r) + 1):
                    if r + j >= 3:
                        keep(reals, j, number * (r + j))
    found = [(tiles, j, value) for (tiles, j), value in best.items()]
    found.sort(key=lambda cand: -(len(cand[0]) + cand[1]))
    return found


def search(pos: Position, objective: Objective, *, with_threshold: bool = True) -> TurnAnswer | None:
    """The best opening, or ``None`` when no packing reaches the threshold.

    ``with_threshold=False``: the packing worth the most opening points instead, threshold or not
    (to tell a player how far short they are).
    """
    rules = pos.rules
    threshold = rules.threshold if with_threshold else 0
    top_joker = pos.numbers[-1]
    jokers = pos.rack_jokers.get(ANY, 0) if rules.joker_in_opening else 0
    penalty = rules.joker_penalty
    number = pos.number_of
    order = [i for i in range(pos.size) if pos.rack_count[i]]
    anchored: dict[int, list[Candidate]] = {i: [] for i in order}
    for cand in candidates(pos, jokers):
        anchored[cand[0][0]].append(cand)
    tiles_first = objective is Objective.TILES
    left = list(pos.rack_count)
    chosen: list[Candidate] = []
    best: list = [(-1, -1), None]  # score, sets

    def go(
        k: int, tiles: int, value: int, points: int, jokers_left: int, rem_tiles: int, rem_value: int
    ) -> None:
        while k < len(order) and left[order[k]] == 0:
            k += 1
        top_tiles = tiles + rem_tiles + jokers_left
        top_value = value + rem_value + jokers_left * penalty
        if not with_threshold:
            bound = (points + rem_value + jokers_left * top_joker, 0)
        else:
            bound = (top_tiles, top_value) if tiles_first else (top_value, top_tiles)
        if bound <= best[0]:
            return
        if k == len(order):
            if not with_threshold:
                here = (points, 0)
            else:
                here = (tiles, value) if tiles_first else (value, tiles)
            if points >= threshold and here > best[0]:
                best[0], best[1] = here, list(chosen)
            return
        i = order[k]
        for cand in anchored[i]:
            reals, j, worth = cand
            if j > jokers_left or any(left[t] == 0 for t in reals):
                continue
            if len(set(reals)) != len(reals) and any(left[t] < reals.count(t) for t in reals):
                continue
            for t in reals:
                left[t] -= 1
            chosen.append(cand)
            used_value = sum(number(t) for t in reals)
            go(k, tiles + len(reals) + j, value + used_value + j * penalty, points + worth,
               jokers_left - j, rem_tiles - len(reals), rem_value - used_value)
            chosen.pop()
            for t in reals:
                left[t] += 1
        # or leave one copy of this tile on the rack for good
        left[i] -= 1
        go(k, tiles, value, points, jokers_left, rem_tiles - 1, rem_value - number(i))
        left[i] += 1

    go(0, 0, 0, 0, jokers, sum(pos.rack_count), sum(number(i) * n for i, n in enumerate(pos.rack_count)))
    if best[1] is None:
        return None
    return _answer(pos, best[1])


def _answer(pos: Position, sets: list[Candidate]) -> TurnAnswer:
    """Lay the chosen sets out as tiles, jokers where their best reading puts them."""
    joker = pos.joker_tile.get(ANY)
    table: list[list[Tile]] = []
    played: list[Tile] = []
    points = 0
    value = 0
    for reals, j, worth in sets:
        tiles = [pos.tile(t) for t in reals] + [joker] * j  # type: ignore[list-item]
        verdict = classify(tiles, pos.edition)
        reading = max(verdict.readings, key=lambda r: r.value)
        laid: list[Tile] = []
        spare = [t for t in tiles if not t.is_joker]
        for stands in reading.stands_for:
            if stands in spare:
                spare.remove(stands)
                laid.append(stands)
            else:
                laid.append(joker)  # type: ignore[arg-type]
        table.append(laid)
        played += tiles
        points += worth
        value += sum(pos.number_of(t) for t in reals) + j * pos.rules.joker_penalty
    old = [list(s) for s in pos.table_sets_in]
    return TurnAnswer(
        played=played,
        table=old + table,
        untouched=[True] * len(old) + [False] * len(table),
        tiles=len(played),
        value=value,
        opening_value=points,
    )
