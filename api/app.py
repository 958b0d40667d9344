"""The FastAPI application: ``create_app(settings)`` builds one, `rummi serve` runs it.

    >>> from rummi.api.app import create_app
    >>> from rummi.api.settings import Settings
    >>> app = create_app(Settings(database_url="sqlite:///:memory:"))

JSON endpoints live under ``/api/v1``; the camera page is served at ``/`` from ``api/static``.
Request bodies are capped as they stream in (:mod:`api.limits`): ``max_json_bytes`` everywhere,
``max_upload_bytes`` on the routes that take a photo.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from rummi.api.corrections import CorrectionStore
from rummi.api.deps import Inference
from rummi.api.errors import install_error_handlers
from rummi.api.game_records import GameRecords
from rummi.api.limits import BodyLimitMiddleware
from rummi.api.routers import games, meta, photos, play, watch
from rummi.api.settings import API_PREFIX, API_VERSION, Settings

STATIC_DIR = Path(__file__).resolve().parent / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    """A ready-to-serve application; every limit and path comes from ``settings``."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.games = GameRecords.open(settings.database_url)
        try:
            yield
        finally:
            app.state.games.close()

    app = FastAPI(
        title="Rummi",
        form_limits={"max_files": 1, "max_fields": 4, "max_part_size": settings.max_json_bytes},
        version=API_VERSION,
        summary="A camera assistant for Rummikub: read the tiles, check the sets, hint, referee, score.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.inference = Inference(settings)
    app.state.corrections = CorrectionStore(settings.corrections_dir)
    install_error_handlers(app)

    app.include_router(meta.router, prefix=API_PREFIX)
    app.include_router(play.router, prefix=API_PREFIX)
    app.include_router(games.router, prefix=API_PREFIX)
    app.include_router(photos.router, prefix=API_PREFIX)
    app.include_router(watch.router, prefix=API_PREFIX)
    app.add_middleware(
        BodyLimitMiddleware,
        default=settings.max_json_bytes,
        per_path={
            f"{API_PREFIX}{path}": settings.max_upload_bytes for path in (*photos.UPLOAD_PATHS, *watch.UPLOAD_PATHS)
        },
    )

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    return app
