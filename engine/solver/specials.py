"""Twist's special jokers (double, mirror, colour change): every set they can make, from any tiles.

The solver's models know plain jokers only: a run is a flow along one colour, a group a pattern
of colours, and a special joker fits neither (a double fills two places, a mirror makes a set
read the same both ways, a colour change joins two colours). So the sets holding special jokers
are chosen by a search around the models, and the models lay out the rest of the turn:

1. **Every special set the pool can make** (:func:`candidates`): runs walked number by number
   (each place a tile of the pool, a plain joker, a double joker's two places or a colour-change
   joker, the colour changing only across one), groups of one number with a double joker, and
   mirror sets (two copies of a half that is a piece of a run or of a group). Each shape is
   checked by :func:`engine.melds.classify`, the one reading of Twist sets (rules.md 2.4), and
   by the preset's joker rules (:func:`_joker_rule`, engine.joker_fate's definition): a table
   special joker alone of its kind (or the only plain joker in play) that leaves the place it
   stood for is freed, and where the preset asks a freed joker for a new set of rack tiles (and
   a replacement from the rack), a shape that cannot be one is not made; the run walk stops
   where that joker would stand elsewhere in a run of table tiles. A table special joker with
   alike ones is taken only by a set where it alone could stand (:func:`_alike_rules`: alike
   jokers are interchangeable, so the others take the other places). Before the opening only
   rack tiles are used.
2. **Where its tiles come from** (:func:`_sourcings`): the rack, a table set holding jokers
   (any tile of a set holding special jokers, a plain joker of any set, or a tile of a set with
   plain jokers whose rest is still a set: its jokers then keep only the places they had
   before), and the jokerless table sets as one source, :data:`TABLE`, taken first (where
   two chosen sets need more copies of a kind than the table holds, the rack's spare copies
   make up the difference: step 3). Which
   jokerless set gives a tile changes only which old sets stay whole; the rest of the turn is
   told how many tiles of each kind are gone. The sourcings from named sets
   (:func:`_variants`) are tried only for the best plays, for that last criterion.
3. **Every combination** of such sets that shares no tile (:func:`_combinations`): a named table
   set that gives up a tile is broken, its tiles left *loose* for the rest of the turn to place;
   a broken set holding special jokers must have all its jokers in the chosen sets (the models
   cannot place them); a table set with a special joker that is not broken stays as it is.
4. **The rest of the turn** by the exact methods (``rest``), once per distinct rest, best first
   by an upper bound (a cheap one, then at the top of the queue its family's,
   :mod:`engine.solver.rest_families`, or its own: every rack tile the rest could play, the
   old sets it cannot keep), each
   asked only for a play that beats the best legal play found so far: the dynamic programme
   prunes its walks on that floor and proves at once when no play does. Each better play is
   judged (``legal``) when found; the search ends when no bound beats the best: proven.

A hint is marked not proven optimal where the search was cut short: the clock
(:data:`TIME_BUDGET_S`, a guard), the budgets below, and a play the referee rejected on the way
(the best rest of that choice of sets broke a joker rule; a worse legal rest of it is not looked
for). A play of no tile carries the flag too, so that a draw is never called proven when the
search that found nothing was cut short.
"""

from __future__ import annotations

import copy
import heapq
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from rummi.engine.editions import Edition
from rummi.engine.errors import RummiError
from rummi.engine.joker_fate import is_strict_group, meanings_by_kind
from rummi.engine.melds import CLASSIFY_CACHE_SIZE, SetKind, classify_builtin
from rummi.engine.solver.dp import BelowFloor
from rummi.engine.solver.position import Position, TableJoker, TableSet
from rummi.engine.solver.rest_families import FamilyBound
from rummi.engine.solver.turn import Objective, TurnAnswer, less, part_score, played_value, score
from rummi.engine.tiles import JokerKind, Tile

#: the best play of a rest of the turn (position, opened, floor): with a floor (a score of the
#: rest to beat), it may raise :class:`engine.solver.dp.BelowFloor` instead of answering
RestSolver = Callable[[Position, bool, "tuple[int, int, int] | None"], "TurnAnswer | None"]

#: special sets kept at most (the most rack tiles first); beyond it the hint is not proven
MAX_CANDIDATES = 2500
#: combinations of special sets kept at most; beyond it the hint is not proven. Reached only
#: where two or more special jokers could each go to many sets (big tables). Once 4,000 (making
#: 20,000 took the whole clock); since alike jokers are told apart (:func:`_alike_rules`) and
#: the walk counts in place, the big-table cross-check's seeds 0-699 make 23,913 at most, in
#: about 0.2 s (seed 373 made 23,026: 2 tiles, proven, where the 4,000 left 1, not proven)
MAX_COMBINATIONS = 40000
#: rests solved at most per hint (about a millisecond each); beyond it the hint is not proven
MAX_RESTS = 4000
#: seconds one hint's search may take at most (a player waits for it at the table); past it
#: the hint is the best legal play found so far, marked not proven optimal. The bounded search
#: below finishes far sooner: the clock is a guard, not the way the search ends
TIME_BUDGET_S = 3.0


class _OutOfTime(Exception):
    """The wall-clock budget ran out: the search stops with what it has found."""


#: places a run's walk takes between two looks at the clock (a look costs about what 50 do)
CLOCK_STEPS = 4096


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise _OutOfTime

#: the bound of a rest that cannot be laid out: below every play, the play of no tile too
UNPLAYABLE = (-1, -1, -1)
#: a solved play goes before the unsolved rests whose bound it equals (they cannot beat it)
_SOLVED = 1 << 20
_PLAIN = Tile(joker=JokerKind.PLAIN)  # stands for any plain joker while shapes are made
_DOUBLE, _MIRROR, _CHANGE = JokerKind.DOUBLE, JokerKind.MIRROR, JokerKind.COLOUR_CHANGE
RACK = -1  # source of a tile taken from the rack
#: source of a tile taken from the table's sets without jokers, all as one: the rest of the turn
#: is told only how many tiles of each kind are gone (its table counts), and it lays out the
#: sets left, keeping whole any old set whose tiles are still there (a tile of the same kind
#: played from the rack makes the same table as the table's own tile staying put)
TABLE = -2


@dataclass(frozen=True)
class SpecialSet:
    """A set holding at least one special joker, and where each of its tiles comes from."""

    tiles: tuple[Tile, ...]  # as a sorted key; laid out by :func:`laid_out`
    rack: tuple[Tile, ...]  # the rack tiles it uses
    #: (table set index, tile) for each tile it takes from the table
    taken: tuple[tuple[int, Tile], ...]
    opening_value: int
    #: the shape it was made from (plain jokers as ``_PLAIN``) and where the joker rules let its
    #: numbered tiles come from: what :func:`_variants` takes its other sourcings from
    shape: tuple[Tile, ...] = ()
    rule: str = "anywhere"
    #: for each table special joker with an alike one that the set may take, where its numbered
    #: tiles may then come from (:func:`_alike_rules`): what :func:`_variants` reads too
    alike: AlikeRules = ()


def applies(pos: Position) -> bool:
    """Special jokers on the rack, or table sets holding one."""
    return bool(pos.unplayable_rack) or any(_is_special(t) for s in pos.table_sets_in for t in s)


def _is_special(t: Tile) -> bool:
    return t.is_joker and t.joker is not None and t.joker.is_special


# --- the pool and the shapes it can make --------------------------------------------------------


@dataclass
class _Pool:
    """Where tiles may come from: the rack and the table sets a special set may take from."""

    sources: dict[Tile, list[tuple[int, int]]]  # kind -> [(source, count)], numbered and special
    plain: list[tuple[int, Tile, int]]  # (source, plain joker tile, count)
    #: kinds the rack or a table set holding a special joker has: a set's "own" tiles
    own: set[Tile]
    #: the table sets holding a special joker
    special_sets: frozenset[int] = frozenset()
    #: the rack's numbered tiles (a freed joker's landing set is made of them)
    rack: Counter = field(default_factory=Counter)
    #: table special jokers alone of their kind, where the preset asks a freed joker for a
    #: landing set: joker -> the tiles it stood for in its old run. Placed in a run at another
    #: tile, it is freed, and the run must be a landing set of rack tiles (:func:`_joker_rule`)
    kept_at: dict[Tile, frozenset[Tile]] = field(default_factory=dict)
    #: the numbered tiles a landing set needs at least
    landing_reals: int = 1

    #: (kind, count, rack only) -> :meth:`ways`, made once per pool: the shapes share kinds
    made: dict[tuple, list] = field(default_factory=dict)

    def count(self, tile: Tile) -> int:
        return sum(n for _, n in self.sources.get(tile, ()))

    def ways(self, t: Tile, need: int, rack_only: bool) -> list[list[tuple[int, Tile, int]]]:
        """Every way :func:`_sourcings` takes ``need`` tiles of kind ``t`` (``_PLAIN``: plain
        jokers), each as (source, tile, count) parts; never changed once made."""
        key = (t, need, rack_only)
        out = self.made.get(key)
        if out is not None:
            return out
        if t == _PLAIN:
            out = [[(s, j, n) for s, j, n in split if n] for split in _plain_splits(need, self.plain)]
        elif rack_only and not t.is_joker:
            have = sum(n for s, n in self.sources[t] if s == RACK)
            out = [[(RACK, t, need)]] if have >= need else []
        else:
            table = min(need, sum(n for s, n in self.sources[t] if s == TABLE))
            others = [x for x in self.sources[t] if x[0] != TABLE]
            splits = ([(TABLE, table), *split] for split in _splits(need - table, others))
            out = [[(s, t, n) for s, n in split if n] for split in splits]
        self.made[key] = out
        return out

    @property
    def plain_count(self) -> int:
        return sum(n for _, _, n in self.plain)


