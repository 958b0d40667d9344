"""Where tiles go on the table plane, for each kind of photo people take of a game.

Kinds (chosen per scene): ``melds`` (sets laid out touching, in rows or columns, a few loose
tiles), ``overview`` (a whole table of small sets), ``closeup`` (a few big loose tiles at any
angle, upside down included), ``rack`` (a dark two-tier rack, tiles upright, lips hiding their
bottoms, sometimes sets in front), ``pile`` (a dense scatter), ``empty`` (no tiles: negatives).
Placements never overlap each other; an occupancy mask at quarter size checks that cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from rummi.datasets.synth.compose import Placement
from rummi.datasets.synth.content import random_set, random_tile

SCENE_KINDS = ("melds", "overview", "closeup", "rack", "pile", "empty")
SCENE_WEIGHTS = (0.26, 0.17, 0.2, 0.2, 0.12, 0.05)
_OCC_SCALE = 0.25


@dataclass
class RackGeometry:
    """A rack in plane pixels: outer box, and per tier the baseline y and lip height."""

    x0: float
    x1: float
    y0: float
    tier_height: float
    tiers: int
    lip: float
    baselines: list[float] = field(default_factory=list)


@dataclass
class Layout:
    kind: str
    placements: list[Placement]
    sets: list[list[int]]
    rack: RackGeometry | None = None


class Occupancy:
    """Which parts of the plane already hold a tile (quarter resolution)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.mask = np.zeros((int(shape[0] * _OCC_SCALE) + 1, int(shape[1] * _OCC_SCALE) + 1), np.uint8)

    def _draw(self, quads: list[np.ndarray]) -> np.ndarray:
        canvas = np.zeros_like(self.mask)
        for quad in quads:
            cv2.fillConvexPoly(canvas, np.round(quad * _OCC_SCALE).astype(np.int32), 1)
        return canvas

    def fits(self, quads: list[np.ndarray]) -> bool:
        return not np.any(self._draw(quads) & self.mask)

    def take(self, quads: list[np.ndarray]) -> None:
        self.mask |= self._draw(quads)


def make_layout(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int], kind: str) -> Layout:
    """Placements for a scene of ``kind``; ``view`` is the output size, centred in the plane."""
    maker = {"melds": _melds, "overview": _overview, "closeup": _closeup, "rack": _rack,
             "pile": _pile, "empty": _empty}[kind]
    return maker(rng, plane, view)


def _area(plane: tuple[int, int], view: tuple[int, int], slack: float = 1.05) -> tuple[float, float, float, float]:
    """The plane rectangle the camera will roughly see (x0, y0, x1, y1)."""
    ph, pw = plane
    vh, vw = view
    half_w, half_h = vw * slack / 2, vh * slack / 2
    return pw / 2 - half_w, ph / 2 - half_h, pw / 2 + half_w, ph / 2 + half_h


def _set_angle(rng: np.random.Generator) -> float:
    draw = rng.random()
    if draw < 0.6:
        return float(rng.normal(0, 5))
    if draw < 0.75:
        return float(rng.choice([90.0, -90.0]) + rng.normal(0, 5))
    return float(rng.uniform(-180, 180))


def _meld_placements(rng: np.random.Generator, tiles: list[str], origin: np.ndarray, width: float,
                     angle: float, column: bool, set_index: int) -> list[Placement]:
    gap = width * float(rng.uniform(0.0, 0.05))
    step = (width * 4 / 3 + gap) if column else (width + gap)
    a = np.radians(angle)
    direction = np.array([-np.sin(a), np.cos(a)]) if column else np.array([np.cos(a), np.sin(a)])
    placements = []
    for i, notation in enumerate(tiles):
        centre = origin + direction * step * (i - (len(tiles) - 1) / 2)
        tile_angle = angle + float(rng.normal(0, 1.5))
        if rng.random() < 0.04:
            tile_angle += 180
        placements.append(Placement(notation, (float(centre[0]), float(centre[1])), width, tile_angle, set_index))
    return placements


def _place_sets(rng: np.random.Generator, area: tuple[float, float, float, float], width: float, count: int,
                occupancy: Occupancy, layout: Layout, column_rate: float, tries: int = 25) -> None:
    x0, y0, x1, y1 = area
    for _ in range(count):
        tiles = random_set(rng)
        column = rng.random() < column_rate
        angle = _set_angle(rng)
        for _attempt in range(tries):
            origin = np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])
            candidate = _meld_placements(rng, tiles, origin, width, angle, column, len(layout.sets))
            grown = [_grow(p.quad(), 1.12) for p in candidate]
            if occupancy.fits(grown):
                occupancy.take(grown)
                start = len(layout.placements)
                layout.placements.extend(candidate)
                layout.sets.append(list(range(start, start + len(candidate))))
                break


def _place_loose(rng: np.random.Generator, area: tuple[float, float, float, float], width: float, count: int,
                 occupancy: Occupancy, layout: Layout, angle_mode: str, tries: int = 20) -> None:
    x0, y0, x1, y1 = area
    for _ in range(count):
        notation = random_tile(rng)
        for _attempt in range(tries):
            centre = (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1)))
            placement = Placement(notation, centre, width * float(rng.uniform(0.97, 1.03)), _loose_angle(rng, angle_mode))
            grown = [_grow(placement.quad(), 1.06)]
            if occupancy.fits(grown):
                occupancy.take(grown)
                layout.placements.append(placement)
                break


