"""The face outline on drawn photos: a sheared tile face is found by its corners, and nothing
that is not one tile's face is given as one."""

from __future__ import annotations

import cv2
import numpy as np
from rummi.vision.face_outline import face_outline, overlap
from rummi.vision.geometry import portrait_order

WOOD = (40, 80, 140)  # BGR brown
PLASTIC = (215, 230, 235)  # BGR cream


def photo_with(faces: list[np.ndarray], background: tuple[int, int, int] = WOOD) -> np.ndarray:
    image = np.zeros((300, 400, 3), np.uint8)
    image[:] = background
    for face in faces:
        cv2.fillConvexPoly(image, face.round().astype(np.int32), PLASTIC)
        centre = face.mean(axis=0)
        cv2.putText(image, "8", (int(centre[0]) - 8, int(centre[1]) + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 200), 2)
    return image


def finder_box(face: np.ndarray) -> np.ndarray:
    """The oriented rectangle a finder would put over the face (its minimum-area rectangle)."""
    return portrait_order(cv2.boxPoints(cv2.minAreaRect(face.astype(np.float32))))


#: A tile face seen from a steep side angle: a parallelogram (sides 65 and 56 px, at 63 degrees).
SHEARED = np.array([[150, 100], [215, 100], [190, 150], [125, 150]], np.float32)


def test_a_sheared_face_is_found_by_its_own_four_corners() -> None:
    image = photo_with([SHEARED])
    box = finder_box(SHEARED)
    outline = face_outline(image, box)
    assert outline is not None
    # each corner of the face within 3 px of one corner found, and much closer than the box
    assert max(np.linalg.norm(outline - corner, axis=1).min() for corner in SHEARED) <= 3.0
    assert overlap(outline, SHEARED) > 0.9 > overlap(box, SHEARED) + 0.05


def test_no_outline_where_the_patch_is_not_one_tile() -> None:
    box = finder_box(SHEARED)
    # the table is the face's colour: the patch runs off the window
    assert face_outline(photo_with([SHEARED], background=PLASTIC), box) is None
    # a second face touches this one: the patch holds another box's centre, or is two tiles big
    neighbour = SHEARED + np.array([65, 0], np.float32)
    image = photo_with([SHEARED, neighbour])
    assert face_outline(image, box, other_centres=neighbour.mean(axis=0, keepdims=True)) is None
    # nothing but table under the box
    assert face_outline(photo_with([]), box) is None


def test_a_box_off_the_photo_or_not_a_number_has_no_outline() -> None:
    # found by review: a box whose window is a few pixels of photo made the resize fail
    image = np.zeros((4000, 3000, 3), np.uint8)
    off = np.array([[1800, -955], [2200, -955], [2200, -355], [1800, -355]], np.float32)
    assert face_outline(image, off) is None
    assert face_outline(photo_with([SHEARED]), np.full((4, 2), np.nan, np.float32)) is None