def _pool(pos: Position, opened: bool, merged: bool = True) -> _Pool:
    sources: dict[Tile, list[tuple[int, int]]] = {}
    plain: list[tuple[int, Tile, int]] = []

    def add(source: int, tiles: Counter) -> None:
        for t, n in tiles.items():
            if t.is_joker and not _is_special(t):
                plain.append((source, t, n))
            else:
                sources.setdefault(t, []).append((source, n))

    add(RACK, Counter(pos.rack_in))
    own = {t for t in pos.rack_in if not t.is_joker}
    if opened:
        table: Counter = Counter()
        for k, s in enumerate(pos.table_sets_in):
            if merged and not any(t.is_joker for t in s):
                table.update(s)  # which jokerless set a tile comes from: see :func:`_variants`
                continue
            holds_special = any(_is_special(t) for t in s)
            add(k, Counter(s))  # a plain joker of any set may join a special set too
            if holds_special:
                own.update(t for t in s if not t.is_joker)
        if table:
            add(TABLE, table)
    special_sets = frozenset(k for k, s in enumerate(pos.table_sets_in) if any(_is_special(t) for t in s))
    rack = Counter(t for t in pos.rack_in if not t.is_joker)
    kept_at: dict[Tile, frozenset[Tile]] = {}
    rules = pos.rules
    if opened and (rules.freed_in_new_set or rules.freed_min_own_tiles > 0):
        for special in _table_specials(pos):
            if special.joker.joker in (_CHANGE, _DOUBLE):
                kept_at[special.joker] = special.meanings.get(SetKind.RUN, frozenset())
    return _Pool(
        sources, plain, own, special_sets if opened else frozenset(), rack, kept_at,
        max(1, rules.freed_min_own_tiles),
    )


def _shapes(pool: _Pool, ed: Edition, deadline: float | None = None) -> set[tuple[Tile, ...]]:
    """Every multiset of pool kinds (plain jokers as ``_PLAIN``) that might be a special set;
    a superset of the valid ones, which :func:`classify` then picks. The runs' walk asks the
    clock (``deadline``) as it goes: with two colour-change and two double jokers on a big
    table it alone can take seconds."""
    specials = Counter({t: pool.count(t) for t in pool.sources if _is_special(t)})
    if not specials:
        return set()
    numbered = Counter({t: pool.count(t) for t in pool.sources if not t.is_joker})
    plain = min(pool.plain_count, 3)
    out: set[tuple[Tile, ...]] = set()
    _runs(numbered, specials, plain, ed, out, pool, deadline)
    _groups(numbered, specials, plain, ed, out)
    _mirrors(numbered, specials, plain, ed, out)
    return out


class _Orders(dict):
    """Each item's place in a key, made by ``make`` on first use. Read as ``sorted``'s key by
    the dict's own look-up: a Python function per tile sorted was a tenth of making the
    special sets (a quarter of a million calls a hint). Its items are the box's tiles (and
    their sources), so it stays small."""

    def __init__(self, make: Callable[[Any], tuple]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, item: Any) -> tuple:
        order = self[item] = self._make(item)
        return order


#: each tile's place in a multiset's key (:func:`_key`)
_ORDER = _Orders(lambda t: (t.is_joker, t.sort_key() if not t.is_joker else (0, 0, str(t))))


def _key(tiles) -> tuple[Tile, ...]:  # type: ignore[no-untyped-def]
    """Tiles in one order, so that a multiset has one key."""
    return tuple(sorted(tiles, key=_ORDER.__getitem__))


def _runs(numbered: Counter, specials: Counter, plain: int, ed: Edition, out: set, pool: _Pool,
          deadline: float | None = None) -> None:
    """Runs walked number by number: each place a pool tile, a plain joker, a colour-change
    joker (the colour may change across it) or half of a double joker."""
    double = next((t for t in specials if t.joker is _DOUBLE), None)
    change = next((t for t in specials if t.joker is _CHANGE), None)
    if double is None and change is None:
        return
    by_number: dict[int, list[Tile]] = {}
    for t in numbered:
        by_number.setdefault(t.number, []).append(t)  # type: ignore[arg-type]
    hi = ed.max_number
    left = {"d": specials[double] if double else 0, "c": specials[change] if change else 0, "p": plain}
    tiles: list[Tile] = []

    # a ruled table joker placed where it is not kept makes the run a landing set: from then on
    # (and before) every numbered tile must be a rack tile ("off" counts those that are not)
    used: Counter = Counter()
    state = {"landing": False, "off": 0, "steps": 0}

    def placed(joker: Tile, n: int, colour) -> bool:  # type: ignore[no-untyped-def]
        """Place ``joker`` at ``n`` after tiles of ``colour`` (``None``: first, its colour is the
        next tile's); False where no legal run can hold it there."""
        kept = pool.kept_at.get(joker)
        if kept is None or state["landing"] or any(t.number == n and colour in (None, t.colour) for t in kept):
            return True
        if state["off"]:
            return False
        state["landing"] = True
        return True

    def walk(n: int, colour, crossed: bool, physical: int, reals: int, has_special: bool) -> None:  # type: ignore[no-untyped-def]
        state["steps"] += 1
        if not state["steps"] % CLOCK_STEPS:
            _check(deadline)
        if has_special and reals and physical >= 3 and (not state["landing"] or reals >= pool.landing_reals):
            out.add(_key(tiles))
        if n > hi or len(tiles) >= ed.max_run_length:
            return
        for t in by_number.get(n, ()):
            if colour is not None and (t.colour != colour) != crossed:
                continue
            off = used[t] >= pool.rack[t]
            if off and state["landing"]:
                continue
            used[t] += 1
            state["off"] += off
            tiles.append(t)
            walk(n + 1, t.colour, False, physical + 1, reals + 1, has_special)
            tiles.pop()
            state["off"] -= off
            used[t] -= 1
        if left["p"]:
            left["p"] -= 1
            tiles.append(_PLAIN)
            walk(n + 1, colour, crossed, physical + 1, reals, has_special)
            tiles.pop()
            left["p"] += 1
        for joker, key, step in ((change, "c", 1), (double, "d", 2)):
            if not left[key] or n + step - 1 > hi:
                continue
            was = state["landing"]
            if placed(joker, n, colour):  # type: ignore[arg-type]
                left[key] -= 1
                tiles.append(joker)  # type: ignore[arg-type]
                turned = True if colour is not None and key == "c" else crossed
                after = colour
                if key == "c" and crossed:
                    # a second colour change before any tile showed the first one's colour: that
                    # stretch may take a colour unlike both its neighbours (four colours), so the
                    # next tile may be of any colour, the first stretch's too (k8 Jc Jc k11)
                    after, turned = None, False
                walk(n + step, after, turned, physical + 1, reals, True)
                tiles.pop()
                left[key] += 1
            state["landing"] = was

    for start in ed.numbers:
        walk(start, None, False, 0, 0, False)


def _groups(numbered: Counter, specials: Counter, plain: int, ed: Edition, out: set) -> None:
    """A double joker with one number's tiles (and a plain joker) in different colours."""
    double = next((t for t in specials if t.joker is _DOUBLE), None)
    if double is None:
        return
    by_number: dict[int, list[Tile]] = {}
    for t in numbered:
        by_number.setdefault(t.number, []).append(t)  # type: ignore[arg-type]
    for tiles in by_number.values():
        for size in range(1, len(tiles) + 1):
            for combo in itertools.combinations(tiles, size):
                for p in range(0, plain + 1):
                    for d in range(1, specials[double] + 1):
                        if size + p + d >= 3 and size + p + 2 * d <= ed.max_group_size:
                            out.add(_key([*combo, *[_PLAIN] * p, *[double] * d]))


def _mirrors(numbered: Counter, specials: Counter, plain: int, ed: Edition, out: set) -> None:
    """A mirror joker between two copies of a half: one number in several colours, or a piece
    of a run; a plain joker may stand for a tile on either side."""
    mirror = next((t for t in specials if t.joker is _MIRROR), None)
    if mirror is None:
        return
    halves: list[list[Tile]] = []
    by_number: dict[int, list[Tile]] = {}
    by_colour: dict[object, list[Tile]] = {}
    for t in numbered:
        by_number.setdefault(t.number, []).append(t)  # type: ignore[arg-type]
        by_colour.setdefault(t.colour, []).append(t)
    for tiles in by_number.values():
        for size in range(1, len(tiles) + 1):
            halves += [list(c) for c in itertools.combinations(tiles, size)]
    longest = (ed.max_run_length - 1) // 2
    for tiles in by_colour.values():
        numbers = {t.number: t for t in tiles}
        for low in sorted(numbers):
            run = []
            for n in range(low, low + longest + plain):
                if n in numbers:
                    run.append(numbers[n])
                    if len(run) >= 2:
                        halves.append(list(run))
                elif n > ed.max_number:
                    break
    for half in halves:
        # each half tile twice; a plain joker may take the place of a copy (or of both), and
        # the plain jokers that take no copy's place are places of their own (a gap in a run
        # half, r2 Js r4 Jm r4 Js r2), so 0..p copies are dropped, not always p
        for p in range(0, plain + 1):
            for d in range(0, min(p, 2 * len(half)) + 1):
                for dropped in itertools.combinations_with_replacement(range(len(half)), d):
                    counts = Counter(dropped)
                    if any(c > 2 for c in counts.values()):
                        continue
                    tiles = [t for i, t in enumerate(half) for _ in range(2 - counts[i])]
                    if any(numbered[t] < tiles.count(t) for t in set(tiles)):
                        continue
                    if tiles:
                        out.add(_key([*tiles, mirror, *[_PLAIN] * p]))


