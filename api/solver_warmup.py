"""The hint solver's compiled kernel, made ready without making a user wait for it.

numba compiles the solver's dynamic programme on first use (25-75 s on a small machine) and
caches it in the user's cache folder. Until it is ready, hints are asked with
``solve(..., compiled=False)``: the same exact answer from the solver's other routes (the
opening search, the integer program), only slower.

* The command line (:func:`prepare_for_command_line`): with a cold cache the answer comes from
  the other routes while one background process compiles the kernel for the next call; the
  command says so once.
* The service (:class:`SolverWarmup`): compiles in a background thread at start and answers
  meanwhile.
* ``python -m rummi.api.solver_warmup`` compiles in the foreground (``make venv`` runs it).
"""

from __future__ import annotations

import gc
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from rummi.engine.errors import RummiError

from rummi import __version__
from rummi.places import use_numba_cache

#: A compile that started longer ago than this is taken as dead and started again.
STALE_AFTER_S = 15 * 60

#: How the command line gets the kernel when numba's cache is cold: ``background`` (default:
#: answer from the integer program, compile in a background process), ``now`` (compile and
#: wait), ``never`` (always the integer program: small boards where a compile costs minutes).
COMPILE_MODE_ENV = "RUMMI_SOLVER_COMPILE"
COMPILE_MODES = ("background", "now", "never")


def compile_mode() -> str:
    mode = os.environ.get(COMPILE_MODE_ENV, "background").strip().lower()
    if mode not in COMPILE_MODES:
        raise RummiError(f"{COMPILE_MODE_ENV}={mode!r}: use one of {', '.join(COMPILE_MODES)}")
    return mode


def _kernel_stamp() -> str:
    """Names the kernel's source and numba's version: a new release or an edit asks for a compile."""
    import importlib.metadata
    import importlib.util

    # Found without importing rummi.engine.solver, which would import numba too early.
    engine = importlib.util.find_spec("rummi.engine")
    folders = list(engine.submodule_search_locations or []) if engine else []
    source = Path(folders[0]) / "solver" / "dp_kernel.py" if folders else None
    stat = source.stat() if source and source.exists() else None
    numba = importlib.metadata.version("numba")
    mark = f"{stat.st_mtime_ns}-{stat.st_size}" if stat else "unknown"
    return f"rummi-{__version__}-numba-{numba}-{mark}"


def ready_marker() -> Path:
    return use_numba_cache() / f"{_kernel_stamp()}.ready"


def started_marker() -> Path:
    return use_numba_cache() / f"{_kernel_stamp()}.compiling"


def is_cached() -> bool:
    """Whether a compile of this very kernel finished before (so loading it takes under 1 s)."""
    return ready_marker().exists()


def compile_now() -> None:
    """Compile (or load) the kernel in this process and record that the cache is warm."""
    from rummi.engine.solver import dp

    use_numba_cache()
    dp.warm_up()
    marker = ready_marker()
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(time.strftime("%Y-%m-%d %H:%M:%S\n"))
    started_marker().unlink(missing_ok=True)


def settle_heap() -> int:
    """Take what the process holds now out of every later garbage collection; how many objects.

    A full collection walks every object the collector tracks, and once the kernel is loaded
    most of them (numba's typing of it, about 130,000 objects, and the service's own start)
    live as long as the process: walking them made each full collection longer than a hint
    (Twist hints: 80-190 ms of process time each, 10-40 ms with them frozen; docs/solver.md).
    Garbage made so far is collected first. Frozen objects are still freed when nothing
    refers to them; only a reference cycle among them never is. For the service alone, after
    its warm-up: the engine never freezes its caller's objects. Once per process: an app
    started again in the same process (an embedder, an in-process test client) does not freeze
    its host's heap a second time."""
    global _heap_settled
    if not _heap_settled:
        _heap_settled = True
        gc.collect()
        gc.freeze()
    return gc.get_freeze_count()


_heap_settled = False


def prepare_for_command_line() -> bool:
    """Before a command line solve: whether to pass ``compiled=True`` to the solver.

    With a cold cache the answer is ``False`` (the other routes answer), and one background
    process (not one per call) is started to compile the kernel.
    """
    mode = compile_mode()
    if is_cached() and mode != "never":
        return True
    if mode == "now":
        print("rummi: compiling the fast hint solver (first use, about a minute)", file=sys.stderr)
        compile_now()
        return True
    if mode == "never":
        return False
    started = started_marker()
    fresh = started.exists() and time.time() - started.stat().st_mtime < STALE_AFTER_S
    if not fresh:
        started.parent.mkdir(parents=True, exist_ok=True)
        child = subprocess.Popen(
            [sys.executable, "-m", "rummi.api.solver_warmup", "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        started.write_text(str(child.pid))  # whoever must stop it (a test) finds it here
        print(
            "rummi: preparing the fast hint solver in the background (first use, about a minute);"
            " until then hints come from the exact integer program",
            file=sys.stderr,
        )
    return False


log = logging.getLogger("rummi.api")


class SolverWarmup:
    """The service's kernel, compiled in a background thread; ``ready`` once it has run.

        >>> SolverWarmup().ready
        False
    """

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
        started = time.perf_counter()
        try:
            compile_now()
        except Exception:  # the other routes keep answering; say why the fast one is off
            log.exception("the hint solver's compiled kernel could not be prepared")
            return
        self.seconds = time.perf_counter() - started
        log.info("hint solver kernel ready after %.1f s", self.seconds)
        log.info("%d long-lived objects kept out of garbage collections", settle_heap())
        self._ready.set()


def main(argv: list[str] | None = None) -> int:
    quiet = "--quiet" in (argv if argv is not None else sys.argv[1:])
    if not quiet:
        print("compiling the hint solver's dynamic programme (numba, once per install)", flush=True)
    started = time.perf_counter()
    compile_now()
    if not quiet:
        print(f"hint solver ready ({time.perf_counter() - started:.1f} s); cache in {use_numba_cache()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
