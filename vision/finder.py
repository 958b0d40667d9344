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

from vision.detections import TileDetections
from vision.onnx_model import OnnxModel

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
        if self.task not in ("obb", "detect"):
            raise ValueError(f"unknown detector task {self.task!r} in {model.folder}/model.json")

    def find(self, image_bgr: np.ndarray) -> TileDetections:
        canvas, box = letterbox(image_bgr, self.size)
        batch = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        output = self.model.run(np.ascontiguousarray(batch))[0]  # (channels, anchors)
        rects, scores = self._decode(output)
        if not len(scores):
            return TileDetections.empty()
        keep = cv2.dnn.NMSBoxesRotated(
            [((float(r[0]), float(r[1])), (float(r[2]), float(r[3])), float(r[4])) for r in rects],
            scores.tolist(), self.confidence_threshold, self.overlap_threshold,
        )
        keep = np.array(keep, dtype=int).reshape(-1)
        corners = np.stack([cv2.boxPoints(((r[0], r[1]), (r[2], r[3]), r[4])) for r in rects[keep]])
        corners = box.to_photo(corners.astype(np.float32))
        return TileDetections.from_corners(np.stack([portrait_order(c) for c in corners]), scores[keep])

    def _decode(self, output: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows of (cx, cy, w, h, angle in degrees) and scores, above the confidence threshold."""
        class_count = len(self.model.meta.get("names", ["tile"]))
        scores = output[4 : 4 + class_count].max(axis=0)
        chosen = scores >= self.confidence_threshold
        xywh = output[:4, chosen].T
        if self.task == "obb":
            angles = np.degrees(output[4 + class_count, chosen])
        else:
            angles = np.zeros(int(chosen.sum()), np.float32)
        return np.column_stack([xywh, angles]).astype(np.float32), scores[chosen].astype(np.float32)


def portrait_order(corners: np.ndarray) -> np.ndarray:
    """Order a tile's four corners as top-left, top-right, bottom-right, bottom-left of a tile
    standing upright (long side vertical), taking the side nearer the photo's top as the top.

    Which way up the tile really is is the reader's call (it may turn the order round); this
    only makes the order predictable.
    """
    corners = np.asarray(corners, np.float32)
    centre = corners.mean(axis=0)
    # Sort clockwise (image y points down, so increasing atan2 is clockwise on screen).
    angles = np.arctan2(corners[:, 1] - centre[1], corners[:, 0] - centre[0])
    ring = corners[np.argsort(angles)]
    best, best_score = ring, None
    for start in range(4):
        candidate = np.roll(ring, -start, axis=0)
        top_len = np.linalg.norm(candidate[1] - candidate[0])
        side_len = np.linalg.norm(candidate[3] - candidate[0])
        top_mid_y = (candidate[0, 1] + candidate[1, 1]) / 2
        # Prefer the long side vertical, then the top edge higher in the photo.
        score = (top_len <= side_len * 1.02, -top_mid_y)
        if best_score is None or score > best_score:
            best, best_score = candidate, score
    return best
