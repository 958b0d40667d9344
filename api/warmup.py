"""The hint solver's compiled kernel, made ready in the background while the service answers.

The solver's fastest route after the opening is a numba kernel that is compiled (or loaded
from numba's cache) on its first call: seconds from the cache, about 25 s on a fresh install.
A service must not make its first hint wait for that, so :class:`SolverWarmup` compiles it in a
background thread at start, and until it is ready every hint is asked with ``compiled=False``:
the same exact answer by the solver's other routes (the opening search, the integer program).

    >>> warmup = SolverWarmup()
    >>> warmup.ready
    False
"""

from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("rummi.api")


class SolverWarmup:
    """``ready`` turns true once the kernel has run once in this process."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self.seconds: float | None = None

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._compile, name="rummi-solver-warmup", daemon=True)
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def _compile(self) -> None:
        start = time.perf_counter()
        try:
            from rummi.engine.notation import parse_sets, parse_tiles
            from rummi.engine.solver import solve

            # An opened player, a run to extend: the dynamic programme's route (as `make venv`).
            solve(parse_sets("r5 r6 r7"), parse_tiles("r8"), opened=True, rules="goliath_modern")
        except Exception:  # the integer program keeps answering; say why the fast route is off
            log.exception("the hint solver's compiled kernel could not be prepared")
            return
        self.seconds = time.perf_counter() - start
        log.info("hint solver kernel ready after %.1f s", self.seconds)
        self._ready.set()
