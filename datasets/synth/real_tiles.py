"""Real tiles cut out of the labelled photos, to paste into new scenes.

Real ink and real plastic teach a model more than any drawing; new layouts, tables and light
around them keep it from learning the few tables they were photographed on. Only photos of the
real set's *train* sessions are cut (see :mod:`datasets.sessions`), so real validation photos
never leak into generated training data. Tiles standing in a rack (``rummy3``) are left out:
the rack hides their bottom, so their outline is not a whole tile.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from rummi.datasets.geometry import flip_quad, ink_offset, min_area_quad
from rummi.datasets.real import list_photos, parse_polygon_line, read_class_names
from rummi.datasets.sessions import split_by_session
from rummi.datasets.synth.tile_art import SPRITE_SIZE
from rummi.vision.geometry import CROP_SIZE, warp_crop

#: Sessions whose outlines are not whole tiles (rack lips hide the bottom).
PARTIAL_SESSIONS = frozenset({"rummy3"})
MIN_SHORT_SIDE_PX = 24
MIN_ORIENTATION_CONFIDENCE = 0.15


@dataclass(frozen=True)
class RealTile:
    notation: str
    sprite: np.ndarray  # HxWx4 BGRA, upright, SPRITE_SIZE
    source: str


def cut_real_tiles(source: Path, val_fraction: float = 0.2) -> list[RealTile]:
    """Every usable whole tile of the train sessions under ``source``, as upright sprites."""
    names = read_class_names(Path(source))
    photos = list_photos(Path(source))
    split = split_by_session((p.session for p in photos), val_fraction)
    tiles: list[RealTile] = []
    for photo in photos:
        if split[photo.session] != "train" or photo.session[0] in PARTIAL_SESSIONS:
            continue
        if not photo.label.exists():
            continue
        image = cv2.imread(str(photo.image))
        if image is None:
            continue
        tiles += cut_photo_tiles(image, photo.label, names, f"{photo.session[0]}-{photo.session[1]}")
    return tiles


def cut_photo_tiles(image: np.ndarray, label: Path, names: list[str], source: str) -> list[RealTile]:
    """The usable whole tiles of one labelled photo, as upright sprites (used by the scene
    generator and by the test videos of :mod:`datasets.videos`)."""
    height, width = image.shape[:2]
    tiles: list[RealTile] = []
    for number, line in enumerate(label.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        notation, points = parse_polygon_line(line, names, f"{label.name} line {number}")
        polygon = points * [width, height]
        if _touches_border(polygon, width, height):
            continue
        quad = min_area_quad(polygon)
        if min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])) < MIN_SHORT_SIDE_PX:
            continue
        offset = ink_offset(warp_crop(image, quad, CROP_SIZE))
        if abs(offset) < MIN_ORIENTATION_CONFIDENCE:
            continue
        if offset > 0:
            quad = flip_quad(quad)
        tiles.append(RealTile(notation, _sprite(image, quad, polygon), source))
    return tiles


def _touches_border(polygon: np.ndarray, width: int, height: int, margin: float = 3.0) -> bool:
    return bool(polygon[:, 0].min() < margin or polygon[:, 1].min() < margin
                or polygon[:, 0].max() > width - margin or polygon[:, 1].max() > height - margin)


def _sprite(image: np.ndarray, quad: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    w, h = SPRITE_SIZE
    target = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    face = cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    outline = cv2.perspectiveTransform(polygon.reshape(-1, 1, 2).astype(np.float32), matrix).reshape(-1, 2)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(outline * 4).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=2)
    mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
    return np.dstack([face, mask])
