"""What the service knows before any photo: health, tile boxes, rule presets."""

from __future__ import annotations

from fastapi import APIRouter
from rummi.api.deps import InferenceDep
from rummi.api.schemas import EditionInfo, Health, PresetInfo
from rummi.api.settings import API_VERSION
from rummi.engine.editions import EDITIONS
from rummi.engine.rules import PRESETS

router = APIRouter(tags=["meta"])


@router.get("/health", response_model=Health, summary="Is the service up")
async def health(inference: InferenceDep) -> Health:
    return Health(version=API_VERSION, scanner_loaded=inference.scanner.loaded)


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