# --- what the preset lets a special set do with a table special joker ----------------------------

#: a special set may take its numbered tiles from anywhere / from the rack only
ANYWHERE, RACK_ONLY = "anywhere", "rack only"


@dataclass(frozen=True)
class _TableSpecial:
    """A joker on the table whose moves the joker rules judge, with its old set (``index``,
    and its tiles as a key) and every tile it stood for there, by kind of set: a special joker
    the only one of its kind in the position (so the referee can tell it apart), the only
    plain joker in the position, or a special joker with alike ones (:func:`_alike_rules`)."""

    joker: Tile
    old: tuple[Tile, ...]  # as a key (:func:`_key`)
    meanings: dict[SetKind, frozenset[Tile]]
    needs_all: bool
    index: int = -1


def _table_specials(pos: Position) -> list[_TableSpecial]:
    """The table's jokers that engine.joker_fate judges one by one, in a set that was valid (an
    invalid old set's jokers are asked nothing): each special joker alone of its kind on the
    table and rack (two alike could swap roles in the kindest reading), and a plain joker where
    it is the only one on the table and rack (a special set holding a plain joker then holds
    that one; the rest of the turn holds none)."""
    counts = _jokers_in_play(pos)
    plain = sum(n for t, n in counts.items() if not _is_special(t)) == 1
    return _table_jokers_where(pos, lambda t, jokers: counts[t] == 1 if _is_special(t) else plain)


def _alike_specials(pos: Position) -> list[_TableSpecial]:
    """The table's special jokers with an alike one elsewhere on the table or rack, each alone
    of its kind in its own set, in a set that was valid (:func:`_alike_rules`)."""
    counts = _jokers_in_play(pos)
    return _table_jokers_where(pos, lambda t, jokers: _is_special(t) and counts[t] > 1 and jokers.count(t) == 1)


def _jokers_in_play(pos: Position) -> Counter:
    """Every joker on the table and the rack, by kind."""
    return Counter(t for s in pos.table_sets_in for t in s if t.is_joker) + Counter(t for t in pos.rack_in if t.is_joker)


def _table_jokers_where(pos: Position, judged: Callable[[Tile, list[Tile]], bool]) -> list[_TableSpecial]:
    """The jokers of the table's valid sets for which ``judged(joker, its set's jokers)``, each
    with its set, what it stood for and whether its group is a strict one."""
    out = []
    for k, s in enumerate(pos.table_sets_in):
        verdict = _verdict(_key(s), pos.edition)
        if not verdict.valid:
            continue
        jokers = [t for t in verdict.tiles if t.is_joker]
        strict = pos.rules.strict_joker_group and is_strict_group(verdict)
        for i, t in enumerate(jokers):
            if judged(t, jokers):
                out.append(_TableSpecial(t, _key(s), meanings_by_kind(verdict, i), strict, k))
    return out


def _joker_rule(
    tiles: tuple[Tile, ...], verdict, specials_on_table: list[_TableSpecial], pos: Position  # type: ignore[no-untyped-def]
) -> str | None:
    """Where a valid special set may take its numbered tiles from under the preset's joker rules
    (engine.joker_fate, the referee's definition), or ``None`` where no play holding it is legal.

    A table joker of ``specials_on_table`` in the set is *kept* when in some reading it stands for a tile it
    stood for before in a set of the same kind (or its old set is the set, whole): no rule is
    asked. Otherwise it is *freed*: where the preset asks for a landing set, this set is it
    (the joker is alone of its kind), so its numbered tiles are played from the rack, at least
    ``max(1, freed_min_own_tiles)`` of them (a table tile of a kind the rack also plays is the
    same table: that sourcing is tried too); where a replacement is asked from the rack, the
    rack keeps a tile it stood for besides this set's. Necessary conditions only: the referee
    still judges the play. ``tiles``: the set as a key (:func:`_key`)."""
    rule = ANYWHERE
    rules = pos.rules
    for special in specials_on_table:
        if special.joker not in tiles:
            continue
        if tiles == special.old:
            continue  # its old set, whole
        jokers = [t for t in verdict.tiles if t.is_joker]
        if any(
            j == special.joker and m in special.meanings.get(r.kind, ())
            for r in verdict.readings
            for m, j in zip(r.jokers, jokers)
        ):
            continue  # kept: it stands where it stood
        numbered = Counter(t for t in tiles if not t.is_joker)
        if rules.freed_in_new_set or rules.freed_min_own_tiles > 0:
            if not _lands_from_rack(numbered, pos):
                return None
            rule = RACK_ONLY
        if not _replaced_from_rack(special, numbered, pos):
            return None
    return rule


def _lands_from_rack(numbered: Counter, pos: Position) -> bool:
    """A set of these numbered tiles can be a freed joker's landing set: all from the rack, at
    least ``max(1, freed_min_own_tiles)`` of them."""
    return not numbered - Counter(pos.rack_in) and sum(numbered.values()) >= max(1, pos.rules.freed_min_own_tiles)


def _replaced_from_rack(special: _TableSpecial, numbered: Counter, pos: Position) -> bool:
    """Where the preset asks a freed joker for a replacement from the rack, the rack keeps a
    tile the joker stood for besides a set's ``numbered`` tiles."""
    rules = pos.rules
    if rules.replacement_from_table or not (special.needs_all or not rules.free_by_rearranging):
        return True
    left = Counter(pos.rack_in) - numbered
    return any(left[m] for ms in special.meanings.values() for m in ms)


#: what :func:`_alike_rules` says of one set: per table joker, or per group of alike ones the set
#: may take together, (old set, joker) pairs and where the set's numbered tiles may then come from
AlikeRules = tuple[tuple[tuple[tuple[int, Tile], ...], "str | None"], ...]


def _alike_rules(
    tiles: tuple[Tile, ...], verdict, alike: list[_TableSpecial], pos: Position  # type: ignore[no-untyped-def]
) -> AlikeRules:
    """Per table special joker with an alike one (:func:`_table_specials` with ``alike``) of a
    kind the set holds: ((its old set, the joker), where the set may take its numbered tiles
    from when it takes that very joker, as :func:`_joker_rule` says of a joker alone of its kind;
    ``None``: never). Alike jokers are interchangeable in the referee's kindest reading
    (engine.joker_fate matches a table joker to any joker of its kind that stands where it
    stood, and lands a freed one in any set holding one of its kind), so which one a set takes
    is the search's to choose: where a table joker is kept, some set holds one of its kind at
    its place, and where it is freed, some landing set holds one; that set takes it, the others
    take the alike ones. So a set takes a table joker only where that joker alone could stand
    (kept, or landing on rack tiles), and the others' from the rack or their own sets: the same
    tables, each made once with that joker where it may be, instead of every joker anywhere
    (issue 19, 2026-12-05). Where the preset asks a freed joker for a landing set, a set that
    takes two or more alike table jokers has them all kept, each at a place of its own in one
    reading (:func:`_joint_rule`), or lands them all (a landing set offers no kept place)."""
    mine = [special for special in alike if special.joker in tiles]
    out: list = [(((sp.index, sp.joker),), _joker_rule(tiles, verdict, [sp], pos)) for sp in mine]
    if pos.rules.freed_in_new_set or pos.rules.freed_min_own_tiles > 0:
        jokers = [t for t in verdict.tiles if t.is_joker]
        for kind in {sp.joker for sp in mine}:
            same = [sp for sp in mine if sp.joker == kind]
            for size in range(2, min(len(same), jokers.count(kind)) + 1):
                for group in itertools.combinations(same, size):
                    takes = tuple((sp.index, sp.joker) for sp in group)
                    out.append((takes, _joint_rule(tiles, verdict, group, pos)))
    return tuple(out)


def _joint_rule(
    tiles: tuple[Tile, ...], verdict, group: tuple[_TableSpecial, ...], pos: Position  # type: ignore[no-untyped-def]
) -> str | None:
    """Where a set that takes every alike table joker of ``group`` may take its numbered tiles
    from, under a preset that asks a freed joker for a landing set: anywhere where one reading
    gives each a place it stood for (engine.joker_fate pairs each kept joker with a joker of
    its own), else from the rack, as the landing set of them all (every one replaced from the
    rack, where the preset asks it), else ``None``."""
    jokers = [t for t in verdict.tiles if t.is_joker]
    for reading in verdict.readings:
        slots = list(zip(reading.jokers, jokers))
        for places in itertools.permutations(range(len(slots)), len(group)):
            if all(
                slots[i][1] == sp.joker and slots[i][0] in sp.meanings.get(reading.kind, ())
                for i, sp in zip(places, group)
            ):
                return ANYWHERE
    numbered = Counter(t for t in tiles if not t.is_joker)
    if not _lands_from_rack(numbered, pos) or not all(_replaced_from_rack(sp, numbered, pos) for sp in group):
        return None
    return RACK_ONLY


def _verdict(tiles: tuple[Tile, ...], edition: Edition):  # type: ignore[no-untyped-def]
    return classify_builtin(tiles, edition.name)


@lru_cache(maxsize=CLASSIFY_CACHE_SIZE)
def _opening_value(tiles: tuple[Tile, ...], edition: str) -> int:
    """What a valid special set counts for the opening (its verdict's best reading, summed
    once: the sourcings of one shape, and the shapes of one hint after another, share it).
    Bounded as the verdicts are: a long-lived process's full garbage collections walk it."""
    return classify_builtin(tiles, edition).value


# --- where each tile of a shape comes from -------------------------------------------------------


