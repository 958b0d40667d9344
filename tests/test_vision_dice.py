"""A die the finder boxed is refused by its pips; a tile's print never looks like pips."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from rummi.vision.classes import NOT_A_TILE, READER_CLASSES, TILE_CLASSES
from rummi.vision.detections import TileDetections
from rummi.vision.dice import shows_pips
from rummi.vision.geometry import CROP_SIZE
from rummi.vision.scanner import UNCERTAIN_BELOW

from tests.test_vision_reader import SAMPLES, reader_answering, sample_boxes

#: Where a die's pips lie on its face's 3 x 3 grid, per face (0..2 across, 0..2 down).
FACES = {
    2: [(0, 0), (2, 2)],
    3: [(0, 0), (1, 1), (2, 2)],
    4: [(0, 0), (2, 0), (0, 2), (2, 2)],
    5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)],
    6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
}


def die_crop(pips: int, plastic=(235, 240, 240), ink=(20, 20, 20)) -> np.ndarray:
    """A reader crop of a die: its square face stretched to the tile's 3:4, a rim of table."""
    width, height = CROP_SIZE
    face = np.full((120, 120, 3), plastic, np.uint8)
    for col, row in FACES[pips]:
        cv2.circle(face, (30 + 30 * col, 30 + 30 * row), 11, ink, -1, cv2.LINE_AA)
    table = np.full((140, 140, 3), (40, 80, 140), np.uint8)
    table[10:130, 10:130] = face
    return cv2.resize(table, (width, height), interpolation=cv2.INTER_AREA)


def tile_crop(text: str, colour=(30, 30, 200), thickness: int = 5, scale: float = 1.6) -> np.ndarray:
    """A reader crop of a cream tile printed with ``text`` (OpenCV's own stroke font)."""
    width, height = CROP_SIZE
    crop = np.full((height, width, 3), (200, 225, 235), np.uint8)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale / len(text) ** 0.5, thickness)
    cv2.putText(crop, text, ((width - w) // 2, 20 + h), cv2.FONT_HERSHEY_SIMPLEX, scale / len(text) ** 0.5,
                colour, thickness, cv2.LINE_AA)
    return crop


@pytest.mark.parametrize("pips", sorted(FACES))
def test_a_die_showing_two_to_six_pips_is_told_by_them(pips: int) -> None:
    assert shows_pips(die_crop(pips))
    assert shows_pips(die_crop(pips, plastic=(200, 170, 240), ink=(40, 20, 120)))  # a pink die, dark red pips


@pytest.mark.parametrize("text", ["1", "4", "6", "8", "9", "10", "11", "13"])
def test_a_tiles_number_is_no_pips(text: str) -> None:
    for colour in [(30, 30, 200), (20, 20, 20), (200, 100, 20), (30, 130, 240)]:
        crop = tile_crop(text, colour)
        assert not shows_pips(crop)
        assert not shows_pips(cv2.GaussianBlur(crop, (0, 0), 2.5))  # a far tile's print, melted


def _marks(*draw) -> np.ndarray:
    """A blank crop of plastic with dark marks drawn by ``draw`` (callables on the crop)."""
    width, height = CROP_SIZE
    crop = np.full((height, width, 3), 230, np.uint8)
    for mark in draw:
        mark(crop)
    return crop


def _dot(x: int, y: int, r: int, ink=(20, 20, 20)):
    return lambda crop: cv2.circle(crop, (x, y), r, ink, -1, cv2.LINE_AA)


#: Marks that pass every rule of a die's pips but one (the rule named), each on its own.
NOT_PIPS = {
    "in one row (a blurred 11)": _marks(_dot(24, 40, 8), _dot(48, 40, 8)),
    "faint (a far joker's eyes and nose)": _marks(*(_dot(x, y, 6, (180, 180, 180)) for x, y in [(24, 30), (48, 30), (36, 50)])),
    "two sizes (a 9 melted to a blob, a dot below)": _marks(_dot(24, 30, 5), _dot(48, 60, 9)),
    "too big (a number melted to a blob)": _marks(_dot(22, 28, 14), _dot(50, 68, 14)),
    "not solid (rings: 0s)": _marks(*(lambda c, x=x, y=y: cv2.circle(c, (x, y), 8, (20, 20, 20), 3, cv2.LINE_AA)
                                      for x, y in [(22, 28), (50, 68)])),
    "not round (bars: 1s)": _marks(*(lambda c, x=x, y=y: cv2.rectangle(c, (x, y), (x + 4, y + 16), (20, 20, 20), -1)
                                     for x, y in [(20, 20), (48, 60)])),
}


@pytest.mark.parametrize("name", sorted(NOT_PIPS))
def test_marks_that_break_one_rule_of_pips_are_no_pips(name: str) -> None:
    assert not shows_pips(NOT_PIPS[name])


def test_marks_drawn_the_same_way_that_keep_every_rule_are_pips() -> None:
    # the row and the faint case redrawn to keep their rule: pips (the drawings are fair)
    assert shows_pips(_marks(_dot(24, 30, 8), _dot(48, 60, 8)))
    assert shows_pips(_marks(*(_dot(x, y, 6) for x, y in [(24, 30), (48, 30), (36, 50)])))


def test_an_unsure_read_of_a_die_is_no_tile_and_a_sure_read_is_left_alone() -> None:
    photo, found = _die_photo()
    unsure = reader_answering(READER_CLASSES, k5=0.5, k7=0.5)
    read = unsure.read(photo, found)
    assert read.labels == (NOT_A_TILE,)
    assert not read.counted_as_tiles(UNCERTAIN_BELOW).any()
    sure = reader_answering(READER_CLASSES, k5=0.95, k7=0.05)
    assert sure.read(photo, found).labels == ("k5",)
    # a read that may be a joker is never refused: a joker's eyes and nose can pass for pips
    joker = reader_answering(READER_CLASSES, Jk=0.3, k5=0.4, k7=0.3)
    assert joker.read(photo, found).labels == ("k5",)
    # a reader without a "none" answer reads it as it can
    old = reader_answering(TILE_CLASSES, k5=0.5, k7=0.5)
    assert old.read(photo, found).labels[0] in ("k5", "k7")


def _die_photo() -> tuple[np.ndarray, TileDetections]:
    photo = np.full((300, 300, 3), (40, 80, 140), np.uint8)
    face = cv2.resize(die_crop(5), (72, 96))[8:-8, 6:-6]
    photo[100:100 + face.shape[0], 100:100 + face.shape[1]] = face
    box = np.array([[[94, 92], [166, 92], [166, 188], [94, 188]]], np.float32)
    return photo, TileDetections.from_corners(box, np.ones(1, np.float32))


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="the bundled sample photos")
def test_no_real_tile_of_the_bundled_photos_shows_pips() -> None:
    from rummi.vision.geometry import warp_crop

    crops = [warp_crop(image, quad) for image, quads, _ in sample_boxes() for quad in quads]
    assert len(crops) > 50
    assert not any(shows_pips(crop) for crop in crops)
