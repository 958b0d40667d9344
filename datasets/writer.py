"""Writes labelled scenes in the one layout shared by every dataset we make.

Layout under the output folder (identical for ``real`` and ``synth``)::

    detect/    images/{train,val}/NAME.jpg  labels/{train,val}/NAME.txt  data.yaml   1 class "tile", xywh
    detect53/  same, 53 classes (k1..r13, J), xywh
    obb/       same, 1 class "tile", OBB corners (x1 y1 ... x4 y4)
    obb53/     same, 53 classes, OBB corners
    crops/     {train,val}/<class>/NAME_<i>.jpg                 reader crops, ultralytics classify layout
    truth/     {train,val}/NAME.json                            every tile's notation, corners, set, rack
    manifest.json                                               what is where, counts, orientation contract

Images are stored once (in ``detect/images``) and hard-linked into the other three, because
ultralytics finds a label by replacing ``/images/`` with ``/labels/`` in the image's path and
resolves symlinked folders (which would send every variant to one ``labels`` folder).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from rummi.datasets.geometry import axis_box
from rummi.datasets.scene import LabelledTile, Scene
from rummi.vision.classes import FINDER_CLASSES, TILE_CLASSES, reader_class, tile_class_index
from rummi.vision.geometry import CROP_SIZE, portrait_order, warp_crop

SPLITS: tuple[str, ...] = ("train", "val")
#: JPEG quality of the reader crops (high: they are small, and the reader sees raw pixels).
CROP_JPEG_QUALITY = 95
DETECT_VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "detect": ("axis", FINDER_CLASSES),
    "detect53": ("axis", TILE_CLASSES),
    "obb": ("obb", FINDER_CLASSES),
    "obb53": ("obb", TILE_CLASSES),
}
#: A crop is only written when this much of the tile is visible and inside the image.
MIN_CROP_VISIBLE = 0.8
MIN_CROP_SHORT_SIDE_PX = 10.0

CROP_ORIENTATION_NOTE = (
    "Every crop is portrait (w:h = {w}:{h}) and upright: the tile's number at the top, the brand "
    "mark at the bottom. Generated crops are upright by construction; real crops were turned "
    "upright by where the number's ink sits (its centre of mass is in the upper half of an "
    "upright face); crops/index.csv gives each crop's orientation source and confidence "
    "(|offset| of the ink centre, 0..1; below 0.1 means unsure). To teach a reader which way is "
    "up, rotate crops by 180 degrees to make an 'upside-down' class or augmentation: no crop is "
    "stored upside down."
)


@dataclass(frozen=True)
class SceneSummary:
    """What the manifest records about one written scene."""

    name: str
    split: str
    tiles: int
    crops: int
    meta: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "split": self.split, "tiles": self.tiles, "crops": self.crops, **self.meta}


def prepare(out_dir: Path) -> None:
    """Create the empty layout (refusing to mix into an existing dataset's files)."""
    out_dir = Path(out_dir)
    if (out_dir / "manifest.json").exists() or (out_dir / "detect").exists():
        raise FileExistsError(f"{out_dir} already holds a dataset; remove it or pick another --out")
    for variant in DETECT_VARIANTS:
        for split in SPLITS:
            (out_dir / variant / "images" / split).mkdir(parents=True, exist_ok=True)
            (out_dir / variant / "labels" / split).mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        for name in sorted(set(reader_class(c) for c in TILE_CLASSES)):
            (out_dir / "crops" / split / name).mkdir(parents=True, exist_ok=True)
        (out_dir / "truth" / split).mkdir(parents=True, exist_ok=True)


def write_scene(out_dir: Path, scene: Scene, split: str, source_jpeg: Path | None = None,
                jpeg_quality: int = 90, crop_tiles: Iterable[int] | None = None) -> tuple[SceneSummary, list[str]]:
    """Write one scene everywhere; returns its summary and its lines for ``crops/index.csv``.

    ``source_jpeg`` copies an existing file byte for byte instead of re-encoding ``scene.image``.
    ``crop_tiles`` limits reader crops to those tile indices (all crop-worthy tiles by default).
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    out_dir = Path(out_dir)
    height, width = scene.image.shape[:2]
    main_image = out_dir / "detect" / "images" / split / f"{scene.name}.jpg"
    if source_jpeg is not None:
        shutil.copyfile(source_jpeg, main_image)
    else:
        ok, data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        if not ok:
            raise OSError(f"could not encode {scene.name}")
        main_image.write_bytes(data.tobytes())
    for variant, (kind, classes) in DETECT_VARIANTS.items():
        if variant != "detect":
            _link(main_image, out_dir / variant / "images" / split / main_image.name)
        lines = [_label_line(tile, kind, classes, width, height) for tile in scene.tiles]
        label_path = out_dir / variant / "labels" / split / f"{scene.name}.txt"
        label_path.write_text("".join(line + "\n" for line in lines))
    crop_rows = _write_crops(out_dir, scene, split, None if crop_tiles is None else set(crop_tiles))
    truth = scene_truth(scene)
    (out_dir / "truth" / split / f"{scene.name}.json").write_text(json.dumps(truth, indent=1))
    return SceneSummary(scene.name, split, len(scene.tiles), len(crop_rows), dict(scene.meta)), crop_rows


def scene_truth(scene: Scene) -> dict[str, Any]:
    """The JSON truth of a scene: image size, tiles (notation, corners), sets, rack."""
    height, width = scene.image.shape[:2]
    return {
        "name": scene.name,
        "width": width,
        "height": height,
        "corner_order": "TL,TR,BR,BL of the upright tile face, pixels",
        "tiles": [
            {
                "notation": t.notation,
                "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in t.quad],
                "angle_deg": round(t.angle_degrees(), 1),
                "orientation_source": t.orientation_source,
                "orientation_confidence": round(float(t.orientation_confidence), 3),
                "on_rack": t.on_rack,
                "set": t.set_index,
                "visible_fraction": round(float(t.visible_fraction), 3),
            }
            for t in scene.tiles
        ],
        "sets": scene.sets,
        "rack": [i for i, t in enumerate(scene.tiles) if t.on_rack],
        "meta": scene.meta,
    }


def _label_line(tile: LabelledTile, kind: str, classes: tuple[str, ...], width: int, height: int) -> str:
    class_id = 0 if len(classes) == 1 else tile_class_index(tile.notation)
    quad = _clip_quad(tile.quad, width, height)
    if kind == "axis":
        x0, y0, x1, y1 = axis_box(quad)
        cx, cy = (x0 + x1) / 2 / width, (y0 + y1) / 2 / height
        bw, bh = (x1 - x0) / width, (y1 - y0) / height
        return f"{class_id} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}"
    coords = " ".join(f"{x / width:.6f} {y / height:.6f}" for x, y in quad)
    return f"{class_id} {coords}"


def _clip_quad(quad: np.ndarray, width: int, height: int) -> np.ndarray:
    """Corners inside the image: the visible part's min-area rectangle when the tile is cut.

    ultralytics drops a whole label file with any coordinate outside 0..1, so a tile that runs
    off the edge is labelled by the part that is in the picture.
    """
    quad = np.asarray(quad, dtype=np.float32)
    inside = (quad[:, 0] >= 0) & (quad[:, 0] <= width) & (quad[:, 1] >= 0) & (quad[:, 1] <= height)
    if inside.all():
        return quad
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    area, visible = cv2.intersectConvexConvex(quad, frame)
    if visible is not None and area > 1.0:
        clipped = portrait_order(cv2.boxPoints(cv2.minAreaRect(visible.reshape(-1, 2))))
        clipped[:, 0] = np.clip(clipped[:, 0], 0, width)
        clipped[:, 1] = np.clip(clipped[:, 1], 0, height)
        if np.ptp(clipped[:, 0]) >= 1.0 and np.ptp(clipped[:, 1]) >= 1.0:
            return clipped
    # a sliver (or nothing) in the picture: a box of at least 1 px at the nearest edge
    x0, y0, x1, y1 = axis_box(quad)
    x0, x1 = sorted((float(np.clip(x0, 0, width - 1)), float(np.clip(x1, 1, width))))
    y0, y1 = sorted((float(np.clip(y0, 0, height - 1)), float(np.clip(y1, 1, height))))
    x1, y1 = max(x1, x0 + 1.0), max(y1, y0 + 1.0)
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _write_crops(out_dir: Path, scene: Scene, split: str, only: set[int] | None) -> list[str]:
    height, width = scene.image.shape[:2]
    rows: list[str] = []
    for index, tile in enumerate(scene.tiles):
        if (only is not None and index not in only) or not crop_worthy(tile, width, height):
            continue
        crop = warp_crop(scene.image, tile.quad, CROP_SIZE)
        cls = reader_class(tile.notation)
        rel = Path("crops") / split / cls / f"{scene.name}_{index:02d}.jpg"
        cv2.imwrite(str(out_dir / rel), crop, [cv2.IMWRITE_JPEG_QUALITY, CROP_JPEG_QUALITY])
        rows.append(
            f"{rel.as_posix()},{split},{cls},{tile.notation},{scene.name},{index},"
            f"{tile.orientation_source},{tile.orientation_confidence:.3f}"
        )
    return rows


def crop_worthy(tile: LabelledTile, width: int, height: int) -> bool:
    """A crop teaches the reader only if the tile is mostly visible and big enough to read."""
    quad = tile.quad
    margin = 0.03 * max(width, height)
    if quad[:, 0].min() < -margin or quad[:, 1].min() < -margin:
        return False
    if quad[:, 0].max() > width + margin or quad[:, 1].max() > height + margin:
        return False
    short_side = min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
    return tile.visible_fraction >= MIN_CROP_VISIBLE and short_side >= MIN_CROP_SHORT_SIDE_PX


CROP_INDEX_HEADER = "path,split,class,notation,scene,tile,orientation_source,orientation_confidence"


def finish(out_dir: Path, summaries: Iterable[SceneSummary], crop_rows: Iterable[str],
           manifest_extra: dict[str, Any]) -> dict[str, Any]:
    """Write every ``data.yaml``, ``crops/index.csv`` and ``manifest.json``; return the manifest."""
    out_dir = Path(out_dir).resolve()
    summaries = sorted(summaries, key=lambda s: (s.split, s.name))
    crop_rows = sorted(crop_rows)
    for variant, (kind, classes) in DETECT_VARIANTS.items():
        _write_data_yaml(out_dir / variant, classes, obb=kind == "obb")
    _write_text(out_dir / "crops" / "index.csv", CROP_INDEX_HEADER + "\n" + "".join(r + "\n" for r in crop_rows))
    reader_classes = sorted(set(reader_class(c) for c in TILE_CLASSES))
    manifest = {
        **manifest_extra,
        "root": str(out_dir),
        "layout": {
            "detect": "1 class 'tile', axis-aligned boxes (ultralytics detect)",
            "detect53": "53 classes (TILE_CLASSES), axis-aligned boxes",
            "obb": "1 class 'tile', oriented boxes: 4 corners normalised (ultralytics OBB)",
            "obb53": "53 classes, oriented boxes",
            "crops": "reader crops, ultralytics classify layout crops/{train,val}/<class>/*.jpg; index.csv",
            "truth": "truth/{train,val}/NAME.json: tile notation, corners TL,TR,BR,BL of the upright face, sets, rack",
        },
        "classes": {"finder": list(FINDER_CLASSES), "tile53": list(TILE_CLASSES), "reader": reader_classes},
        "crops": {
            "size_wh": list(CROP_SIZE),
            "orientation": "upright",
            "orientation_note": CROP_ORIENTATION_NOTE.format(w=CROP_SIZE[0], h=CROP_SIZE[1]),
            "jokers": "every joker kind is class 'J' among the crops; truth files keep Jd/Jm/Jc/Js/Jk...",
        },
        "splits": {
            split: {
                "images": sum(1 for s in summaries if s.split == split),
                "tiles": sum(s.tiles for s in summaries if s.split == split),
                "crops": sum(s.crops for s in summaries if s.split == split),
            }
            for split in SPLITS
        },
        "data_yaml": {variant: str(out_dir / variant / "data.yaml") for variant in DETECT_VARIANTS},
        "scenes": [s.to_json() for s in summaries],
    }
    _write_text(out_dir / "manifest.json", json.dumps(manifest, indent=1))
    return manifest


def _write_data_yaml(variant_dir: Path, classes: tuple[str, ...], obb: bool) -> None:
    names = "\n".join(f"  {i}: {name}" for i, name in enumerate(classes))
    text = (
        f"# Written by `rummi dataset`; {'oriented boxes' if obb else 'axis-aligned boxes'}.\n"
        f"path: {variant_dir}\n"
        "train: images/train\n"
        "val: images/val\n"
        f"nc: {len(classes)}\n"
        f"names:\n{names}\n"
    )
    _write_text(variant_dir / "data.yaml", text)


def _write_text(path: Path, text: str) -> None:
    """Write to a temporary name, then rename over ``path``: a process killed meanwhile leaves
    the old file or the new one, never a truncated one (the service rewrites these often)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