def _sourcings(
    shape: tuple[Tile, ...], pool: _Pool, rack_only: bool = False
) -> Iterator[tuple[list[Tile], list[tuple[int, Tile]], list[Tile]]]:
    """Every way to take a shape's tiles that can be best: (rack tiles, (source, tile) taken from
    the table, the set's tiles with real plain jokers). A numbered tile the table's jokerless
    sets hold is taken from them first: the same tile from the rack would leave the rest of the
    turn the same table to lay out with one rack tile fewer, which it can always match by playing
    that rack tile in its place. That holds for one special set; two that need a tile the table
    holds once both take the table's copy, and :func:`_combinations` lets one of them take the
    rack's instead. ``rack_only``: numbered tiles from the rack alone."""
    need = Counter(shape)
    per_kind = [pool.ways(t, n, rack_only) for t, n in need.items() if t != _PLAIN]
    plains = pool.ways(_PLAIN, need[_PLAIN], rack_only)
    for choice in itertools.product(*per_kind, plains):
        rack: list[Tile] = []
        taken: list[tuple[int, Tile]] = []
        tiles: list[Tile] = []
        for part in choice:
            for source, t, n in part:
                tiles += [t] * n
                if source == RACK:
                    rack += [t] * n
                else:
                    taken += [(source, t)] * n
        yield rack, taken, tiles


def _splits(need: int, sources: list[tuple[int, int]]) -> Iterator[list[tuple[int, int]]]:
    if need == 0:
        yield []
        return
    if not sources:
        return
    (source, have), rest = sources[0], sources[1:]
    for n in range(min(need, have), -1, -1):
        for tail in _splits(need - n, rest):
            yield [(source, n), *tail]


def _plain_splits(need: int, plain: list[tuple[int, Tile, int]]) -> Iterator[list[tuple[int, Tile, int]]]:
    if need == 0:
        yield []
        return
    if not plain:
        return
    (source, tile, have), rest = plain[0], plain[1:]
    for n in range(min(need, have), -1, -1):
        for tail in _plain_splits(need - n, rest):
            yield [(source, tile, n), *tail]


def _first_tiles(shape: tuple[Tile, ...], have: dict[Tile, int], plain: list[Tile]) -> tuple[Tile, ...] | None:
    """The tiles of the first sourcing :func:`_sourcings` yields for ``shape`` (its plain jokers
    the pool's first ones, ``plain``), as a key, or ``None`` where the pool (``have``: its count
    of each kind) cannot supply the shape: what the shape is judged by, without making every
    sourcing (most shapes are invalid)."""
    need = Counter(shape)
    jokers = need.pop(_PLAIN, 0)
    if len(plain) < jokers or any(have.get(t, 0) < n for t, n in need.items()):
        return None
    return _key([t for t in shape if t != _PLAIN] + plain[:jokers])


def candidates(pos: Position, opened: bool, deadline: float | None = None) -> list[SpecialSet]:
    """Every special set the pool can make (before the opening: from the rack alone), each
    with every way to take its tiles that can be best (:func:`_sourcings`), and none that the
    preset's joker rules forbid (:func:`_joker_rule`); the most rack tiles first."""
    if not opened and not pos.rules.joker_in_opening:
        return []  # before the opening only rack tiles count, and no joker may be among them
    pool = _pool(pos, opened)
    found: dict[tuple, SpecialSet] = {}
    shapes = list(_shapes(pool, pos.edition, deadline))
    on_table = _table_specials(pos) if opened else []
    alike = _alike_specials(pos) if opened else []
    have = {t: pool.count(t) for t in pool.sources}
    plain = [t for _, t, n in pool.plain for _ in range(n)]
    for shape in shapes:
        _check(deadline)
        tiles = _first_tiles(shape, have, plain)
        if tiles is None:
            continue
        verdict = _verdict(tiles, pos.edition)
        if not verdict.valid:
            continue  # the same shape with other sources is as invalid
        rule = _joker_rule(tiles, verdict, on_table, pos)
        if rule is None:
            continue  # no play holding it is legal (plain jokers are alike: any sourcing)
        _add_sets(shape, pool, rule, pos, found, _alike_rules(tiles, verdict, alike, pos) if alike else ())

    def order(c: SpecialSet) -> tuple:
        return -len(c.rack), -sum(t.face_value for t in c.rack), len(c.taken)  # the most rack tiles first

    return sorted(found.values(), key=order)


def _add_sets(
    shape: tuple[Tile, ...], pool: _Pool, rule: str, pos: Position, found: dict[tuple, SpecialSet],
    alike: AlikeRules = (),
) -> None:
    """The special sets of one shape, one per sourcing, into ``found`` (keyed by sourcing).
    ``alike`` (:func:`_alike_rules`): a sourcing that takes such table jokers is made only where
    they may go (numbered tiles from the rack alone where they land here)."""
    limits = {frozenset(takes): r for takes, r in alike if r is not ANYWHERE}
    tracked = {x for takes, _ in alike for x in takes}
    # a table joker that lands here takes its set's numbered tiles from the rack: those
    # sourcings too, where the shape's own rule does not ask for them already
    modes = [rule is RACK_ONLY]
    if RACK_ONLY in limits.values() and rule is not RACK_ONLY:
        modes.append(True)
    for rack_only in modes:
        for rack, taken, tiles in _sourcings(shape, pool, rack_only):
            if not rack and not any(_is_special(t) for _, t in taken):
                continue  # nothing played and no table special joker moved: no use
            if limits and not _may_take(taken, limits, tracked):
                continue  # it takes table jokers with alike ones where they may not go
            key = (_key(rack), _taken_key(taken))
            if key not in found:
                tiles_key = _key(tiles)
                value = _opening_value(tiles_key, pos.edition.name)
                found[key] = SpecialSet(tiles_key, tuple(rack), key[1], value, shape, rule, alike)


def _may_take(
    taken: list[tuple[int, Tile]], limits: dict[frozenset, str | None], tracked: set[tuple[int, Tile]]
) -> bool:
    """Whether a sourcing (its table tiles ``taken``) may take the table special jokers with
    alike ones that it takes (``tracked``): ``limits``, per (old set, joker) pair or group of
    them taken, ``None`` (never) or :data:`RACK_ONLY` (then every numbered tile is the rack's)."""
    mine = {x for x in taken if x in tracked}
    if not mine:
        return True
    from_table = any(not t.is_joker for _, t in taken)
    for takes, r in limits.items():
        if takes <= mine and (r is None or from_table):
            return False
    return True


def _variants(pos: Position, combo: tuple[SpecialSet, ...], pool: _Pool) -> list[tuple[SpecialSet, ...]]:
    """Every other way to source ``combo``'s sets, the table sets named (``pool`` without the
    :data:`TABLE` source): they may leave other old sets whole, so they decide the last
    criterion (old sets left unchanged). One may also take from a table set holding a special
    joker a tile ``combo`` took from the rack, and play more: that play is then also one of
    another choice of sets among the combinations (taking that tile from that set), whose
    rest and family bound it (found by a second reader's review, 2026-12-05)."""
    per_set = []
    for c in combo:
        found: dict[tuple, SpecialSet] = {}
        _add_sets(c.shape, pool, c.rule, pos, found, c.alike)
        per_set.append(list(found.values()))
    out = []
    rack_have = Counter(pos.rack_in)
    set_have = Counter((k, t) for k, s in enumerate(pos.table_sets_in) for t in s)
    specials_of = {k: Counter((k, t) for t in s if _is_special(t)) for k, s in enumerate(pos.table_sets_in)}
    for choice in itertools.product(*per_set):
        taken = Counter(x for c in choice for x in c.taken)
        if Counter(t for c in choice for t in c.rack) - rack_have or taken - set_have:
            continue
        # a broken set's special jokers go with the chosen sets (as in :func:`_combinations`)
        if any(specials_of[k] - taken for k in {k for k, _ in taken}):
            continue
        out.append(choice)
    return out


def laid_out(c: SpecialSet, edition: Edition) -> list[Tile]:
    """The set's tiles as it reads (only the sets of the answer are laid out)."""
    return reading_order(list(c.tiles), _verdict(c.tiles, edition))


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


# --- combinations and the rest of the turn --------------------------------------------------------


