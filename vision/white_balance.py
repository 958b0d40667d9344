"""Colour that survives the light: every tile face is a white reference.

Under a tungsten lamp blue ink reads black and orange reads red; in a dark photo the same. But
every photo worth reading shows tile faces, and a face is plain light plastic (cream or white,
whatever the print) around a small printed number. So the scanner measures the plastic of the
tiles it found and, where its colour lies outside what plastic is (between neutral white and
the cream of the classic tiles), turns the photo's colours back into that range before it looks
for tiles again and reads them. A photo whose faces already
look like plastic under good light is left exactly as it is.

The plastic of one face: the pixels of its inner part between the 55th and 95th percentile of
brightness (the number's ink is darker, a glare spot brighter). The photo's: the median over its
surest tiles, so a false find (a knot in the wood) or a tile in a shadow does not decide.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

#: The plastic colours tiles have (B, G, R, relative): from neutral white (modern prints) to the
#: cream of the classic print (median face of the real training photos: 196, 218, 228).
NEUTRAL = np.array([1.0, 1.0, 1.0], np.float32)
CREAM = np.array([196.0, 218.0, 228.0], np.float32) / np.float32(214.0)
#: Largest gain on any channel: beyond it noise would be amplified into ink.
MAX_GAIN = 3.0
#: Gains within this of 1 change too little to be worth a second look for tiles.
NOTICEABLE = 0.12
BORDER = 0.12
#: Size (w, h) a face is cut at to measure its plastic: a colour needs no detail, and a third of
#: the reader's crop costs a ninth.
FACE_SAMPLE = (24, 32)


def _inner(crop_bgr: np.ndarray) -> np.ndarray:
    """A face crop without its ``BORDER`` (the tile's edge, and the table past it)."""
    h, w = crop_bgr.shape[:2]
    return crop_bgr[int(h * BORDER): h - int(h * BORDER), int(w * BORDER): w - int(w * BORDER)]


def plastic_colour(crop_bgr: np.ndarray) -> np.ndarray:
    """The (B, G, R) of a face's plastic in one upright tile crop."""
    pixels = _inner(crop_bgr).reshape(-1, 3).astype(np.float32)
    level = pixels.mean(axis=1)
    low, high = np.percentile(level, [55, 95])
    plastic = pixels[(level >= low) & (level <= high)]
    return np.median(plastic if len(plastic) else pixels, axis=0)


def face_gains(crops: Sequence[np.ndarray]) -> np.ndarray:
    """Per-channel (B, G, R) gains that bring the faces' plastic to the nearest colour plastic
    has, at the brightness it has; ones when there is no face to go by.

    Only the colour is turned: brightening dim faces as well (to the training photos' level)
    read no better at 40 % light and worse in a gamma-2.2 photo (more false finds), measured
    with ``benchmarks/vision_robustness.py``; a dark photo is told "more light" instead."""
    if not len(crops):
        return np.ones(3, np.float32)
    white = np.maximum(np.median(np.stack([plastic_colour(c) for c in crops]), axis=0), 1.0)
    level = float(white.mean())
    observed = white / level
    along = CREAM - NEUTRAL
    t = float(np.clip((observed - NEUTRAL) @ along / (along @ along), 0.0, 1.0))
    target = (NEUTRAL + t * along) * level
    return np.clip(target / white, 1.0 / MAX_GAIN, MAX_GAIN).astype(np.float32)


def noticeable(gains: np.ndarray) -> bool:
    return bool(np.max(np.abs(np.asarray(gains) - 1.0)) > NOTICEABLE)


def balanced(image_bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """The photo with each channel multiplied by its gain (uint8, clipped)."""
    table = np.stack([np.clip(np.arange(256, dtype=np.float32) * g, 0, 255) for g in gains]).round().astype(np.uint8)
    channels = [cv2.LUT(image_bgr[:, :, c], table[c]) for c in range(3)]
    return cv2.merge(channels)


#: A face's ink: its darkest pixels, this percentage of the face's inner part (a number's
#: strokes cover more; a small or soft crop mixes their edge with plastic, the darkest least).
INK_PERCENT = 8.0


def ink_blueness(crop_bgr: np.ndarray) -> float:
    """How blue a face's ink is next to its own plastic: (blue - red) of the ink's colour over
    the face's, divided by how dark the ink is (a faint ink's colour weighs as much as a deep
    one's). Black ink is neutral whatever the light (the plastic beside it is the reference):
    at most 0.14 for every black tile found on the held-out real photos, under a warm cast, at
    gamma 2.2, blurred and at 640 px, and on both generated prints; blue ink's median 0.7-1.3,
    its 5th percentile 0.2-0.75 (``benchmarks/ink_colour.py``)."""
    relative = _inner(crop_bgr).reshape(-1, 3).astype(np.float32) / np.maximum(plastic_colour(crop_bgr), 1.0)
    level = relative.mean(axis=1)
    ink = relative[level <= np.percentile(level, INK_PERCENT)].mean(axis=0)
    return float((ink[0] - ink[2]) / max(1.0 - float(ink.mean()), 0.05))
