"""Is this photo good enough to read? Blur, darkness and distance, judged on the tiles' own faces.

A shaken or dark photo is read wrongly with confidence (a 9 px motion blur reads 3, 6, 8 and 9
as 5), and a photo whose tiles are a few pixels wide has numbers of a few pixels, so the scan
says what to do instead ("hold steady", "more light", "come closer") and marks its reads
unsure. Every check looks only at the found tiles' faces, cut to the reader's crop size, never at
the table: a tile face is the one thing every photo has in common (a plain cream or white
plastic plate with a printed number), whatever the table, cloth or rack around it, and at crop
size it does not matter how large the tile was in the photo.

* **Sharpness**: the variance of the Laplacian of the face (shrunk to ``JUDGED_WIDTH`` pixels
  wide, so a small photo's soft upsampled crop is not taken for blur), divided by the face's own
  variance, so a low-contrast (dim, grey) face does not count as blurred either: fine detail's
  share of the contrast.
* **Brightness**: the face's plastic (its brighter pixels) in 0..255, after the camera's own
  exposure: a tile face well lit reads about 200-240 whatever its print.

* **Size**: the tiles' short side in the pixels the reader cuts them from.

The median over the tiles decides, so one tile in a shadow or at the edge does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Below this median sharpness the photo is too shaken or out of focus to read. On the
#: training sessions' photos (``benchmarks/vision_quality.py``) the originals' 5th percentile
#: is 7.2, at 640 px 4.6 (they still read 0.997); a 9 px motion blur has a median of 5.0 (read
#: 0.84), 15 px 4.2 (read 0.55): the line catches the worst shaken photos, hardly a sharp one.
MIN_SHARPNESS = 4.0
#: Below this median plastic brightness (0..255) the photo is too dark to read: at 40 %
#: brightness faces are 64-90 and still read 0.994; at 20 % they are 33-46 and read 0.33.
MIN_BRIGHTNESS = 55.0
#: Below this median short side (pixels) the tiles are too small to read surely. On the
#: generated scenes of the robustness benchmark (its seed, 40 per print, session 9; sizes from
#: their labelled outlines, the check itself reads the finder's boxes) tiles under
#: 20 px read right 0.50 (modern print) and 0.88 (classic, pressman), and 0.88-0.97 from 20 to
#: 24 px; the held-out real photos shrunk to 640 px have medians of 24.7 px and more, and read
#: perfectly.
MIN_TILE_PX = 20.0
#: Below this median short side (pixels) a sharp photo's faces measure soft too (a face
#: narrower than ``JUDGED_WIDTH`` is upsampled to be judged): the bundled sample photos shrunk
#: until their tiles are 19.6-25.8 px measure 2.8-3.8, under ``MIN_SHARPNESS``, at 27.2-34.1 px
#: 4.1-5.0. So there a soft face says "come closer", not "hold steady": the photo may be
#: still, its tiles are too few pixels.
SMALL_TILE_PX = 28.0
HOLD_STEADY = "hold steady"
MORE_LIGHT = "more light"
COME_CLOSER = "come closer"
#: Sharpness is judged with the face this many pixels wide: below the size of a tile in any
#: photo worth reading, so a small photo's soft crop (upsampled) does not count as blur.
JUDGED_WIDTH = 28
#: Inner part of a crop that is face, not edge or table (fraction cut off each side).
BORDER = 0.12


@dataclass(frozen=True)
class PhotoQuality:
    """Medians over the tiles' faces, and what the user should change (empty: nothing)."""

    sharpness: float
    brightness: float
    advice: tuple[str, ...] = ()
    #: The tiles' median short side in pixels (nan with no tile).
    tile_px: float = float("nan")

    @property
    def readable(self) -> bool:
        return not self.advice


def face_measures(crop_bgr: np.ndarray) -> tuple[float, float]:
    """(sharpness, plastic brightness) of one upright tile crop."""
    h, w = crop_bgr.shape[:2]
    inner = crop_bgr[int(h * BORDER): h - int(h * BORDER), int(w * BORDER): w - int(w * BORDER)]
    grey = cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY).astype(np.float32)
    small = cv2.resize(grey, (JUDGED_WIDTH, round(JUDGED_WIDTH * grey.shape[0] / grey.shape[1])),
                       interpolation=cv2.INTER_AREA)
    contrast = float(small.var())
    detail = float(cv2.Laplacian(small, cv2.CV_32F, ksize=3).var())
    sharpness = detail / (contrast + 25.0)  # +25 (a 5-level spread): a blank face is not "sharp"
    brightness = float(np.percentile(grey, 75))
    return sharpness, brightness


def assess(crops: Sequence[np.ndarray], photo_bgr: np.ndarray | None = None,
           tile_sides: Sequence[float] = ()) -> PhotoQuality:
    """Judge a photo by its tiles' crops (``vision.geometry.warp_crop``) and their short sides
    in the photo's pixels (``tile_sides``; none given: size is not judged).

    With no tile found, only darkness can be told, from the photo itself: if even its
    brightest parts are as dark as a dim tile face, nothing could have been seen.
    """
    if not len(crops):
        if photo_bgr is None or not photo_bgr.size:
            return PhotoQuality(sharpness=float("nan"), brightness=float("nan"))
        step = max(1, max(photo_bgr.shape[:2]) // 256)
        grey = cv2.cvtColor(np.ascontiguousarray(photo_bgr[::step, ::step]), cv2.COLOR_BGR2GRAY)
        brightest = float(np.percentile(grey, 99))
        advice = (MORE_LIGHT,) if brightest < MIN_BRIGHTNESS else ()
        return PhotoQuality(sharpness=float("nan"), brightness=brightest, advice=advice)
    measures = np.array([face_measures(c) for c in crops])
    sharpness, brightness = (float(v) for v in np.median(measures, axis=0))
    advice = []
    tile_px = float(np.median(tile_sides)) if len(tile_sides) else float("nan")
    if tile_px < MIN_TILE_PX or (sharpness < MIN_SHARPNESS and tile_px < SMALL_TILE_PX):
        advice.append(COME_CLOSER)
    elif sharpness < MIN_SHARPNESS:
        advice.append(HOLD_STEADY)
    if brightness < MIN_BRIGHTNESS:
        advice.append(MORE_LIGHT)
    return PhotoQuality(sharpness, brightness, tuple(advice), tile_px)
