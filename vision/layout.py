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
#: rack), or a line of standing tiles side by side with at least this many on a ledge and at
#: least ``MIN_TIER_LEDGE_SHARE`` of those whose ledge could show: a rack's gaps part its ledge
#: tiles, and on a table a few shadows along a long row of sets are no rack. A tile right above
#: a line that shows that share of its own (a rack's upper tier behind its lower one) hides its
#: ledge and counts neither way. A second tier needs no ledge of its own if it stands parallel
#: just above a tier (``MIN_TIER_SPACING`` to ``TIER_SPACING`` heights up). Two such lines
#: stacked as a rack's tiers, the lower showing its share, are asked for these counts together
#: (a close-up shows a few tiles of each: ``_stacked_tiers``).
MIN_TIER_LEDGES = 3
MIN_TIER_LEDGE_SHARE = 0.5
MIN_TIER_SPACING = 0.7
TIER_SPACING = 1.6
#: A tile hides the ledge of one above it when its centre lies within this share of that
#: tile's width across from it (and a tier's spacing below it).
HIDING_REACH = 0.6


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
    """The rack: tiers of tiles standing alike side by side along a line, and the tiles
    standing alike beside them (a ledge in a neighbour's shadow, a tile the check missed), or
    just above such a tier. Side by side: at most ``TIER_REACH`` widths apart, or next along
    the line with the rack's bar between them (``bar_between``). A tier is ``MIN_TIER_LEDGES``
    ledge tiles side by side, or a line of standing tiles at least ``MIN_TIER_LEDGE_SHARE`` of
    which stand on a ledge (a rack with gaps, whose ledge tiles stand apart)."""
    on = np.asarray(on_ledge, bool)
    if on.sum() < MIN_TIER_LEDGES:
        return []
    up = found.up_vectors
    mean_up = _rack_up(up[on])
    if mean_up is None:
        return []
    right = np.array([-mean_up[1], mean_up[0]])
    # a tile put in upside down stands in its tier all the same (its number reads turned round)
    standing = np.flatnonzero(np.abs(up @ mean_up) >= np.cos(np.radians(MAX_TURN_DEGREES)))
    seeds = standing[on[standing]]
    if len(seeds) < MIN_TIER_LEDGES:
        return []
    height, width = float(np.median(found.heights[seeds])), float(np.median(found.widths[seeds]))
    across_of = found.centers[standing] @ mean_up
    along_of = found.centers[standing] @ right
    side_by_side = _side_by_side(standing, across_of, along_of, found.heights[standing], found.widths[standing],
                                 bar_between)
    ledge = on[standing]  # by position in ``standing`` from here on

    # a tile right above a line that shows its ledge (a rack's upper tier behind its lower one)
    # shows no ledge either way: it counts neither for nor against its own line's share
    lines_of_tiles = _components(side_by_side, np.ones(len(standing), bool))
    front = np.zeros(len(found), bool)
    for t in lines_of_tiles:
        if ledge[t].mean() >= MIN_TIER_LEDGE_SHARE:
            front[standing[t]] = True
    in_view = ledge | ~_hidden_by(found, standing, front)

    def enough_ledge(members: np.ndarray) -> bool:
        shown = int(ledge[members].sum())
        return shown >= MIN_TIER_LEDGES and shown >= MIN_TIER_LEDGE_SHARE * int(in_view[members].sum())

    tiers = [t for t in _components(side_by_side, ledge) if len(t) >= MIN_TIER_LEDGES]
    tiers += [t for t in lines_of_tiles if enough_ledge(t)]
    tiers += _stacked_tiers(lines_of_tiles, ledge, enough_ledge, across_of, along_of, found.heights[standing],
                            found.widths[standing])
    if not tiers:
        return []
    rack = np.zeros(len(standing), bool)
    for t in tiers:
        rack[t] = True
    lines = np.array([np.median(across_of[t]) for t in tiers])
    span = (along_of[rack].min() - width, along_of[rack].max() + width)
    above = ((along_of >= span[0]) & (along_of <= span[1])
             & np.any((across_of[:, None] - lines[None] >= MIN_TIER_SPACING * height)
                      & (across_of[:, None] - lines[None] <= TIER_SPACING * height), axis=1))
    rack |= above  # a tier's upper tier, whose ledge the lower tier hides
    # the tiles standing alike beside the rack in its tiers
    grown = np.zeros(len(standing), bool)
    for t in lines_of_tiles:
        if rack[t].any():
            grown[t] = True
    return sorted(int(i) for i in standing[grown | rack])


