"""Things that are not tiles: hands, coins, pens, dice, a phone, a score pad, a cup.

They are drawn over the table (and over tiles: a hand reaching in hides part of a set). They
clear the id map where they cover a tile, so partly hidden tiles know how much of them shows.
Dice and the score pad are deliberately tile-like (white, rectangular, with marks): the finder
must learn not to call them tiles.
"""

from __future__ import annotations

import cv2
import numpy as np
from rummi.datasets.synth.compose import Canvas

SKIN_BGR = ((150, 175, 225), (120, 150, 205), (95, 125, 175), (70, 95, 140), (45, 65, 100))


def add_distractors(rng: np.random.Generator, canvas: Canvas, view_box: tuple[float, float, float, float],
                    tile_width: float) -> list[str]:
    """Draw 0-3 distractors inside ``view_box`` (x0, y0, x1, y1); returns their names."""
    drawn = []
    if rng.random() < 0.22:
        _hand(rng, canvas, view_box, tile_width)
        drawn.append("hand")
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        name = str(rng.choice(["coin", "pen", "die", "phone", "pad", "cup"]))
        {"coin": _coin, "pen": _pen, "die": _die, "phone": _phone, "pad": _pad, "cup": _cup}[name](
            rng, canvas, view_box, tile_width)
        drawn.append(name)
    return drawn


