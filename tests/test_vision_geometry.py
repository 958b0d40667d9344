"""One geometry for training and inference: a tile is cut the same way by the dataset writer and
by the reader, and corners are ordered by one rule."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.datasets import writer
from rummi.datasets.scene import LabelledTile, Scene
from rummi.vision.geometry import CROP_SIZE, portrait_order, warp_crop
from rummi.vision.onnx_model import default_models_dir, load_onnx_model
from rummi.vision.reader import TileReader


def textured_photo(size: int = 1400, seed: int = 3) -> np.ndarray:
    """Fine stripes and noise: a warp that aliases or blurs differently shows in the pixels."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    stripes = 127 + 100 * np.sin(xx * 1.3) * np.cos(yy * 0.9)
    noise = rng.normal(0, 20, (size, size, 3))
    return np.clip(stripes[..., None] + noise, 0, 255).astype(np.uint8)


def turned_tile(cx: float, cy: float, width: float, angle_deg: float) -> np.ndarray:
    a = np.radians(angle_deg)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = width * 4 / 3
    local = np.array([[-width / 2, -h / 2], [width / 2, -h / 2], [width / 2, h / 2], [-width / 2, h / 2]])
    return (local @ rotation.T + [cx, cy]).astype(np.float32)


def as_stored(crop: np.ndarray) -> np.ndarray:
    """A crop as the dataset writer stores it (JPEG of its quality), decoded again."""
    ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, writer.CROP_JPEG_QUALITY])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@pytest.mark.parametrize("width", [50.0, 400.0])  # a 1000x750 photo's tile, and a 12 MP one's
def test_the_dataset_writer_and_the_reader_cut_the_same_pixels(tmp_path: Path, width: float) -> None:
    photo = textured_photo()
    quad = turned_tile(700, 700, width, 23.0)
    out = tmp_path / "ds"
    writer.prepare(out)
    writer.write_scene(out, Scene("one", photo, [LabelledTile("r7", quad)]), "train")
    (written,) = (out / "crops" / "train" / "r7").glob("*.jpg")
    training_crop = cv2.imread(str(written))

    reader = TileReader(load_onnx_model(default_models_dir() / "tile-reader", threads=1))
    inference_crop = reader.crop(photo, quad)

    assert inference_crop.shape == training_crop.shape == (CROP_SIZE[1], CROP_SIZE[0], 3)
    assert np.array_equal(as_stored(inference_crop), training_crop)
    if width > 2 * CROP_SIZE[0]:
        # A direct warp of a big tile (what datasets/ did before) cuts other pixels.
        target = np.array([[0, 0], [71, 0], [71, 95], [0, 95]], np.float32)
        direct = cv2.warpPerspective(photo, cv2.getPerspectiveTransform(quad, target), CROP_SIZE,
                                     flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        assert float(np.abs(as_stored(direct).astype(np.float32) - training_crop).mean()) > 10


@settings(max_examples=80, deadline=None)
@given(cx=st.floats(60, 400), cy=st.floats(60, 400), width=st.floats(12, 80), aspect=st.floats(1.1, 1.6),
       angle=st.floats(-180, 180), shuffle=st.permutations(range(4)))
def test_portrait_order_is_clockwise_short_side_first_top_side_up(cx, cy, width, aspect, angle, shuffle):
    a = np.radians(angle)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = width * aspect
    local = np.array([[-width / 2, -h / 2], [width / 2, -h / 2], [width / 2, h / 2], [-width / 2, h / 2]])
    corners = (local @ rotation.T + [cx, cy]).astype(np.float32)
    ordered = portrait_order(corners[list(shuffle)])
    assert np.linalg.norm(ordered[1] - ordered[0]) < np.linalg.norm(ordered[3] - ordered[0])
    (ax, ay), (bx, by) = ordered[1] - ordered[0], ordered[3] - ordered[0]
    assert ax * by - ay * bx > 0  # clockwise on screen (y down)
    top, bottom = ordered[:2, 1].mean(), ordered[2:, 1].mean()
    assert top <= bottom + 1e-3
    assert sorted(map(tuple, ordered.tolist())) == sorted(map(tuple, corners.tolist()))


def test_a_square_box_keeps_its_top_side_on_top() -> None:
    square = np.array([[40, 10], [40, 40], [10, 40], [10, 10]], np.float32)
    assert portrait_order(square).tolist() == [[10, 10], [40, 10], [40, 40], [10, 40]]


def test_warp_crop_of_an_axis_aligned_box_is_the_box() -> None:
    photo = textured_photo(200)
    quad = np.array([[20, 30], [91, 30], [91, 125], [20, 125]], np.float32)
    assert np.array_equal(warp_crop(photo, quad), photo[30:126, 20:92])
