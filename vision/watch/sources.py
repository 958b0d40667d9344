"""Where frames come from: a camera, a stream URL or a video file, via OpenCV's VideoCapture.

A camera or a stream runs at its own pace whatever we do, so a reader thread takes every frame
as it comes and keeps only the newest; the tracker takes that one when it is ready. Frames it
had no time for are dropped there, never queued, so the tracker is never behind the table.
A video file is read frame by frame (every frame, at the speed of the machine) unless
``paced``: then it plays at its own frame rate as if it were a camera, frames skipped alike.
"""

from __future__ import annotations

import threading
import time as clock
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from rummi.engine.errors import RummiError


@dataclass(frozen=True)
class Frame:
    time: float  # seconds into the source
    image: np.ndarray  # H x W x 3 BGR
    index: int  # the frame's number in the source (gaps = frames skipped)


class FrameSource:
    """An opened source. Iterate :meth:`frames`; :meth:`close` when done (or use ``with``)."""

    def __init__(self, spec: str, *, paced: bool = False) -> None:
        self.spec = spec
        self.live = _is_live(spec)
        if not self.live and not Path(spec).is_file():
            raise RummiError(f"{spec}: no such video file (give a file, a camera index such as 0, or a URL)")
        target: int | str = int(spec) if spec.isdigit() else spec
        self._capture = cv2.VideoCapture(target)
        if not self._capture.isOpened():
            raise RummiError(f"{spec}: cannot open this as a camera, stream or video file")
        fps = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0 < fps < 1000 else 0.0
        count = int(self._capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.frame_count = count if not self.live and count > 0 else None
        self.paced = paced or self.live
        self.skipped = 0

    @property
    def duration(self) -> float | None:
        if self.frame_count is None or not self.fps:
            return None
        return self.frame_count / self.fps

    def frames(self) -> Iterator[Frame]:
        if self.paced:
            yield from _LatestFrames(self).frames()
        else:
            yield from self._every_frame()

    def _every_frame(self) -> Iterator[Frame]:
        index = 0
        while True:
            ok, image = self._capture.read()
            if not ok:
                return
            yield Frame(self._time_of(index), image, index)
            index += 1

    def _time_of(self, index: int) -> float:
        if self.fps:
            return index / self.fps
        return float(self._capture.get(cv2.CAP_PROP_POS_MSEC) or 0.0) / 1000.0

    def close(self) -> None:
        self._capture.release()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _LatestFrames:
    """A reader thread that keeps only the newest frame; the consumer takes it when ready."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self._latest: Frame | None = None
        self._done = False
        self._stop = False
        self._ready = threading.Condition()
        self._taken = -1

    def frames(self) -> Iterator[Frame]:
        reader = threading.Thread(target=self._read, name="watch-frames", daemon=True)
        reader.start()
        try:
            while True:
                with self._ready:
                    while not self._done and (self._latest is None or self._latest.index == self._taken):
                        self._ready.wait(0.5)
                    frame = self._latest
                    if frame is None or frame.index == self._taken:
                        return
                self.source.skipped += max(0, frame.index - self._taken - 1)
                self._taken = frame.index
                yield frame
        finally:
            self._stop = True
            reader.join(timeout=2)

    def _read(self) -> None:
        capture, source = self.source._capture, self.source
        start = clock.monotonic()
        index = 0
        try:
            while not self._stop:
                ok, image = capture.read()
                if not ok:
                    return
                if source.live:
                    at = clock.monotonic() - start
                else:
                    at = source._time_of(index)
                    wait = start + at - clock.monotonic()
                    if wait > 0:
                        clock.sleep(wait)
                with self._ready:
                    self._latest = Frame(at, image, index)
                    self._ready.notify()
                index += 1
        finally:
            with self._ready:
                self._done = True
                self._ready.notify()


def _is_live(spec: str) -> bool:
    return spec.isdigit() or "://" in spec