def _point(rng: np.random.Generator, box: tuple[float, float, float, float]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.array([rng.uniform(x0, x1), rng.uniform(y0, y1)])


def _disc_mask(canvas: Canvas, centre: np.ndarray, radius: float) -> tuple[int, int, np.ndarray] | None:
    h, w = canvas.shape
    x0, y0 = max(0, int(centre[0] - radius - 2)), max(0, int(centre[1] - radius - 2))
    x1, y1 = min(w, int(centre[0] + radius + 3)), min(h, int(centre[1] + radius + 3))
    if x1 <= x0 or y1 <= y0:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.circle(mask, (int(round((centre[0] - x0) * 4)), int(round((centre[1] - y0) * 4))), int(radius * 4), 1.0,
               -1, cv2.LINE_AA, 2)
    return x0, y0, mask


def _shaded(mask: np.ndarray, colour: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    h, w = mask.shape
    ramp = np.linspace(1 + amount, 1 - amount, h, dtype=np.float32)[:, None] * np.ones((1, w), np.float32)
    if rng.random() < 0.5:
        ramp = ramp.T if h == w else ramp[::-1]
    return colour[None, None, :] * ramp[..., None]


def _hand(rng: np.random.Generator, canvas: Canvas, box: tuple[float, float, float, float], tile_width: float) -> None:
    """A palm and fingers reaching in from one side of the view."""
    x0, y0, x1, y1 = box
    skin = np.array(SKIN_BGR[int(rng.integers(len(SKIN_BGR)))], np.float32) * rng.uniform(0.85, 1.1)
    side = int(rng.integers(4))
    tip = _point(rng, (x0 + (x1 - x0) * 0.2, y0 + (y1 - y0) * 0.2, x1 - (x1 - x0) * 0.2, y1 - (y1 - y0) * 0.2))
    base = {0: (tip[0], y1 + tile_width * 3), 1: (x1 + tile_width * 3, tip[1]),
            2: (tip[0], y0 - tile_width * 3), 3: (x0 - tile_width * 3, tip[1])}[side]
    base = np.array(base) + rng.normal(0, tile_width, 2)
    direction = tip - base
    length = np.linalg.norm(direction) + 1e-6
    direction /= length
    normal = np.array([-direction[1], direction[0]])
    scale = tile_width * rng.uniform(1.6, 2.6)
    h, w = canvas.shape
    mask = np.zeros((h, w), np.uint8)
    palm = tip - direction * scale * 1.6
    cv2.line(mask, tuple(np.int32(base)), tuple(np.int32(palm)), 255, int(scale * 1.5))
    cv2.ellipse(mask, tuple(np.int32(palm)), (int(scale * 0.9), int(scale * 0.75)),
                float(np.degrees(np.arctan2(direction[1], direction[0]))), 0, 360, 255, -1)
    for spread in (-0.75, -0.25, 0.25, 0.75):
        start = palm + normal * spread * scale * 0.8
        finger_len = scale * (1.1 + 0.25 * (1 - abs(spread))) * rng.uniform(0.6, 1.05)
        bend = rng.normal(0, 0.15)
        end = start + (direction + normal * (spread * 0.3 + bend)) * finger_len
        cv2.line(mask, tuple(np.int32(start)), tuple(np.int32(end)), 255, max(3, int(scale * 0.32)))
    thumb_start = palm + normal * scale * rng.choice([-0.9, 0.9])
    cv2.line(mask, tuple(np.int32(thumb_start)), tuple(np.int32(thumb_start + (direction * 0.6 + normal * np.sign(
        thumb_start - palm).dot(normal) * 0.6) * scale)), 255, max(3, int(scale * 0.36)))
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    bx0, by0, bx1, by1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    alpha = cv2.GaussianBlur(mask[by0:by1, bx0:bx1].astype(np.float32) / 255.0, (0, 0), 1.2)
    colour = _shaded(alpha, skin, rng, 0.12)
    canvas.blend(int(bx0), int(by0), alpha, colour)


def _coin(rng, canvas, box, tile_width) -> None:
    placed = _disc_mask(canvas, _point(rng, box), tile_width * rng.uniform(0.4, 0.7))
    if placed:
        x0, y0, mask = placed
        colour = np.array(rng.choice([[60, 150, 190], [170, 170, 175], [50, 110, 160]]), np.float32)
        canvas.blend(x0, y0, mask, _shaded(mask, colour, rng, 0.25))


def _cup(rng, canvas, box, tile_width) -> None:
    centre, radius = _point(rng, box), tile_width * rng.uniform(1.5, 2.5)
    outer = _disc_mask(canvas, centre, radius)
    inner = _disc_mask(canvas, centre, radius * 0.85)
    if outer and inner:
        colour = np.array(rng.uniform(30, 240, 3), np.float32)
        canvas.blend(outer[0], outer[1], outer[2], _shaded(outer[2], colour, rng, 0.15))
        canvas.blend(inner[0], inner[1], inner[2], _shaded(inner[2], colour * 0.55, rng, 0.2))


def _rotated_rect(centre: np.ndarray, size: tuple[float, float], angle: float) -> np.ndarray:
    return cv2.boxPoints(((float(centre[0]), float(centre[1])), size, angle)).astype(np.float32)


def _pen(rng, canvas, box, tile_width) -> None:
    rect = _rotated_rect(_point(rng, box), (tile_width * rng.uniform(4, 7), tile_width * 0.25),
                         float(rng.uniform(0, 180)))
    canvas.polygon(rect, rng.uniform(20, 230, 3))


def _phone(rng, canvas, box, tile_width) -> None:
    centre, angle = _point(rng, box), float(rng.uniform(0, 180))
    canvas.polygon(_rotated_rect(centre, (tile_width * 2.6, tile_width * 5.2), angle), (20, 20, 22))
    canvas.polygon(_rotated_rect(centre, (tile_width * 2.3, tile_width * 4.6), angle), rng.uniform(30, 90, 3))


def _die(rng, canvas, box, tile_width) -> None:
    centre, angle, side = _point(rng, box), float(rng.uniform(0, 90)), tile_width * rng.uniform(0.7, 1.0)
    canvas.polygon(_rotated_rect(centre, (side, side), angle), (235, 238, 240))
    pips = int(rng.integers(1, 7))
    offsets = [(0, 0), (-0.25, -0.25), (0.25, 0.25), (-0.25, 0.25), (0.25, -0.25), (-0.25, 0), (0.25, 0)][:pips]
    a = np.radians(angle)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    for offset in offsets:
        spot = centre + rotation @ (np.array(offset) * side)
        placed = _disc_mask(canvas, spot, side * 0.08)
        if placed:
            canvas.blend(placed[0], placed[1], placed[2], np.array([30, 30, 30], np.float32))


def _pad(rng, canvas, box, tile_width) -> None:
    centre, angle = _point(rng, box), float(rng.uniform(-30, 30))
    size = (tile_width * rng.uniform(4, 7), tile_width * rng.uniform(5, 8))
    canvas.polygon(_rotated_rect(centre, size, angle), (245, 248, 250))
    a = np.radians(angle)
    along = np.array([np.cos(a), np.sin(a)])
    across = np.array([-np.sin(a), np.cos(a)])
    for k in range(1, 7):
        y = (k / 7 - 0.5) * size[1]
        start = centre + across * y - along * size[0] * 0.4
        stroke = np.array([start, start + along * size[0] * rng.uniform(0.2, 0.8)], np.float32)
        line = np.vstack([stroke, stroke[::-1] + across * 1.5])
        canvas.polygon(line, (120, 60, 20), clears_ids=True)


def _sticker(rng, canvas, box, tile_width) -> None:
    """A bottle or box sticker: a bright label of tile size with a mark on it."""
    centre, angle = _point(rng, box), float(rng.uniform(0, 180))
    size = (tile_width * rng.uniform(0.7, 1.2), tile_width * rng.uniform(0.9, 1.6))
    canvas.polygon(_rotated_rect(centre, size, angle), rng.uniform(60, 255, 3))
    placed = _disc_mask(canvas, centre + rng.normal(0, 0.1, 2) * tile_width, tile_width * rng.uniform(0.15, 0.35))
    if placed:
        canvas.blend(placed[0], placed[1], placed[2], rng.uniform(0, 200, 3).astype(np.float32))


#: Tile-sized things a finder may box: what the reader must learn to answer "none" to.
TILE_SIZED = {"die": _die, "coin": _coin, "pad": _pad, "sticker": _sticker}


def tile_sized_clutter(rng: np.random.Generator, tile_width: float) -> tuple[np.ndarray, str]:
    """One tile-sized object that is not a tile, centred on a random table surface.

    Returns a square BGR picture ``4 * tile_width`` wide with the object at its centre, and the
    object's name. Why: on generated scenes the finder boxed dice (3 of 7 false finds, read as a
    1 or a 4), which the reader had too few of to learn as "not a tile".
    """
    from rummi.datasets.synth import textures

    side = int(round(4 * tile_width))
    canvas = Canvas(textures.surface(rng, (side, side)))
    name = str(rng.choice(sorted(TILE_SIZED)))
    middle = side / 2
    jitter = tile_width * 0.1
    TILE_SIZED[name](rng, canvas, (middle - jitter, middle - jitter, middle + jitter, middle + jitter), tile_width)
    return np.clip(canvas.image, 0, 255).astype(np.uint8), name
