"""Lay the read tiles out as a game state: sets on the table, and the rack.

Players build a set by putting tiles side by side, touching, in a row; seen from any side of
the table that row may run at any angle in the photo. So two tiles belong to one set when
they lie next to each other along their own short axis, about one tile width apart, lined up,
and turned alike. A few people lay sets as columns instead (tiles touching top to bottom);
tiles left over after rows are found are tried as columns too.

Which tiles are a *rack* is told by what a rack is, not by whether a row happens to make a
valid set: tiles standing upright on a dark ledge (``on_ledge``, from
:class:`vision.rack.RackEvidence`), side by side in tiers (touching, or with the rack's dark
bar between them: ``bar_between``):

* ``kind="auto"`` (the default): the tiles on a ledge that stand alike, with every tile
  standing alike beside them in the same tiers, are the rack (``None`` when no tile stands on
  a ledge); every other tile is on the table, where each chain of touching tiles is a set
  (a chain too short to be valid is an unfinished set the table check reports). A table with
  a rack in the same photo gives both.
* ``kind="table"``: every chain (even of one tile) is a set; no rack.
* ``kind="rack"``: every tile is on the rack.

Tiles are ordered as a person reads them: a set along its tiles' reading direction (an upside
down row is read from the other end), sets and rack tiers from the top of the photo down.

    >>> import numpy as np
    >>> from rummi.vision.detections import TileDetections
    >>> def tile(x): return np.array([[x, 0], [x + 30, 0], [x + 30, 40], [x, 40]], np.float32)
    >>> row = TileDetections.from_corners(np.stack([tile(62), tile(0), tile(31)]), np.ones(3))
    >>> lay_out(row).sets
    [[1, 2, 0]]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from rummi.vision.detections import TileDetections

LayoutKind = Literal["auto", "table", "rack"]
LAYOUT_KINDS: tuple[str, ...] = ("auto", "table", "rack")
#: ``bar_between(i, j)``: the rack's dark plastic runs between tiles i and j
#: (:meth:`vision.rack.RackEvidence.bar_between`, which looks at the photo; the layout does not).
BarBetween = Callable[[int, int], bool]

#: Centre distance of touching neighbours, in tile widths (1.0 = touching exactly): up to
#: about half a tile of gap still counts, as hands never place tiles perfectly.
ROW_STEP = (0.7, 1.5)
#: How far a neighbour may sit off the row's line, in tile heights.
ROW_OFFSET = 0.35
#: Column neighbours: centre distance in tile heights, offset in tile widths.
COLUMN_STEP = (0.75, 1.35)
COLUMN_OFFSET = 0.35
#: Neighbours are turned alike (their axes differ by less than this, in degrees).
MAX_TURN_DEGREES = 20.0
MIN_SET_TILES = 3
#: A tile beside the rack belongs to its tier when its centre is this near a rack tile's line
#: (in tile heights, across) and at most this far along it (in tile widths) from the tier.
TIER_OFFSET = 0.35
TIER_REACH = 2.5
#: A rack tier is this many tiles on a ledge side by side (one tile's shadow on a table is not a
#: rack); a second tier needs no ledge of its own if it stands parallel just above a tier
#: (0.7 to ``TIER_SPACING`` heights up: a rack's upper tier, whose ledge the lower tier hides).
MIN_TIER_LEDGES = 3
TIER_SPACING = 1.6


@dataclass(frozen=True)
class Layout:
    """Tile indices (into the detections) in reading order: ``sets`` and ``rack`` (or None)."""

    sets: list[list[int]]
    rack: list[int] | None

    @property
    def groups(self) -> list[list[int]]:
        """The tiles laid together: each set, and the rack (its tiers face one owner alike)."""
        return [*self.sets, *([self.rack] if self.rack else [])]


def lay_out(found: TileDetections, kind: LayoutKind = "auto", on_ledge: np.ndarray | None = None,
            bar_between: BarBetween | None = None) -> Layout:
    """Sets and rack of the read tiles; ``on_ledge[i]``: tile i stands on a rack's ledge (no
    ledge seen when None: then ``auto`` finds no rack); ``bar_between(i, j)``: the rack's dark
    plastic shows all the way between tiles i and j (:class:`vision.rack.RackEvidence`), so two
    tiles of one tier far apart are still one tier."""
    if kind not in LAYOUT_KINDS:
        raise ValueError(f"unknown layout kind {kind!r}; use one of {', '.join(LAYOUT_KINDS)}")
    count = len(found)
    if count == 0:
        return Layout(sets=[], rack=None)
    if kind == "rack":
        return Layout(sets=[], rack=_rack_order(found, list(range(count))))
    rack = _rack_tiles(found, on_ledge, bar_between) if kind == "auto" and on_ledge is not None else []
    table = [i for i in range(count) if i not in set(rack)]
    return Layout(sets=_table_sets(found, table), rack=_rack_order(found, rack) if rack else None)


def _table_sets(found: TileDetections, members: list[int]) -> list[list[int]]:
    """Every chain of touching tiles among ``members`` as a set: rows first, then columns of
    what rows left, then the short rows (unfinished sets), in reading order."""
    rows = _chains(found, _neighbours(found, columns=False), members)
    in_rows = {i for chain in rows if len(chain) >= MIN_SET_TILES for i in chain}
    leftover = [i for i in members if i not in in_rows]
    columns = _chains(found, _neighbours(found, columns=True), leftover)
    sets = [_row_order(found, c) for c in rows if len(c) >= MIN_SET_TILES]
    sets += [_column_order(found, c) for c in columns if len(c) >= MIN_SET_TILES]
    placed = {i for s in sets for i in s}
    sets += [_row_order(found, c) for c in rows if len(c) < MIN_SET_TILES and c[0] not in placed]
    return _reading_order_of_sets(found, sets)


def _rack_tiles(found: TileDetections, on_ledge: np.ndarray, bar_between: BarBetween | None = None) -> list[int]:
    """The rack: tiers of tiles standing alike side by side along a line, at least
    ``MIN_TIER_LEDGES`` of them on a ledge (the others: a ledge in a neighbour's shadow, a tile
    the check missed), or one just above such a tier. Side by side: at most ``TIER_REACH``
    widths apart, or next along the line with the rack's bar between them (``bar_between``)."""
    on = [int(i) for i in np.flatnonzero(np.asarray(on_ledge, bool))]
    if len(on) < MIN_TIER_LEDGES:
        return []
    up = found.up_vectors
    mean_up = up[on].sum(axis=0)
    if np.linalg.norm(mean_up) < 1e-6:
        return []
    mean_up = mean_up / np.linalg.norm(mean_up)
    right = np.array([-mean_up[1], mean_up[0]])
    upright = up @ mean_up >= np.cos(np.radians(MAX_TURN_DEGREES))
    seeds = [i for i in on if upright[i]]
    if len(seeds) < MIN_TIER_LEDGES:
        return []
    centres = found.centers
    height, width = float(np.median(found.heights[seeds])), float(np.median(found.widths[seeds]))
    across_of = centres @ mean_up
    along_of = centres @ right
    standing = [int(i) for i in np.flatnonzero(upright)]
    barred = _barred_neighbours(standing, across_of, along_of, height, width, bar_between)

    def same_tier(i: int, members: list[int]) -> bool:
        near = ((np.abs(across_of[members] - across_of[i]) <= TIER_OFFSET * height)
                & (np.abs(along_of[members] - along_of[i]) <= TIER_REACH * width))
        return bool(np.any(near)) or any(m in barred.get(i, ()) for m in members)

    def tier_of(first: list[int], among: list[int]) -> list[int]:
        """``first`` and every tile of ``among`` joined to it, tile by tile along its line."""
        tier, left = list(first), [i for i in among if i not in first]
        grown = True
        while grown:
            joined = [i for i in left if same_tier(i, tier)]
            grown = bool(joined)
            tier += joined
            left = [i for i in left if i not in joined]
        return tier

    tiers: list[list[int]] = []
    for i in seeds:  # the tiers of the ledge tiles, with the tiles standing between them
        if not any(i in t for t in tiers):
            tiers.append(tier_of([i], standing))
    kept = [t for t in tiers if sum(bool(on_ledge[m]) for m in t) >= MIN_TIER_LEDGES]
    if not kept:
        return []
    rack = sorted({i for t in kept for i in t})
    lines = [float(np.median(across_of[t])) for t in kept]
    reach = (along_of[rack].min() - width, along_of[rack].max() + width)
    for i in standing:  # the tier above: upright tiles just above a tier, within its span
        if i not in rack and reach[0] <= along_of[i] <= reach[1] and any(
                0.7 * height <= across_of[i] - line <= TIER_SPACING * height for line in lines):
            rack.append(i)
    # the tiles standing alike beside the rack in its tiers
    return sorted(tier_of(rack, standing))


