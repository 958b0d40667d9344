"""Tile outlines: polygon -> oriented quadrilateral -> boxes and upright crops.

A tile's outline is kept as four corners in pixels, ordered as the tile's own face reads:
top-left, top-right, bottom-right, bottom-left *of the upright tile* (number at the top). Both
detector formats come from those corners: the axis-aligned box is their min/max, the oriented
box is the corners themselves. Crops are warped from the corners, so they come out upright and
portrait whatever the tile's angle in the photo.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Width:height of a crop for the reader; real tiles are about 3:4 (portrait).
CROP_SIZE: tuple[int, int] = (72, 96)


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


def portrait_order(quad: np.ndarray) -> np.ndarray:
    """Reorder a quad's corners (kept cyclic) so the first edge is a short one, top edge on top.

    Among the two rotations that start on a short edge, the one whose top edge is nearer the
    top of the image is chosen: for a tile seen from above at a small angle that is upright.
    """
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    if _clockwise_area(quad) < 0:  # make corners go clockwise on screen (y down)
        quad = quad[::-1].copy()
    edge = lambda i: float(np.linalg.norm(quad[(i + 1) % 4] - quad[i]))  # noqa: E731
    start = 0 if edge(0) + edge(2) <= edge(1) + edge(3) else 1
    candidates = [np.roll(quad, -start, axis=0), np.roll(quad, -(start + 2), axis=0)]
    return min(candidates, key=lambda q: float(q[0, 1] + q[1, 1])).astype(np.float32)


def flip_quad(quad: np.ndarray) -> np.ndarray:
    """The same outline with top and bottom swapped (the tile turned by 180 degrees)."""
    return np.roll(np.asarray(quad, dtype=np.float32), 2, axis=0)


def _clockwise_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) / 2.0


def axis_box(quad: np.ndarray) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) around the corners."""
    q = np.asarray(quad, dtype=np.float32).reshape(-1, 2)
    return float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())


def warp_crop(image: np.ndarray, quad: np.ndarray, size: tuple[int, int] = CROP_SIZE) -> np.ndarray:
    """The tile face warped to an upright ``size`` (w, h) crop; quad is TL, TR, BR, BL."""
    w, h = size
    target = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(quad, dtype=np.float32), target)
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


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