def _combinations(
    pos: Position, found: list[SpecialSet], deadline: float | None = None
) -> tuple[list[tuple[SpecialSet, ...]], bool]:
    """Every choice of special sets that share no tile and leave no special joker of a broken
    table set behind; and whether the budget cut the list short."""
    holds_special = {k: any(_is_special(t) for t in s) for k, s in enumerate(pos.table_sets_in)}
    specials_of = [Counter(t for t in s if _is_special(t)) for s in pos.table_sets_in]
    most = sum(1 for t in pos.rack_in if _is_special(t)) + sum(
        1 for s in pos.table_sets_in for t in s if _is_special(t)
    )

    def complete(taken: Iterable[tuple[int, Tile]]) -> bool:
        """``taken``: every (source, tile) the chosen sets take, once per tile."""
        # a broken set's special jokers must be in the chosen sets (the models cannot place
        # them); its plain jokers may be, or go to the rest of the turn as freed table jokers
        taken = tuple(taken)
        for k in {k for k, _ in taken}:
            if holds_special.get(k, False):
                got = Counter(t for j, t in taken if j == k and _is_special(t))
                if got != specials_of[k]:
                    return False
        return True

    if most == 1:
        # one special joker: each set alone, whose sourcing the pool supplies by construction
        alone = [(c,) for c in found if complete(c.taken)]
        return alone[:MAX_COMBINATIONS], len(alone) > MAX_COMBINATIONS

    rack_have = Counter(pos.rack_in)
    set_have = dict(enumerate(Counter(s) for s in pos.table_sets_in))
    set_have[TABLE] = Counter(t for s in pos.table_sets_in if not any(x.is_joker for x in s) for t in s)
    takes = [Counter(c.taken) for c in found]

    racks = [Counter(c.rack) for c in found]
    out: list[tuple[SpecialSet, ...]] = []
    cut = False
    # which pairs of sets could lie together (each tile used at most as often as it exists):
    # the walk below goes only through sets that fit every one chosen, then checks the counts
    uses = [{("rack", t): n for t, n in racks[i].items()} | dict(takes[i]) for i in range(len(found))]
    have = {("rack", t): n for t, n in rack_have.items()}
    for k, counts in set_have.items():
        have.update({(k, t): n for t, n in counts.items()})
    # a kind both the rack and the jokerless table sets hold is one supply here: each special
    # set takes the table's copies first (:func:`_sourcings`), so two that need a tile the table
    # holds once would clash, where one of them could take the rack's copy. The rack's spare
    # copies make up the table's shortfall, and a combination short of table copies is written
    # with them (:func:`_from_rack`): the rest of the turn sees the same tiles gone either way
    table_have = {t: n for (k, t), n in have.items() if k == TABLE and ("rack", t) in have}
    tables: list[dict[Tile, int]] = [{} for _ in found]
    for i, ui in enumerate(uses):
        for t in [t for k, t in ui if k == TABLE and t in table_have]:
            tables[i][t] = n = ui.pop((TABLE, t))
            ui[("joint", t)] = ui.get(("joint", t), 0) + n
        for t in [t for k, t in ui if k == "rack" and t in table_have]:
            ui[("joint", t)] = ui.get(("joint", t), 0) + ui[("rack", t)]
    have.update({("joint", t): n + have[("rack", t)] for t, n in table_have.items()})
    table_used: dict[Tile, int] = dict.fromkeys(table_have, 0)
    # as bit sets: per tile source, the sets using each count of it; set i clashes with those
    # using more than what it leaves of a source it uses
    users: dict[tuple, dict[int, int]] = {}
    for i, ui in enumerate(uses):
        for r, n in ui.items():
            users.setdefault(r, {}).setdefault(n, 0)
            users[r][n] |= 1 << i
    everyone = (1 << len(found)) - 1
    fits = [0] * len(found)
    for i in range(len(found)):
        _check(deadline)
        clash = 1 << i
        for r, n in uses[i].items():
            for m, who in users[r].items():
                if n + m > have.get(r, 0):
                    clash |= who
        fits[i] = everyone & ~clash

    # counted in place as the walk goes (a Counter made per step was most of the walk): each
    # source's tiles used, and per table set holding special jokers, the chosen sets taking
    # from it and the special jokers they take (``open_sets``: those broken with a special
    # joker left behind, which :func:`complete` rejects)
    specials_from = [
        Counter(k for k, t in c.taken if holds_special.get(k, False) and _is_special(t)) for c in found
    ]
    touches = [{k for k, _ in c.taken if holds_special.get(k, False)} for c in found]
    want = {k: sum(specials_of[k].values()) for k, h in holds_special.items() if h}
    used: dict[tuple, int] = {}
    takers: dict[int, int] = dict.fromkeys(want, 0)
    moved: dict[int, int] = dict.fromkeys(want, 0)
    open_sets = 0

    def is_open(k: int) -> bool:
        return takers[k] > 0 and moved[k] != want[k]

    def extend(start: int, chosen: list[SpecialSet], allowed: int) -> None:
        nonlocal cut, open_sets
        _check(deadline)
        if chosen and not open_sets:
            if len(out) >= MAX_COMBINATIONS:
                cut = True
                return
            short = {t: n - table_have[t] for t, n in table_used.items() if n > table_have[t]}
            out.append(_from_rack(chosen, short) if short else tuple(chosen))
        if len(chosen) >= most:
            return
        bits = allowed >> start << start
        while bits:
            low = bits & -bits
            bits ^= low
            i = low.bit_length() - 1
            if any(used.get(r, 0) + n > have.get(r, 0) for r, n in uses[i].items()):
                continue
            for r, n in uses[i].items():
                used[r] = used.get(r, 0) + n
            for t, n in tables[i].items():
                table_used[t] += n
            for k in touches[i]:
                open_sets -= is_open(k)
                takers[k] += 1
                moved[k] += specials_from[i][k]
                open_sets += is_open(k)
            chosen.append(found[i])
            extend(i + 1, chosen, allowed & fits[i])
            chosen.pop()
            for k in touches[i]:
                open_sets -= is_open(k)
                takers[k] -= 1
                moved[k] -= specials_from[i][k]
                open_sets += is_open(k)
            for r, n in uses[i].items():
                used[r] -= n
            for t, n in tables[i].items():
                table_used[t] -= n
            if cut:
                return

    extend(0, [], (1 << len(found)) - 1)
    return out, cut


def _from_rack(chosen: list[SpecialSet], short: dict[Tile, int]) -> tuple[SpecialSet, ...]:
    """``chosen`` with ``short[t]`` copies of each kind ``t`` taken from the rack instead of
    :data:`TABLE` (the table holds fewer than the sets take first, :func:`_combinations`); the
    last sets give them up first."""
    short = dict(short)
    out: list[SpecialSet] = []
    for c in reversed(chosen):
        moved: list[Tile] = []
        taken = list(c.taken)
        for t, n in short.items():
            while n and (TABLE, t) in taken:
                taken.remove((TABLE, t))
                moved.append(t)
                n -= 1
            short[t] = n
        out.append(replace(c, rack=_key([*c.rack, *moved]), taken=_taken_key(taken)) if moved else c)
    return tuple(reversed(out))


def solve(
    pos: Position,
    opened: bool,
    objective: Objective,
    plain: TurnAnswer | None,
    rest: RestSolver,
    legal: Callable[[TurnAnswer], bool] = lambda answer: True,
    budget_s: float = TIME_BUDGET_S,
    compiled: bool = True,
) -> TurnAnswer | None:
    """The best legal play with special jokers, or ``plain`` (the best without) when none beats
    it. ``legal`` judges a play before it becomes the hint (moving a table set's special joker
    frees it, which the preset's rules then judge).

    Best first: the rests are solved in the order of their upper bounds, each only for a play
    that beats the best legal play found so far (the dynamic programme prunes its walks on that
    floor and says at once when none does), and the search ends when no bound beats it. The
    answer's ``proven`` is False where the search was cut short (a budget, the clock, a play the
    referee rejected); that holds for a play of no tile too, so that a caller never calls a
    draw proven when the search that found nothing was not exhaustive. ``compiled``: the
    compiled kernel may be walked for the bounds of families of rests (:mod:`rest_families`)."""
    first = None
    cache: dict = {}
    if plain is None:  # the play with every special joker where it is, by the fast methods
        first = _with(pos, opened, objective, [], rest, cache=cache)
    # the clock starts after it: a process's first hint loads the compiled kernel there
    deadline = time.monotonic() + budget_s
    nothing = plain  # what to answer when nothing can be played: a play of no tile
    if first is not None and first.tiles == 0:
        nothing = first
    try:
        found = candidates(pos, opened, deadline)
        proven = len(found) <= MAX_CANDIDATES
        found = found[:MAX_CANDIDATES]
        combos, cut = _combinations(pos, found, deadline)
    except _OutOfTime:
        fallback = next((a for a in (first, plain) if a is not None and a.tiles > 0 and legal(a)), nothing)
        return replace(fallback, proven=False) if fallback is not None else None
    proven = proven and not cut
    best: TurnAnswer | None = None
    best_score = (0, 0, -1)
    for known in (plain, first):
        if known is not None and known.tiles > 0 and score(known, objective) > best_score:
            if legal(known):
                best, best_score = known, score(known, objective)
            else:
                proven = False
    # the rack tiles that play leaves behind: special sets that use them promise the most
    behind = Counter(pos.rack_in) - Counter((first or plain).played if (first or plain) else ())
    by_rest: dict[tuple, list[tuple[SpecialSet, ...]]] = {}
    for combo in combos:
        by_rest.setdefault(_rest_key(combo), []).append(combo)
    heap: list[tuple[tuple[int, ...], int, bool, tuple, list]] = []
    tick = itertools.count()
    # every rest first by a bound as cheap as it is loose; a rest at the top of the queue gets
    # the bound of its family (:func:`_family_bounds`), or else one of its own, and goes back
    wholes: dict[tuple, int] = {}
    rough = _bounder(pos, objective, per_rest=False, wholes=wholes)
    bound = _bounder(pos, objective, per_rest=True, wholes=wholes)
    families = _family_bounds(pos, opened, objective, by_rest, cache) if compiled else None
    sizes = [len(s) for s in pos.table_sets_in]
    promises: dict[tuple, int] = {}  # per rack part (the rests of a family share it)
    for key, group in by_rest.items():
        # at one bound: the rests with no loose tile first (a set grown or made whole), then
        # those whose special sets use the rack tiles the play without them leaves behind
        named = [k for k, _ in key[1] if k != TABLE]
        loose = sum(sizes[k] for k in set(named)) - len(named)
        promise = promises.get(key[0])
        if promise is None:
            promise = promises[key[0]] = sum((Counter(key[0]) & behind).values())
        heapq.heappush(heap, (_neg(rough(key)) + (loose > 0, -promise), next(tick), False, key, group))
    solved = 0
    setlevel: _Pool | None = None
    while heap:
        neg, _, refined, key, group = heapq.heappop(heap)
        if _neg(neg[:3]) <= best_score:
            break  # no rest left can beat the best play: it is proven
        if not refined:
            # each bounds the rest, so the lowest of them does: the family's first (one walk
            # for many rests), the rest's own where that does not settle it
            tighter = _neg(neg[:3])
            most = families(key, best_score) if families is not None else None
            if most is not None:
                tighter = min(tighter, most[:2] + (min(most[2], tighter[2]),))
            if tighter > best_score:
                tighter = min(tighter, bound(key))
            heapq.heappush(heap, (_neg(tighter) + neg[3:], next(tick), True, key, group))
            continue
        if solved >= MAX_RESTS or time.monotonic() > deadline:
            proven = False  # past the budget or the clock: the best play found is the hint
            break
        solved += 1
        for combo in group:
            # a play as good in tiles and value is asked for too when it keeps nearly as many
            # old sets whole: other sourcings of the same sets keep at most the ``marked`` ones
            # more (the sets the rest was told not to keep, :func:`_with`)
            marked = _marked(pos, combo)
            floor = (best_score[0], best_score[1], best_score[2] - marked) if best is not None else None
            candidate = _with(pos, opened, objective, list(combo), rest, floor, cache)
            if candidate is None:
                continue
            if candidate.tiles == 0:
                nothing = nothing or candidate
                continue
            found = score(candidate, objective)
            if found[:2] < best_score[:2]:
                continue
            if found > best_score:
                if legal(candidate):
                    best, best_score = candidate, found
                else:
                    # the best rest of this choice of special sets broke a joker rule, and a
                    # worse rest of it that keeps the rule is not looked for: not proven
                    proven = False
            if not marked or found[2] + marked <= best_score[2]:
                continue
            # the same sets with their table tiles from named sets: as many tiles and points
            # at most, more old sets whole perhaps (each set a tile leaves is changed)
            setlevel = setlevel or _pool(pos, opened, merged=False)
            for variant in _variants(pos, combo, setlevel):
                broken = {k for c in variant for k, _ in c.taken}
                if (found[0], found[1], len(pos.table_sets_in) - len(broken)) <= best_score:
                    continue
                other = _with(pos, opened, objective, list(variant), rest, best_score, cache)
                if other is None or other.tiles == 0 or score(other, objective) <= best_score:
                    continue
                if legal(other):
                    best, best_score = other, score(other, objective)
                else:
                    proven = False
    if best is None:
        return replace(nothing, proven=proven and nothing.proven) if nothing is not None else None
    return replace(best, proven=proven and best.proven)


