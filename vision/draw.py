"""Pictures of a scan: the photo with every tile outlined and labelled.

Drawing is kept apart from finding and reading (as `chess.svg` is from the rules): it takes a
:class:`~vision.scanner.ScanResult` and returns a new image, touching nothing else.
"""

from __future__ import annotations

import cv2
import numpy as np
from rummi.vision.scanner import ScanResult

SURE = (60, 180, 60)  # BGR green
UNSURE = (0, 140, 255)  # BGR orange
RACK = (200, 120, 40)  # BGR blue
TEXT = (255, 255, 255)


class TileAnnotator:
    """Outlines each tile (green, blue on the rack, orange when unsure) and writes its reading
    above its top edge; a small dot marks the tile's top-left corner, so an upside-down read
    shows."""

    def annotate(self, image_bgr: np.ndarray, result: ScanResult) -> np.ndarray:
        canvas = image_bgr.copy()
        found = result.found
        scale = max(canvas.shape[:2]) / 1000.0
        thickness = max(1, round(2 * scale))
        unsure = set(result.uncertain)
        for i in range(len(found)):
            colour = UNSURE if i in unsure else RACK if found.on_rack[i] else SURE
            corners = found.corners[i].round().astype(np.int32)
            cv2.polylines(canvas, [corners], True, colour, thickness, cv2.LINE_AA)
            cv2.circle(canvas, tuple(int(v) for v in corners[0]), thickness + 1, colour, -1, cv2.LINE_AA)
            label = f"{found.labels[i] or '?'} {found.confidence[i]:.0%}" if i in unsure else (found.labels[i] or "?")
            self._label(canvas, label, corners, colour, scale)
        return canvas

    @staticmethod
    def _label(canvas: np.ndarray, text: str, corners: np.ndarray, colour: tuple[int, int, int], scale: float) -> None:
        font_scale = 0.5 * max(scale, 0.6)
        weight = max(1, round(scale))
        (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, weight)
        x = int(corners[:, 0].min())
        y = max(h + base, int(corners[:, 1].min()) - 2)
        cv2.rectangle(canvas, (x, y - h - base), (x + w + 2, y + 1), colour, -1)
        cv2.putText(canvas, text, (x + 1, y - base + 1), cv2.FONT_HERSHEY_SIMPLEX, font_scale, TEXT, weight,
                    cv2.LINE_AA)


def draw_scan(image_bgr: np.ndarray, result: ScanResult) -> np.ndarray:
    return TileAnnotator().annotate(image_bgr, result)
