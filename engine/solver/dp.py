"""The fast exact solver for a turn after the opening: a dynamic programme over the numbers.

It answers the same question as the integer program of :mod:`engine.solver.turn` (most tiles,
then most value, then most old sets left whole; or value first), in a few milliseconds instead
of tens to thousands, for the positions it covers:

* the player has opened (openings have their own search, :mod:`engine.solver.opening`);
* plain jokers, or Expert's coloured ones (each walked as a wild tile of its colour, see
  :mod:`engine.solver.dp_kernel`), never both; no Twist special joker on the table;
* a joker on the table may be taken freely (``joker_free_by_rearranging``, no own tiles and no
  new set demanded for it: the rules of the benchmark and of several presets), or there is no
  joker on the table at all (under other rules :mod:`engine.solver.fates` settles each table
  joker's fate first and hands this module plain positions);
* no locked set (``locked_joker_sets``: :mod:`engine.solver.locked` chooses each locked set's
  growth and hands this module the rest), at most 4 colours, 3 copies, 7 jokers;
* the walks stay within :data:`ROW_BUDGET` states (:data:`BIG_ROW_BUDGET` on a table of more
  than :data:`MAX_TILES` numbered tiles, where only plays of the whole rack are tried): beyond
  that the integer program is as fast.

Most of the work is the "fewest changes" tie-break: proving that no play keeps one more old set
whole. On big tables that proof is made cheap by bounds from relaxed tails of the position
(:func:`_tighten_kept_bounds`): how many of the sets from number v on can be kept at best with
the jokers a state has not used yet, so that a walk drops a state as soon as it has changed too
many sets for the floor it must reach.

Elsewhere :func:`applies` says no and the caller uses the integer program. The walk itself is
compiled (:mod:`engine.solver.dp_kernel`); this module prepares its arrays and turns the best
path back into sets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from rummi.engine.melds import classify
from rummi.engine.solver import dp_kernel as kernel
from rummi.engine.solver.position import ANY, Position, RuleView
from rummi.engine.solver.turn import Objective, TurnAnswer, criterion_weights, played_value
from rummi.engine.tiles import Tile

_DOMINATORS = kernel.dominators()

#: states the walks of one position may visit before the integer program takes over (about
#: 25 ms on the development machine; beyond that HiGHS is usually as fast)
ROW_BUDGET = 150_000
#: numbered tiles (table + rack) above which a table is "big": walking every way to lay it out
#: outgrows the budget (80 on the table + 20 on the rack: 0.2-3 million states), so only the
#: "every rack tile played" case is tried (see :func:`_fewest_changes`)
MAX_TILES = 64
#: the state budget on big tables (about 100 ms), past which the integer program takes over
BIG_ROW_BUDGET = 800_000
#: states one tail walk may visit while the kept bounds are tightened, by copies of each tile
#: in the box. A bigger cap proves tighter bounds but costs more than it saves where the walks
#: are small. Measured with single timings, per position against the cap used before: two
#: copies, late game and long racks (100 positions each, seeds 100-199), 500 against 700: 8 %
#: faster (400: 9-12 %, but a long rack's worst went from 49 to 79 ms); three copies, XP (120
#: positions, seeds 40-159): 800 or 1,000 6-8 % faster than 1,200 and 13 % than 1,800, 600 as
#: fast but more positions left to the integer program (mean 58 against 46 ms).
TAIL_ROWS = {2: 500, 3: 1_000}
#: states kept per layer by the beam walk that finds a first play on a big table. With the
#: beam ranked by what a state might still keep (see the kernel), 100 is enough: hints per
#: position against 200, single timings, late game 15 %, long racks 16 %, XP 7 % faster
BEAM = 100
#: the wider beam tried when that one finds no play (a third of XP positions: its states die
#: together a number or two before the end), before exact walks down from the bound. Single
#: timings, 240 XP positions (seeds 40-279): per position 2 % faster, the mean hint 45 -> 33
#: ms, the worst 1.2 -> 0.6 s (fewer positions left to the integer program); long racks 4 %
BEAM_RETRY = 1_000


def warm_up() -> None:
    """Compile (or load from numba's cache) every kernel function by solving a few turns.

    Both routes (a small table, one past :data:`MAX_TILES`) and both objectives, so that no
    later hint meets a function still to compile. Safe to call from a background thread while
    other threads solve with ``compiled=False``.
    """
    from rummi.engine.notation import parse_sets, parse_tiles

    runs = " | ".join(" ".join(f"{c}{n}" for n in range(1, 14)) for c in "kbor")
    small = ("r5 r6 r7 | k9 b9 o9 | b1 b2 b3 b4", "r8 J o9 k1 b5")
    big = (runs, "k1 b2 o3 r4 J k5 b6 o7 r8 k9 b10 o11 r12")  # past MAX_TILES: the big-table route
    for table, rack in (small, big):
        pos = Position(parse_sets(table), parse_tiles(rack), None, RuleView.of(None))
        for objective in Objective:
            _solve(pos, objective)


def applies(pos: Position, opened: bool) -> bool:
    """Whether the dynamic programme models every rule that matters for this position."""
    rules = pos.rules
    if not opened:
        return False
    if len(pos.colours) > kernel.MAX_COLOURS or _copies(pos) > kernel.MAX_COPIES:
        return False
    if any(s.locked for s in pos.sets):
        return False
    if not _wilds_fit(pos):
        return False
    free = rules.free_by_rearranging and rules.freed_min_own_tiles == 0 and not rules.freed_in_new_set
    if pos.table_jokers and not free:
        return False
    if any(j.needs_all for j in pos.table_jokers):
        return False  # a strict 3-tile group's joker needs both colours even where jokers are free
    return _pool_jokers(pos) <= kernel.MAX_JOKERS


def _wilds_fit(pos: Position) -> bool:
    """Plain jokers, or Expert's coloured ones (walked as wild tiles of their colour), never both
    kinds, and at most 3 of a colour (the kernel's count of a colour's wild tiles in groups)."""
    keys = pos.joker_keys
    if ANY in keys:
        return len(keys) == 1
    return all(n <= 3 for n in _wild_totals(pos).values())


def _wild_totals(pos: Position) -> dict[int, int]:
    """Expert: coloured jokers in the pool by colour index (the rack's and the table's)."""
    totals = {key: n for key, n in pos.rack_jokers.items() if key != ANY}
    for joker in pos.table_jokers:
        if joker.key != ANY:
            totals[joker.key] = totals.get(joker.key, 0) + 1
    return totals


def _wild_fields(pos: Position, slots: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's ``wild`` and ``w_field`` arrays: per colour (coloured jokers in the pool, of
    them on the table, bit and bits of its count in use), and the field of the wild tiles in a
    number's groups; the fields take the key's top bits, above the ``slots`` slots in use."""
    colours = len(pos.colours)
    wild = np.zeros((colours, 4), np.int64)
    field = np.zeros(2, np.int64)
    totals = _wild_totals(pos)
    if not totals:
        return wild, field
    bit = kernel.MASK_SHIFT + kernel.MAX_SLOTS  # 63: one past the top slot
    for c, n in sorted(totals.items()):
        width = n.bit_length()
        bit -= width
        wild[c] = (n, sum(1 for j in pos.table_jokers if j.key == c), bit, width)
    width = sum(totals.values()).bit_length()
    bit -= width
    field[:] = (bit, width)
    if bit < kernel.MASK_SHIFT + slots:
        raise _Unsupported  # the slots of the kept sets and the wild counts do not both fit
    return wild, field


def group_counts(pos: Position) -> list[int]:
    """Per kind of tile, how many of it groups may take: the table's and the rack's, a table
    joker that goes on standing for the tile counted as one (:mod:`engine.solver.fates`), but
    not where it stands for it in a run (such a tile never joins a group)."""
    counts = [t + r for t, r in zip(pos.table_count, pos.rack_count)]
    for index, in_run, _ in pos.kept_as:
        counts[index] -= in_run
    return counts


def _copies(pos: Position) -> int:
    """The most tiles of one kind that groups may take: the box's copies, or one more where a
    table joker goes on standing for a tile as that tile in a group (so an XP box's fourth r5
    may be one)."""
    return max(pos.edition.copies, max(group_counts(pos), default=0))


def _is_big(pos: Position) -> bool:
    """More numbered tiles than :data:`MAX_TILES`: only whole-rack plays are tried."""
    return sum(pos.table_count) + sum(pos.rack_count) > MAX_TILES


def _pool_jokers(pos: Position) -> int:
    return sum(pos.rack_jokers.values()) + len(pos.table_jokers)


@dataclass
class _OldSet:
    """A table set as the kernel may keep it whole: its numbered tiles by (number, colour)."""

    set_index: int
    tiles: dict[tuple[int, int], int]  # (number index, colour index) -> count
    jokers: int
    first: int  # number index of its lowest numbered tile
    last: int
    slot: int = -1


@dataclass
class _Open:
    """A run being laid out: its first number index and its tiles in order."""

    start: int
    tiles: list[Tile] = field(default_factory=list)


class _Unsupported(Exception):
    """The position needs more than the compiled state holds, or more states than the budget:
    the integer program answers it instead."""


class NoWholeRack(_Unsupported):
    """On a big table: proven that no play lays out every rack tile (only such plays are tried
    there, so the integer program answers; :mod:`engine.solver.fates` uses the proof)."""


class BelowFloor(Exception):
    """Proven that no play of the position beats the ``floor`` it was given."""


#: (primary, secondary, old sets kept): a play to beat, in the criteria of :func:`fates.score`
Floor = tuple[int, int, int]


@dataclass
class TailBounds:
    """The tightened kept bounds of a big table's walk (:func:`_tighten_kept_bounds`), handed
    from one position to positions it holds, so that theirs need not be tightened again.

    :mod:`engine.solver.fates` walks a combination of fates (its freed jokers free), then, when
    the referee rejects that play, each *landing* of the freed jokers: the same position less
    the landed jokers and the rack tiles (and rack jokers) of their new sets. A play X' of such
    a landing position P' plus its landing sets S is a play of the parent P, keeping the same
    old sets (S is new) and, where X' plays the whole rack of P', playing the whole rack of P.
    In the walk of X' + S, at any number v the jokers in use are X''s plus those of S laid
    below v, so its free jokers are X''s free ones f plus 0 to d (d = the jokers S takes, the
    difference of the two pools). So the sets X' keeps from v on are at most the most P's
    bound allows from v on with f + e jokers free for some e in 0..d: the maximum of those is
    a valid bound of P' (``bounds_for``). Only where the old sets and the table tiles are the
    same and P' has no rack tile P lacks (what a landing changes and what it does not).

    ``kept``: P's ``kept_left`` after tightening (``None`` until known). A holder made without
    ``parent`` records the bounds of the walk given it (P's own walk); one made with
    ``parent`` (how to make P) only reads: on first use, on a big table, it tightens P's
    bounds itself (:func:`tail_bounds`, one tightening for all the landings, where P was not
    walked), and it never records a walk's (a landing's bounds do not hold its siblings)."""

    kept: np.ndarray | None = None
    pool: int = 0
    keepable: Keepable = ()
    table_count: tuple[int, ...] = ()
    rack_count: tuple[int, ...] = ()
    span: int = 0
    parent: Callable[[], Position] | None = None
    objective: Objective | None = None
    reads: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.reads = self.parent is not None

    @property
    def records(self) -> bool:
        """Whether the walk given this holder is to record its tightened bounds in it."""
        return not self.reads and self.kept is None

    def record(self, walks: _Walks) -> None:
        """Keep ``walks``' tightened bounds as the parent's."""
        pos = walks.pos
        self.kept, self.pool, self.keepable = walks.kept_left.copy(), walks.pool, _keepable(pos)
        self.table_count, self.rack_count = tuple(pos.table_count), tuple(pos.rack_count)
        self.span = pos.span

    def bounds_for(self, walks: _Walks) -> np.ndarray | None:
        """``walks``' kept bounds from the parent's (see the class), or ``None`` where its
        position is not the parent less some landing sets."""
        if self.kept is None and self.parent is not None and self.objective is not None:
            parent, self.parent = self.parent(), None  # tried once
            tail_bounds(parent, self.objective, into=self)
        pos, parent = walks.pos, self.kept
        if parent is None or pos.span != self.span or walks.pool > self.pool:
            return None
        if _keepable(pos) != self.keepable or tuple(pos.table_count) != self.table_count:
            return None
        if any(n > m for n, m in zip(pos.rack_count, self.rack_count, strict=True)):
            return None
        d = self.pool - walks.pool
        out = walks.kept_left.copy()
        rows = min(out.shape[0], parent.shape[0])
        for f in range(walks.pool + 1):
            most = parent[:rows, f : f + d + 1].max(axis=1)
            out[:rows, f] = np.minimum(out[:rows, f], most)
        return out


def tail_bounds(pos: Position, objective: Objective, into: TailBounds | None = None) -> TailBounds | None:
    """The tightened kept bounds of a big table's position (:class:`TailBounds`, recorded
    ``into`` the one given, else a new one), for the positions it holds to reuse, without
    walking it: ``None`` where the table is not big, the position is outside the kernel, or not
    even a relaxed tail plays the whole rack."""
    if not applies(pos, True) or not _is_big(pos):
        return None
    try:
        walks = _Walks(pos, objective)
        walks.budget = BIG_ROW_BUDGET
        _tighten_kept_bounds(walks, int(walks.main_left[0]))
    except (_Unsupported, NoWholeRack):
        # no bounds to hand on: each landing tightens its own and says what it proves itself
        # (BelowFloor under a floor), as a landing of an unwalked combination did before
        return None
    out = into if into is not None else TailBounds()
    out.record(walks)
    return out


def solve_after_opening(
    pos: Position,
    objective: Objective,
    *,
    tell_whole_rack: bool = False,
    floor: Floor | None = None,
    ceiling: Floor | None = None,
    tails: TailBounds | None = None,
) -> TurnAnswer | None:
    """Best play after the opening, or ``None`` if the position is outside what fits the
    compiled state (then the caller uses the integer program). ``tell_whole_rack``: raise
    :class:`NoWholeRack` instead of ``None`` when that is the reason. ``floor``: only a play
    scoring more than it is asked for (the walks prune on it), else :class:`BelowFloor`;
    :mod:`engine.solver.fates` passes the best play the referee has accepted so far.
    ``ceiling``: a score no play of the position beats (the best play of a relaxation that
    holds every play of this one), so the walks that would ask for more are not walked; a
    wrong ceiling gives a wrong answer, so only a proven one may be passed. ``tails``: on a big
    table, the kept bounds of a position holding this one (:class:`TailBounds`, used instead of
    tightening them again), or an empty one that this walk's tightened bounds are recorded in."""
    try:
        return _solve(pos, objective, floor, ceiling, tails)
    except NoWholeRack:
        if tell_whole_rack:
            raise
        return None
    except _Unsupported:
        return None


def best_with_spares(pos: Position, objective: Objective, spares: list[int], floor: Floor) -> Floor | None:
    """The best score (primary, secondary, old sets kept) of ``pos`` when ``spares[i]`` more
    table tiles of index ``i`` may be placed or not (at no gain): an upper bound on every
    position whose table tiles lie between ``pos.table_count`` and that plus ``spares`` and
    whose old sets include ``pos.sets`` (engine.solver.specials bounds a whole family of rests
    with one walk this way).

    Only plays scoring more than ``floor`` are looked for (the walks prune on it):
    :class:`BelowFloor` where none does. ``None`` where the walks outgrew their budget or the
    position is outside the kernel (no bound known)."""
    if pos.table_jokers or pos.kept_as or not applies(pos, True):
        return None
    try:
        walks = _Walks(pos, objective)
        walks.no_spares = np.zeros_like(walks.rack_count)
        walks.no_spares[: pos.span] = np.reshape(spares, (len(pos.colours), pos.span)).T
        _, score = _best_row(walks, floor)
    except _Unsupported:
        return None
    unit = walks.weights.primary_unit
    return score // unit, score % unit // walks.main_unit, score % walks.main_unit


def _solve(
    pos: Position,
    objective: Objective,
    floor: Floor | None = None,
    ceiling: Floor | None = None,
    tails: TailBounds | None = None,
) -> TurnAnswer:
    walks = _Walks(pos, objective)
    if _is_big(pos):
        fewest = 0
        if floor is not None:
            need = walks.pack(floor[0], floor[1])
            if walks.main_left[0] < need:
                raise BelowFloor  # even the whole rack falls short
            if walks.main_left[0] == need:
                fewest = floor[2] + 1  # as good otherwise: it must keep more old sets whole
        choices = _whole_rack_on_big_table(walks, fewest, _kept_cap(walks, ceiling, floor is not None), tails)
    else:
        choices = _two_phases(walks, floor, ceiling)
    return _lay_out(pos, choices, walks.old, walks.values)


class _Walks:
    """The kernel's arrays for one position, and walks over them within one state budget."""

    def __init__(self, pos: Position, objective: Objective) -> None:
        self.pos = pos
        span, colours = pos.span, len(pos.colours)
        self.pool = _pool_jokers(pos)
        self.values = values = span + self.pool
        sets = _old_set_arrays(_keepable(pos), span, colours, values)
        self.old = old = sets.old
        self.wild, self.w_field = _wild_fields(pos, sets.slots)

        # [number, colour], with empty rows for the virtual numbers
        self.table_count = np.zeros((values, colours), np.int64)
        self.table_count[:span] = np.reshape(pos.table_count, (colours, span)).T
        self.rack_count = np.zeros((values, colours), np.int64)
        self.rack_count[:span] = np.reshape(pos.rack_count, (colours, span)).T
        self.weights = weights = _weights(pos, objective)
        self.tile_gain = np.array([weights.tile(n) for n in pos.numbers] + [0] * self.pool, np.int64)

        self.set_start, self.set_slot, self.set_jokers = sets.set_start, sets.set_slot, sets.set_jokers
        self.set_wild, self.slot_bits, self.slot_free_after = sets.set_wild, sets.slot_bits, sets.slot_free_after
        # kept table jokers as tiles: how many must go into runs / groups, and the slot of the
        # old set that takes its one with it when kept whole
        self.kind_need = np.zeros((values, colours, 4), np.int64)
        slot_of = {r.set_index: r.slot for r in old}
        for index, in_run, k in pos.kept_as:
            v, c = index % span, index // span
            column = 0 if in_run else 2
            self.kind_need[v, c, column] += 1
            if k in slot_of:
                self.kind_need[v, c, column + 1] |= 1 << slot_of[k]
        self.no_sets = np.zeros(values + 1, np.int64)
        self.no_kept = np.zeros((values + 1, self.pool + 1), np.int64)

        # optimistic remainders from number v on: every rack tile still to come played, every
        # old set not yet decided kept (per number of jokers still free: the same count until
        # _tighten_kept_bounds says better); in units of the primary criterion and of (primary,
        # secondary), the "main" part of a score
        self.kept_left = np.repeat((len(old) - self.set_start)[:, None], self.pool + 1, axis=1)
        self.rack_jokers = sum(pos.rack_jokers.values())
        self.main_unit = weights.kept_span
        primary_per_tile = np.array([weights.primary(n) for n in pos.numbers] + [0] * self.pool)
        self.primary_left = self._left(primary_per_tile, weights.joker_primary)
        self.main_left = self._left(self.tile_gain // self.main_unit, weights.joker // self.main_unit)
        # what every walk shares, in the order kernel.solve_dp unpacks it
        self.box = (
            values, colours, _copies(pos), self.tile_gain, weights.joker, weights.kept, self.set_slot,
            self.set_jokers, self.slot_bits, self.slot_free_after, *_DOMINATORS, weights.kept_span,
            self.set_wild,
        )
        self.budget = ROW_BUDGET
        self.rows = np.zeros((0, 4), np.int64)  # of the last walk, with what path() needs:
        self.ran = np.zeros(values * (colours + 2), np.int8)  # the layers it walked
        self.no_spares = np.zeros_like(self.rack_count)

    def _left(self, per_tile: np.ndarray, per_joker: int) -> np.ndarray:
        """Per number index v (and one past the last): the gain of every rack tile from v on."""
        by_number = np.append(self.rack_count.sum(axis=1) * per_tile, 0)
        return np.cumsum(by_number[::-1])[::-1] + self.rack_jokers * per_joker

    def pack(self, primary: int, secondary: int) -> int:
        """(primary, secondary) as the "main" part of a score (score // main_unit)."""
        return (primary * self.weights.primary_unit + secondary * self.main_unit) // self.main_unit

    def primary(self, floor: int) -> tuple[int, int]:
        """A walk without keep choices, primary criterion at least ``floor``."""
        return self._walk(self.weights.primary_unit, self.primary_left, floor, self.no_kept, keep=False)

    def main(self, floor: int, kept_floor: int, beam: int = 0) -> tuple[int, int]:
        """A walk with keep choices, (primary, secondary) and old sets kept at least the floors."""
        # a state with j jokers in use may still keep kept_left[v, pool - j] sets from v on
        need = kept_floor - self.kept_left[:, ::-1]
        return self._walk(self.main_unit, self.main_left, floor, need, keep=True, beam=beam)

    def path(self, best: int) -> list[int]:
        """The choices to the final row ``best`` of the last walk."""
        return kernel.path(self.rows, best, self.ran).tolist()

    def relaxed_tails(self, starts: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Relaxed tails of the position, one from each number index of ``starts``: per tail its
        table tiles that must be placed, its rack tiles, the tiles that may be placed or not
        (each [tail, number, colour]), and what the rack tiles below ``start + 2`` and the
        jokers could add to the main score at most.

        Its tiles at ``start`` and ``start + 1`` (runs from below may take them) and those of
        sets that began below ``start`` may be placed or not; jokers count for nothing and need
        not be placed; the rack tiles from ``start + 2`` on must be played as far as the main
        floor asks. Being a relaxation, the most old sets from ``start`` on it keeps bounds what
        a play of the whole position can keep from there (see :func:`_tighten_kept_bounds`).
        All tails in a few array operations: built one by one in Python they took about twice
        as long (0.09-0.19 ms a position of 7-12 starts; a fates route may solve 200 of them).
        """
        values, colours = self.table_count.shape
        at = np.array(starts, np.int64)
        # the tiles of the sets that began below each start (old sets are sorted by first number)
        by_set = np.zeros((len(self.old) + 1, values, colours), np.int64)
        for k, r in enumerate(self.old):
            for (v, c), n in r.tiles.items():
                by_set[k + 1, v, c] = n
        below_start = np.cumsum(by_set, axis=0)[self.set_start[at]]
        number = np.arange(values)[None, :, None]
        spares = np.where(number >= at[:, None, None], below_start, 0)
        table = self.table_count[None] - spares
        near = (number >= at[:, None, None]) & (number < at[:, None, None] + 2)
        spares = spares + np.where(near, table + self.rack_count[None], 0)
        table = np.where(near, 0, table)
        rack = np.where(near, 0, self.rack_count[None])
        left = self.main_left
        below = left[0] - left[np.minimum(at + 2, values)] + left[values]
        return table, rack, spares, below

    def _walk(
        self, unit: int, gains_left: np.ndarray, floor: int, kept_need: np.ndarray, keep: bool, beam: int = 0
    ) -> tuple[int, int]:
        """One walk: the best final row (or -1) and its score, pruned below the floors."""
        best, score, self.rows, self.ran, _ = kernel.solve_dp(
            self.box, self.table_count, self.rack_count, self.pool, len(self.pos.table_jokers),
            self.set_start if keep else self.no_sets, unit, gains_left, kept_need, floor, self.budget,
            beam, 0, self.no_spares, self.rack_jokers, floor >= int(gains_left[0]), self.kind_need,
            self.wild, self.w_field,
        )
        self.budget -= len(self.rows)
        if best == -2 or self.budget <= 0:
            raise _Unsupported  # too big to be quick: the integer program is as fast here
        return best, int(score)


def _two_phases(walks: _Walks, beat: Floor | None = None, cap: Floor | None = None) -> list[int]:
    """The choices of the best play (:func:`_best_row`)."""
    return walks.path(_best_row(walks, beat, cap)[0])


def _best_row(walks: _Walks, beat: Floor | None = None, cap: Floor | None = None) -> tuple[int, int]:
    """The best play's final row and its score, exactly: first (primary, secondary) with no
    set kept, asking for every rack tile played, then one tile (or point) less, then no floor at all (each walk prunes
    what cannot reach its floor, the last finds the best outright); then, at that level, the
    fewest old sets changed: 0, 2, 5, 11, ... allowed until a play reaches it (the walk finds
    the best of those; allowing one change alone seldom pays: measured on mid-game positions,
    0, 1, 3, 7, ... walks 20 % more).

    Two floored walks, then none: the walks far below the floor of every rack tile cost about
    what the walk with no floor costs, so stepping down one tile at a time paid only near the
    top. States of this phase, 40 positions each (benchmarks/positions.py seeds 0-39): mid-game
    92k -> 70k, mid-game by value (where the steps widened 1, 3, 7, ...) 133k -> 70k, jokers to
    place 54k -> 56k.

    ``cap``: a proven ceiling (:func:`solve_after_opening`). The walks then start at its
    primary criterion, not at every rack tile played (a walk asking for more than the ceiling
    finds nothing, at the cost of a walk), and, at its (primary, secondary), at its old sets
    kept, not at every old set kept. On the fates route, whose ceiling is the play with every
    table joker free, this left out a third of the walks that found nothing (docs/solver.md)."""
    top = int(walks.primary_left[0])
    if cap is not None:
        top = min(top, cap[0])
    least = 0 if beat is None else max(beat[0], 0)  # ``beat``: a play only counts above it
    if top < least or top < 0:
        raise BelowFloor  # no play beats the floor, or (below 0) the position has no play
    best = score = -1
    for floor in sorted({f for f in (top, top - 1, least) if f >= least}, reverse=True):
        best, score = walks.primary(floor)
        if best >= 0:
            break
    if best < 0:
        if beat is not None:
            raise BelowFloor
        raise _Unsupported  # cannot happen for a valid table; the integer program will tell
    main = score // walks.main_unit
    sets = len(walks.old)
    if cap is not None and main == walks.pack(cap[0], cap[1]):
        sets = min(sets, cap[2])  # as good as the ceiling otherwise: it keeps no more sets
    fewest = 0
    if beat is not None:
        need = walks.pack(beat[0], beat[1])
        if main < need:
            raise BelowFloor
        if main == need:
            fewest = beat[2] + 1  # as good otherwise: it must keep more old sets whole
            if fewest > sets:
                raise BelowFloor
    for kept in sorted({max(sets - lost, fewest) for lost in _widening(sets, first=2)}, reverse=True):
        best, score = walks.main(main, kept)
        if best >= 0:
            break
    if best < 0:
        if beat is not None:
            raise BelowFloor  # only where ``fewest`` asked for more than any play keeps
        raise _Unsupported  # cannot happen for a valid table; the integer program will tell
    return best, score


def _kept_cap(walks: _Walks, ceiling: Floor | None, floored: bool) -> int | None:
    """On a big table, the most old sets a whole-rack play may keep by ``ceiling`` (a proven
    bound, :func:`solve_after_opening`), or ``None`` where it says nothing: the ceiling's own
    where it plays the whole rack too. Where it plays less, no whole-rack play exists
    (:class:`BelowFloor` with a floor, else :class:`NoWholeRack`)."""
    if ceiling is None:
        return None
    main, top = int(walks.main_left[0]), walks.pack(ceiling[0], ceiling[1])
    if top < main:
        raise BelowFloor if floored else NoWholeRack
    return ceiling[2] if top == main else None


def _whole_rack_on_big_table(
    walks: _Walks, fewest: int = 0, cap: int | None = None, tails: TailBounds | None = None
) -> list[int]:
    """On a big table, walking every way to lay it out costs more than HiGHS, so only the
    common case is tried: every rack tile played (if none does, the integer program answers).
    ``fewest``: only a play keeping at least that many old sets whole is asked for; ``cap``:
    none keeps more (:func:`_kept_cap`); ``tails``: see :func:`solve_after_opening`."""
    walks.budget = BIG_ROW_BUDGET
    return _fewest_changes(walks, int(walks.main_left[0]), fewest, cap, tails)


def _fewest_changes(
    walks: _Walks, main: int, fewest: int = 0, cap: int | None = None, tails: TailBounds | None = None
) -> list[int]:
    """The play that reaches ``main`` (primary and secondary criteria) and keeps the most old
    sets whole. Bounds first (:func:`_tighten_kept_bounds`), then a beam walk finds a good
    play keeping K sets (if it finds none, a wider one), then one exact walk asks for K + 1 or
    more: it finds the best of those, or proves there is none. (A wide beam before that exact
    walk, to find a better play sooner, cost more than it saved: XP states per position,
    median of 40, 125k with a beam of 4,000 first, 113k without.)

    ``fewest`` > 0 (a floor that keeps fewest - 1 sets, engine.solver.fates): where no play
    keeps that many, :class:`BelowFloor` (often proven by the tail bounds alone, no walk).
    There the wider beam is not tried: the exact walks down from the bound, which follow when
    it finds nothing, stop at ``fewest``, and the beam mostly found nothing (kernel states,
    seeds 0-59: the late game's 2.0 -> 1.8 million, with the ``cap`` below; XP 90 + 24's
    8.0 -> 7.8 million). ``cap``: no play keeps more (a ceiling's, :func:`_kept_cap`); a
    beam's play that keeps that many needs no exact walk after it."""
    nothing = BelowFloor if fewest else NoWholeRack  # what finding no play proves
    inherited = None if tails is None else tails.bounds_for(walks)
    if inherited is not None:
        walks.kept_left = inherited  # a parent's, valid here (TailBounds): not tightened again
    else:
        try:
            _tighten_kept_bounds(walks, main)
        except NoWholeRack:
            raise nothing from None
        if tails is not None and tails.records:
            tails.record(walks)
    most = int(walks.kept_left[0, walks.pool])
    if cap is not None:
        # the fates' walks: a play keeping the ceiling's sets needs no walk proving it the best
        most = min(most, cap)
    if most < fewest:
        raise BelowFloor
    best, score = walks.main(main, fewest, beam=BEAM)
    if len(walks.rows) <= BEAM:  # no layer outgrew the beam: the walk was exact
        if best < 0:
            raise nothing
        return walks.path(best)
    if best < 0 and not fewest:
        best, score = walks.main(main, fewest, beam=BEAM_RETRY)
        if best < 0 and len(walks.rows) <= BEAM_RETRY:
            raise nothing  # an exact walk found nothing
    if best < 0:  # the beams lost their way: from the most that might be kept down
        for floor in range(most, fewest - 1, -1):
            best, score = walks.main(main, floor)
            if best >= 0:
                return walks.path(best)
        raise nothing  # nothing reaches ``main`` (on a big table: not every rack tile fits)
    choices, kept = walks.path(best), score % walks.main_unit
    if kept < most:
        best, score = walks.main(main, kept + 1)
        if best >= 0:
            choices = walks.path(best)
    return choices


def _tighten_kept_bounds(walks: _Walks, main: int) -> None:
    """Replace the walks' count of old sets still to come by a bound on how many of them can
    be kept, per number of jokers the numbers below leave free, from the last number where a
    set starts down to the first (a "Russian doll" search: each tail is walked with the bounds
    of the shorter tails, so it prunes well). Each tail is walked once per joker count, at
    the floor the shorter tails allow: it proves that floor or, failing, the floor less one
    (unless it outgrows TAIL_ROWS: then the bound stays as it was).

    The jokers matter: a tail that may use every joker keeps sets that the whole play cannot
    (measured on XP boxes with 4 jokers, the bound from number 1 was 2-4 sets above the best
    play's). A walk knows how many jokers it has used, so it prunes with the bound for the
    rest. Tails with more jokers come first: one that reaches its floor with fewer jokers in
    use answers for fewer jokers too.
    """
    starts = sorted({r.first for r in walks.old}, reverse=True)
    table, rack, spares, below = walks.relaxed_tails(starts)
    # the loop is compiled: its walks are small, a call from Python would cost as much
    status, walks.budget = kernel.tighten_kept_bounds(
        walks.box, walks.kept_left, np.array(starts, np.int64), table, rack,
        spares, main - below, main >= int(walks.main_left[0]),
        TAIL_ROWS[max(2, walks.pos.edition.copies)], walks.budget, walks.set_start, walks.main_unit,
        walks.main_left,
    )
    if status == -1:
        raise NoWholeRack  # not even a relaxed tail reaches ``main``
    if status < 0:
        raise _Unsupported  # too big to be quick


def _widening(most: int, first: int = 1) -> list[int]:
    """Steps tried in turn, each a bigger allowance than the last: 0, first, 2 first + 1, ...,
    most (0, 1, 3, 7, ... by default)."""
    out, step = [0], first
    while step < most:
        out.append(step)
        step = 2 * step + 1
    return [s for s in out if s < most] + [most]


@dataclass(frozen=True)
class _Weights:
    """How a score packs the criteria: tiles and points weighted so that a lower criterion can
    never outweigh one unit of a higher one, one unit per old set kept whole at the bottom."""

    tile_w: int  # per tile
    value_w: int  # per point
    joker_value: int
    primary_unit: int  # score // primary_unit is the primary criterion alone
    tiles_first: bool
    kept: int = 1

    def tile(self, number: int) -> int:
        return self.tile_w + number * self.value_w

    @property
    def joker(self) -> int:
        return self.tile_w + self.joker_value * self.value_w

    def primary(self, number: int) -> int:
        return 1 if self.tiles_first else number

    @property
    def joker_primary(self) -> int:
        return 1 if self.tiles_first else self.joker_value

    @property
    def kept_span(self) -> int:
        """score % kept_span is the number of old sets kept."""
        return self.value_w if self.tiles_first else self.tile_w


def _weights(pos: Position, objective: Objective) -> _Weights:
    """Pack (primary, secondary, sets kept) into one integer, as the integer program does."""
    w1, w2 = criterion_weights(pos, objective)
    penalty = pos.rules.joker_penalty
    if objective is Objective.TILES:
        return _Weights(tile_w=w1, value_w=w2, joker_value=penalty, primary_unit=w1, tiles_first=True)
    return _Weights(tile_w=w2, value_w=w1, joker_value=penalty, primary_unit=w1, tiles_first=False)


#: the keepable sets of a position as :func:`_old_set_arrays` reads them: per set its index,
#: its (tile index, count) pairs and its jokers' kind keys
Keepable = tuple[tuple[int, tuple[tuple[int, int], ...], tuple[int, ...]], ...]


def _keepable(pos: Position) -> Keepable:
    return tuple((k, s.counts, s.joker_keys) for k, s in enumerate(pos.sets) if s.keepable)


@dataclass(frozen=True)
class _OldSetArrays:
    """The kernel's arrays of the old sets a walk may keep whole: what depends on the table's
    keepable sets alone. Never written to once made, so positions with the same keepable sets
    share them (the Twist search walks hundreds of rests of one table, and three in four of
    those walks had the keepable sets of an earlier one: making these arrays again was a
    fifth of a Twist hint)."""

    old: list[_OldSet]  # sorted by first number, each with its slot
    slots: int  # slots in use
    #: old sets by the number index of their first tile: those of v are rows set_start[v] ..
    #: set_start[v + 1] - 1 of the arrays below
    set_start: np.ndarray
    set_slot: np.ndarray
    set_jokers: np.ndarray
    set_wild: np.ndarray  # per old set its coloured jokers by colour (Expert: in use while kept)
    slot_bits: np.ndarray  # [number, colour]: the slots of the old sets holding that tile
    slot_free_after: np.ndarray  # per number: the slots of the old sets ending there


#: a Twist hint makes about 35 sets of keepable sets, and reuses them within the hint: this holds
#: several hints' worth without a long-lived process's full garbage collections walking
#: thousands of entries' objects (each a handful: the old sets, the arrays' owner)
@lru_cache(maxsize=256)
def _old_set_arrays(keepable: Keepable, span: int, colours: int, values: int) -> _OldSetArrays:
    old = sorted(_old_sets(keepable, span), key=lambda r: r.first)
    slots = _assign_slots(old)
    if slots > kernel.MAX_SLOTS:
        raise _Unsupported  # (not cached: rare, and the slots' bits would not fit the arrays)
    starting_at = np.bincount(np.array([r.first for r in old], np.int64), minlength=values)[:values]
    set_start = np.concatenate(([0], np.cumsum(starting_at))).astype(np.int64)
    set_wild = np.zeros((max(1, len(old)), colours), np.int64)
    jokers_of = {k: keys for k, _, keys in keepable}
    for q, r in enumerate(old):
        for key in jokers_of[r.set_index]:
            if key != ANY:
                set_wild[q, key] += 1
    # built as lists: an array's items one by one cost more than the rest of this set-up
    bits = [[0] * colours for _ in range(values)]
    free_after = [0] * values
    for r in old:
        for v, c in r.tiles:
            bits[v][c] |= 1 << r.slot
        free_after[r.last] |= 1 << r.slot
    return _OldSetArrays(
        old, slots, set_start, np.array([r.slot for r in old], np.int64), np.array([r.jokers for r in old], np.int64),
        set_wild, np.array(bits, np.int64), np.array(free_after, np.int64),
    )


def _old_sets(keepable: Keepable, span: int) -> list[_OldSet]:
    """The table's keepable sets, each with the tiles it holds back while kept whole."""
    out: list[_OldSet] = []
    for k, counts, joker_keys in keepable:
        tiles = {(i % span, i // span): n for i, n in counts}
        numbers = [v for v, _ in tiles]
        out.append(_OldSet(k, tiles, len(joker_keys), min(numbers), max(numbers)))
    return out


def _assign_slots(old: list[_OldSet]) -> int:
    """Give each old set a slot bit, reused once the set before it has ended. Returns slots used."""
    free_from: list[int] = []  # per slot: the first number index it is free again
    for r in sorted(old, key=lambda r: r.first):
        for slot, start in enumerate(free_from):
            if start <= r.first:
                r.slot = slot
                free_from[slot] = r.last + 1
                break
        else:
            r.slot = len(free_from)
            free_from.append(r.last + 1)
    return len(free_from)


_JOKER: Any = object()  # a placeholder for "some joker" while the sets are laid out


@dataclass(frozen=True)
class _Wild:
    """A placeholder for a coloured joker of the colour index ``colour`` (Expert)."""

    colour: int


_WILD = [_Wild(c) for c in range(kernel.MAX_COLOURS)]


def _lay_out(pos: Position, choices: list[int], old: list[_OldSet], values: int) -> TurnAnswer:
    """Turn the path's choices into the new table: kept sets, runs, groups, the tiles played."""
    span, colours = pos.span, len(pos.colours)
    steps = colours + 2
    if len(choices) != values * steps:  # pragma: no cover - path() gives one choice per layer
        raise _Unsupported
    kept_sets: list[int] = []
    reserved = [[0] * colours for _ in range(span)]  # numbered tiles held by kept sets
    new_groups: list[list[Tile]] = []
    played: list[Tile] = []
    open_runs: list[list[list[_Open]]] = [[[], [], []] for _ in range(colours)]  # length 1, 2, 3+
    finished: list[_Open] = []
    starting: dict[int, list[_OldSet]] = {}
    for r in old:
        starting.setdefault(r.first, []).append(r)
    for v in range(values):
        base = v * steps
        for q, r in enumerate(starting.get(v, ())):
            if choices[base] >> q & 1:
                kept_sets.append(r.set_index)
                for (u, c), n in r.tiles.items():
                    reserved[u][c] += n
        leftovers = [0] * colours
        group_wilds = [0] * colours
        for c in range(colours):
            ch = choices[base + 1 + c]
            ones, twos, threes = open_runs[c]
            if v < span:
                leftovers[c] = pos.table_count[c * span + v] - reserved[v][c]
            if not ch and not (ones or twos or threes):
                continue  # nothing of this colour here
            x, i1, i2, e3, e3j, s = ch & 7, ch >> 3 & 7, ch >> 6 & 7, ch >> 9 & 7, ch >> 12 & 7, ch >> 15 & 7
            w = ch >> 24 & 7  # Expert: wild tiles of this colour (its coloured jokers) here
            tile = pos.tile(c * span + v) if v < span else _JOKER
            played += [tile] * x
            goes_on = [(run, n < i1) for n, run in enumerate(ones)]
            goes_on += [(run, n < i2) for n, run in enumerate(twos)]
            goes_on += [(run, n < e3j) for n, run in enumerate(threes[:e3])]
            wilds = [w]  # they take run places first, as the kernel counts them

            def item(colour: int = c, plain: Any = tile, left: list[int] = wilds) -> Any:
                if left[0]:
                    left[0] -= 1
                    return _WILD[colour]
                return plain

            for run, by_joker in goes_on:
                run.tiles.append(_JOKER if by_joker else item())
            finished += threes[e3:]
            open_runs[c] = [[_Open(v, [item()]) for _ in range(s)], ones, twos + threes[:e3]]
            leftovers[c] += x - s - sum(1 for _, by_joker in goes_on if not by_joker) + (w - wilds[0])
            group_wilds[c] = wilds[0]
        if v < span:
            new_groups += _groups_at(pos, v, leftovers, choices[base + steps - 1], group_wilds)
    for c in range(colours):
        finished += open_runs[c][2]

    # the jokers of the new sets: the table's (those not in a kept set) first, then the rack's
    kept = set(kept_sets)
    free_jokers = [t for k, s in enumerate(pos.sets) if k not in kept for t in s.tiles if t.is_joker]
    rack_jokers = [pos.joker_tile[key] for key, n in pos.rack_jokers.items() for _ in range(n)]
    supply = iter(free_jokers + rack_jokers)
    # Expert: each colour's jokers, the table's first (every one of them must be placed)
    coloured = bool(_wild_totals(pos))
    by_colour: dict[int, list[tuple[Tile, bool]]] = {c: [] for c in range(colours)}
    for t, from_rack in [(t, False) for t in free_jokers] + [(t, True) for t in rack_jokers]:
        if t.colour is not None:
            by_colour[pos.colours.index(t.colour)].append((t, from_rack))
    wild_played: list[Tile] = []

    def fill(tiles: list[Any]) -> list[Tile]:
        out = []
        for t in tiles:
            if t is _JOKER:
                t = next(supply)
            elif isinstance(t, _Wild):
                t, from_rack = by_colour[t.colour].pop(0)
                if from_rack:
                    wild_played.append(t)
            out.append(t)
        return out

    placed = [fill(g) for g in new_groups]
    for run in finished:
        placed += _run_sets(pos, run.start, fill(run.tiles))
    if coloured:
        played += wild_played
    else:
        used_jokers = sum(t.is_joker for s in placed for t in s)
        played += rack_jokers[: used_jokers - len(free_jokers)]
    table = [list(pos.sets[k].tiles) for k in kept_sets] + placed
    untouched = [True] * len(kept_sets) + [False] * len(placed)
    return TurnAnswer(
        played=played, table=table, untouched=untouched, tiles=len(played), value=played_value(pos, played),
        opening_value=0,
    )


def _groups_at(pos: Position, v: int, left: list[int], jokers: int, wilds: list[int]) -> list[list[Tile]]:
    """The new groups of number index v (jokers as placeholders): the tiles dealt round the
    fewest groups that hold them, then topped up with jokers. ``wilds``: Expert's coloured
    jokers by colour, dealt as tiles of their colour, then swapped with a numbered tile of
    their colour in another group wherever a group would hold no numbered tile."""
    colours = len(pos.colours)
    held = [left[c] + wilds[c] for c in range(colours)]
    total = sum(held) + jokers
    if not total:
        return []
    n = max(max(held), -(-total // colours))
    dealt: list[list[Any]] = [[] for _ in range(n)]
    k = 0
    for c in sorted(range(colours), key=lambda c: -held[c]):
        for m in range(held[c]):
            dealt[k % n].append(pos.tile(c * pos.span + v) if m < left[c] else _WILD[c])
            k += 1
    for group in dealt:
        if any(not isinstance(t, _Wild) for t in group):
            continue
        for i, w in enumerate(group):
            other = next((g for g in dealt if g is not group and sum(not isinstance(t, _Wild) for t in g) > 1
                          and any(not isinstance(t, _Wild) and t.colour == pos.colours[w.colour] for t in g)), None)
            if other is not None:
                j = next(j for j, t in enumerate(other) if not isinstance(t, _Wild) and t.colour == pos.colours[w.colour])
                group[i], other[j] = other[j], w
                break
        else:
            raise _Unsupported  # pragma: no cover - the kernel counted a numbered tile per group
    for group in dealt:
        while len(group) < 3 and jokers:
            group.append(_JOKER)
            jokers -= 1
    for group in dealt:
        while len(group) < colours and jokers:
            group.append(_JOKER)
            jokers -= 1
    return dealt


def _run_sets(pos: Position, start: int, tiles: list[Tile]) -> list[list[Tile]]:
    """A finished run as table sets: jokers past the last number moved in front, or the run
    split in two when it is longer than the numbers allow."""
    over = start + len(tiles) - pos.span
    if over <= 0:
        return [tiles]
    if over <= start:
        return [tiles[-over:] + tiles[:-over]]
    body, extra = tiles[:-over], tiles[-over:]
    for cut in range(3, len(body) - 2):
        first, second = body[:cut] + extra, body[cut:]
        if classify(first, pos.edition).valid and classify(second, pos.edition).valid:
            return [first, second]
    raise _Unsupported  # pragma: no cover
