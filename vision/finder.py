"""Find every tile in a photo: a one-class YOLO detector run with onnxruntime.

The detector sees a downscaled copy of the photo (tiles are large, simple shapes, so a few
hundred pixels are enough to find them); the corners it returns are scaled back to the full
photo, where the reader cuts each tile out at full resolution.

Two kinds of export are understood, told apart by ``model.json``'s ``task``:

* ``obb``: oriented boxes, output ``(1, 4 + classes + 1, anchors)`` = centre x, centre y,
  width, height, class scores, angle in radians. Tiles at any angle get tight corners.
* ``detect``: upright boxes, output ``(1, 4 + classes, anchors)``. Corners are the box's.

A detector finds reliably only tiles about the size it was taught on (``tile_px`` in
``model.json``, in its input pixels: about the 1st and 99th percentile of its training tiles'
short side; the model card says how its range was chosen). Photos are not all like that: a phone
tilted far off the table shows the far tiles a few pixels wide, a close-up shows one tile across
half the frame. So when the whole-photo look finds a tile below that range, the finder looks
again at twice the resolution through overlapping windows; when it finds one above it (or
nothing at all), it looks again with the photo shrunk to half the input. The looks' boxes are
merged by rotated NMS. A photo whose tiles all lie in the range (most photos) gets the one look
it always had.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from rummi.vision.detections import SURELY_A_TILE, TileDetections
from rummi.vision.geometry import drop_nested, overlapping_windows, portrait_order
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


def letterbox(image_bgr: np.ndarray, size: int, zoom: float = 1.0) -> tuple[np.ndarray, Letterbox]:
    """Scale the photo to fit ``size x size`` keeping its shape, pad the rest grey, as in training.

    ``zoom`` below 1 fits the photo into that share of the square instead (the coarse look:
    tiles too large for the detector come out smaller, the rest of the square is padding)."""
    height, width = image_bgr.shape[:2]
    scale = min(size / width, size / height) * zoom
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    # INTER_AREA averages the pixels a big photo folds together, so a 12 MP photo shrinks without
    # the aliasing that would make tile edges ragged.
    resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    pad_x, pad_y = (size - new_w) / 2, (size - new_h) / 2
    top, left = int(round(pad_y - 0.1)), int(round(pad_x - 0.1))
    canvas = cv2.copyMakeBorder(resized, top, size - new_h - top, left, size - new_w - left,
                                cv2.BORDER_CONSTANT, value=(LETTERBOX_GREY,) * 3)
    return canvas, Letterbox(scale, left, top)


#: How much finer the second look is when tiles are small: one octave (tiles twice as wide).
FINER = 2.0
#: The finer look runs when the smallest tile found is within this factor (half an octave)
#: above the smallest size the detector was taught on: sizes change smoothly across a tilted
#: photo, so where the smallest *found* tile is near the floor, smaller ones are there and
#: missed (tilt-30: whole-look recall 0.47 under 8 px, the smallest find 8.6-10.2 px in the
#: photos whose far tiles it missed; benchmarks/vision_finder_misses.py).
FINE_MARGIN = float(np.sqrt(FINER))
#: How much coarser the second look is when tiles are large: one octave (tiles half as wide).
COARSER = 0.5
#: Neighbouring windows of the finer look share at least this share of a window, and at least
#: the longest side of the largest tile found (so every tile lies whole in some window).
WINDOW_OVERLAP = 0.25
#: A box within this many input pixels of a window's inner edge may be a cut tile: dropped.
INNER_EDGE_PX = 2.0


class TileFinder:
    """Runs the tile detector. ``find(photo)`` returns the tiles' corners in photo pixels."""

    def __init__(self, model: OnnxModel) -> None:
        self.model = model
        self.task: str = model.meta.get("task", "obb")
        self.size: int = int(model.meta["imgsz"])
        self.confidence_threshold: float = float(model.meta.get("conf", 0.35))
        self.overlap_threshold: float = float(model.meta.get("iou", 0.5))
        self.refine_angles: bool = bool(model.meta.get("refine_angles", True))
        #: (smallest, largest) short side of the tiles it finds reliably (about those it was
        #: taught on), in input pixels; None: unknown, so the finder never looks twice.
        tile_px = model.meta.get("tile_px")
        self.tile_px: tuple[float, float] | None = (float(tile_px[0]), float(tile_px[1])) if tile_px else None
        if self.task not in ("obb", "detect"):
            raise ModelError(f"unknown detector task {self.task!r} in {model.folder}/model.json")

    def find(self, image_bgr: np.ndarray, *, threshold: float | None = None) -> TileDetections:
        """Every tile's corners in photo pixels: the whole-photo look, and a second look when the
        tiles it found (or found none) lie outside the sizes the detector was taught on.

        ``threshold``: the lowest score the whole-photo look keeps, the model's own
        (``model.json: conf``) by default. A caller that knows where a tile must be (the watch
        tracker, where the table changed and nothing was found) asks for weaker boxes too; a
        weaker box never displaces a stronger one (the merge keeps the higher score), and
        whether to look twice is judged on sure finds, so the boxes above the model's threshold
        are the same either way.
        """
        floor = self.confidence_threshold if threshold is None else float(threshold)
        rects, scores = self.look(image_bgr, floor=floor)
        keep = merge_boxes(rects, scores, floor, self.overlap_threshold)
        rects, scores = rects[keep], scores[keep]
        if self.tile_px is not None:
            # Judged on the tiles this look found surely, after NMS: a stray anchor or a weak box
            # on a textured cloth is no tile, and must not send the finder looking for more.
            sides = self._input_short_sides(rects[scores >= SURELY_A_TILE], image_bgr.shape)
            smallest, largest = self.tile_px
            looks = [(rects, scores)]
            if len(sides) and sides.min() < smallest * FINE_MARGIN:
                looks.append(self.look_finer(image_bgr, rects))
            if not len(sides) or sides.max() > largest:
                looks.append(self.look(image_bgr, COARSER))
            if len(looks) > 1:
                # A second look is a second chance for a phantom too (a cloth's weave shrunk or
                # enlarged looks like tiles): only its sure boxes may add a tile.
                looks = looks[:1] + [(r[s >= SURELY_A_TILE], s[s >= SURELY_A_TILE]) for r, s in looks[1:]]
                rects = np.concatenate([r for r, _ in looks])
                scores = np.concatenate([s for _, s in looks])
                keep = merge_boxes(rects, scores, floor, self.overlap_threshold)
                rects, scores = rects[keep], scores[keep]
        if not len(scores):
            return TileDetections.empty()
        corners = np.stack([cv2.boxPoints(((r[0], r[1]), (r[2], r[3]), r[4])) for r in rects]).astype(np.float32)
        if self.refine_angles:
            corners = np.stack([refine_angle(image_bgr, c) for c in corners])
        return TileDetections.from_corners(np.stack([portrait_order(c) for c in corners]), scores)

    def find_once(self, image_bgr: np.ndarray) -> TileDetections:
        """The whole-photo look alone, as the finder worked before it looked twice (to compare)."""
        tile_px, self.tile_px = self.tile_px, None
        try:
            return self.find(image_bgr)
        finally:
            self.tile_px = tile_px

    def look(self, image_bgr: np.ndarray, zoom: float = 1.0, floor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """One run of the detector on the photo letterboxed at ``zoom``: rotated boxes
        ``(cx, cy, w, h, degrees)`` in photo pixels, and their scores (``floor`` or more, the
        model's threshold by default)."""
        canvas, box = letterbox(image_bgr, self.size, zoom)
        batch = canvas[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        output = self.model.run(np.ascontiguousarray(batch))[0]  # (channels, anchors)
        rects, scores = self._decode(output, self.confidence_threshold if floor is None else floor)
        rects[:, :2] = box.to_photo(rects[:, :2])
        rects[:, 2:4] /= box.scale
        return rects, scores

    def look_finer(self, image_bgr: np.ndarray, found: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The photo at ``FINER`` times the whole look's resolution, through overlapping square
        windows; boxes a window's inner edge may cut are dropped (the tile lies whole in a
        neighbour). ``found``: the whole look's boxes, whose longest side sets the overlap."""
        height, width = image_bgr.shape[:2]
        side = int(round(max(width, height) / FINER))
        longest = float(found[:, 2:4].max()) if len(found) else 0.0
        overlap = int(np.ceil(max(WINDOW_OVERLAP * side, longest)))
        all_rects, all_scores = [np.zeros((0, 5), np.float32)], [np.zeros(0, np.float32)]
        for x0, y0, x1, y1 in overlapping_windows(width, height, side, overlap):
            rects, scores = self.look(np.ascontiguousarray(image_bgr[y0:y1, x0:x1]))
            rects[:, 0] += x0
            rects[:, 1] += y0
            margin = INNER_EDGE_PX * max(x1 - x0, y1 - y0) / self.size
            inside = ~touches_inner_edge(rects, (x0, y0, x1, y1), (width, height), margin)
            all_rects.append(rects[inside])
            all_scores.append(scores[inside])
        return np.concatenate(all_rects), np.concatenate(all_scores)

    def _input_short_sides(self, rects: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Each box's short side in the whole look's input pixels (what ``tile_px`` measures)."""
        scale = min(self.size / shape[1], self.size / shape[0])
        return rects[:, 2:4].min(axis=1) * scale if len(rects) else np.zeros(0, np.float32)

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


def merge_boxes(rects: np.ndarray, scores: np.ndarray, confidence: float, overlap: float) -> np.ndarray:
    """Indices (ascending) of the boxes kept from one or several looks: rotated NMS at IoU
    ``overlap``, then boxes that share much of their area with a better one are dropped.

    The one merge of the finder: a single look's duplicates and the same tile seen by two
    looks (or two windows) are told apart the same way; the surer box wins."""
    if not len(scores):
        return np.zeros(0, dtype=int)
    keep = cv2.dnn.NMSBoxesRotated(
        [((float(r[0]), float(r[1])), (float(r[2]), float(r[3])), float(r[4])) for r in rects],
        scores.tolist(), confidence, overlap,
    )
    return drop_nested(rects, scores, np.array(keep, dtype=int).reshape(-1))


def touches_inner_edge(rects: np.ndarray, window: tuple[int, int, int, int], photo_size: tuple[int, int],
                       margin: float) -> np.ndarray:
    """True where a box (photo pixels) comes within ``margin`` of an edge of ``window`` that is
    not also the photo's edge: the window may cut that tile, and a neighbouring window shows it."""
    if not len(rects):
        return np.zeros(0, bool)
    corners = np.stack([cv2.boxPoints(((r[0], r[1]), (r[2], r[3]), r[4])) for r in rects])
    low, high = corners.min(axis=1), corners.max(axis=1)
    x0, y0, x1, y1 = window
    width, height = photo_size
    return (((low[:, 0] < x0 + margin) & (x0 > 0)) | ((low[:, 1] < y0 + margin) & (y0 > 0))
            | ((high[:, 0] > x1 - margin) & (x1 < width)) | ((high[:, 1] > y1 - margin) & (y1 < height)))


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
