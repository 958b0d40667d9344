"""Tile outlines: polygon -> oriented quadrilateral -> boxes and upright crops.

A tile's outline is kept as four corners in pixels, ordered as the tile's own face reads:
top-left, top-right, bottom-right, bottom-left *of the upright tile* (number at the top). Both
detector formats come from those corners: the axis-aligned box is their min/max, the oriented
box is the corners themselves. Crops are warped from the corners, so they come out upright and
portrait whatever the tile's angle in the photo.

The corner order, the crop size and the crop warp itself are the reader's
(:mod:`vision.geometry`): training crops must be cut exactly as inference cuts them.
"""

from __future__ import annotations

import cv2
import numpy as np
from rummi.vision.geometry import portrait_order


def min_area_quad(points: np.ndarray) -> np.ndarray:
    """Four corners (4x2 float32) of the minimum-area rectangle around ``points`` (Nx2 pixels).

    The corners are rotated so that the rectangle is *portrait* in its own frame: corner 0->1 is
    a short side (the tile's top edge) and 1->2 a long side. Which short side is the top is not
    known from a polygon; :func:`flip_quad` turns the quad by 180 degrees when a later look at
    the pixels says so.
    """
    rect = cv2.minAreaRect(np.asarray(points, dtype=np.float32).reshape(-1, 2))
    box = cv2.boxPoints(rect).astype(np.float32)
    return portrait_order(box)


def flip_quad(quad: np.ndarray) -> np.ndarray:
    """The same outline with top and bottom swapped (the tile turned by 180 degrees)."""
    return np.roll(np.asarray(quad, dtype=np.float32), 2, axis=0)


def axis_box(quad: np.ndarray) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) around the corners."""
    q = np.asarray(quad, dtype=np.float32).reshape(-1, 2)
    return float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())


def ink_offset(crop: np.ndarray) -> float:
    """Where the printed number sits in an upright-ordered crop, from -1 (top) to +1 (bottom).

    On every edition we know, the big number is printed in the upper part of the face and only
    a faint mark below it, so ink (pixels darker or more saturated than the plastic) has its
    centre of mass above the middle when the tile is upright. 0 means "cannot tell".
    """
    h, w = crop.shape[:2]
    inner = crop[int(h * 0.08): int(h * 0.92), int(w * 0.12): int(w * 0.88)]
    hsv = cv2.cvtColor(inner, cv2.COLOR_BGR2HSV).astype(np.float32)
    sat, val = hsv[..., 1], hsv[..., 2]
    plastic_v, plastic_s = float(np.median(val)), float(np.median(sat))
    ink = ((plastic_v - val) > 60) | ((sat - plastic_s) > 70)
    if ink.sum() < 0.01 * ink.size:
        return 0.0
    rows = np.nonzero(ink)[0].astype(np.float32)
    centre = (inner.shape[0] - 1) / 2.0
    return float((rows.mean() - centre) / centre)