def _neg(criteria: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-x for x in criteria)


def _marked(pos: Position, combo: tuple[SpecialSet, ...]) -> int:
    """The jokerless table sets holding a kind that ``combo`` takes from :data:`TABLE`: the
    rest is told not to keep them whole (one of them gave the tile, which the kernel cannot
    say), so a sourcing from named sets keeps at most these more."""
    gone = {t for c in combo for k, t in c.taken if k == TABLE}
    if not gone:
        return 0
    return sum(1 for s in pos.table_sets_in if not gone.isdisjoint(s) and not any(t.is_joker for t in s))


def _rest_key(combo: tuple[SpecialSet, ...]) -> tuple:
    rack = _key([t for c in combo for t in c.rack])
    return rack, _taken_key([x for c in combo for x in c.taken])


def _taken_key(taken: Iterable[tuple[int, Tile]]) -> tuple[tuple[int, Tile], ...]:
    """(source, tile) pairs in one order (by source, then the tile's name), as a key."""
    return tuple(sorted(taken, key=_SOURCE_ORDER.__getitem__))


#: each (source, tile) pair's place in a key (:func:`_taken_key`)
_SOURCE_ORDER = _Orders(lambda x: (x[0], str(x[1])))


def _bounder(
    pos: Position, objective: Objective, per_rest: bool, wholes: dict | None = None
) -> Callable[[tuple], tuple[int, int, int]]:
    """What a rest can reach at best: the special sets' rack tiles and every rack tile left that
    a plain set could hold (by :func:`_plain_reach`), given the tiles the special sets leave
    (``per_rest``) or given the whole table and rack (cheaper, and as true: a rest has less).
    ``wholes``: the old sets each rest must leave, shared by the bounders of one search."""
    wholes = {} if wholes is None else wholes
    everything = Counter(t for s in pos.table_sets_in for t in s if not _is_special(t))
    everything += Counter(t for t in pos.rack_in if not _is_special(t))
    holds = [any(_is_special(t) for t in s) for s in pos.table_sets_in]
    fixed = _fixed_jokers(pos, holds)
    all_fixed = [m for jokers in fixed.values() for _, meanings in jokers for m in meanings]
    reach = _plain_reach(everything, pos.edition, all_fixed, sum(len(j) for j in fixed.values()))
    playable = {t for t in everything if reach(t)}
    # what every rest has at most: the rack's plain tiles and those of the sets without
    # special jokers (a set holding one gives the rest its tiles only when it is broken)
    base = Counter(t for k, s in enumerate(pos.table_sets_in) if not holds[k] for t in s)
    base += Counter(t for t in pos.rack_in if not _is_special(t))
    rack = Counter(pos.rack_in)
    rack_playable = [t for t in pos.rack_in if t in playable]
    # per kind: the jokerless table sets holding it (each holds one at most) and the copies
    plain_sets: dict[Tile, list[int]] = {}
    for k, s in enumerate(pos.table_sets_in):
        if not any(t.is_joker for t in s):
            for t in set(s):
                plain_sets.setdefault(t, []).append(k)
    table = Counter(t for s in pos.table_sets_in for t in s)
    by_rack: dict[tuple, tuple[int, int]] = {}  # the rough bound's criteria, per rack part

    def changed(key: tuple) -> int:
        """Old sets that no sourcing of the rest's special sets leaves whole: those a tile
        taken from :data:`TABLE` must leave (the rest of its kind, on the table or the rack's
        spare copies, cannot keep every set holding it), at least the most for one kind, and
        every one that is the only set holding a kind it must leave. Counted once per rest
        (``wholes``): the cheap bound and the rest's own ask it both."""
        out = wholes.get(key)
        if out is None:
            out = wholes[key] = must_leave(key)
        return out

    def must_leave(key: tuple) -> int:
        gone: dict[Tile, int] = {}
        for k, t in key[1]:
            if k == TABLE:
                gone[t] = gone.get(t, 0) + 1
        if not gone:
            return 0
        most, only = 0, set()
        for t, n in gone.items():
            holders = plain_sets.get(t, [])
            spare = rack[t] - key[0].count(t)
            short = len(holders) - (table[t] - n + min(n, spare))
            if short > 0:
                most = max(most, short)
                if len(holders) == 1:
                    only.add(holders[0])
        return max(most, len(only))

    def bound(key: tuple) -> tuple[int, int, int]:
        used = key[0]
        broken = {k for k, _ in key[1] if k != TABLE}
        whole = len(pos.table_sets_in) - len(broken) - changed(key)
        if not per_rest:  # every playable rack tile, and the special jokers the sets use
            if used not in by_rack:
                play = rack_playable + [t for t in used if t not in playable]
                by_rack[used] = part_score(pos, play, objective)[:2]
            return *by_rack[used], whole
        # counted in place (each count stays at least 0: the special sets take what the rack
        # and the table hold); Counter arithmetic, which makes a new Counter each time, cost
        # as much as the rest of the bound
        left, pool = rack.copy(), base.copy()
        for t in used:
            left[t] -= 1
            if not _is_special(t):
                pool[t] -= 1
        for k in broken:
            if holds[k]:
                for t in pos.table_sets_in[k]:
                    if not _is_special(t):
                        pool[t] += 1
        for _, t in key[1]:
            if not _is_special(t):
                pool[t] -= 1
        stays: list[Tile] = []  # what the fixed jokers the special sets leave may stand for
        count = 0
        for k, jokers in fixed.items():
            gone = sum(1 for j, t in key[1] if j == k and t.is_joker)
            if gone < len(jokers):
                count += len(jokers) - gone
                stays += [m for _, meanings in jokers for m in meanings]
        reach = _plain_reach(pool, pos.edition, stays, count)
        if any(n > left.get(t, 0) and t.joker is None and not reach(t) for t, n in pool.items()):
            return UNPLAYABLE  # a table tile that no plain set can hold: no rest lays it out
        rest = [t for t in left.elements() if t in playable and reach(t)]
        return part_score(pos, [*used, *rest], objective, whole)

    return bound


#: How many kinds of table tiles the rests of one family take alike (:func:`_family_of`). A
#: family of every rest taking the same rack tiles (depth 0) lets its walk place or leave every
#: table tile some rest takes: loose (it plays whole racks no rest can) and slow (a Twist hint's
#: dozen such walks cost more than the rests they settled). With the best play known, on the Twist
#: class's seeds 23 and 6: depth 0 settles 159 and 285 of their 654 and 670 rests in about
#: 240 ms, depth 1 607 and 569 in 35 and 28 ms, depth 2 640 and 657 in 69 and 51 ms. The
#: whole search, seeds 0-29 (cpu, best of 3, twice): depth 1 median 48 ms, sum 1.6 s, worst
#: 122 ms, against depth 0's 51-53, 1.9-2.0 s, 175; depth 1 then 2, or 0 then 1, cost more.
FAMILY_DEPTH = 1


def _family_of(key: tuple) -> tuple:
    """A rest's family: the rack tiles its special sets take, and the first
    :data:`FAMILY_DEPTH` kinds of numbered table tiles they take (by name)."""
    taken = sorted({t for _, t in key[1] if not t.is_joker}, key=str)
    return key[0], tuple(taken[:FAMILY_DEPTH])


