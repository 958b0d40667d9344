"""One generated scene, start to finish: table, rack, tiles, distractors, camera, photo.

``render_scene(seed, index, bank)`` is a pure function of its arguments: the random generator
is seeded by ``(seed, index)``, so any worker can render any scene and a seed reproduces a
dataset exactly, whatever the number of processes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from rummi.datasets.scene import ORIENTATION_GENERATED, LabelledTile, Scene
from rummi.datasets.synth import textures
from rummi.datasets.synth.camera import apply_view, photo_effects, transform_points, view_homography
from rummi.datasets.synth.compose import Canvas, Placement
from rummi.datasets.synth.distractors import add_distractors
from rummi.datasets.synth.layouts import SCENE_KINDS, SCENE_WEIGHTS, Layout, RackGeometry, make_layout
from rummi.datasets.synth.real_tiles import RealTile
from rummi.datasets.synth.styles import POOL_SIZE, PRESSMAN_POOL_SIZE, PRESSMAN_SHARE, style_pool
from rummi.datasets.synth.tile_art import TileStyle, render_face

OUTPUT_SIZES = ((640, 480), (800, 600), (1000, 750))  # w, h (landscape); 35% are turned portrait
OUTPUT_SIZE_WEIGHTS = (0.35, 0.4, 0.25)
PLANE_MARGIN = 1.35
#: A tile is labelled when at least this share of its face shows (and at least MIN_VISIBLE_PX).
MIN_VISIBLE_FRACTION = 0.3
#: The third number of the seed of the stream that draws a scene's print.
PRINT_STREAM = 1
MIN_VISIBLE_PX = 30


@dataclass
class RenderedScene:
    """The scene plus the evidence that its labels are right.

    ``ids`` is the output-size map of which placement (1-based) each pixel shows; tile ``k`` of
    ``scene.tiles`` is placement ``label_ids[k]``; ``placement_quads[j]`` is placement ``j + 1``'s
    face in output pixels, labelled or not.
    """

    scene: Scene
    ids: np.ndarray
    label_ids: list[int]
    placement_quads: list[np.ndarray]


class FaceCache:
    """Rendered faces per (printing, tile), bounded so a long run keeps a steady memory use."""

    def __init__(self, limit: int = 2000) -> None:
        self.limit = limit
        self._faces: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()

    def face(self, style_index: int, style: TileStyle, notation: str) -> np.ndarray:
        key = (style_index, notation)
        sprite = self._faces.get(key)
        if sprite is None:
            sprite = render_face(notation, style)
            self._faces[key] = sprite
            if len(self._faces) > self.limit:
                self._faces.popitem(last=False)
        else:
            self._faces.move_to_end(key)
        return sprite


_FACES = FaceCache()


def render_scene(seed: int, index: int, bank: Sequence[RealTile] = (), kind: str | None = None,
                 pressman_share: float = PRESSMAN_SHARE) -> RenderedScene:
    """Scene ``index`` of the dataset ``seed``. ``pressman_share``: the chance its box is of the
    pressman print rather than a classic or modern one (the benchmark asks for 0 or 1 to
    render each print's scenes on the same layouts)."""
    rng = np.random.default_rng([seed, index])
    ow, oh = OUTPUT_SIZES[int(rng.choice(len(OUTPUT_SIZES), p=OUTPUT_SIZE_WEIGHTS))]
    if rng.random() < 0.35:
        ow, oh = oh, ow
    out = (oh, ow)
    plane = (int(oh * PLANE_MARGIN), int(ow * PLANE_MARGIN))
    kind = kind or str(rng.choice(SCENE_KINDS, p=SCENE_WEIGHTS))
    surface_kind = str(rng.choice(textures.SURFACES, p=(0.35, 0.2, 0.2, 0.25)))
    canvas = Canvas(textures.surface(rng, plane, surface_kind))
    layout = make_layout(rng, plane, out, kind)

    styles = style_pool()
    style_index = int(rng.integers(POOL_SIZE))
    # Whether the box is a pressman one is drawn from a stream of its own, so every other draw
    # of the scene (layout, light, camera) is what it was before that print existed.
    print_rng = np.random.default_rng([seed, index, PRINT_STREAM])
    if print_rng.random() < pressman_share:
        style_index = POOL_SIZE + int(print_rng.integers(PRESSMAN_POOL_SIZE))
    real_share = float(rng.choice([0.0, 0.4, 0.7, 1.0], p=[0.2, 0.25, 0.3, 0.25])) if bank else 0.0
    by_notation = _bank_index(bank)
    light = rng.normal(0, 1, 2)
    light = light / (np.linalg.norm(light) + 1e-6)

    face_areas = _draw_tiles(rng, canvas, layout, styles[style_index], style_index, real_share, by_notation, light)
    tile_width = float(np.median([p.width for p in layout.placements])) if layout.placements else max(out) * 0.05
    ph, pw = plane
    view_box = (pw / 2 - ow / 2, ph / 2 - oh / 2, pw / 2 + ow / 2, ph / 2 + oh / 2)
    distractors = add_distractors(rng, canvas, view_box, tile_width)

    matrix = view_homography(rng, plane, out, any_rotation=kind == "closeup" and rng.random() < 0.5)
    plane_image = np.clip(canvas.image, 0, 255).astype(np.uint8)
    photo, ids = apply_view(matrix, plane_image, canvas.ids, out)
    photo, effects = photo_effects(rng, photo)

    visible = np.bincount(ids.ravel().astype(np.int64), minlength=len(layout.placements) + 1)
    tiles, label_ids, remap = [], [], {}
    quads = [transform_points(matrix, p.quad()) for p in layout.placements]
    for number, placement in enumerate(layout.placements, start=1):
        quad = quads[number - 1]
        area = abs(cv2.contourArea(quad))
        shown = int(visible[number])
        if face_areas[number - 1] == 0 or area <= 0 or shown < max(MIN_VISIBLE_PX, MIN_VISIBLE_FRACTION * area):
            continue
        remap[number - 1] = len(tiles)
        tiles.append(LabelledTile(placement.notation, quad, ORIENTATION_GENERATED, 1.0, placement.on_rack,
                                  None, min(1.0, shown / area)))
        label_ids.append(number)
    sets = []
    for members in layout.sets:
        kept = [remap[i] for i in members if i in remap]
        if kept:
            for tile_index in kept:
                tiles[tile_index].set_index = len(sets)
            sets.append(kept)
    meta = {
        "generator": "rummi dataset synth", "seed": seed, "index": index, "kind": kind,
        "surface": surface_kind, "printing": styles[style_index].printing,
        "font": styles[style_index].font.name, "real_share": real_share, "distractors": distractors,
        "effects": effects, "jpeg_quality": int(rng.integers(45, 96)),
    }
    scene = Scene(f"s{seed}-{index:06d}", photo, tiles, sets, meta)
    return RenderedScene(scene, ids, label_ids, quads)


def _bank_index(bank: Sequence[RealTile]) -> dict[str, list[RealTile]]:
    index: dict[str, list[RealTile]] = {}
    for tile in bank:
        index.setdefault(tile.notation, []).append(tile)
    return index


def _draw_tiles(rng: np.random.Generator, canvas: Canvas, layout: Layout, style: TileStyle, style_index: int,
                real_share: float, by_notation: dict[str, list[RealTile]], light: np.ndarray) -> list[int]:
    """Draw the rack (if any) and every placement; returns each placement's face area."""
    areas = [0] * len(layout.placements)
    rack = layout.rack
    thickness = float(rng.uniform(0.04, 0.12))
    shadow_strength = float(rng.uniform(0.15, 0.5))
    order = sorted(range(len(layout.placements)), key=lambda i: layout.placements[i].centre[1])
    if rack is not None:
        _draw_rack_body(rng, canvas, rack)
    lips_drawn = 0
    for i in order:
        placement = layout.placements[i]
        if rack is not None:
            while lips_drawn < len(rack.baselines) and placement.centre[1] > rack.baselines[lips_drawn]:
                _draw_lip(canvas, rack, rack.baselines[lips_drawn])
                lips_drawn += 1
        sprite, side_colour = _sprite_for(rng, placement, style, style_index, real_share, by_notation)
        quad = placement.quad()
        side = (0.0, -placement.width * thickness * 0.5) if placement.on_rack else \
            tuple(light * placement.width * thickness)
        if not placement.on_rack:
            canvas.shadow(quad, tuple(light * placement.width * (thickness + 0.08)), placement.width * 0.08,
                          shadow_strength)
        gain = np.float32(rng.normal(1.0, 0.035)) * rng.normal(1.0, 0.015, 3).astype(np.float32)
        areas[i] = canvas.paste_tile(sprite, quad, i + 1, gain, side, side_colour)
    if rack is not None:
        while lips_drawn < len(rack.baselines):
            _draw_lip(canvas, rack, rack.baselines[lips_drawn])
            lips_drawn += 1
    return areas


def _sprite_for(rng: np.random.Generator, placement: Placement, style: TileStyle, style_index: int,
                real_share: float, by_notation: dict[str, list[RealTile]]) -> tuple[np.ndarray, np.ndarray]:
    candidates = by_notation.get(placement.notation)
    if candidates and rng.random() < real_share:
        sprite = candidates[int(rng.integers(len(candidates)))].sprite
    else:
        sprite = _FACES.face(style_index, style, placement.notation)
    body = sprite[sprite.shape[0] // 2, :, :3][sprite[sprite.shape[0] // 2, :, 3] > 128]
    base = np.median(body, axis=0) if len(body) else np.array([200, 215, 225], np.float32)
    return sprite, (base * 0.72).astype(np.float32)


def _draw_rack_body(rng: np.random.Generator, canvas: Canvas, rack: RackGeometry) -> None:
    top = int(rack.y0 - rack.tier_height * 0.15)
    bottom = int(rack.baselines[-1] + rack.lip * 0.4)
    x0, x1 = int(rack.x0), int(rack.x1)
    h, w = canvas.shape
    y0c, y1c, x0c, x1c = max(0, top), min(h, bottom), max(0, x0), min(w, x1)
    if y1c <= y0c or x1c <= x0c:
        return
    plastic = textures.rack_plastic(rng, (y1c - y0c, x1c - x0c))
    canvas.blend(x0c, y0c, np.ones((y1c - y0c, x1c - x0c), np.float32), plastic)
    for baseline in rack.baselines[:-1]:  # the step between tiers catches light
        canvas.polygon(np.array([[x0, baseline], [x1, baseline], [x1, baseline + 3], [x0, baseline + 3]], np.float32),
                       (70, 70, 72))
    foot_w = rack.tier_height * 0.25
    for fx in (x0 + (x1 - x0) * 0.15, x1 - (x1 - x0) * 0.15):
        canvas.polygon(np.array([[fx - foot_w, bottom], [fx + foot_w, bottom], [fx + foot_w * 0.6, bottom + foot_w * 0.8],
                                 [fx - foot_w * 1.6, bottom + foot_w * 0.8]], np.float32), (15, 15, 18))


def _draw_lip(canvas: Canvas, rack: RackGeometry, baseline: float) -> None:
    """The ledge in front of a tier: hides the bottom of the tiles standing on it."""
    x0, x1 = rack.x0, rack.x1
    lip = np.array([[x0, baseline - rack.lip], [x1, baseline - rack.lip], [x1, baseline + rack.lip * 0.4],
                    [x0, baseline + rack.lip * 0.4]], np.float32)
    canvas.polygon(lip, (32, 31, 30))
    edge = np.array([[x0, baseline - rack.lip], [x1, baseline - rack.lip], [x1, baseline - rack.lip + 2],
                     [x0, baseline - rack.lip + 2]], np.float32)
    canvas.polygon(edge, (75, 75, 78))