def _barred_neighbours(standing: list[int], across_of: np.ndarray, along_of: np.ndarray, height: float,
                       width: float, bar_between: BarBetween | None) -> dict[int, set[int]]:
    """Tiles next to each other along one line, further apart than ``TIER_REACH`` widths, with
    the rack's bar between them: each tile's such neighbours."""
    barred: dict[int, set[int]] = {}
    if bar_between is None:
        return barred
    for i in standing:
        line = [j for j in standing if j != i and abs(across_of[j] - across_of[i]) <= TIER_OFFSET * height
                and along_of[j] > along_of[i]]
        if not line:
            continue
        j = min(line, key=lambda j: along_of[j])
        if along_of[j] - along_of[i] > TIER_REACH * width and bar_between(i, j):
            barred.setdefault(i, set()).add(j)
            barred.setdefault(j, set()).add(i)
    return barred


def _neighbours(found: TileDetections, columns: bool) -> np.ndarray:
    """``adjacent[i, j]``: tiles i and j touch side by side (or top to bottom for columns)."""
    centres, right, up = found.centers, found.right_vectors, found.up_vectors
    width = (found.widths[:, None] + found.widths[None, :]) / 2
    height = (found.heights[:, None] + found.heights[None, :]) / 2
    delta = centres[None, :, :] - centres[:, None, :]
    along = np.abs(np.einsum("ijk,ik->ij", delta, right))
    across = np.abs(np.einsum("ijk,ik->ij", delta, up))
    # Axes compared modulo 180 degrees: an upside-down tile in a row still lies in that row.
    alike = np.abs(right @ right.T) >= np.cos(np.radians(MAX_TURN_DEGREES))
    if columns:
        step, offset = across / height, along / width
        lo, hi, limit = COLUMN_STEP[0], COLUMN_STEP[1], COLUMN_OFFSET
    else:
        step, offset = along / width, across / height
        lo, hi, limit = ROW_STEP[0], ROW_STEP[1], ROW_OFFSET
    adjacent = alike & (step >= lo) & (step <= hi) & (offset <= limit)
    adjacent &= adjacent.T
    np.fill_diagonal(adjacent, False)
    return adjacent