def _family_bounds(
    pos: Position, opened: bool, objective: Objective, rests: dict[tuple, list], cache: dict | None = None
) -> Callable[[tuple, tuple[int, int, int]], tuple[int, int, int] | None] | None:
    """The bound of each rest's family (:class:`FamilyBound`: the rests whose special sets take
    the same rack tiles and the same first table tile, :func:`_family_of`) on the whole play's
    score, given the best score so far (its walks prune below what the family must reach to
    beat it); ``None`` per rest where the family has none. Where the table holds a plain joker
    (a rest may then hold a table joker, which the relaxation does not model) or before the
    opening: ``None``. ``cache``: the search's table positions (:func:`_sub_position`): the
    families share their table's reading."""
    if not opened or any(t.is_joker and not _is_special(t) for s in pos.table_sets_in for t in s):
        return None
    sets = pos.table_sets_in
    holds = [any(_is_special(t) for t in s) for s in sets]
    # the numbered tiles every rest places, but for those its special sets take: the table's
    # sets without a special joker, and the broken ones with one (their tiles left loose)
    # (by index: a position's index depends on the edition only, so the families' relaxed
    # positions share ``pos``'s)
    base = [0] * pos.size
    for k, s in enumerate(sets):
        if not holds[k]:
            for t in s:
                base[pos.index(t)] += 1
    specials_at = [k for k, held in enumerate(holds) if held]
    core = [s for k, s in enumerate(sets) if not holds[k]]  # the old sets every family's walk may keep
    family_of = {key: _family_of(key) for key in rests}
    keys_of: dict[tuple, list[tuple]] = {}
    for key, name in family_of.items():
        keys_of.setdefault(name, []).append(key)
    made: dict[tuple, tuple[FamilyBound, tuple[int, int]]] = {}

    def table_range(keys: list[tuple]) -> tuple[list[int], list[int]]:
        """The fewest and the most numbered table tiles of each kind (by index) that a rest of
        ``keys`` must place: all a family bound reads of its rests' tables.
        Each rest's table is ``base`` and a few tiles more (its broken sets') or fewer (those
        its special sets take), so only those kinds are compared across the rests, in plain
        dicts (``base`` copied per rest, then a Counter per rest, were most of making a
        family's bound)."""
        deltas = []
        for key in keys:
            delta: dict[Tile, int] = {}
            for k in {k for k, _ in key[1] if k != TABLE}:
                for t in sets[k]:
                    if not t.is_joker:
                        delta[t] = delta.get(t, 0) + 1
            for _, t in key[1]:
                if not t.is_joker:
                    delta[t] = delta.get(t, 0) - 1
            deltas.append(delta)
        low, high = list(base), list(base)
        for t in set().union(*deltas):
            changes = [delta.get(t, 0) for delta in deltas]
            i = pos.index(t)
            low[i] += min(changes)
            high[i] += max(changes)
        return low, high

    def made_for(name: tuple) -> tuple[FamilyBound, tuple[int, int]]:
        """The family's bound and the score of its rack tiles (the special sets'), as
        :func:`part_score` counts it, but for the old sets kept. Its old sets are every table
        set without a special joker, those some rests take tiles from too: the walk keeps such
        a set only where its tiles (the fewest a rest places, or spares) are there, which
        bounds what a rest keeps far closer than counting every set outside an untouched core
        as kept (Twist mid-game seeds 0-29: median 62.3 -> 50.9 ms, with the rests solved once)."""
        keys, rack = keys_of[name], name[0]
        left = list((Counter(pos.rack_in) - Counter(rack)).elements())
        relaxed = _sub_position(core, left, pos, pos.rules, cache)
        mine = part_score(pos, list(rack), objective)[:2]
        # the fewest and the most of each kind stand for every rest's table: the bound reads
        # only those (its must-place counts and its spares)
        return FamilyBound(pos, left, table_range(keys), core, objective, relaxed), mine

    def family(key: tuple, best: tuple[int, int, int]) -> tuple[int, int, int] | None:
        """The bound of ``key``'s family on the whole play: its rack tiles, the walk's best
        and the sets holding a special joker that the rest's special sets leave as they are
        (kept whole: the walk knows only the sets without one)."""
        name = family_of[key]
        if name not in made:
            made[name] = made_for(name)
        bound, score = made[name]
        broken = {k for k, _ in key[1] if k != TABLE}
        mine = (*score, sum(1 for k in specials_at if k not in broken))
        most = bound.at_most(less(best, mine))
        return None if most is None else (mine[0] + most[0], mine[1] + most[1], mine[2] + most[2])

    return family


def _fixed_jokers(pos: Position, holds: list[bool]) -> dict[int, list[tuple[Tile, frozenset[Tile]]]]:
    """The table's plain jokers that can never be freed this turn, per old set (one without
    special jokers, valid), each with every tile it stood for there: the preset asks a freed
    joker for a rack tile it stood for (both colours of a strict 3-tile group), not one from
    the table, and the rack holds none (not both). Such a joker is kept (engine.joker_fate):
    some joker of the new table stands for one of those tiles in a set of the same kind, so
    for what plain sets can hold, it is one of those tiles, not a joker free to fill any gap
    (alike jokers may swap places, but then the other one stands there: as many are fixed)."""
    rules = pos.rules
    if rules.replacement_from_table:
        return {}
    rack = Counter(pos.rack_in)
    out: dict[int, list[tuple[Tile, frozenset[Tile]]]] = {}
    for k, s in enumerate(pos.table_sets_in):
        if holds[k] or not any(t.is_joker for t in s):
            continue
        verdict = _verdict(_key(s), pos.edition)
        if not verdict.valid:
            continue
        strict = rules.strict_joker_group and is_strict_group(verdict)
        if rules.free_by_rearranging and not strict:
            continue
        jokers = [t for t in verdict.tiles if t.is_joker]
        for i, joker in enumerate(jokers):
            meanings = frozenset(m for ms in meanings_by_kind(verdict, i).values() for m in ms)
            if (all(rack[m] for m in meanings) if strict else any(rack[m] for m in meanings)) or not meanings:
                continue
            out.setdefault(k, []).append((joker, meanings))
    return out


def _plain_reach(
    pool: Counter, ed: Edition, fixed: Iterable[Tile] = (), fixed_jokers: int = 0
) -> Callable[[Tile], bool]:
    """Whether a plain set of ``pool`` could hold a tile of it: a necessary test (a group of
    three colours of its number, or a run of three around it, the pool's plain jokers filling
    the gaps). The pool is read once, so that asking it for every rack tile of every rest
    costs a look-up per tile, not a pass over the pool. ``fixed_jokers`` of the pool's jokers
    stand only for tiles among ``fixed`` (:func:`_fixed_jokers`): those tiles, not gaps."""
    jokers = -fixed_jokers
    kinds: set[tuple] = set()  # (number, colour) of every numbered tile in the pool
    for t, n in pool.items():
        if n > 0:
            if t.joker is None:
                kinds.add((t.number, t.colour))
            else:
                jokers += n
    kinds.update((t.number, t.colour) for t in fixed)
    colours: Counter = Counter(number for number, _ in kinds)
    low_end, high_end = ed.min_number, ed.max_number

    def could_play(t: Tile) -> bool:
        if t.joker is not None:
            return bool(kinds)
        n, c = t.number, t.colour
        if colours[n] + jokers >= 3:
            return True
        for low in range(max(low_end, n - 2), min(n, high_end - 2) + 1):  # type: ignore[operator]
            if ((low, c) not in kinds) + ((low + 1, c) not in kinds) + ((low + 2, c) not in kinds) <= jokers:
                return True
        return False

    return could_play


def _with(
    pos: Position,
    opened: bool,
    objective: Objective,
    chosen: list[SpecialSet],
    rest: RestSolver,
    floor: tuple[int, int, int] | None = None,
    cache: dict | None = None,
) -> TurnAnswer | None:
    """The special sets ``chosen`` and the best play of the rest of the rack around them;
    ``None`` where the rest cannot be laid out, or (``floor``, a score of :func:`_score`) where
    no play with these special sets scores more than ``floor``. ``cache``: the rests' table
    positions of one search (:func:`_sub_position`)."""
    sets = _sets_of(pos, cache)
    used = Counter(t for c in chosen for t in c.rack)
    left_rack = list((sets.rack - used).elements())
    taken = Counter(x for c in chosen for x in c.taken if x[0] != TABLE)
    gone = Counter(t for c in chosen for k, t in c.taken if k == TABLE)  # from jokerless sets
    broken = {k for k, _ in taken}
    table: list[tuple[Tile, ...]] = []
    kept: list[tuple[Tile, ...]] = []  # table sets with a special joker, left as they are
    changed: list[int] = []  # sets of ``table`` that lost a tile but stay a set (plain jokers)
    origin: dict[int, int] = {}  # such a set's place in ``table`` -> its old set
    loose: list[Tile] = []
    freed: list[tuple[Tile, tuple[Tile, ...]]] = []  # plain jokers of broken special sets
    for k, s in enumerate(pos.table_sets_in):
        if k not in broken:
            # one the rest cannot touch: left out of it, so that the fast methods apply
            (kept if sets.special[k] else table).append(s)
            continue
        left = sets.counts[k] - Counter({t: n for (j, t), n in taken.items() if j == k})
        with_joker = any(t.is_joker for t in left)
        if sets.special[k] or (with_joker and not _verdict(_key(left.elements()), pos.edition).valid):
            # its special jokers went to the chosen sets, or what is left of it is no set: a
            # plain joker left behind is freed, and the rest of the turn places it under the
            # preset's joker rules
            freed += _freed_jokers(left, sets.meanings(k, pos.edition))
            loose += [t for t in left.elements() if not t.is_joker]
        elif with_joker:
            changed.append(len(table))
            origin[len(table)] = k
            table.append(tuple(left.elements()))
        else:
            loose += list(left.elements())
    value = sum(c.opening_value for c in chosen)
    rules = pos.rules
    if not opened:
        rules = replace(rules, threshold=max(0, rules.threshold - value))
    try:
        sub = _sub_position(table, left_rack, pos, rules, cache)
    except RummiError:
        return None
    if changed:
        sub.sets = [replace(s, keepable=False) if i in changed else s for i, s in enumerate(sub.sets)]
        sub.table_jokers = [_as_before(pos, j, origin[j.set_index]) if j.set_index in origin else j for j in sub.table_jokers]
    if loose or freed or gone:
        sub = _with_loose(sub, loose, freed, gone, sets.not_keepable)
    must_place = bool(loose or changed or freed or gone)
    beat = None
    if floor is not None:
        # the rest must beat what the floor leaves once these special sets are counted
        own = [t for c in chosen for t in c.rack]
        beat = less(floor, part_score(pos, own, objective, len(kept)))
    try:
        answer = _rest_of(chosen, sub, opened, objective, beat, rest, cache) if sub.rack_in or must_place else None
    except BelowFloor:
        return None
    if must_place and answer is None:
        return None  # the tiles left loose fit nowhere
    if answer is None or (answer.tiles == 0 and not must_place):
        if not opened and rules.threshold > 0:
            return None  # the special sets alone do not open
        played: list[Tile] = []
        new_table = [list(s) for s in table]
        untouched = [True] * len(table)
        rest_opening = 0
        proven = True
    else:
        played = list(answer.played)
        new_table = [list(s) for s in answer.table]
        untouched = list(answer.untouched)
        rest_opening = answer.opening_value
        proven = answer.proven
    played += [t for c in chosen for t in c.rack]
    new_table += [list(s) for s in kept] + [laid_out(c, pos.edition) for c in chosen]
    untouched += [True] * len(kept) + [False] * len(chosen)
    return TurnAnswer(
        played=played,
        table=new_table,
        untouched=untouched,
        tiles=len(played),
        value=played_value(pos, played),
        opening_value=(rest_opening + value) if not opened else 0,
        proven=proven,
    )


