"""White balance from the tile faces: a cast or a dim photo is turned back, plastic left alone."""

from __future__ import annotations

import numpy as np
import pytest
from rummi.vision.white_balance import balanced, face_gains, noticeable, plastic_colour


def face(plastic_bgr: tuple[float, float, float]) -> np.ndarray:
    crop = np.zeros((96, 72, 3), np.uint8)
    crop[:] = np.array(plastic_bgr).round().astype(np.uint8)
    crop[25:55, 20:50] = (40, 40, 180)  # a red number
    return crop


@pytest.mark.parametrize("plastic", [(196, 218, 228), (230, 230, 230), (205, 222, 230), (180, 200, 210)])
def test_faces_that_look_like_plastic_in_good_light_are_left_alone(plastic) -> None:
    gains = face_gains([face(plastic)] * 5)
    assert not noticeable(gains)
    assert np.allclose(gains, 1.0, atol=0.02)


def test_a_warm_cast_is_turned_back_towards_the_plastic_colours() -> None:
    cream = np.array([196.0, 218.0, 228.0])
    warm = cream * [0.55, 0.8, 1.0]
    gains = face_gains([face(tuple(warm))] * 5)
    assert noticeable(gains)
    corrected = warm * gains
    assert np.allclose(corrected / corrected.mean(), cream / cream.mean(), atol=0.02)


def test_the_median_face_decides_and_brightness_is_kept() -> None:
    bluish = (240, 215, 190)  # a cold cast on cream
    gains = face_gains([face(bluish)] * 4 + [face((40, 60, 200))])  # one false find: a red sticker
    assert gains[0] < 0.95 and gains[2] > 1.05
    assert float(np.mean(np.array(bluish) * gains)) == pytest.approx(np.mean(bluish), rel=0.02)
    assert not noticeable(face_gains([face((80, 88, 92))] * 3))  # dim cream: "more light", not gains


def test_the_plastic_is_the_light_face_not_its_ink() -> None:
    assert np.allclose(plastic_colour(face((210, 225, 235))), (210, 225, 235), atol=1)


def test_no_face_no_change() -> None:
    assert face_gains([]).tolist() == [1.0, 1.0, 1.0]


def test_balanced_multiplies_each_channel_and_clips() -> None:
    image = np.full((4, 4, 3), 100, np.uint8)
    out = balanced(image, np.array([0.5, 1.0, 3.0], np.float32))
    assert out[0, 0].tolist() == [50, 100, 255]
