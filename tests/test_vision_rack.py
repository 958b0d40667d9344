"""A rack is tiles standing on a dark, colourless ledge: seen on real photos, not guessed."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.image_io import load_image
from rummi.vision.rack import RackEvidence
from rummi.vision.scanner import Scanner

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples" / "images"


def upright(cx: float, cy: float, w: float = 40, h: float = 54) -> np.ndarray:
    return np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
                     [cx - w / 2, cy + h / 2]], np.float32)


def painted(ledge_bgr: tuple[int, int, int], table_bgr: tuple[int, int, int]) -> tuple[np.ndarray, TileDetections]:
    """Three cream tiles on a ledge of one colour, on a table of another."""
    image = np.full((200, 300, 3), table_bgr, np.uint8)
    image[107:125, 20:280] = ledge_bgr
    corners = np.stack([upright(x, 80) for x in (60, 150, 240)])
    for quad in corners:
        cv2.fillConvexPoly(image, quad.astype(np.int32), (196, 218, 228))
    found = TileDetections.from_corners(corners, np.ones(3))
    return image, found


def test_tiles_on_a_black_ledge_stand_on_it() -> None:
    image, found = painted((25, 25, 28), (180, 180, 180))
    assert RackEvidence(image, found).on_ledge.all()


def test_a_box_that_ends_above_the_tile_s_foot_still_finds_the_ledge_below() -> None:
    # In a dark or blurred photo the finder's box often stops short of the foot: the strip just
    # under the box is then half face, half ledge, and its median was face.
    image, found = painted((25, 25, 28), (180, 180, 180))
    short = found.corners.copy()
    short[:, 2:, 1] -= 7  # the bottom corners 7 px (13 % of the tile) above the foot
    assert RackEvidence(image, TileDetections.from_corners(short, np.ones(3))).on_ledge.all()


def test_black_corners_of_a_straightened_photo_are_not_taken_for_a_black_table() -> None:
    image, found = painted((25, 25, 28), (180, 180, 180))
    h, w = image.shape[:2]
    for corner in ([[0, 0], [w // 2, 0], [0, h // 2]], [[w, 0], [w // 2, 0], [w, h // 2]],
                   [[0, h], [w // 2, h], [0, h // 2]], [[w, h], [w // 2, h], [w, h // 2]]):
        cv2.fillConvexPoly(image, np.array(corner, np.int32), (0, 0, 0))  # nothing seen there
    assert RackEvidence(image, found).on_ledge.all()


def test_dark_brown_wood_or_a_light_cloth_is_no_ledge() -> None:
    for colour in ((40, 70, 110), (150, 150, 150)):  # BGR: dark brown wood, grey cloth
        image, found = painted(colour, colour)
        assert not RackEvidence(image, found).on_ledge.any()


def test_on_a_dark_grey_table_the_strip_under_a_tile_is_just_table() -> None:
    image, found = painted((35, 35, 38), (35, 35, 38))
    assert not RackEvidence(image, found).on_ledge.any()


def test_a_black_ledge_on_near_black_wood_still_stands_out_by_its_lack_of_colour() -> None:
    # A generated rack on dark wood (level 25) was lost: the ledge is no darker than such a
    # table, but the table is brown and the ledge grey, which the saturation test tells apart.
    image, found = painted((25, 25, 28), (10, 22, 42))  # BGR: near-black brown wood
    assert RackEvidence(image, found).on_ledge.all()
    table, found = painted((10, 22, 42), (10, 22, 42))  # and that wood under the tiles is none
    assert not RackEvidence(table, found).on_ledge.any()


def test_tiles_lying_in_a_shadow_on_a_grey_table_stand_on_no_ledge() -> None:
    # A far overview with a dark shadow across a grey table: the table under the shadowed
    # tiles is dark and grey next to the photo's lit faces, but not next to their own faces,
    # which the shadow darkens as much (two generated overviews got a rack of four such tiles).
    image = np.full((400, 300, 3), 150, np.uint8)
    corners = np.stack([upright(x, y) for y in (80, 280) for x in (60, 150, 240)])
    for quad in corners:
        cv2.fillConvexPoly(image, quad.astype(np.int32), (196, 218, 228))
    image[200:] = (image[200:] * 0.35).astype(np.uint8)  # the shadow over the lower row
    found = TileDetections.from_corners(corners, np.ones(len(corners)))
    assert not RackEvidence(image, found).on_ledge.any()
    # while a black ledge under tiles in that shadow is still a ledge
    image[307:325, 20:280] = (9, 9, 10)
    assert RackEvidence(image, found).on_ledge.tolist() == [False] * 3 + [True] * 3


def test_the_same_rack_seen_from_across_the_table_still_stands_on_its_ledge() -> None:
    image, found = painted((25, 25, 28), (180, 180, 180))
    turned = cv2.rotate(image, cv2.ROTATE_180)
    h, w = image.shape[:2]
    corners = np.array([w, h], np.float32) - found.corners  # each still starts at its own top-left
    assert RackEvidence(turned, TileDetections.from_corners(corners, np.ones(3))).on_ledge.all()


def test_the_bar_of_a_rack_shows_between_tiles_far_apart_and_a_table_does_not() -> None:
    image = np.full((200, 400, 3), (180, 180, 180), np.uint8)
    image[50:125, 20:380] = (25, 25, 28)  # the rack's back and ledge, behind and under the tiles
    corners = np.stack([upright(x, 80) for x in (60, 105, 330)])  # a gap of four tiles
    for quad in corners:
        cv2.fillConvexPoly(image, quad.astype(np.int32), (196, 218, 228))
    found = TileDetections.from_corners(corners, np.ones(3))
    assert RackEvidence(image, found).bar_between(1, 2)
    image[53:107, 200:240] = (196, 218, 228)  # a tile stands in the gap (the finder missed it)
    assert not RackEvidence(image, found).bar_between(1, 2)
    table = np.full((200, 400, 3), (40, 70, 110), np.uint8)  # dark brown wood, no rack
    for quad in corners:
        cv2.fillConvexPoly(table, quad.astype(np.int32), (196, 218, 228))
    assert not RackEvidence(table, found).bar_between(1, 2)


def test_real_photos_rack_and_table() -> None:
    scanner = Scanner.load()
    rack = scanner.scan(load_image(SAMPLES / "rack-rummy4-87.jpg"))
    assert rack.rack is not None and len(rack.rack) == len(rack.found) and rack.sets == []
    # Gaps of two and three tiles in both tiers: ledges under only 5 of the 13 tiles, apart
    # (before, the tiers fell apart into pieces: no rack). No gap is wider than 2.5 tiles, so the
    # rack's bar is not needed here (the synthetic test above covers it).
    gaps = scanner.scan(load_image(SAMPLES / "rack-gaps-rummy4-90.jpg"))
    assert gaps.rack is not None and len(gaps.rack) == len(gaps.found) == 13 and gaps.sets == []
    for table in ("scatter-rummy-42.jpg", "sets-rummy-11.jpg", "loose-rummy3-29.jpg"):
        assert scanner.scan(load_image(SAMPLES / table)).rack is None, table
