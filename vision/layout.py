"""Lay the read tiles out as a game state: sets on the table, and the rack.

Players build a set by putting tiles side by side, touching, in a row; seen from any side of
the table that row may run at any angle in the photo. So two tiles belong to one set when
they lie next to each other along their own short axis, about one tile width apart, lined up,
and turned alike. A few people lay sets as columns instead (tiles touching top to bottom);
tiles left over after rows are found are tried as columns too.

Which tiles are a *rack* is told by how they lie, not by the colour of anything (racks and
tables come in every colour):

* ``kind="auto"`` (the default): chains of three or more touching tiles are table sets; the
  rest are the rack (``None`` when nothing is left) when they all stand the same way up, as
  tiles in a rack do; loose tiles lying every which way are unfinished sets on the table. A photo whose chains make no valid set at
  all while every tile stands the same way up is taken for a rack photo: rack tiles stand in
  one or two straight tiers and often touch, but rarely by chance in valid sets.
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

from dataclasses import dataclass
from typing import Literal

import numpy as np

from rummi.engine.melds import classify
from rummi.vision.detections import TileDetections

LayoutKind = Literal["auto", "table", "rack"]
LAYOUT_KINDS: tuple[str, ...] = ("auto", "table", "rack")

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


@dataclass(frozen=True)
class Layout:
    """Tile indices (into the detections) in reading order: ``sets`` and ``rack`` (or None)."""

    sets: list[list[int]]
    rack: list[int] | None


def lay_out(found: TileDetections, kind: LayoutKind = "auto") -> Layout:
    if kind not in LAYOUT_KINDS:
        raise ValueError(f"unknown layout kind {kind!r}; use one of {', '.join(LAYOUT_KINDS)}")
    count = len(found)
    if count == 0:
        return Layout(sets=[], rack=None)
    if kind == "rack":
        return Layout(sets=[], rack=_rack_order(found, list(range(count))))
    rows = _chains(found, _neighbours(found, columns=False), range(count))
    in_rows = {i for chain in rows if len(chain) >= MIN_SET_TILES for i in chain}
    leftover = [i for i in range(count) if i not in in_rows]
    columns = _chains(found, _neighbours(found, columns=True), leftover)
    sets = [_row_order(found, c) for c in rows if len(c) >= MIN_SET_TILES]
    sets += [_column_order(found, c) for c in columns if len(c) >= MIN_SET_TILES]
    placed = {i for s in sets for i in s}
    rest = [i for i in range(count) if i not in placed]
    if kind == "table":
        sets += [_row_order(found, c) for c in rows if len(c) < MIN_SET_TILES and c[0] in rest]
        return Layout(sets=_reading_order_of_sets(found, sets), rack=None)
    if sets and _looks_like_rack(found, sets):
        return Layout(sets=[], rack=_rack_order(found, list(range(count))))
    if rest and not _stand_alike(found, rest):
        # Loose tiles lying every which way are on the table, not on a rack (rack tiles stand
        # in tiers, all the same way up): they are the table's unfinished sets.
        sets += [_row_order(found, c) for c in rows if len(c) < MIN_SET_TILES and c[0] in rest]
        return Layout(sets=_reading_order_of_sets(found, sets), rack=None)
    return Layout(sets=_reading_order_of_sets(found, sets), rack=_rack_order(found, rest) if rest else None)


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


def _looks_like_rack(found: TileDetections, sets: list[list[int]]) -> bool:
    """No chain is a valid set, and every tile stands upright the same way: a rack photo."""
    tiles = found.tiles()
    for members in sets:
        chain = [tiles[i] for i in members]
        if any(t is None for t in chain) or classify(chain).valid:  # type: ignore[arg-type]
            return False  # unread tiles cannot be judged: keep the table reading
    return _stand_alike(found, list(range(len(found))))


def _stand_alike(found: TileDetections, members: list[int]) -> bool:
    """Every one of ``members`` stands the same way up (within MAX_TURN_DEGREES), as on a rack."""
    up = found.up_vectors[members]
    return bool(np.all(up @ up.mean(axis=0) >= np.cos(np.radians(MAX_TURN_DEGREES))))
