"""`rummi watch --draw out.mp4`: the watched video with the tiles outlined and the verdicts shown.

Each frame gets the settled table's tiles (the drawing of :mod:`vision.draw`), a line with the
tracker's state and whose turn it is, and the last verdict for a few seconds after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from rummi.engine.errors import RummiError
from rummi.vision.draw import TileAnnotator

if TYPE_CHECKING:
    from rummi.vision.watch.tracker import TurnTracker

LEGAL, ILLEGAL, UNSURE, INK = (60, 180, 60), (40, 40, 220), (0, 140, 255), (255, 255, 255)
#: How long a verdict stays on screen, in seconds of video.
VERDICT_SECONDS = 6.0


class WatchVideo:
    def __init__(self, path: Path, width: int, height: int, fps: float) -> None:
        fourcc = cv2.VideoWriter_fourcc(*("MJPG" if path.suffix.lower() == ".avi" else "mp4v"))
        if not path.parent.is_dir():
            raise RummiError(f"could not write {path}: no folder {path.parent}")
        self._writer = cv2.VideoWriter(str(path), fourcc, fps, (width, height))
        if not self._writer.isOpened():
            raise RummiError(f"could not write {path} (use an .mp4 or .avi name)")
        self._annotator = TileAnnotator()
        self._verdict_at: float | None = None
        self._verdicts = 0

    def write(self, frame_bgr: np.ndarray, tracker: TurnTracker, time: float) -> None:
        image = frame_bgr
        if tracker.reading is not None and tracker.state == "settled":
            image = self._annotator.annotate(frame_bgr, tracker.reading.as_scan())
        else:
            image = frame_bgr.copy()
        scale = max(image.shape[:2]) / 1000.0
        status = f"{time:6.1f} s  {tracker.state}  next: {tracker.next_player}  turns: {tracker.turns}"
        _text(image, status, (10, int(30 * scale)), INK, scale)
        if tracker.turns != self._verdicts:
            self._verdicts, self._verdict_at = tracker.turns, time
        verdict = tracker.last_verdict
        if verdict is not None and self._verdict_at is not None and time - self._verdict_at < VERDICT_SECONDS:
            colour = {"legal": LEGAL, "illegal": ILLEGAL}.get(verdict.status.value, UNSURE)
            played = " ".join(str(t) for t in verdict.played) or "nothing"
            _text(image, f"{verdict.status.value}: played {played}", (10, int(62 * scale)), colour, scale)
            for row, violation in enumerate(verdict.violations[:3]):
                _text(image, violation.message[:90], (10, int((92 + 28 * row) * scale)), colour, scale * 0.8)
        self._writer.write(image)

    def close(self) -> None:
        self._writer.release()


def _text(image: np.ndarray, text: str, origin: tuple[int, int], colour: tuple[int, int, int], scale: float) -> None:
    font_scale = 0.7 * max(scale, 0.5)
    weight = max(1, round(1.5 * scale))
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, weight)
    x, y = origin
    cv2.rectangle(image, (x - 4, y - h - 4), (x + w + 4, y + base + 2), (0, 0, 0), -1)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, weight, cv2.LINE_AA)
