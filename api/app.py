"""The FastAPI application: ``create_app(settings)`` builds one, `rummi serve` runs it.

    >>> from rummi.api.app import create_app
    >>> from rummi.api.settings import Settings
    >>> app = create_app(Settings(database_url="sqlite:///:memory:"))

JSON endpoints live under ``/api/v1``; the camera page is served at ``/`` from ``api/static``.
Every request passes, outermost first:

1. :class:`api.access.GuardMiddleware`: the Host check, the Origin check on writes, the token
   (when the service has one), and the security headers of every answer;
2. :class:`api.rate_limits.RateLimitMiddleware`: per-client allowances of writes, scans and
   corrections (429), shared by every process on PostgreSQL;
3. :class:`api.slow_clients.BodyTimeoutMiddleware`: a body that stalls is a 408;
4. :class:`api.limits.BodyLimitMiddleware`: ``max_json_bytes`` everywhere, ``max_upload_bytes``
   on the routes that take a photo (413).

``create_app()`` with no argument reads the settings from the environment, so uvicorn can call
it in each worker process (``rummi serve --workers N``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from rummi.api import slow_clients
from rummi.api.access import Access, GuardMiddleware
from rummi.api.corrections import CorrectionStore
from rummi.api.deps import Inference
from rummi.api.errors import install_error_handlers
from rummi.api.game_records import GameRecords
from rummi.api.limits import BodyLimitMiddleware
from rummi.api.rate_limits import RateLimiter, RateLimitMiddleware
from rummi.api.routers import games, meta, photos, play, watch
from rummi.api.settings import API_PREFIX, API_VERSION, Settings
from rummi.api.solver_warmup import SolverWarmup
from rummi.api.storage import DatabaseFailureError
from rummi.api.storage.rate_buckets import SharedBuckets

log = logging.getLogger("rummi.api")
STATIC_DIR = Path(__file__).resolve().parent / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    """A ready-to-serve application; every limit and path comes from ``settings``."""
    settings = settings or Settings()
    slow_clients.LIMITS.header_timeout_s = settings.header_timeout_s
    slow_clients.LIMITS.max_connections = settings.max_connections

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.games = GameRecords.open(settings.database_url)
        if app.state.games.database.dialect.name == "postgresql":
            # Several processes may serve this database: one allowance per client among them all.
            try:
                app.state.rate_limiter.share(SharedBuckets(app.state.games.database))
            except DatabaseFailureError as error:  # no CREATE right, the database gone meanwhile
                log.warning("shared rate limits unavailable at start (%s); this process's own apply", error)
        app.state.warmup.start()
        try:
            await anyio.to_thread.run_sync(app.state.corrections.recover)
        except Exception:  # a damaged folder is reported by each save (503), not at start
            log.exception("the corrections folder could not be checked at start")
        try:
            yield
        finally:
            app.state.rate_limiter.share(None)
            app.state.games.close()

    app = FastAPI(
        title="Rummi",
        form_limits={"max_files": 1, "max_fields": 4, "max_part_size": settings.max_json_bytes},
        version=API_VERSION,
        summary="A camera assistant for Rummikub: read the tiles, check the sets, hint, referee, score.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.access = Access(settings.token, settings.join_secret)
    app.state.inference = Inference(settings)
    app.state.warmup = SolverWarmup()
    app.state.rate_limiter = RateLimiter(
        {
            "writes": settings.writes_per_minute,
            "scans": settings.scans_per_minute,
            "corrections": settings.corrections_per_minute,
            "frames": settings.frames_per_minute,
        }
    )
    app.state.corrections = CorrectionStore(
        settings.corrections_dir,
        max_count=settings.max_corrections,
        max_bytes=settings.max_corrections_mb * 1_000_000,
    )
    install_error_handlers(app)

    app.include_router(meta.router, prefix=API_PREFIX)
    app.include_router(play.router, prefix=API_PREFIX)
    app.include_router(games.router, prefix=API_PREFIX)
    app.include_router(photos.router, prefix=API_PREFIX)
    app.include_router(watch.router, prefix=API_PREFIX)
    # Added innermost first: the last one added sees a request first.
    app.add_middleware(
        BodyLimitMiddleware,
        default=settings.max_json_bytes,
        per_path={
            f"{API_PREFIX}{path}": settings.max_upload_bytes for path in (*photos.UPLOAD_PATHS, *watch.UPLOAD_PATHS)
        },
    )
    app.add_middleware(
        slow_clients.BodyTimeoutMiddleware, total_s=settings.body_timeout_s, idle_s=settings.body_idle_timeout_s
    )
    app.add_middleware(RateLimitMiddleware, api_prefix=API_PREFIX, limiter=app.state.rate_limiter)
    app.add_middleware(
        GuardMiddleware,
        access=app.state.access,
        api_prefix=API_PREFIX,
        trusted_hosts=settings.trusted_host_names(),
    )

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    return app
