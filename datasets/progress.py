"""A small progress bar on stderr, so long dataset jobs show they are alive (no tqdm needed)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``with Progress(total, "synth") as bar: bar.advance()`` -> ``synth  1200/5000 [###...] 24% 1.3 min left``.

    Redraws at most a few times a second; on a non-terminal it prints a line every 10%.
    """

    def __init__(self, total: int, label: str, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.enabled = enabled
        self.total = max(int(total), 0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._start = time.monotonic()
        self._last_draw = 0.0
        self._last_decile = -1
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self._draw(final=True)

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self._tty and now - self._last_draw > 0.2:
            self._draw()
        elif not self._tty:
            decile = int(10 * self.done / self.total) if self.total else 10
            if decile != self._last_decile:
                self._last_decile = decile
                self._draw()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def _draw(self, final: bool = False) -> None:
        if not self.enabled:
            return
        self._last_draw = time.monotonic()
        fraction = self.done / self.total if self.total else 1.0
        bar = "#" * int(24 * fraction)
        rate = self.done / self.elapsed if self.elapsed > 0 else 0.0
        if final:
            tail = f"{self.elapsed:.1f} s"
        elif rate > 0:
            tail = f"{(self.total - self.done) / rate / 60:.1f} min left"
        else:
            tail = ""
        line = f"{self.label} {self.done:>6}/{self.total} [{bar:<24}] {fraction:4.0%} {tail}"
        end = "\n" if (final or not self._tty) else ""
        self.stream.write(("\r" if self._tty else "") + line + end)
        self.stream.flush()
