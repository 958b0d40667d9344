"""Is this photo good enough to read? Blur and darkness, judged on the tiles' own faces.

A shaken or dark photo is read wrongly with confidence (a 9 px motion blur reads 3, 6, 8 and 9
as 5), so the scan says what to do instead ("hold steady", "more light") and marks its reads
unsure. Both checks look only at the found tiles' faces, cut to the reader's crop size, never at
the table: a tile face is the one thing every photo has in common (a plain cream or white
plastic plate with a printed number), whatever the table, cloth or rack around it, and at crop
size it does not matter how large the tile was in the photo.

* **Sharpness**: the variance of the Laplacian of the face, divided by the face's own variance,
  so a low-contrast (dim, grey) face does not count as blurred: fine detail's share of the
  contrast. A motion blur of a fifth of a tile's width halves it.
* **Brightness**: the face's plastic (its brighter pixels) in 0..255, after the camera's own
  exposure: a tile face well lit reads about 200-240 whatever its print.

The median over the tiles decides, so one tile in a shadow or at the edge does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

#: Below this median sharpness the photo is too shaken or out of focus to read.
MIN_SHARPNESS = 0.0
#: Below this median plastic brightness (0..255) the photo is too dark to read.
MIN_BRIGHTNESS = 0.0
HOLD_STEADY = "hold steady"
MORE_LIGHT = "more light"
#: Inner part of a crop that is face, not edge or table (fraction cut off each side).
BORDER = 0.12


@dataclass(frozen=True)
class PhotoQuality:
    """Medians over the tiles' faces, and what the user should change (empty: nothing)."""

    sharpness: float
    brightness: float
    advice: tuple[str, ...] = ()

    @property
    def readable(self) -> bool:
        return not self.advice


def face_measures(crop_bgr: np.ndarray) -> tuple[float, float]:
    """(sharpness, plastic brightness) of one upright tile crop."""
    h, w = crop_bgr.shape[:2]
    inner = crop_bgr[int(h * BORDER): h - int(h * BORDER), int(w * BORDER): w - int(w * BORDER)]
    grey = cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY).astype(np.float32)
    contrast = float(grey.var())
    detail = float(cv2.Laplacian(grey, cv2.CV_32F, ksize=3).var())
    sharpness = detail / (contrast + 25.0)  # +25 (a 5-level spread): a blank face is not "sharp"
    brightness = float(np.percentile(grey, 75))
    return sharpness, brightness


def assess(crops: Sequence[np.ndarray]) -> PhotoQuality:
    """Judge a photo by its tiles' crops (``vision.geometry.warp_crop``); no tiles, no verdict."""
    if not len(crops):
        return PhotoQuality(sharpness=float("nan"), brightness=float("nan"))
    measures = np.array([face_measures(c) for c in crops])
    sharpness, brightness = (float(v) for v in np.median(measures, axis=0))
    advice = []
    if sharpness < MIN_SHARPNESS:
        advice.append(HOLD_STEADY)
    if brightness < MIN_BRIGHTNESS:
        advice.append(MORE_LIGHT)
    return PhotoQuality(sharpness, brightness, tuple(advice))
