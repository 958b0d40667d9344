"""Cheap frame statistics that decide when the (costly) tile reader is worth running.

Reading a 1280x720 frame takes a quarter of a second on one core; comparing two 160-pixel-wide
grey thumbnails takes well under a millisecond. So every frame is shrunk to a thumbnail,
divided by its own mean brightness (a light that flickers or a cloud that passes scales every
pixel alike, and that cancels out), and compared twice:

* with the previous frame: **motion**, the share of thumbnail pixels that moved. A hand or an
  arm over the table moves thousands of them; a still table none.
* with the thumbnail kept when the table last settled (the **reference**): **change**, the
  number of pixels whose neighbourhood differs from it. A tile put down changes about one
  tile's area; a hand that passed and left changes nothing.

Which of the nine regions of the frame moved tells a bumped camera (all of them at once) from a
hand; which edge of the frame an arm lies across tells the side it comes in from (a player
reaches over the table from their own seat), so the tracker can tell the same player's hand
from the next player's.

    >>> import numpy as np
    >>> gauge = MotionGauge()
    >>> table = np.full((720, 1280, 3), 60, np.uint8); table[300:370, 600:652] = 230
    >>> gauge.measure(table).motion, gauge.measure((table * 0.8).astype(np.uint8)).motion  # dimmer: no motion
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
#: A whole-picture shift is trusted when phase correlation answers at least this strongly...
MIN_ALIGNMENT = 0.2
#: ...and it is at most this many thumbnail pixels (a knock, not a new view).
MAX_SHIFT = 3.0
#: The table is compared with its settled picture over squares of this many thumbnail pixels
#: (a tile is about 8 across)...
AREA_SIDE = 5
#: ...that differ on average by more than this (sensor noise stays near 0.01; a light tile on
#: a light table, about 0.1).
AREA_STEP = 0.04
#: Share of the frame's nine regions that must move at once to call it the camera, not a hand.
CAMERA_REGIONS = 7
#: The frame's edges, in the order of :attr:`FrameMotion.edges`.
SIDES = ("bottom", "right", "top", "left")
#: Depth of the strip along each edge where an arm coming in is counted, as a share of the
#: thumbnail's shorter side (about 5 pixels of a 160x90 one).
EDGE_DEPTH = 0.06


@dataclass(frozen=True)
class FrameMotion:
    """What one frame did, in thumbnail pixels.

    ``motion``: share of pixels that differ from the previous frame. ``changed``: pixels that
    differ from the reference (0 when there is none yet). ``camera``: the motion covered the
    whole frame, as when the camera is bumped. ``edges``: pixels whose colour differs from the
    reference in the strip along each edge of the frame (:data:`SIDES`): an arm over the table
    lies across its player's edge for as long as it is in (0 with no reference yet).
    """

    motion: float
    changed: int
    camera: bool
    changed_since_scan: int = 0
    edges: tuple[int, int, int, int] = (0, 0, 0, 0)


class MotionGauge:
    """Keeps the previous thumbnail and the reference one; measures each new frame against them."""

    def __init__(self, thumb_width: int = THUMB_WIDTH, pixel_step: float = PIXEL_STEP) -> None:
        self.thumb_width = thumb_width
        self.pixel_step = pixel_step
        self._previous: np.ndarray | None = None
        self._current: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._scanned: np.ndarray | None = None
        self._aligned: np.ndarray | None = None
        self._raw: np.ndarray | None = None
        self._raw_reference: np.ndarray | None = None
        self._raw_scanned: np.ndarray | None = None
        self._window: np.ndarray | None = None
        self._colour: np.ndarray | None = None
        self._colour_reference: np.ndarray | None = None
        self._shift = np.zeros(2)
        self._frame_width = 1

    @property
    def shift(self) -> np.ndarray:
        """How far (x, y, frame pixels) the picture moved since the reference: a bumped camera."""
        return self._shift / self.scale

    @property
    def scale(self) -> float:
        """Thumbnail pixels per frame pixel (along one side), once a frame has been measured."""
        if self._current is None:
            return 1.0
        return self._current.shape[1] / self._frame_width

    def measure(self, frame_bgr: np.ndarray) -> FrameMotion:
        raw, thumb, self._colour = self._thumbnails(frame_bgr)
        self._previous, self._current = self._current, thumb
        self._raw = raw
        motion, camera = 0.0, False
        if self._previous is not None and self._previous.shape == thumb.shape:
            moved = np.abs(thumb - self._previous) > self.pixel_step
            motion = float(moved.mean())
            camera = _regions_moving(moved) >= CAMERA_REGIONS
        self._aligned, self._shift = self._align(self._reference, self._raw_reference)
        scanned, _ = self._align(self._scanned, self._raw_scanned)
        edges = (0, 0, 0, 0)
        reference = self._colour_reference
        if reference is not None and reference.shape == self._colour.shape:
            # In colour: a dark sleeve on a dark table is as grey as the table, not as blue.
            # Moved with the view like the grey reference: after a knock the tracker follows,
            # an unmoved reference differs along every edge the table's border runs by.
            reference = _shifted(reference, self._shift)
            edges = _edge_counts(np.abs(self._colour - reference).max(axis=2) > self.pixel_step)
        return FrameMotion(motion=motion, changed=self._differing(self._aligned), camera=camera,
                           changed_since_scan=self._differing(scanned), edges=edges)

    def keep_as_reference(self) -> None:
        """The last measured frame shows the table as it now stands."""
        self._reference, self._raw_reference = self._current, self._raw
        self._colour_reference = self._colour

    def keep_as_scanned(self) -> None:
        """The last measured frame was scanned: later frames tell whether the table changed since."""
        self._scanned, self._raw_scanned = self._current, self._raw

    def difference_at(self, corners: np.ndarray) -> float:
        """Mean brightness difference from the reference under ``corners`` (frame pixels), in
        units of the frame's mean brightness: about 0.01 where nothing changed, several times
        more where a tile was put down, taken or swapped, even light tiles on a light cloth
        (their ink differs). Infinite when there is no reference to compare with."""
        reference = self._aligned
        if reference is None or self._current is None or reference.shape != self._current.shape:
            return float("inf")
        scale = self.scale
        height, width = self._current.shape
        x0, y0 = np.clip(np.floor(corners.min(axis=0) * scale).astype(int), 0, [width - 1, height - 1])
        x1, y1 = np.clip(np.ceil(corners.max(axis=0) * scale).astype(int) + 1, 1, [width, height])
        region = np.abs(self._current[y0:y1, x0:x1] - reference[y0:y1, x0:x1])
        return float(region.mean()) if region.size else float("inf")

    def _align(self, other: np.ndarray | None, other_raw: np.ndarray | None) -> tuple[np.ndarray | None, np.ndarray]:
        """``other`` moved onto the current thumbnail, and the shift (x, y thumbnail pixels),
        when the whole picture shifted a little (a camera knocked on its stand): the table did
        not change, the view did."""
        still = np.zeros(2)
        if other is None or other_raw is None or other.shape != self._current.shape:
            return other, still
        if self._window is None or self._window.shape != other.shape:
            self._window = cv2.createHanningWindow(other.shape[::-1], cv2.CV_32F)
        # copies: phaseCorrelate of OpenCV 5.0 scales its inputs in place
        (dx, dy), response = cv2.phaseCorrelate(other_raw.copy(), self._raw.copy(), self._window)
        if response < MIN_ALIGNMENT or max(abs(dx), abs(dy)) > MAX_SHIFT or max(abs(dx), abs(dy)) < 0.1:
            return other, still
        shift = np.array([dx, dy])
        return _shifted(other, shift), shift

    def _differing(self, other: np.ndarray | None) -> int:
        """Pixels whose neighbourhood (about half a tile) differs from ``other`` on average by
        more than :data:`AREA_STEP`: a light tile put down on a light table differs little
        pixel by pixel, but over its whole face (and its ink) clearly; noise averages out."""
        if other is None or self._current is None or other.shape != self._current.shape:
            return 0
        local = cv2.blur(np.abs(self._current - other), (AREA_SIDE, AREA_SIDE))
        return int((local > AREA_STEP).sum())

    def _thumbnails(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sharp thumbnail (to measure a shift), the softened one (to compare pixels) and a
        colour one (to see an arm along the edges), each divided by the frame's mean brightness."""
        height, width = frame_bgr.shape[:2]
        self._frame_width = width
        size = (self.thumb_width, max(2, round(self.thumb_width * height / width)))
        small = cv2.resize(frame_bgr, size, interpolation=cv2.INTER_AREA)
        raw = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
        mean = max(float(raw.mean()), 1.0)
        raw /= mean
        return raw, cv2.GaussianBlur(raw, (0, 0), 1.0), small.astype(np.float32) / mean


def _shifted(image: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``image`` (grey or colour) moved by ``shift`` (x, y pixels); itself when there is none."""
    if not shift.any():
        return image
    matrix = np.float32([[1, 0, shift[0]], [0, 1, shift[1]]])
    height, width = image.shape[:2]
    return cv2.warpAffine(image, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _regions_moving(moved: np.ndarray) -> int:
    """How many of the frame's 3x3 regions have a real share (over 2 %) of moving pixels."""
    height, width = moved.shape
    count = 0
    for rows in np.array_split(np.arange(height), 3):
        for cols in np.array_split(np.arange(width), 3):
            if moved[rows[0]: rows[-1] + 1, cols[0]: cols[-1] + 1].mean() > 0.02:
                count += 1
    return count


def _edge_counts(differs: np.ndarray) -> tuple[int, int, int, int]:
    """Pixels set in ``differs`` along the bottom, right, top and left edges (:data:`SIDES`)."""
    depth = max(1, round(min(differs.shape) * EDGE_DEPTH))
    return (int(differs[-depth:].sum()), int(differs[:, -depth:].sum()),
            int(differs[:depth].sum()), int(differs[:, :depth].sum()))
