"""Procedural table surfaces (wood, marble, cloth, plain) and the dark plastic of a rack.

Everything is built from smooth random noise: a few coarse random grids resized up and summed
(cheap value noise), so a 1000x750 surface costs a few milliseconds.
"""

from __future__ import annotations

import cv2
import numpy as np

SURFACES = ("wood", "marble", "cloth", "plain")


def value_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int, octaves: int = 3) -> np.ndarray:
    """Smooth noise in about -1..1: ``octaves`` random grids, each twice as fine, resized up."""
    h, w = shape
    total = np.zeros((h, w), np.float32)
    amplitude, weight = 1.0, 0.0
    for octave in range(octaves):
        n = cells * (2 ** octave)
        grid = rng.uniform(-1, 1, (max(2, int(n * h / max(h, w))) + 1, n + 1)).astype(np.float32)
        total += amplitude * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        weight += amplitude
        amplitude *= 0.5
    return total / weight


def surface(rng: np.random.Generator, shape: tuple[int, int], kind: str | None = None) -> np.ndarray:
    """A table surface, HxWx3 uint8 BGR.

    Drawn at a third of the size and enlarged: the structure is smooth anyway, and camera noise is added
    to the whole photo later.
    """
    kind = kind or SURFACES[int(rng.integers(len(SURFACES)))]
    maker = {"wood": _wood, "marble": _marble, "cloth": _cloth, "plain": _plain}[kind]
    h, w = shape
    half = (max(8, h // 3), max(8, w // 3))
    image = maker(rng, half)
    image = image + (rng.standard_normal(half, dtype=np.float32) * float(rng.uniform(1.5, 4)))[..., None]
    image = np.clip(image, 0, 255).astype(np.uint8)
    return cv2.resize(image, (w, h), interpolation=cv2.INTER_LINEAR)


def _wood(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Planks with soft grain: stretched noise along the grain, colour varying plank by plank."""
    h, w = shape
    palettes = [((38, 58, 92), (22, 36, 60)), ((70, 110, 160), (45, 75, 120)), ((60, 85, 115), (35, 50, 75)),
                ((90, 140, 185), (60, 100, 140)), ((30, 42, 60), (18, 26, 40))]  # BGR light, dark
    light, dark = (np.array(c, np.float32) for c in palettes[int(rng.integers(len(palettes)))])
    vertical = rng.random() < 0.5
    long_side, short_side = (h, w) if vertical else (w, h)
    # grain: noise with many cells across the grain and few along it, then gently warped
    streaks = cv2.resize(rng.uniform(-1, 1, (max(4, short_side // 2), 6)).astype(np.float32),
                         (long_side, short_side), interpolation=cv2.INTER_CUBIC)
    blotches = value_noise(rng, (short_side, long_side), 3, 3)
    across = np.arange(short_side, dtype=np.float32)[:, None]
    rings = np.sin((across + blotches * rng.uniform(10, 40)) * rng.uniform(0.05, 0.25)) * 0.5 + 0.5
    t = 0.45 + streaks * 0.25 + (rings - 0.5) * rng.uniform(0.1, 0.4) + blotches * 0.25
    plank = rng.uniform(30, 90)
    plank_index = (across // plank).astype(np.int32)
    plank_shift = rng.uniform(-0.15, 0.15, int(short_side // plank) + 2).astype(np.float32)
    t = t + plank_shift[plank_index]
    t = np.where(np.mod(across, plank) < 1.0, t + 0.5, t)
    t = np.clip(t, 0, 1)
    wood = light * (1 - t[..., None]) + dark * t[..., None]
    return wood.transpose(1, 0, 2) if vertical else wood


def _marble(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    base = np.array(rng.choice([[236, 238, 240], [225, 228, 232], [60, 62, 66], [210, 218, 225]]), np.float32)
    turbulence = value_noise(rng, shape, 3, 4)
    angle = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along = (xx * np.cos(angle) + yy * np.sin(angle)) / max(h, w)
    veins = np.abs(np.sin((along * rng.uniform(3, 8) + turbulence * 2.5) * np.pi))
    vein = np.clip(1 - veins / rng.uniform(0.02, 0.08), 0, 1) * rng.uniform(0.25, 0.6)
    cloud = value_noise(rng, shape, 4, 3) * 8
    dark = 1 if base[0] > 128 else -1
    return base - dark * (vein[..., None] * 120) + cloud[..., None]


def _cloth(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Felt or woven cloth; sometimes a chunky knit of light and dark yarn, as in some photos."""
    h, w = shape
    if rng.random() < 0.3:
        stitch = rng.uniform(2, 5)
        yarn = rng.uniform(-1, 1, (int(h / stitch) + 1, int(w / (stitch * 0.6)) + 1)).astype(np.float32)
        knit = cv2.resize(yarn, (w, h), interpolation=cv2.INTER_NEAREST)
        knit = cv2.GaussianBlur(knit, (0, 0), 0.8)
        base = np.array([rng.uniform(150, 220)] * 3, np.float32)
        return base + knit[..., None] * rng.uniform(40, 80)
    colours = [[50, 110, 40], [120, 70, 30], [40, 40, 150], [90, 90, 90], [140, 160, 175], [30, 30, 35]]
    base = np.array(colours[int(rng.integers(len(colours)))], np.float32) * rng.uniform(0.8, 1.2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    period = rng.uniform(1.5, 2.5)
    weave = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)) * rng.uniform(3, 9)
    folds = value_noise(rng, shape, 3, 2) * rng.uniform(10, 30)
    return base + (weave + folds)[..., None]


def _plain(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    grey = rng.uniform(120, 235)
    tint = rng.uniform(-12, 12, 3)
    base = np.array([grey, grey, grey], np.float32) + tint
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    gradient = ((xx * np.cos(angle) + yy * np.sin(angle)) / max(h, w)) * rng.uniform(-40, 40)
    return base + (gradient + value_noise(rng, shape, 3, 2) * 6)[..., None]


def rack_plastic(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Dark textured plastic for a rack (BGR float32), with fine stipple like the real one."""
    level = rng.uniform(18, 45)
    tint = np.array([rng.uniform(0, 8), 0, rng.uniform(-4, 6)], np.float32)
    stipple = rng.normal(0, 6, shape).astype(np.float32)
    return np.clip(level + tint + stipple[..., None] + value_noise(rng, shape, 6, 2)[..., None] * 6, 0, 255)