def _loose_angle(rng: np.random.Generator, mode: str) -> float:
    draw = rng.random()
    if mode == "any" or draw < 0.3:
        return float(rng.uniform(-180, 180))
    if draw < 0.55:
        return float(180 + rng.normal(0, 12))
    return float(rng.normal(0, 12))


def _grow(quad: np.ndarray, factor: float) -> np.ndarray:
    centre = quad.mean(axis=0)
    return (quad - centre) * factor + centre


def _melds(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int]) -> Layout:
    layout = Layout("melds", [], [])
    width = max(view) * float(rng.uniform(0.05, 0.1))
    occupancy = Occupancy(plane)
    area = _area(plane, view, 0.9)
    _place_sets(rng, area, width, int(rng.integers(3, 9)), occupancy, layout, column_rate=0.15)
    _place_loose(rng, area, width, int(rng.integers(0, 5)), occupancy, layout, "mixed")
    return layout


def _overview(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int]) -> Layout:
    layout = Layout("overview", [], [])
    width = max(view) * float(rng.uniform(0.028, 0.055))
    occupancy = Occupancy(plane)
    area = _area(plane, view, 1.0)
    _place_sets(rng, area, width, int(rng.integers(8, 20)), occupancy, layout, column_rate=0.1)
    _place_loose(rng, area, width, int(rng.integers(0, 8)), occupancy, layout, "mixed")
    return layout


def _closeup(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int]) -> Layout:
    layout = Layout("closeup", [], [])
    width = min(view) * float(rng.uniform(0.12, 0.24))
    occupancy = Occupancy(plane)
    area = _area(plane, view, 0.8)
    mode = "any" if rng.random() < 0.4 else "mixed"
    if rng.random() < 0.3:
        _place_sets(rng, area, width, 1, occupancy, layout, column_rate=0.2)
    _place_loose(rng, area, width, int(rng.integers(3, 15)), occupancy, layout, mode)
    return layout


def _pile(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int]) -> Layout:
    layout = Layout("pile", [], [])
    width = max(view) * float(rng.uniform(0.035, 0.065))
    occupancy = Occupancy(plane)
    vh, vw = view
    ph, pw = plane
    radius = min(vh, vw) * float(rng.uniform(0.25, 0.45))
    area = (pw / 2 - radius, ph / 2 - radius, pw / 2 + radius, ph / 2 + radius)
    _place_loose(rng, area, width, int(rng.integers(25, 80)), occupancy, layout, "any", tries=8)
    return layout


def _empty(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int]) -> Layout:
    layout = Layout("empty", [], [])
    if rng.random() < 0.5:
        layout.rack = _rack_geometry(rng, plane, view, max(view) * float(rng.uniform(0.045, 0.08)))
    return layout


def _rack_geometry(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int],
                   width: float) -> RackGeometry:
    ph, pw = plane
    vh, vw = view
    rack_width = min(vw * float(rng.uniform(0.7, 0.98)), width * float(rng.uniform(14, 22)))
    tier_height = width * 4 / 3 * float(rng.uniform(1.0, 1.12))
    tiers = 2 if rng.random() < 0.85 else 1
    top = ph / 2 - tier_height * tiers / 2 + float(rng.uniform(-0.2, 0.2)) * vh
    geometry = RackGeometry(pw / 2 - rack_width / 2, pw / 2 + rack_width / 2, top, tier_height, tiers,
                            lip=tier_height * float(rng.uniform(0.1, 0.2)))
    geometry.baselines = [top + tier_height * (t + 1) for t in range(tiers)]
    return geometry


def _rack(rng: np.random.Generator, plane: tuple[int, int], view: tuple[int, int]) -> Layout:
    layout = Layout("rack", [], [])
    width = max(view) * float(rng.uniform(0.05, 0.095))
    rack = _rack_geometry(rng, plane, view, width)
    layout.rack = rack
    slots = int((rack.x1 - rack.x0 - width * 0.4) // (width * 1.02))
    for baseline in rack.baselines:
        fill = float(rng.uniform(0.2, 1.0))
        touching = rng.random() < 0.5
        x = rack.x0 + width * 0.2
        for _ in range(slots):
            if x + width > rack.x1 - width * 0.2:
                break
            if rng.random() < fill:
                cy = baseline - rack.lip * 0.3 - width * 4 / 6
                angle = float(rng.normal(0, 1.2)) + (180.0 if rng.random() < 0.03 else 0.0)
                layout.placements.append(Placement(random_tile(rng), (x + width / 2, cy), width, angle,
                                                   on_rack=True))
                x += width * (1.0 if touching else float(rng.uniform(1.02, 1.4)))
            else:
                x += width * float(rng.uniform(1.0, 1.5))
    if rng.random() < 0.35:  # sets on the table in front of the rack
        occupancy = Occupancy(plane)
        occupancy.take([np.array([[rack.x0, rack.y0], [rack.x1, rack.y0],
                                  [rack.x1, rack.baselines[-1] + rack.lip * 2],
                                  [rack.x0, rack.baselines[-1] + rack.lip * 2]], np.float32)])
        ph, pw = plane
        area = (pw / 2 - view[1] / 2, rack.baselines[-1] + width, pw / 2 + view[1] / 2, ph / 2 + view[0] / 2)
        if area[3] > area[1]:
            _place_sets(rng, area, width * 0.9, int(rng.integers(1, 4)), occupancy, layout, column_rate=0.0)
    return layout
