"""What the service knows before any photo: health, tile boxes, rule presets, how to join."""

from __future__ import annotations

import io

import anyio.to_thread
import segno
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from rummi.api.deps import AccessDep, GamesDep, InferenceDep, SettingsDep
from rummi.api.schemas import EditionInfo, Health, JoinOut, PresetInfo
from rummi.api.settings import API_VERSION
from rummi.api.storage import DatabaseFailureError
from rummi.engine.editions import EDITIONS
from rummi.engine.rules import PRESETS

from rummi import __version__

router = APIRouter(tags=["meta"])


@router.get(
    "/health",
    response_model=Health,
    summary="Is the service up, and its database",
    responses={503: {"model": Health, "description": "The database does not answer."}},
)
async def health(request: Request, inference: InferenceDep, games: GamesDep, access: AccessDep) -> JSONResponse:
    """200 when the database answers a query now, else 503 with the reason: a supervisor (or a
    load balancer) restarts or skips a process whose database is gone."""
    detail = None
    try:
        await anyio.to_thread.run_sync(games.ping)
    except DatabaseFailureError:
        detail = "the database does not answer (see the service's log)"
    body = Health(
        status="ok" if detail is None else "unavailable",
        version=__version__,
        api_version=API_VERSION,
        database="ok" if detail is None else "unavailable",
        detail=detail,
        scanner_loaded=inference.scanner.loaded,
        hints_compiled=request.app.state.warmup.ready,
        access="token" if access.required else "open",
    )
    return JSONResponse(body.model_dump(), status_code=200 if detail is None else 503)


@router.get("/join", response_model=JoinOut, summary="The address (and QR code) a phone opens to join")
async def join(request: Request, settings: SettingsDep, access: AccessDep) -> JoinOut:
    """The page's URL with the organiser's token in its fragment (``#token=...``: a fragment is
    never sent to a server or put in a log), and the same as a QR code for a phone's camera."""
    url = join_url(settings.public_url or str(request.base_url), access.token)
    return JoinOut(url=url, qr_svg=qr_svg(url))


def join_url(base: str, token: str | None) -> str:
    """``https://192.168.1.20:8443/#token=...`` (no fragment when no token is needed)."""
    base = base if base.endswith("/") else base + "/"
    return base if token is None else f"{base}#token={token}"


def qr_svg(text: str) -> str:
    """``text`` as a QR code, a standalone SVG document (dark modules on white)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=4, border=4, xmldecl=False, svgns=True)
    return out.getvalue().decode()


@router.get("/editions", response_model=list[EditionInfo], summary="Tile boxes the engine knows")
async def editions() -> list[EditionInfo]:
    return [
        EditionInfo(
            name=e.name,
            title=e.title,
            tile_count=e.tile_count,
            numbers=[e.min_number, e.max_number],
            colours=[c.letter for c in e.colours],
            jokers={str(tile): count for tile, count in e.jokers.items()},
        )
        for e in EDITIONS.values()
    ]


@router.get("/presets", response_model=list[PresetInfo], summary="Rule presets, one per rulebook")
async def presets() -> list[PresetInfo]:
    return [
        PresetInfo(name=r.name, title=r.title, source=r.source, rules=r.to_dict()) for r in PRESETS.values()
    ]
