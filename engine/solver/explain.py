"""Say in a few words how to get from the old table to the new one.

The solver only knows tile counts, so where a tile came from is reconstructed here: each new set
is matched to the old set it shares most tiles with, the rest of its tiles are taken from other
old sets, and what is left came from the rack. An old set whose tiles go to several new sets is
first *split* (``split k3 k4 k5 k6 k7 k8 after k5``); the pieces then read like old sets. The
lines read like a player's moves: ``add r8 J to r5 r6 r7 to make r5 r6 r7 r8 J``, ``swap the
joker in r5 J r7 for r6``, ``new set k3 b3 o3 from your rack``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rummi.engine.melds import classify
from rummi.engine.notation import format_tiles
from rummi.engine.tiles import Tile

if TYPE_CHECKING:
    from rummi.engine.solver.position import Position
    from rummi.engine.solver.turn import TurnAnswer


def explain(pos: Position, answer: TurnAnswer, opened: bool) -> list[str]:
    """The moves, one line each, that turn the old table into ``answer.table`` (see above)."""
    ids = _TileIds()
    old_sets = [list(s) for s in pos.table_sets_in]
    old_ids = [ids.of(s) for s in old_sets]
    new_sets = [s for s, kept in zip(answer.table, answer.untouched) if not kept]
    kept_old = _kept_indices(old_ids, [ids.of(s) for s, kept in zip(answer.table, answer.untouched) if kept])
    remaining = {k: Counter(s) for k, s in enumerate(old_ids) if k not in kept_old}
    rack_left = Counter(ids.of(answer.played))
    lines: list[str] = []
    if not opened and answer.opening_value:
        lines.append(f"opening worth {answer.opening_value} points")
    holders: dict[int, list[int]] = {}  # tile id -> the old sets holding it
    for k in remaining:
        for t in remaining[k]:
            holders.setdefault(t, []).append(k)
    # biggest overlap first, so a set that grew is read as "add", not as a new set
    new_counts = [Counter(ids.of(s)) for s in new_sets]
    order = sorted(
        range(len(new_sets)),
        key=lambda i: -max(_overlaps(new_counts[i], remaining, holders).values(), default=0),
    )
    plans: list[tuple[list[Tile], list[tuple[int, list[Tile]]], list[Tile]]] = []
    for i in order:
        need = Counter(new_counts[i])
        sources: list[tuple[int, list[Tile]]] = []  # (old set, tiles taken from it)
        while need and remaining:
            shared = _overlaps(need, remaining, holders)
            most = max(shared.values(), default=0)
            if not most:
                break
            k = min(k for k, n in shared.items() if n == most)  # the first old set, as read
            taken = _take(need, remaining[k])
            sources.append((k, ids.tiles(taken)))
            if not remaining[k]:
                del remaining[k]
        plans.append((new_sets[i], sources, ids.tiles(_take(need, rack_left))))

    # old sets whose tiles go to several new sets are split first
    destinations: dict[int, list[list[Tile]]] = {}
    for _, sources, _ in plans:
        for k, taken in sources:
            destinations.setdefault(k, []).append(taken)
    # (a joker or a single tile taken out reads better as a swap or a take, not as a split)
    split = {k for k, pieces in destinations.items() if sum(len(p) > 1 for p in pieces) > 1}
    for k in sorted(split):
        lines.append(_split_line(old_sets[k], destinations[k], pos))
    for new, sources, rack in plans:
        line = _line(new, [(old_sets[k] if k not in split else taken, taken) for k, taken in sources], rack)
        if line:
            lines.append(line)
    return lines


class _TileIds:
    """Small numbers for the tiles of one explanation: multisets of ints are counted and
    compared several times faster than multisets of tiles."""

    def __init__(self) -> None:
        self._id: dict[Tile, int] = {}
        self._tile: list[Tile] = []

    def of(self, tiles: Iterable[Tile]) -> list[int]:
        out = []
        for t in tiles:
            n = self._id.get(t)
            if n is None:
                n = self._id[t] = len(self._tile)
                self._tile.append(t)
            out.append(n)
        return out

    def tiles(self, ids: Iterable[int]) -> list[Tile]:
        return [self._tile[n] for n in ids]


def _take(need: Counter[int], have: Counter[int]) -> list[int]:
    """Move the tiles both multisets hold out of both (``need & have``, subtracted from each,
    without building Counters: this runs for every new set); returns them in ``need``'s order."""
    taken: list[int] = []
    for t, n in list(need.items()):
        m = have.get(t, 0)
        if m:
            k = n if n < m else m
            taken += [t] * k
            if k == n:
                del need[t]
            else:
                need[t] = n - k
            if k == m:
                del have[t]
            else:
                have[t] = m - k
    return taken