def _chains(found: TileDetections, adjacent: np.ndarray, members: range | list[int]) -> list[list[int]]:
    """Connected groups of ``members`` under ``adjacent`` (each a list of tile indices)."""
    allowed = set(members)
    seen: set[int] = set()
    groups: list[list[int]] = []
    for start in members:
        if start in seen:
            continue
        stack, group = [start], []
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for other in np.flatnonzero(adjacent[node]):
                other = int(other)
                if other in allowed and other not in seen:
                    seen.add(other)
                    stack.append(other)
        groups.append(sorted(group))
    return groups


def _row_order(found: TileDetections, members: list[int]) -> list[int]:
    """Left to right as the tiles read; the majority's reading direction wins."""
    direction = found.right_vectors[members].sum(axis=0)
    if np.linalg.norm(direction) < 1e-6:
        direction = found.right_vectors[members[0]]
    positions = found.centers[members] @ direction
    return [members[i] for i in np.argsort(positions, kind="stable")]


def _column_order(found: TileDetections, members: list[int]) -> list[int]:
    down = -found.up_vectors[members].sum(axis=0)
    positions = found.centers[members] @ down
    return [members[i] for i in np.argsort(positions, kind="stable")]


def _reading_order_of_sets(found: TileDetections, sets: list[list[int]]) -> list[list[int]]:
    """Sets from the top of the photo down, left to right within a band of one tile height."""
    if not sets:
        return []
    band = float(np.median(found.heights))
    def key(s: list[int]) -> tuple[int, float]:
        centre = found.centers[s].mean(axis=0)
        return int(centre[1] // max(band, 1.0)), float(centre[0])
    return sorted(sets, key=key)


def _rack_order(found: TileDetections, members: list[int]) -> list[int]:
    """Rack tiles tier by tier (top tier first), each tier left to right as the tiles read."""
    if not members:
        return []
    up = found.up_vectors[members].sum(axis=0)
    if np.linalg.norm(up) < 1e-6:
        up = np.array([0.0, -1.0])
    up = up / np.linalg.norm(up)
    right = np.array([-up[1], up[0]])  # up turned a quarter clockwise on screen (y down)
    height = float(np.median(found.heights[members]))
    heights_up = found.centers[members] @ up
    order = np.argsort(-heights_up, kind="stable")
    tiers: list[list[int]] = []
    last = None
    for position in order:
        if last is None or last - heights_up[position] > 0.6 * height:
            tiers.append([])
        tiers[-1].append(members[position])
        last = heights_up[position]
    return [i for tier in tiers for i in sorted(tier, key=lambda t: float(found.centers[t] @ right))]
