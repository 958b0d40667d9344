"""Shared resources handed to routes with ``Depends``: settings, the scanner, the storage.

The scanner's ONNX sessions take a while to load and hold a lot of memory, so there is one per
process, loaded on the first scan (not at start-up: `rummi serve` answers at once and a service
that never scans never pays for it) and shared by every request after that.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import Depends, Request
from rummi.api.access import Access
from rummi.api.corrections import CorrectionStore
from rummi.api.errors import ScansBusyError
from rummi.api.game_records import GameRecords
from rummi.api.memory import give_back_memory, keep_big_blocks_apart
from rummi.api.settings import Settings

if TYPE_CHECKING:
    from rummi.vision.scanner import Scanner

T = TypeVar("T")


class ScannerHolder:
    """Loads the scanner once, on first use, whichever thread asks first."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._scanner: Scanner | None = None

    @property
    def loaded(self) -> bool:
        return self._scanner is not None

    def get(self) -> Scanner:
        """The loaded scanner (blocking; call from a worker thread, never the event loop)."""
        if self._scanner is None:
            with self._lock:
                if self._scanner is None:
                    from rummi.vision.scanner import Scanner

                    self._scanner = Scanner.load(self._settings.models_dir)
        return self._scanner


class Inference:
    """Runs CPU-heavy work in worker threads, on two separate sets of workers.

    Scans (decoding, detection, reading) get ``settings.scan_workers``, with at most
    ``settings.max_queued_scans`` more waiting (beyond that: :class:`ScansBusyError`, 503). Hints
    and verdicts get ``settings.quick_workers`` of their own, so ten uploads never hold up a hint
    (they took 16 s behind them when both shared one limiter). Waiting never blocks the event
    loop, so a table check or the page is answered meanwhile.
    """

    def __init__(self, settings: Settings) -> None:
        self.scanner = ScannerHolder(settings)
        self._trim = settings.trim_memory
        if self._trim:  # before any photo: a big buffer is then never kept by a worker's arena
            keep_big_blocks_apart()
        self._scans = anyio.CapacityLimiter(settings.scan_workers)
        self._quick = anyio.CapacityLimiter(settings.quick_workers)
        self._max_waiting = settings.max_queued_scans
        self._scans_in = 0

    async def scan(self, work: Callable[..., T], *args: Any) -> T:
        """Run a photo job on the scan workers (refused when too many wait already)."""
        waiting = self._scans_in - self._scans.total_tokens
        if waiting >= self._max_waiting:
            raise ScansBusyError(max(waiting, 0))
        self._scans_in += 1
        try:
            return await anyio.to_thread.run_sync(self._then_trim, work, *args, limiter=self._scans)
        finally:
            self._scans_in -= 1

    def _then_trim(self, work: Callable[..., T], *args: Any) -> T:
        """Run a photo job; then hand the memory it freed back to the system (a decode of a big
        photo leaves hundreds of megabytes in the allocator otherwise: :mod:`api.memory`)."""
        try:
            return work(*args)
        finally:
            if self._trim:
                give_back_memory()

    async def quick(self, work: Callable[..., T], *args: Any) -> T:
        """Run a hint or a verdict on their own workers, never behind a scan."""
        return await anyio.to_thread.run_sync(work, *args, limiter=self._quick)


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_inference(request: Request) -> Inference:
    return request.app.state.inference


def get_corrections(request: Request) -> CorrectionStore:
    return request.app.state.corrections


def get_games(request: Request) -> GameRecords:
    return request.app.state.games


def get_access(request: Request) -> Access:
    return request.app.state.access


# What routes declare: ``inference: InferenceDep`` and so on.
SettingsDep = Annotated[Settings, Depends(get_settings)]
InferenceDep = Annotated[Inference, Depends(get_inference)]
CorrectionsDep = Annotated[CorrectionStore, Depends(get_corrections)]
GamesDep = Annotated[GameRecords, Depends(get_games)]
AccessDep = Annotated[Access, Depends(get_access)]
