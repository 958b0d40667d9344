"""Tile geometry shared by training data and inference: corner order, crop size, the crop warp.

The reader only reads well what it was taught on, so the crops cut when a dataset is written
(``datasets/``) and the crops cut from a user's photo (``vision/reader.py``) must come from the
*same* code: same corner order, same size, same resampling. This module is that code; both
sides import it (a test cuts one tile both ways and compares the pixels).

A tile's outline is four corners in pixels, ordered as the tile's own face reads: top-left,
top-right, bottom-right, bottom-left of the upright tile (number at the top).
"""

from __future__ import annotations

import cv2
import numpy as np

#: Size (w, h) of every reader crop: portrait, as real tiles are about 3:4.
CROP_SIZE: tuple[int, int] = (72, 96)
#: Two sides within this ratio count as equally long when telling the long side of a box.
SQUARE_TOLERANCE = 1.02


def warp_crop(image_bgr: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CROP_SIZE) -> np.ndarray:
    """The tile face as an upright ``size`` (w, h) crop; corners are TL, TR, BR, BL.

    A tile much larger than the crop (a 12 MP photo, a close-up) is first warped at a whole
    multiple of the crop size near its own size and then shrunk by area averaging, so fine
    print does not alias into noise; a tile about crop-sized or smaller is warped directly.
    """
    w, h = size
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    tile_w = float(np.linalg.norm(corners[1] - corners[0]))
    factor = max(1, int(tile_w / w))
    warp_w, warp_h = w * factor, h * factor
    target = np.array([[0, 0], [warp_w - 1, 0], [warp_w - 1, warp_h - 1], [0, warp_h - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners, target)
    crop = cv2.warpPerspective(image_bgr, matrix, (warp_w, warp_h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)
    if factor > 1:
        crop = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    return crop


def portrait_order(corners: np.ndarray) -> np.ndarray:
    """Order four corners as top-left, top-right, bottom-right, bottom-left of a tile standing
    upright (long side vertical), the side nearer the photo's top taken as the top.

    Corners may come in any order. They are sorted clockwise on screen; of the four starts, one
    whose top and bottom edges (averaged) are not longer than its sides (within
    ``SQUARE_TOLERANCE``, so a box seen nearly square may stand either way) and whose top edge
    lies highest in the photo wins. Which way up the tile really is stays the reader's (or the
    ink's) call: this only makes the order predictable.
    """
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    centre = corners.mean(axis=0)
    # Image y points down, so increasing atan2 runs clockwise on screen.
    ring = corners[np.argsort(np.arctan2(corners[:, 1] - centre[1], corners[:, 0] - centre[0]), kind="stable")]
    best, best_score = ring, None
    for start in range(4):
        candidate = np.roll(ring, -start, axis=0)
        across = (np.linalg.norm(candidate[1] - candidate[0]) + np.linalg.norm(candidate[2] - candidate[3])) / 2
        along = (np.linalg.norm(candidate[3] - candidate[0]) + np.linalg.norm(candidate[2] - candidate[1])) / 2
        top_y = float(candidate[0, 1] + candidate[1, 1]) / 2
        score = (bool(across <= along * SQUARE_TOLERANCE), -top_y)
        if best_score is None or score > best_score:
            best, best_score = candidate, score
    return best.astype(np.float32)


def overlapping_windows(width: int, height: int, side: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """Square windows ``(x0, y0, x1, y1)`` of ``side`` pixels (at most the photo's own sides)
    that cover a ``width x height`` photo, neighbours sharing at least ``overlap`` pixels.

    A finer look at a photo runs the finder on each window (as supervision's InferenceSlicer
    and SAHI slice); a tile no wider than the overlap lies wholly inside some window, so a box
    cut by a window's inner edge can be dropped and the tile is still found whole elsewhere.
    """
    def starts(length: int, window: int) -> list[int]:
        if window >= length:
            return [0]
        step = max(1, window - overlap)
        count = int(np.ceil((length - window) / step)) + 1
        return sorted({int(round(v)) for v in np.linspace(0, length - window, count)})

    w_side, h_side = min(side, width), min(side, height)
    return [(x, y, x + w_side, y + h_side) for y in starts(height, h_side) for x in starts(width, w_side)]


#: Share of the smaller box two boxes may have in common before the weaker one is a repeat of
#: the stronger: tiles lie side by side, never on each other, so two boxes sharing this much are
#: one tile seen twice.
MAX_SHARED_AREA = 0.4


def rotated_rects(corners: np.ndarray) -> np.ndarray:
    """Each quadrilateral ``(N, 4, 2)`` as its smallest turned rectangle, rows of
    ``(cx, cy, w, h, degrees)`` (the finder's box form)."""
    rows = [cv2.minAreaRect(np.asarray(c, np.float32).reshape(4, 2)) for c in corners]
    return np.array([(cx, cy, w, h, angle) for (cx, cy), (w, h), angle in rows], np.float32).reshape(-1, 5)


def drop_nested(rects: np.ndarray, scores: np.ndarray, keep: np.ndarray,
                droppable: np.ndarray | None = None) -> np.ndarray:
    """Indices (ascending) of ``keep`` without the boxes that share more than
    ``MAX_SHARED_AREA`` of the smaller box's area with a better-scored box kept; only boxes
    where ``droppable`` is True (all by default) may be dropped.

    Tiles never overlap in a photo, but one tile found twice at two angles overlaps too little
    (by IoU) for rotated NMS to notice; measured against the smaller box the overlap is large.
    The finder merges its looks with it (``scores``: its own); the scanner drops a tile read
    twice with it (``scores``: the reader's, ``droppable``: the reads it is unsure of).
    """
    order = keep[np.argsort(-scores[keep], kind="stable")]  # surest first: a box kept is as sure
    kept: list[int] = []
    as_rect = lambda r: ((float(r[0]), float(r[1])), (float(r[2]), float(r[3])), float(r[4]))  # noqa: E731
    for index in order:
        if droppable is not None and not droppable[index]:
            kept.append(int(index))
            continue
        candidate = as_rect(rects[index])
        area = float(rects[index, 2] * rects[index, 3])
        duplicate = False
        for better in kept:
            kind, region = cv2.rotatedRectangleIntersection(candidate, as_rect(rects[better]))
            if kind != cv2.INTERSECT_NONE and region is not None:
                shared = cv2.contourArea(cv2.convexHull(region))
                smaller = min(area, float(rects[better, 2] * rects[better, 3]))
                if shared > MAX_SHARED_AREA * smaller:
                    duplicate = True
                    break
        if not duplicate:
            kept.append(int(index))
    return np.array(sorted(kept), dtype=int)
