"""Cheap frame statistics that decide when the (costly) tile reader is worth running.

Reading a 1280x720 frame takes a quarter of a second on one core; comparing two 160-pixel-wide
grey thumbnails takes well under a millisecond. So every frame is shrunk to a thumbnail,
divided by its own mean brightness (a light that flickers or a cloud that passes scales every
pixel alike, and that cancels out), and compared twice:

* with the previous frame: **motion**, the share of thumbnail pixels that moved. A hand or an
  arm over the table moves thousands of them; a still table none.
* with the thumbnail kept when the table last settled (the **reference**): **change**, the
  number of pixels that differ from it. A tile put down changes about one tile's area; a hand
  that passed and left changes nothing.

Which of the nine regions of the frame moved tells a bumped camera (all of them at once) from a
hand (the side it comes from).

    >>> import numpy as np
    >>> gauge = MotionGauge()
    >>> table = np.full((720, 1280, 3), 60, np.uint8); table[300:370, 600:652] = 230
    >>> gauge.measure(table).motion, gauge.measure(table // 2 + 10).motion   # dimmer light: no motion
    (0.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Thumbnail width in pixels (height follows the frame's aspect ratio).
THUMB_WIDTH = 160
#: A thumbnail pixel "differs" when its brightness, relative to the frame's mean, changes by
#: more than this (sensor noise after the blur stays under 0.05; a tile on wood is about 1.0).
PIXEL_STEP = 0.15
#: Share of the frame's nine regions that must move at once to call it the camera, not a hand.
CAMERA_REGIONS = 7


@dataclass(frozen=True)
class FrameMotion:
    """What one frame did, in thumbnail pixels.

    ``motion``: share of pixels that differ from the previous frame. ``changed``: pixels that
    differ from the reference (0 when there is none yet). ``camera``: the motion covered the
    whole frame, as when the camera is bumped.
    """

    motion: float
    changed: int
    camera: bool
    changed_since_scan: int = 0


class MotionGauge:
    """Keeps the previous thumbnail and the reference one; measures each new frame against them."""

    def __init__(self, thumb_width: int = THUMB_WIDTH, pixel_step: float = PIXEL_STEP) -> None:
        self.thumb_width = thumb_width
        self.pixel_step = pixel_step
        self._previous: np.ndarray | None = None
        self._current: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._scanned: np.ndarray | None = None

    @property
    def scale(self) -> float:
        """Thumbnail pixels per frame pixel (along one side), once a frame has been measured."""
        if self._current is None:
            return 1.0
        return self._current.shape[1] / self._frame_width

    def measure(self, frame_bgr: np.ndarray) -> FrameMotion:
        thumb = self._thumbnail(frame_bgr)
        self._previous, self._current = self._current, thumb
        motion, camera = 0.0, False
        if self._previous is not None and self._previous.shape == thumb.shape:
            moved = np.abs(thumb - self._previous) > self.pixel_step
            motion = float(moved.mean())
            camera = _regions_moving(moved) >= CAMERA_REGIONS
        return FrameMotion(motion=motion, changed=self._differing(self._reference), camera=camera,
                           changed_since_scan=self._differing(self._scanned))

    def keep_as_reference(self) -> None:
        """The last measured frame shows the table as it now stands."""
        self._reference = self._current

    def keep_as_scanned(self) -> None:
        """The last measured frame was scanned: later frames tell whether the table changed since."""
        self._scanned = self._current

    def _differing(self, other: np.ndarray | None) -> int:
        if other is None or self._current is None or other.shape != self._current.shape:
            return 0
        return int((np.abs(self._current - other) > self.pixel_step).sum())

    def _thumbnail(self, frame_bgr: np.ndarray) -> np.ndarray:
        height, width = frame_bgr.shape[:2]
        self._frame_width = width
        size = (self.thumb_width, max(2, round(self.thumb_width * height / width)))
        grey = cv2.cvtColor(cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        grey = cv2.GaussianBlur(grey.astype(np.float32), (3, 3), 0)
        return grey / max(float(grey.mean()), 1.0)


def _regions_moving(moved: np.ndarray) -> int:
    """How many of the frame's 3x3 regions have a real share (over 2 %) of moving pixels."""
    height, width = moved.shape
    count = 0
    for rows in np.array_split(np.arange(height), 3):
        for cols in np.array_split(np.arange(width), 3):
            if moved[rows[0]: rows[-1] + 1, cols[0]: cols[-1] + 1].mean() > 0.02:
                count += 1
    return count
