"""Find every tile in a photo: a one-class YOLO detector run with onnxruntime.

The detector sees a downscaled copy of the photo (tiles are large, simple shapes, so a few
hundred pixels are enough to find them); the corners it returns are scaled back to the full
photo, where the reader cuts each tile out at full resolution.

Two kinds of export are understood, told apart by ``model.json``'s ``task``:

* ``obb``: oriented boxes, output ``(1, 4 + classes + 1, anchors)`` = centre x, centre y,
  width, height, class scores, angle in radians. Tiles at any angle get tight corners.
* ``detect``: upright boxes, output ``(1, 4 + classes, anchors)``. Corners are the box's.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.geometry import portrait_order
from rummi.vision.onnx_model import ModelError, OnnxModel

LETTERBOX_GREY = 114  # the padding value ultralytics trains with


@dataclass(frozen=True)
class Letterbox:
    """How a photo was scaled and padded into the detector's square input."""

    scale: float
    pad_x: float
    pad_y: float

    def to_photo(self, points: np.ndarray) -> np.ndarray:
        return (points - np.array([self.pad_x, self.pad_y], np.float32)) / self.scale


def letterbox(image_bgr: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Scale the photo to fit ``size x size`` keeping its shape, pad the rest grey, as in training."""
    height, width = image_bgr.shape[:2]
    scale = min(size / width, size / height)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    # INTER_AREA averages the pixels a big photo folds together, so a 12 MP photo shrinks without
    # the aliasing that would make tile edges ragged.
    resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    pad_x, pad_y = (size - new_w) / 2, (size - new_h) / 2
    top, left = int(round(pad_y - 0.1)), int(round(pad_x - 0.1))
    canvas = cv2.copyMakeBorder(resized, top, size - new_h - top, left, size - new_w - left,
                                cv2.BORDER_CONSTANT, value=(LETTERBOX_GREY,) * 3)
    return canvas, Letterbox(scale, left, top)


class TileFinder:
    """Runs the tile detector. ``find(photo)`` returns the tiles' corners in photo pixels."""

    def __init__(self, model: OnnxModel) -> None:
        self.model = model
        self.task: str = model.meta.get("task", "obb")
        self.size: int = int(model.meta["imgsz"])
        self.confidence_threshold: float = float(model.meta.get("conf", 0.35))
        self.overlap_threshold: float = float(model.meta.get("iou", 0.5))
        self.refine_angles: bool = bool(model.meta.get("refine_angles", True))
        if self.task not in ("obb", "detect"):
            raise ModelError(f"unknown detector task {self.task!r} in {model.folder}/model.json")

    def find(self, image_bgr: np.ndarray, *, threshold: float | None = None) -> TileDetections:
        """The tiles' corners in photo pixels, with the detector's scores.

        ``threshold``: the lowest score kept, the model's own (``model.json: conf``) by default.
        A caller that knows where a tile must be (the watch tracker, where the table changed
        and nothing was found) asks for weaker boxes too; a weaker box never displaces a
        stronger one (both suppressions keep the higher score), so the boxes above the model's
        threshold are the same either way.
        """
        floor = self.confidence_threshold if threshold is None else float(threshold)
        canvas, box = letterbox(image_bgr, self.size)
        batch = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        output = self.model.run(np.ascontiguousarray(batch))[0]  # (channels, anchors)
        rects, scores = self._decode(output, floor)
        if not len(scores):
            return TileDetections.empty()
        keep = cv2.dnn.NMSBoxesRotated(
            [((float(r[0]), float(r[1])), (float(r[2]), float(r[3])), float(r[4])) for r in rects],
            scores.tolist(), floor, self.overlap_threshold,
        )
        keep = drop_nested(rects, scores, np.array(keep, dtype=int).reshape(-1))
        corners = np.stack([cv2.boxPoints(((r[0], r[1]), (r[2], r[3]), r[4])) for r in rects[keep]])
        corners = box.to_photo(corners.astype(np.float32))
        if self.refine_angles:
            corners = np.stack([refine_angle(image_bgr, c) for c in corners])
        return TileDetections.from_corners(np.stack([portrait_order(c) for c in corners]), scores[keep])

    def _decode(self, output: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
        """Rows of (cx, cy, w, h, angle in degrees) and scores, those scoring ``floor`` or more."""
        class_count = len(self.model.meta.get("names", ["tile"]))
        scores = output[4 : 4 + class_count].max(axis=0)
        chosen = scores >= floor
        xywh = output[:4, chosen].T
        if self.task == "obb":
            angles = np.degrees(output[4 + class_count, chosen])
        else:
            angles = np.zeros(int(chosen.sum()), np.float32)
        return np.column_stack([xywh, angles]).astype(np.float32), scores[chosen].astype(np.float32)


def drop_nested(rects: np.ndarray, scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Drop a box that shares much of its area with a better box.

    Tiles never overlap in a photo, but one tile found twice at two angles overlaps too little
    (by IoU) for rotated NMS to notice; measured against the smaller box the overlap is large.
    """
    order = keep[np.argsort(-scores[keep], kind="stable")]
    kept: list[int] = []
    as_rect = lambda r: ((float(r[0]), float(r[1])), (float(r[2]), float(r[3])), float(r[4]))  # noqa: E731
    for index in order:
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


#: Share of the smaller box two boxes may have in common before the weaker one is a duplicate.
MAX_SHARED_AREA = 0.4
#: Edge coherence below which the detector's own angle is kept (0: no dominant direction).
MIN_EDGE_COHERENCE = 0.2
PATCH = 64


def refine_angle(image_bgr: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Straighten a found box along the tile's own edges.

    The detector places tiles well but its angle can be tens of degrees off. A tile's outline
    and the strokes of its number run along two perpendicular directions, so the gradients
    around the tile agree on one angle modulo 90 degrees (found with the 4-fold angle average
    of the structure tensor). Of the four directions that angle allows, the one nearest the
    detector's long axis becomes the new long axis; centre and side lengths are kept. Where
    the gradients agree on nothing (blur, a busy background), the detector's box is kept.
    """
    corners = np.asarray(corners, np.float32)
    centre = corners.mean(axis=0)
    sides = [float(np.linalg.norm(corners[(i + 1) % 4] - corners[i])) for i in range(4)]
    long_side, short_side = max(sides[0], sides[1]), min(sides[0], sides[1])
    long_index = 0 if sides[0] >= sides[1] else 1
    long_vector = corners[long_index + 1] - corners[long_index]
    detector_angle = float(np.arctan2(long_vector[1], long_vector[0]))
    half = 0.75 * long_side
    x0, y0 = int(max(0, centre[0] - half)), int(max(0, centre[1] - half))
    x1, y1 = int(min(image_bgr.shape[1], centre[0] + half)), int(min(image_bgr.shape[0], centre[1] + half))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return corners
    patch = cv2.cvtColor(image_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    patch = cv2.resize(patch, (PATCH, PATCH), interpolation=cv2.INTER_AREA).astype(np.float32)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    grid = (np.arange(PATCH, dtype=np.float32) - (centre[0] - x0) * PATCH / (x1 - x0))[None, :] ** 2
    grid = grid + (np.arange(PATCH, dtype=np.float32) - (centre[1] - y0) * PATCH / (y1 - y0))[:, None] ** 2
    weight = np.exp(-grid / (2 * (0.45 * PATCH * long_side / (2 * half)) ** 2)) * (gx * gx + gy * gy)
    phase = 4 * np.arctan2(gy, gx)
    total = complex(float((weight * np.cos(phase)).sum()), float((weight * np.sin(phase)).sum()))
    if abs(total) < MIN_EDGE_COHERENCE * float(weight.sum()) + 1e-6:
        return corners
    edge_angle = np.angle(total) / 4
    candidates = edge_angle + np.arange(4) * np.pi / 2
    distance = np.abs((candidates - detector_angle + np.pi / 2) % np.pi - np.pi / 2)
    angle = float(np.degrees(candidates[int(np.argmin(distance))]))
    return cv2.boxPoints(((float(centre[0]), float(centre[1])), (long_side, short_side), angle)).astype(np.float32)