def _stacked_tiers(lines: list[np.ndarray], ledge: np.ndarray, enough_ledge: Callable[[np.ndarray], bool],
                   across_of: np.ndarray, along_of: np.ndarray, heights: np.ndarray,
                   widths: np.ndarray) -> list[np.ndarray]:
    """The lines of a two-tier rack seen close up, judged together: lines of standing tiles
    stacked one just above the other (as a rack's tiers) along a shared stretch. A close-up
    shows a few tiles of each tier, and the upper tier's ledge shows only where the lower tier
    has a gap, so neither line alone has ``MIN_TIER_LEDGES`` ledge tiles; the stack as a whole
    is asked for them (``enough_ledge``), and its lowest line, whose ledge nothing hides, for
    its share of its own (on a table, rows of sets lie one above the other too). Its lines with
    a ledge tile of their own are tiers (the one above a tier joins as before). Every argument
    is by position in the standing tiles."""
    spans = [(along_of[t].min() - widths[t].max(), along_of[t].max() + widths[t].max()) for t in lines]
    middles = [float(np.median(across_of[t])) for t in lines]
    sizes = [float(np.median(heights[t])) for t in lines]
    stacked = np.zeros((len(lines), len(lines)), bool)
    for a in range(len(lines)):
        for b in range(a + 1, len(lines)):
            height = (sizes[a] + sizes[b]) / 2
            apart = abs(middles[a] - middles[b])
            side_by_side = min(spans[a][1], spans[b][1]) > max(spans[a][0], spans[b][0])
            stacked[a, b] = stacked[b, a] = side_by_side and MIN_TIER_SPACING * height <= apart <= TIER_SPACING * height
    tiers = []
    for stack in _components(stacked, np.ones(len(lines), bool)):
        if len(stack) < 2:
            continue
        lowest = lines[min(stack, key=lambda k: middles[k])]
        if ledge[lowest].mean() >= MIN_TIER_LEDGE_SHARE and enough_ledge(np.concatenate([lines[k] for k in stack])):
            tiers += [lines[k] for k in stack if ledge[lines[k]].any()]
    return tiers


def _hidden_by(found: TileDetections, which: np.ndarray, hiders: np.ndarray) -> np.ndarray:
    """``(len(which),)`` bool: one of the ``hiders`` (a bool mask over the tiles) lies right
    below each of ``which`` in that tile's own frame (a tier's spacing down, within
    ``HIDING_REACH`` of its width across), covering the strip where its ledge would show."""
    delta = found.centers[None, :, :] - found.centers[which][:, None, :]  # (which, tiles, 2)
    down = -np.einsum("ijk,ik->ij", delta, found.up_vectors[which]) / found.heights[which][:, None]
    across = np.abs(np.einsum("ijk,ik->ij", delta, found.right_vectors[which])) / found.widths[which][:, None]
    close = (down >= MIN_TIER_SPACING) & (down <= TIER_SPACING) & (across <= HIDING_REACH) & hiders[None]
    close[np.arange(len(which)), which] = False
    return close.any(axis=1)


def _rack_up(ups: np.ndarray) -> np.ndarray | None:
    """The rack's up (a unit vector) from its ledge tiles' ups, or None when they agree on no
    line: their mean as axes (a tile upside down lies along the same line as its neighbours,
    so it must not pull the mean aside), pointing the way most of them point."""
    doubled = np.arctan2(ups[:, 1], ups[:, 0]) * 2
    mean = np.array([np.cos(doubled).sum(), np.sin(doubled).sum()])
    if np.linalg.norm(mean) < 1e-6 * len(ups):
        return None
    angle = np.arctan2(mean[1], mean[0]) / 2
    axis = np.array([np.cos(angle), np.sin(angle)])
    return axis if (ups @ axis).sum() >= 0 else -axis


def _side_by_side(standing: np.ndarray, across_of: np.ndarray, along_of: np.ndarray, heights: np.ndarray,
                  widths: np.ndarray, bar_between: BarBetween | None) -> np.ndarray:
    """``(n, n)`` bool over the standing tiles: two stand side by side in one tier (on one line,
    at most ``TIER_REACH`` widths apart, or next along it with the rack's bar between them).
    Each pair is measured in its own two tiles' size, as the table's neighbours are: seen at a
    low angle, a rack's near end is three times the size of its far end."""
    height = (heights[:, None] + heights[None]) / 2
    width = (widths[:, None] + widths[None]) / 2
    on_line = np.abs(across_of[:, None] - across_of[None]) <= TIER_OFFSET * height
    apart = along_of[None] - along_of[:, None]  # [i, j]: how far j lies along the line past i
    joined = on_line & (np.abs(apart) <= TIER_REACH * width)
    if bar_between is not None:
        for i in range(len(standing)):
            after = np.flatnonzero(on_line[i] & (apart[i] > 0))
            if len(after):
                j = int(after[np.argmin(apart[i, after])])
                if apart[i, j] > TIER_REACH * width[i, j] and bar_between(int(standing[i]), int(standing[j])):
                    joined[i, j] = joined[j, i] = True
    return joined


def _components(joined: np.ndarray, members: np.ndarray) -> list[np.ndarray]:
    """The groups of ``members`` (a bool mask) linked through ``joined``, members only."""
    left = members.copy()
    groups = []
    for start in np.flatnonzero(members):
        if not left[start]:
            continue
        left[start] = False
        group, frontier = [start], [start]
        while frontier:
            reached = np.flatnonzero(joined[frontier].any(axis=0) & left)
            left[reached] = False
            group += reached.tolist()
            frontier = reached.tolist()
        groups.append(np.array(sorted(group)))
    return groups


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