def _overlaps(need: Counter[int], remaining: dict[int, Counter[int]], holders: dict[int, list[int]]) -> dict[int, int]:
    """How many tiles ``need`` shares with each old set still holding one of them (the size of
    ``need & remaining[k]`` per k, without building it): asked through ``holders``, the old
    sets each tile lies in, not of every old set (every new set asks, more than once)."""
    shared: dict[int, int] = {}
    for t, n in need.items():
        for k in holders.get(t, ()):
            have = remaining.get(k)
            m = have.get(t, 0) if have is not None else 0
            if m:
                shared[k] = shared.get(k, 0) + (n if n < m else m)
    return shared


def _kept_indices(old_sets: list[list[int]], kept_sets: list[list[int]]) -> set[int]:
    """Which old sets the kept sets are (the same tiles; the first unused one of equal sets)."""
    by_tiles: dict[tuple[int, ...], list[int]] = {}
    for k, old in enumerate(old_sets):
        by_tiles.setdefault(tuple(sorted(old)), []).append(k)
    used: set[int] = set()
    for s in kept_sets:
        same = by_tiles.get(tuple(sorted(s)))
        if same:
            used.add(same.pop(0))
    return used


def _split_line(old: list[Tile], pieces: list[list[Tile]], pos: Position) -> str:
    """``split r1 r2 r3 r4 r5 r6 after r3`` for a run cut into runs; else the pieces."""
    text = format_tiles(old)
    verdict = classify(old, pos.edition)
    if verdict.valid and not any(t.is_joker for t in old) and verdict.kind.value == "run":
        ordered = sorted(old, key=lambda t: t.number)  # type: ignore[arg-type,return-value]
        cuts: list[Tile] = []
        at = 0
        for piece in sorted(pieces, key=lambda p: min(t.number for t in p)):  # type: ignore[type-var]
            span = ordered[at : at + len(piece)]
            if Counter(span) != Counter(piece):
                break
            at += len(piece)
            if at < len(ordered):
                cuts.append(ordered[at - 1])
        else:
            return f"split {text} after " + " and after ".join(str(t) for t in cuts)
    return f"take {text} apart into " + " | ".join(format_tiles(p) for p in pieces)


def _line(new: list[Tile], sources: list[tuple[list[Tile], list[Tile]]], rack: list[Tile]) -> str:
    text = format_tiles(new)
    rack_text = format_tiles(rack)
    if not sources:
        return f"new set {text} from your rack"
    if len(sources) == 1:
        old, taken = sources[0]
        whole = len(taken) == len(old)  # taken came out of old: all of it, or some
        if whole and not rack:
            return ""  # a piece of a split, as it is
        if whole and rack:
            return f"add {rack_text} to {format_tiles(old)} to make {text}"
        left_out = list((Counter(old) - Counter(taken)).elements())
        jokers_out = [t for t in left_out if t.is_joker]
        if jokers_out and len(left_out) == len(jokers_out) and rack and not any(t.is_joker for t in rack):
            return f"swap the joker in {format_tiles(old)} for {rack_text}: {text}"
    parts = [f"{format_tiles(taken)} from {format_tiles(old)}" for old, taken in sources]
    if rack:
        parts.append(f"{rack_text} from your rack")
    return f"make {text} with " + ", ".join(parts)
