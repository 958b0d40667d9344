"""Converts the shared real photos (polygon labels) into our dataset layout.

Source: an ultralytics-style export with ``data.yaml`` (class *names*, alphabetical) and
``{train,valid}/{images,labels}``; each label line is ``CLASS x1 y1 ... xn yn``, a polygon in
0..1 coordinates. Names are mapped to engine notation (``black_7`` -> ``k7``), never indices.
Each polygon becomes the minimum-area rectangle around it, turned so its top is where the
number's ink is (see :func:`datasets.geometry.ink_offset`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from rummi.datasets import writer
from rummi.datasets.errors import DatasetError
from rummi.datasets.geometry import flip_quad, ink_offset, min_area_quad
from rummi.datasets.progress import Progress
from rummi.datasets.scene import ORIENTATION_INK, LabelledTile, Scene
from rummi.datasets.sessions import session_of, split_by_session, val_ranges
from rummi.vision.classes import UnknownClassError, class_names_from_yaml, source_name_to_notation
from rummi.vision.geometry import CROP_SIZE, warp_crop

#: Environment variable naming the folder of the shared labelled photos.
REAL_PHOTOS_ENV = "RUMMI_REAL_PHOTOS"
#: Where the shared photos lie relative to the checkout: in ``shared/`` beside it.
BESIDE_CHECKOUT = Path("..") / "shared" / "datasets" / "rummikub-photos"


def default_real_photos() -> Path:
    """The shared photo export: ``$RUMMI_REAL_PHOTOS`` if set, else ``shared/`` beside the
    checkout (as laid out for developers and CI). No machine's absolute path is assumed; a
    command given neither says so (see :func:`convert`)."""
    override = os.environ.get(REAL_PHOTOS_ENV)
    if override:
        return Path(override)
    checkout = Path(__file__).resolve().parents[1]
    return (checkout / BESIDE_CHECKOUT).resolve()


SOURCE_CREDIT = (
    "Roboflow Universe rummikue/rummikub-nvypk-8cwem v1, a copy of jonasbuehler/rummikub-nvypk "
    "by Jonas Bühler, CC BY 4.0"
)
SOURCE_SPLITS = ("train", "valid")


@dataclass(frozen=True)
class SourcePhoto:
    image: Path
    label: Path
    source_split: str
    session: tuple[str, int]


def read_class_names(source: Path) -> list[str]:
    """The export's class names in index order, from its ``data.yaml``."""
    try:
        return class_names_from_yaml(Path(source) / "data.yaml")
    except UnknownClassError as error:
        raise DatasetError(str(error)) from None


def list_photos(source: Path) -> list[SourcePhoto]:
    photos = []
    for split in SOURCE_SPLITS:
        for image in sorted((source / split / "images").glob("*.jpg")):
            label = source / split / "labels" / f"{image.stem}.txt"
            photos.append(SourcePhoto(image, label, split, session_of(image.name)))
    if not photos:
        raise DatasetError(f"no photos under {source}/{{train,valid}}/images")
    return photos


def parse_polygon_line(line: str, names: list[str], where: str) -> tuple[str, np.ndarray]:
    """(notation, Nx2 normalised points) of one label line; DatasetError names the bad line."""
    parts = line.split()
    try:
        class_index = int(parts[0])
        values = [float(v) for v in parts[1:]]
    except (ValueError, IndexError) as error:
        raise DatasetError(f"{where}: not 'CLASS x1 y1 ... xn yn': {line.strip()!r}") from error
    if not 0 <= class_index < len(names):
        raise DatasetError(f"{where}: class {class_index} outside 0..{len(names) - 1}")
    if len(values) < 6 or len(values) % 2:
        raise DatasetError(f"{where}: a polygon needs at least 3 (x, y) pairs, got {len(values)} numbers")
    points = np.asarray(values, dtype=np.float64).reshape(-1, 2)
    if points.min() < -0.01 or points.max() > 1.01:
        raise DatasetError(f"{where}: coordinates outside 0..1")
    try:
        notation = source_name_to_notation(names[class_index])
    except UnknownClassError as error:
        raise DatasetError(f"{where}: {error}") from error
    return notation, points.clip(0.0, 1.0)


def photo_scene(photo: SourcePhoto, names: list[str]) -> Scene:
    """Read one photo and its polygons as a :class:`Scene` with upright-ordered corners."""
    image = cv2.imread(str(photo.image))
    if image is None:
        raise DatasetError(f"{photo.image}: not a readable image")
    height, width = image.shape[:2]
    tiles = []
    lines = photo.label.read_text().splitlines() if photo.label.exists() else []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        notation, points = parse_polygon_line(line, names, f"{photo.label.name} line {number}")
        quad = min_area_quad(points * [width, height])
        offset = ink_offset(warp_crop(image, quad, CROP_SIZE))
        if offset > 0:  # ink in the lower half: the top is the other short side
            quad = flip_quad(quad)
        tiles.append(LabelledTile(notation, quad, ORIENTATION_INK, min(1.0, abs(offset))))
    prefix, number = photo.session
    return Scene(
        name=f"{prefix}-{number}",
        image=image,
        tiles=tiles,
        meta={"source_file": f"{photo.source_split}/images/{photo.image.name}", "session": prefix,
              "number": number, "source_split": photo.source_split},
    )


def convert(source: Path, out_dir: Path, val_fraction: float = 0.2, show_progress: bool = True) -> dict:
    """Convert every photo under ``source`` into ``out_dir``; returns the manifest."""
    source, out_dir = Path(source), Path(out_dir)
    if not source.is_dir():
        raise DatasetError(f"{source}: no such folder (pass --source, or set ${REAL_PHOTOS_ENV})")
    names = read_class_names(source)
    photos = list_photos(source)
    split = split_by_session((p.session for p in photos), val_fraction)
    writer.prepare(out_dir)
    summaries, crop_rows = [], []
    with Progress(len(photos), "real", enabled=show_progress) as bar:
        for photo, scene in _scenes(photos, names):
            summary, rows = writer.write_scene(out_dir, scene, split[photo.session], source_jpeg=photo.image)
            summaries.append(summary)
            crop_rows.extend(rows)
            bar.advance()
    return writer.finish(out_dir, summaries, crop_rows, {
        "kind": "real",
        "source": str(source),
        "credit": SOURCE_CREDIT,
        "val_policy": (
            f"by shooting session: per file-name prefix, the highest-numbered {val_fraction:.0%} of photos "
            "(a contiguous number block) are val; the export's own random train/valid split is not "
            "used because neighbouring numbers show the same table"
        ),
        "val_ranges": val_ranges(split),
    })


def _scenes(photos: list[SourcePhoto], names: list[str]) -> Iterator[tuple[SourcePhoto, Scene]]:
    for photo in photos:
        yield photo, photo_scene(photo, names)