_RESTS = "rests"  # the key of the solved rests in a search's cache (:func:`_rest_of`)


def _rest_of(
    chosen: list[SpecialSet],
    sub: Position,
    opened: bool,
    objective: Objective,
    beat: tuple[int, int, int] | None,
    rest: RestSolver,
    cache: dict | None,
) -> TurnAnswer | None:
    """``rest(sub, opened, beat)``, each rest of the turn solved once per search: the special
    sets of one choice are often made in several shapes of the same tiles (a group's tiles in
    another order, a run read from its other end), and after the opening the rest they leave
    depends only on the tiles they take (:func:`_rest_key`). A rest's best play, once found,
    answers every floor (the walks answer the best play above a floor: it beats a floor or
    none does); a floor no play beats answers every higher one. Raises
    :class:`engine.solver.dp.BelowFloor` as ``rest`` does."""
    if cache is None or not opened:  # before the opening a rest's threshold is the sets' own
        return rest(sub, opened, beat)
    solved = cache.setdefault(_RESTS, {})
    key = _rest_key(tuple(chosen))
    known = solved.get(key)
    if isinstance(known, TurnAnswer):
        if beat is not None and score(known, objective) <= beat:
            raise BelowFloor
        return known
    if known is not None and beat is not None and beat >= known:
        raise BelowFloor  # ``known``: a floor no play of this rest beats
    try:
        answer = rest(sub, opened, beat)
    except BelowFloor:
        if beat is not None:
            solved[key] = beat
        raise
    if answer is not None:
        solved[key] = answer
    return answer


def _sub_position(
    table: list[tuple[Tile, ...]], rack: list[Tile], pos: Position, rules, cache: dict | None  # type: ignore[no-untyped-def]
) -> Position:
    """``Position(table, rack, ...)``, the table read once per search: most rests of one search
    share their table (every plain set) and differ in the rack (reading the table's sets again
    cost half of a rest's time): :meth:`Position.with_rack`."""
    if cache is None or rules.locked_joker_sets:  # a locked set's ways to grow read the rack
        return Position(table, rack, pos.edition, rules)
    key = (tuple(table), rules)
    base = cache.get(key)
    if base is None:
        base = cache[key] = Position(table, [], pos.edition, rules)
    return base.with_rack(rack)


def _as_before(pos: Position, joker: TableJoker, k: int) -> TableJoker:
    """A plain joker of a table set that gave a tile to a special set: it keeps its place only
    at a tile it could stand for in its old set too (engine.joker_fate reads the old set), so
    its meanings in what is left of the set are cut to those."""
    old = next((j for j in pos.table_jokers if j.set_index == k and j.tile == joker.tile), None)
    if old is None:
        return joker

    def cut(now: tuple[int, ...], then: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(m for m in now if m in then)

    return replace(
        joker, meanings=cut(joker.meanings, old.meanings), run_meanings=cut(joker.run_meanings, old.run_meanings),
        group_meanings=cut(joker.group_meanings, old.group_meanings),
    )


@dataclass
class _Sets:
    """What :func:`_with` reads of the position's rack and table sets, read once per search:
    every rest asked again whether each set held a special joker, counted its tiles and sorted
    its key for a verdict (a third of the Python around a rest)."""

    rack: Counter
    special: list[bool]  # per table set: it holds a special joker
    counts: list[Counter]  # per table set: its tiles counted
    sets: list[tuple[Tile, ...]]
    read: dict[int, tuple[list[Tile], list]] = field(default_factory=dict)
    #: id of a rest's table set -> (that set, the same set not keepable): most rests share
    #: their table's sets (:func:`_sub_position`), and the set held here keeps its id its own
    unkept: dict[int, tuple[TableSet, TableSet]] = field(default_factory=dict)

    def not_keepable(self, s: TableSet) -> TableSet:
        """``s``, not to be kept whole this turn: made once per set of a search."""
        mine = self.unkept.get(id(s))
        if mine is None or mine[0] is not s:
            mine = self.unkept[id(s)] = (s, replace(s, keepable=False))
        return mine[1]

    def meanings(self, k: int, edition: Edition) -> tuple[list[Tile], list]:
        """Set ``k``'s jokers (in its order) and what each stood for (empty: an invalid set)."""
        out = self.read.get(k)
        if out is None:
            old = self.sets[k]
            verdict = _verdict(_key(old), edition)
            jokers = [t for t in old if t.is_joker]
            out = self.read[k] = (jokers, verdict.joker_meanings() if verdict.valid else [()] * len(jokers))
        return out


_SETS = "sets"  # the key of :class:`_Sets` in a search's cache (the others are tuples)


def _sets_of(pos: Position, cache: dict | None) -> _Sets:
    """The search's :class:`_Sets`, made by its first rest (``cache``: the search's, else none
    is kept)."""
    sets = cache.get(_SETS) if cache is not None else None
    if sets is None:
        tables = list(pos.table_sets_in)
        special = [any(_is_special(t) for t in s) for s in tables]
        sets = _Sets(Counter(pos.rack_in), special, [Counter(s) for s in tables], tables)
        if cache is not None:
            cache[_SETS] = sets
    return sets


def _freed_jokers(left: Counter, read: tuple[list[Tile], list]) -> list[tuple[Tile, tuple[Tile, ...]]]:
    """The plain jokers ``left`` of a broken table set holding a special joker, each with the
    tiles it stood for in that set (what a tile replacing it must be, where the preset asks);
    ``read``: the set's jokers and their meanings (:meth:`_Sets.meanings`)."""
    jokers, meanings = read
    out: list[tuple[Tile, tuple[Tile, ...]]] = []
    want = Counter({t: n for t, n in left.items() if t.is_joker})
    for tile, stands in zip(jokers, meanings):
        if want[tile] > 0:
            want[tile] -= 1
            out.append((tile, tuple(m for m in stands if not m.is_joker)))
    return out


def _with_loose(
    sub: Position, loose: list[Tile], freed: list[tuple[Tile, tuple[Tile, ...]]] = (), gone: Counter | None = None,  # type: ignore[assignment]
    not_keepable: Callable[[TableSet], TableSet] = lambda s: replace(s, keepable=False),
) -> Position:
    """``sub`` with ``loose`` tiles on the table that must be placed but belong to no old set
    (what the special sets left of the table sets they took tiles from), and the plain jokers
    ``freed`` from such sets, as table jokers of that set of loose tiles; and without the tiles
    ``gone`` from jokerless sets: no set holding such a kind is told kept here (the kernel keeps
    a set with table tiles); :func:`_variants` name the sets they come from. One copy of ``sub``
    for both."""
    out = copy.copy(sub)
    out.table_count = list(sub.table_count)
    out.sets = list(sub.sets)
    if gone:
        for t, n in gone.items():
            out.table_count[sub.index(t)] -= n
        kinds = gone.keys()
        out.sets = [
            not_keepable(s) if s.keepable and not s.joker_keys and not kinds.isdisjoint(s.tiles) else s
            for s in out.sets
        ]
    if not (loose or freed):
        return out
    for t in loose:
        out.table_count[sub.index(t)] += 1
    counts = tuple(sorted(Counter(sub.index(t) for t in loose).items()))
    keys = tuple(sub.joker_key(t) for t, _ in freed)
    k = len(sub.sets)
    out.sets.append(TableSet((*loose, *(t for t, _ in freed)), counts, keys, locked=False, keepable=False))  # type: ignore[arg-type]
    if freed:
        out.joker_tile = dict(sub.joker_tile)
        out.table_jokers = list(sub.table_jokers)
        for (tile, stands), key in zip(freed, keys):
            out.joker_tile.setdefault(key, tile)  # type: ignore[arg-type]
            meanings = tuple(sorted({sub.index(m) for m in stands if m.number in sub.numbers}))
            out.table_jokers.append(TableJoker(set_index=k, key=key, tile=tile, meanings=meanings, needs_all=False))  # type: ignore[arg-type]
    return out
