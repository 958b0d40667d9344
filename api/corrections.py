"""Photos whose readings a user corrected on the page become labelled training data.

Each saved photo is written with :mod:`datasets.writer` into one dataset folder (the layout of
`rummi dataset`: detect/obb label files, reader crops, a truth JSON per photo, a manifest), so
the next training run lists that folder beside the others and learns from the tiles the models
got wrong. Corrected scenes all go to the ``train`` split; they are the model's mistakes, not an
unbiased sample to measure it on.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from rummi.api.errors import CorrectionsUnavailableError, FieldError
from rummi.api.schemas import CorrectionLabels
from rummi.datasets.scene import LabelledTile, Scene
from rummi.datasets.writer import CROP_INDEX_HEADER, SceneSummary, finish, prepare, write_scene
from rummi.engine.errors import RummiError
from rummi.engine.notation import parse_tile

ORIENTATION_USER = "user-checked"
SPLIT = "train"


class CorrectionStore:
    """One growing dataset folder; safe to call from several worker threads at once."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()

    def save(self, image_bgr: np.ndarray, labels: CorrectionLabels) -> tuple[str, int, int]:
        """Write the photo and its labels; returns (scene name, tiles kept, tiles corrected)."""
        scene = build_scene(image_bgr, labels, _new_name())
        with self._lock:
            try:
                if not (self.folder / "detect").exists():
                    self.folder.mkdir(parents=True, exist_ok=True)
                    prepare(self.folder)
                summary, crop_rows = write_scene(self.folder, scene, SPLIT)
                summaries, rows = self._written()
                finish(
                    self.folder,
                    [*summaries, summary],
                    [*rows, *crop_rows],
                    {"source": "photos corrected by users on the rummi page", "split_policy": "all train"},
                )
            except (OSError, ValueError, KeyError, TypeError) as error:  # JSONDecodeError is a ValueError
                raise CorrectionsUnavailableError(
                    f"corrections cannot be saved in {self.folder}: {error}"
                ) from error
        corrected = sum(1 for t in labels.tiles if t.corrected)
        return scene.name, len(scene.tiles), corrected

    def _written(self) -> tuple[list[SceneSummary], list[str]]:
        """What the manifest already lists, so a new manifest keeps it."""
        manifest_path = self.folder / "manifest.json"
        if not manifest_path.exists():
            return [], []
        manifest = json.loads(manifest_path.read_text())
        summaries = []
        for entry in manifest.get("scenes", []):
            meta = {k: v for k, v in entry.items() if k not in {"name", "split", "tiles", "crops"}}
            summaries.append(
                SceneSummary(entry["name"], entry["split"], entry["tiles"], entry["crops"], meta)
            )
        index = self.folder / "crops" / "index.csv"
        lines = index.read_text().splitlines() if index.exists() else []
        rows = [line for line in lines if line and line != CROP_INDEX_HEADER]
        return summaries, rows


def build_scene(image_bgr: np.ndarray, labels: CorrectionLabels, name: str) -> Scene:
    """The labelled scene of one photo: tiles marked 'not a tile' are dropped, indices remapped."""
    height, width = image_bgr.shape[:2]
    if labels.width and labels.height and (labels.width, labels.height) != (width, height):
        raise RummiError(
            f"labels are for a {labels.width}x{labels.height} picture but the photo is {width}x{height}"
        )
    keep: dict[int, int] = {}
    tiles: list[LabelledTile] = []
    for i, tile in enumerate(labels.tiles):
        if tile.tile is None:
            continue
        try:
            notation = _notation(tile.tile)
        except RummiError as error:
            raise FieldError(f"labels.tiles[{i}].tile", error) from None
        quad = np.asarray(tile.corners, np.float32)
        if not _inside(quad, width, height):
            raise RummiError(f"labels.tiles[{i}].corners: outside the {width}x{height} photo")
        keep[i] = len(tiles)
        tiles.append(LabelledTile(notation=notation, quad=quad, orientation_source=ORIENTATION_USER))
    count = len(labels.tiles)
    sets = [_remap(s, keep, count, f"labels.sets[{n}]") for n, s in enumerate(labels.sets)]
    sets = [s for s in sets if s]
    for number, members in enumerate(sets):
        for i in members:
            tiles[i].set_index = number
    for i in _remap(labels.rack or [], keep, count, "labels.rack"):
        tiles[i].on_rack = True
    meta: dict[str, Any] = {
        "source": "user correction",
        "corrected_tiles": sum(1 for t in labels.tiles if t.corrected),
        "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    return Scene(name=name, image=image_bgr, tiles=tiles, sets=sets, meta=meta)


def _notation(text: str) -> str:
    """Canonical notation of one tile, whichever box it comes from (Twist and Expert jokers too)."""
    error: RummiError | None = None
    for edition in ("standard", "twist", "expert"):
        try:
            return str(parse_tile(text, edition))
        except RummiError as problem:
            error = error or problem
    assert error is not None
    raise error


def _remap(indices: list[int], keep: dict[int, int], count: int, where: str) -> list[int]:
    """Indices into the kept tiles; tiles marked 'not a tile' simply leave their set."""
    wrong = [i for i in indices if not 0 <= i < count]
    if wrong:
        raise RummiError(f"{where}: no tile number {wrong[0]} (the labels hold {count} tiles)")
    return [keep[i] for i in indices if i in keep]


def _inside(quad: np.ndarray, width: int, height: int) -> bool:
    """Corners may stick out a little (a tile cut by the frame edge), not lie elsewhere."""
    margin = 0.25 * max(width, height)
    return bool(
        np.all(np.isfinite(quad))
        and quad[:, 0].min() >= -margin
        and quad[:, 1].min() >= -margin
        and quad[:, 0].max() <= width + margin
        and quad[:, 1].max() <= height + margin
    )


def _new_name() -> str:
    return f"corrected-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(3)}"
