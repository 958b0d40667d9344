"""Read each found tile: its number (or joker), its colour, and which way up it lies.

Each tile is cut out of the *full-resolution* photo along its four corners and warped to an
upright portrait crop, the same warp the training crops were made with. A small classifier
then picks one of 53 tiles x 2 orientations (upright, or turned by 180 degrees). Reading the
orientation together with the number is what tells a 6 from an upside-down 9: the model sees
where the number sits on the face and where the brand mark is.

The crop is also read turned by 180 degrees and the two answers are averaged (a reading
"r6, upright" of one equals "r6, upside down" of the other), which makes the answer steadier.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import TileDetections
from vision.onnx_model import OnnxModel

#: Size (w, h) every crop is first warped to: the size of the training crops of datasets/.
CROP_SIZE: tuple[int, int] = (72, 96)


def warp_crop(image_bgr: np.ndarray, corners: np.ndarray, size: tuple[int, int] = CROP_SIZE) -> np.ndarray:
    """The tile face as an upright ``size`` (w, h) crop; corners are TL, TR, BR, BL.

    A tile much larger than the crop (a 12 MP photo) is first warped at its own size and then
    shrunk by area averaging, so that fine print does not alias into noise.
    """
    w, h = size
    tile_w = float(np.linalg.norm(corners[1] - corners[0]))
    factor = max(1, int(tile_w / w))
    warp_w, warp_h = w * factor, h * factor
    target = np.array([[0, 0], [warp_w - 1, 0], [warp_w - 1, warp_h - 1], [0, warp_h - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), target)
    crop = cv2.warpPerspective(image_bgr, matrix, (warp_w, warp_h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)
    if factor > 1:
        crop = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
    return crop


class TileReader:
    """Runs the crop classifier. ``read(photo, found)`` returns ``found`` with labels filled."""

    def __init__(self, model: OnnxModel) -> None:
        self.model = model
        self.tile_names: list[str] = list(model.meta["tiles"])
        width, height = model.meta["input_wh"]
        self.input_size: tuple[int, int] = (int(width), int(height))

    def read(self, image_bgr: np.ndarray, found: TileDetections) -> TileDetections:
        if not len(found):
            return found
        crops = np.stack([self._prepare(warp_crop(image_bgr, c)) for c in found.corners])
        turned = crops[:, :, ::-1, ::-1]  # the same crops turned by 180 degrees
        probabilities = self._probabilities(np.concatenate([crops, turned]))
        direct, reversed_ = probabilities[: len(found)], probabilities[len(found):]
        # (N, orientation, tile): "upright" of the turned crop is "upside down" of the direct one.
        combined = (direct + reversed_[:, ::-1, :]) / 2
        per_tile = combined.sum(axis=1)
        best = per_tile.argmax(axis=1)
        rows = np.arange(len(found))
        confidence = per_tile[rows, best]
        upside_down = combined[rows, 1, best] > combined[rows, 0, best]
        corners = found.corners.copy()
        corners[upside_down] = np.roll(corners[upside_down], 2, axis=1)
        labels = [self.tile_names[i] for i in best]
        return found.with_reads(corners, labels, confidence)

    def _prepare(self, crop_bgr: np.ndarray) -> np.ndarray:
        small = cv2.resize(crop_bgr, self.input_size, interpolation=cv2.INTER_AREA)
        return small[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0

    def _probabilities(self, batch: np.ndarray) -> np.ndarray:
        logits = self.model.run(np.ascontiguousarray(batch)).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        probs = exp / exp.sum(axis=1, keepdims=True)
        return probs.reshape(len(batch), 2, len(self.tile_names))
