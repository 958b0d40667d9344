"""Photos whose readings a user corrected on the page become labelled training data.

Each saved photo is written with :mod:`datasets.writer` into one dataset folder (the layout of
`rummi dataset`: detect/obb label files, reader crops, a truth JSON per photo, a manifest), so
the next training run lists that folder beside the others and learns from the tiles the models
got wrong. Corrected scenes all go to the ``train`` split; they are the model's mistakes, not an
unbiased sample to measure it on.

A process may be killed at any moment, and the folder must never be left damaged by it:

* a scene is first written whole into ``.staging/<pid>-<name>/`` inside the folder, then each of
  its files is renamed into place (a rename is atomic), and last its *record*
  ``.scenes/<name>.json`` (summary and crop rows) is written to a temporary name and renamed:
  a scene without a record was never saved, and its files are swept away at the next start;
* ``manifest.json`` and ``crops/index.csv`` are derived data: rebuilt from the records after
  every save and at start, each written to a temporary name and renamed, never in place;
* the quota (``max_corrections`` photos, ``max_corrections_mb``) is checked against the
  records and the staged scene before anything moves: a refused save (507) leaves nothing.

Several service processes may share the folder: saves take an exclusive file lock on it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from rummi.api.errors import CorrectionsFullError, CorrectionsUnavailableError, FieldError
from rummi.api.schemas import CorrectionLabels
from rummi.datasets.scene import LabelledTile, Scene
from rummi.datasets.writer import CROP_INDEX_HEADER, SceneSummary, finish, prepare, write_scene
from rummi.engine.errors import RummiError
from rummi.engine.notation import parse_tile

ORIENTATION_USER = "user-checked"
SPLIT = "train"
RECORDS = ".scenes"
STAGING = ".staging"
MANIFEST_EXTRA = {"source": "photos corrected by users on the rummi page", "split_policy": "all train"}


class CorrectionStore:
    """One growing dataset folder; safe from several threads and several processes at once."""

    def __init__(self, folder: Path, max_count: int = 2000, max_bytes: int = 2 << 30) -> None:
        self.folder = Path(folder)
        self.max_count = max_count
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def recover(self) -> None:
        """At start: sweep what killed saves left, then rebuild the index from the records."""
        if not (self.folder / "detect").exists():
            return
        try:
            with self._locked():
                self._import_legacy_manifest()
                self._sweep()
                self._rebuild()
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise CorrectionsUnavailableError(f"corrections folder {self.folder}: {error}") from error

    def save(self, image_bgr: np.ndarray, labels: CorrectionLabels) -> tuple[str, int, int]:
        """Write the photo and its labels; returns (scene name, tiles kept, tiles corrected)."""
        scene = build_scene(image_bgr, labels, _new_name())
        staging = self.folder / STAGING / f"{os.getpid()}-{scene.name}"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with self._locked():
                if not (self.folder / "detect").exists():
                    prepare(self.folder)
                    (self.folder / RECORDS).mkdir()
                self._import_legacy_manifest()
                records = self._records()
                if len(records) >= self.max_count:
                    raise CorrectionsFullError(
                        f"the corrections folder holds its limit of {self.max_count} photos"
                    )
                prepare(staging)
                summary, crop_rows = write_scene(staging, scene, SPLIT)
                size = _size(staging)
                used = sum(int(r.get("bytes", 0)) for r in records.values())
                if used + size > self.max_bytes:
                    raise CorrectionsFullError(
                        f"the corrections folder is full ({used / 1e6:.0f} MB of "
                        f"{self.max_bytes / 1e6:.0f} MB; this photo needs {size / 1e6:.1f} MB more)"
                    )
                self._commit(staging, scene.name, summary, crop_rows, size)
                self._rebuild()
        except RummiError:  # refused (quota, labels): nothing was moved, the staging goes below
            raise
        except (OSError, ValueError, KeyError, TypeError) as error:  # JSONDecodeError is a ValueError
            raise CorrectionsUnavailableError(f"corrections cannot be saved in {self.folder}: {error}") from error
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        corrected = sum(1 for t in labels.tiles if t.corrected)
        return scene.name, len(scene.tiles), corrected

    # --- the steps ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """This process's threads one at a time, and other processes through a file lock."""
        with self._lock, (self.folder / ".lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _commit(self, staging: Path, name: str, summary: SceneSummary, rows: list[str], size: int) -> None:
        """Rename the staged files into place, then write the scene's record (the commit)."""
        moved: list[Path] = []
        try:
            for source in sorted(p for p in staging.rglob("*") if p.is_file()):
                target = self.folder / source.relative_to(staging)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(source, target)
                moved.append(target)
            record = {"summary": summary.to_json(), "crop_rows": rows, "bytes": size}
            write_atomic(self.folder / RECORDS / f"{name}.json", json.dumps(record))
        except BaseException:
            for path in moved:  # an I/O failure half-way: take back what was moved
                path.unlink(missing_ok=True)
            raise

    def _records(self) -> dict[str, dict[str, Any]]:
        folder = self.folder / RECORDS
        if not folder.is_dir():
            return {}
        return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}

    def _rebuild(self) -> None:
        """``manifest.json`` and ``crops/index.csv`` from the records (each renamed into place)."""
        summaries, rows = [], []
        for record in self._records().values():
            entry = dict(record["summary"])
            meta = {k: v for k, v in entry.items() if k not in {"name", "split", "tiles", "crops"}}
            summaries.append(SceneSummary(entry["name"], entry["split"], entry["tiles"], entry["crops"], meta))
            rows.extend(record["crop_rows"])
        finish(self.folder, summaries, rows, MANIFEST_EXTRA)

    def _sweep(self) -> None:
        """Remove staging folders of dead processes and the files of scenes never committed
        (only in a folder kept with records: an older folder's files are never touched)."""
        if not (self.folder / RECORDS).is_dir():
            return
        live: set[str] = set()
        for staged in sorted((self.folder / STAGING).glob("*")) if (self.folder / STAGING).is_dir() else []:
            pid, _, name = staged.name.partition("-")
            if pid.isdigit() and _alive(int(pid)):
                live.add(name)
            else:
                shutil.rmtree(staged, ignore_errors=True)
        keep = set(self._records()) | live
        scene_files = [
            *self.folder.glob("*/images/*/*.jpg"),
            *self.folder.glob("*/labels/*/*.txt"),
            *self.folder.glob("truth/*/*.json"),
        ]
        for path in scene_files:
            if _scene_name(path.stem) not in keep:
                path.unlink(missing_ok=True)
        for path in self.folder.glob("crops/*/*/*.jpg"):  # NAME_07.jpg
            if _scene_name(path.stem.rpartition("_")[0]) not in keep:
                path.unlink(missing_ok=True)

    def _import_legacy_manifest(self) -> None:
        """A folder written before records existed: make the records from its manifest, once."""
        manifest_path = self.folder / "manifest.json"
        if (self.folder / RECORDS).exists():
            return
        if not manifest_path.exists():
            raise CorrectionsUnavailableError(
                f"{self.folder} holds a dataset without manifest.json: move it away or restore the manifest"
            )
        try:
            manifest = json.loads(manifest_path.read_text())
        except ValueError:
            # A damaged manifest of the old layout: a person must look, nothing is overwritten.
            raise CorrectionsUnavailableError(
                f"{manifest_path} is damaged (written before saves were atomic): restore it or move the folder"
            ) from None
        index = self.folder / "crops" / "index.csv"
        lines = index.read_text().splitlines() if index.exists() else []
        rows = [line for line in lines if line and line != CROP_INDEX_HEADER]
        for entry in manifest.get("scenes", []):
            name = entry["name"]
            mine = [r for r in rows if r.split(",")[4:5] == [name]]
            write_atomic(
                self.folder / RECORDS / f"{name}.json",
                json.dumps({"summary": entry, "crop_rows": mine, "bytes": 0}),
            )
        (self.folder / RECORDS).mkdir(exist_ok=True)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, flush it to disk, rename it over."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with temporary.open("w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _size(folder: Path) -> int:
    """Bytes of the files under ``folder`` (hard links counted once)."""
    seen: set[int] = set()
    total = 0
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            if stat.st_ino not in seen:
                seen.add(stat.st_ino)
                total += stat.st_size
    return total


def _alive(pid: int) -> bool:
    """Whether a process with this id runs (a staging folder of a live one is a save in progress)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


_NAME = re.compile(r"^(corrected-\d{8}-\d{6}-[0-9a-f]{6})")


def _scene_name(stem: str) -> str:
    match = _NAME.match(stem)
    return match.group(1) if match else stem


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
