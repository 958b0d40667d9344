"""Pasting tiles onto a flat table canvas, keeping a per-pixel map of which tile is where.

The canvas is the table seen straight from above (the "plane"); the camera's perspective is
applied to the finished plane later (:mod:`datasets.synth.camera`), to pixels and labels alike.
The id map (0 = no tile, i + 1 = tile i) is what makes labels checkable: a tile's label must
cover its pixels, and every tile with pixels must have a label.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Placement:
    """A tile to draw: centre and width in plane pixels, clockwise angle in degrees (0 = upright)."""

    notation: str
    centre: tuple[float, float]
    width: float
    angle: float
    set_index: int | None = None
    on_rack: bool = False

    @property
    def height(self) -> float:
        return self.width * 4.0 / 3.0

    def quad(self) -> np.ndarray:
        """Corners TL, TR, BR, BL of the upright face, in plane pixels."""
        w, h = self.width / 2.0, self.height / 2.0
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], dtype=np.float32)
        a = np.radians(self.angle)
        rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], dtype=np.float32)
        return local @ rotation.T + np.array(self.centre, dtype=np.float32)


class Canvas:
    """A float32 BGR plane plus its tile id map."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image.astype(np.float32)
        self.ids = np.zeros(image.shape[:2], np.int16)  # OpenCV warps int16 but not int32

    @property
    def shape(self) -> tuple[int, int]:
        return self.image.shape[0], self.image.shape[1]

    def _roi(self, points: np.ndarray, pad: int) -> tuple[int, int, int, int] | None:
        h, w = self.shape
        x0 = max(0, int(np.floor(points[:, 0].min())) - pad)
        y0 = max(0, int(np.floor(points[:, 1].min())) - pad)
        x1 = min(w, int(np.ceil(points[:, 0].max())) + pad + 1)
        y1 = min(h, int(np.ceil(points[:, 1].max())) + pad + 1)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def shadow(self, quad: np.ndarray, offset: tuple[float, float], softness: float, strength: float) -> None:
        """Darken the table under a shifted, blurred copy of the outline."""
        shifted = quad + np.array(offset, dtype=np.float32)
        pad = int(3 * softness) + 2
        roi = self._roi(shifted, pad)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillConvexPoly(mask, np.round((shifted - [x0, y0]) * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)
        if softness > 0.3:
            mask = cv2.GaussianBlur(mask, (0, 0), softness)
        self.image[y0:y1, x0:x1] *= (1.0 - strength * mask)[..., None]

    def polygon(self, points: np.ndarray, colour: np.ndarray | tuple, clears_ids: bool = True) -> None:
        """Fill a polygon with a flat colour (rack parts, tile sides, objects)."""
        roi = self._roi(points, 1)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(mask, [np.round((points - [x0, y0]) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
        self.blend(x0, y0, mask, np.asarray(colour, np.float32), clears_ids)

    def blend(self, x0: int, y0: int, alpha: np.ndarray, colour: np.ndarray, clears_ids: bool = True) -> None:
        """Composite ``colour`` (a BGR triple or an HxWx3 patch) with ``alpha`` at (x0, y0)."""
        h, w = alpha.shape
        region = self.image[y0:y0 + h, x0:x0 + w]
        a = alpha[..., None]
        region[...] = region * (1 - a) + colour * a
        if clears_ids:
            self.ids[y0:y0 + h, x0:x0 + w][alpha > 0.5] = 0

    def paste_tile(self, sprite: np.ndarray, quad: np.ndarray, tile_id: int, gain: np.ndarray,
                   side: tuple[float, float], side_colour: np.ndarray) -> int:
        """Draw a tile: its side (thickness) then its face; returns its face area in pixels."""
        if abs(side[0]) + abs(side[1]) > 0.5:
            body = np.vstack([quad, quad + np.array(side, np.float32)])
            hull = cv2.convexHull(body).reshape(-1, 2)
            self.polygon(hull, side_colour, clears_ids=True)
        roi = self._roi(quad, 2)
        if roi is None:
            return 0
        x0, y0, x1, y1 = roi
        sh, sw = sprite.shape[:2]
        source = np.array([[0, 0], [sw, 0], [0, sh]], dtype=np.float32)
        target = np.array([quad[0], quad[1], quad[3]], dtype=np.float32) - np.array([x0, y0], np.float32)
        matrix = cv2.getAffineTransform(source, target)
        shrinking = np.linalg.norm(quad[1] - quad[0]) < sw * 0.7
        warped = cv2.warpAffine(sprite, matrix, (x1 - x0, y1 - y0),
                                flags=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3].astype(np.float32) / 255.0
        colour = warped[..., :3].astype(np.float32) * gain
        self.blend(x0, y0, alpha, colour, clears_ids=False)
        self.ids[y0:y1, x0:x1][alpha > 0.5] = tile_id
        return int((alpha > 0.5).sum())
