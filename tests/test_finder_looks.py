"""The finder's second look: finer windows when the tiles it finds are small, a coarser look
when they are huge (or when it finds none), merged with the whole-photo look by rotated NMS.

The geometry and the merge are tested on their own; the looks with the shipped model on real
photos made far away (shrunk into a larger table) and close up (one tile cut out and enlarged).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.vision.evaluation import LabelledPhoto, labelled_photos, match_indices
from rummi.vision.finder import COARSER, TileFinder, letterbox, merge_boxes, touches_inner_edge
from rummi.vision.geometry import overlapping_windows
from rummi.vision.image_io import load_image
from rummi.vision.onnx_model import default_models_dir, load_onnx_model

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples"


def sample(name: str) -> LabelledPhoto:
    (photo,) = [p for p in labelled_photos(SAMPLES) if p.image.name == name]
    return photo


@pytest.fixture(scope="module")
def finder() -> TileFinder:
    return TileFinder(load_onnx_model(default_models_dir() / "tile-finder", 1))


# --- the windows ----------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(width=st.integers(50, 3000), height=st.integers(50, 3000), side=st.integers(20, 1600),
       overlap_share=st.floats(0.05, 0.5))
def test_windows_cover_the_photo_and_any_tile_no_wider_than_the_overlap_lies_whole_in_one(
        width: int, height: int, side: int, overlap_share: float) -> None:
    overlap = int(side * overlap_share)
    windows = overlapping_windows(width, height, side, overlap)
    assert all(0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height for x0, y0, x1, y1 in windows)
    assert all(x1 - x0 == min(side, width) and y1 - y0 == min(side, height) for x0, y0, x1, y1 in windows)
    rng = np.random.default_rng(width * 7919 + height)
    tile = max(1, min(overlap, width, height))
    for _ in range(20):  # a tile of side ``overlap`` anywhere in the photo
        x, y = rng.integers(0, width - tile + 1), rng.integers(0, height - tile + 1)
        assert any(x0 <= x and x + tile <= x1 and y0 <= y and y + tile <= y1 for x0, y0, x1, y1 in windows)


def test_a_photo_smaller_than_a_window_is_one_window() -> None:
    assert overlapping_windows(300, 200, 500, 100) == [(0, 0, 300, 200)]


def test_the_coarse_look_fits_the_photo_into_half_the_input_and_maps_back() -> None:
    photo = np.zeros((750, 1000, 3), np.uint8)
    canvas, box = letterbox(photo, 320, COARSER)
    assert canvas.shape == (320, 320, 3)
    assert box.scale == pytest.approx(0.16)
    corners = np.array([[0, 0], [1000, 750]], np.float32)
    inside = corners * box.scale + [box.pad_x, box.pad_y]
    assert np.allclose(box.to_photo(inside.astype(np.float32)), corners, atol=1e-3)
    assert inside.min() >= 79 and inside.max() <= 241  # the middle half of the square


# --- the merge ------------------------------------------------------------------------------
def rect(cx: float, cy: float, w: float = 30, h: float = 40, angle: float = 0) -> list[float]:
    return [cx, cy, w, h, angle]


def test_the_same_tile_seen_by_two_looks_is_kept_once_the_surer_box() -> None:
    rects = np.array([rect(100, 100), rect(102, 99, 31, 41, 4), rect(300, 100)], np.float32)
    scores = np.array([0.6, 0.8, 0.7], np.float32)
    assert merge_boxes(rects, scores, 0.35, 0.5).tolist() == [1, 2]


def test_neighbouring_tiles_that_touch_are_both_kept() -> None:
    rects = np.array([rect(100, 100), rect(131, 100), rect(100, 141)], np.float32)
    scores = np.array([0.9, 0.5, 0.6], np.float32)
    assert merge_boxes(rects, scores, 0.35, 0.5).tolist() == [0, 1, 2]


def test_a_box_on_half_a_tile_found_better_whole_is_dropped() -> None:
    # A coarse look's box on the whole tile and a window's box on its upper half.
    rects = np.array([rect(100, 100, 60, 80), rect(100, 80, 60, 40)], np.float32)
    scores = np.array([0.7, 0.6], np.float32)
    assert merge_boxes(rects, scores, 0.35, 0.5).tolist() == [0]


def test_boxes_below_the_confidence_threshold_and_no_boxes_merge_to_nothing() -> None:
    assert merge_boxes(np.array([rect(50, 50)], np.float32), np.array([0.2], np.float32), 0.35, 0.5).tolist() == []
    assert merge_boxes(np.zeros((0, 5), np.float32), np.zeros(0, np.float32), 0.35, 0.5).tolist() == []


def test_only_a_window_s_inner_edges_cut_tiles() -> None:
    window, photo = (0, 0, 500, 500), (1000, 800)
    rects = np.array([rect(490, 200), rect(20, 200), rect(250, 250), rect(250, 495)], np.float32)
    # Right and bottom edges lie inside the photo (a neighbour shows what they cut); left and
    # top are the photo's own edges.
    assert touches_inner_edge(rects, window, photo, 2.0).tolist() == [True, False, False, True]
    assert touches_inner_edge(np.zeros((0, 5), np.float32), window, photo, 2.0).tolist() == []


# --- the looks, with the shipped model ------------------------------------------------------
def counted_runs(finder: TileFinder, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The zoom of every run of the detector ``finder`` makes from now on."""
    runs: list[float] = []
    real_look = finder.look

    def look(image_bgr: np.ndarray, zoom: float = 1.0, floor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        runs.append(zoom)
        return real_look(image_bgr, zoom, floor)
    monkeypatch.setattr(finder, "look", look)
    return runs


def test_a_photo_of_tiles_the_size_the_finder_knows_gets_one_look(
        finder: TileFinder, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = counted_runs(finder, monkeypatch)
    finder.find(load_image(SAMPLES / "images" / "scatter-rummy-42.jpg"))
    assert runs == [1.0]


def test_tiles_photographed_from_far_away_are_found_by_the_finer_look(finder: TileFinder) -> None:
    photo = sample("scatter-rummy-42.jpg")
    image = load_image(photo.image)
    h, w = image.shape[:2]
    # The photo in the middle of a table three times as large: tiles a third as wide.
    far = np.empty((3 * h, 3 * w, 3), np.uint8)
    far[:] = cv2.resize(image, (1, 1), interpolation=cv2.INTER_AREA)
    far[h:2 * h, w:2 * w] = image
    outlines = [o + [w, h] for o in photo.outlines]
    once = len(match_indices(finder.find_once(far).centers, outlines))
    found = finder.find(far)
    assert len(match_indices(found.centers, outlines)) == len(outlines) > once
    assert len(found) == len(outlines)


def test_one_tile_filling_the_frame_is_found_by_the_coarser_look(finder: TileFinder) -> None:
    photo = sample("rack-rummy4-87.jpg")
    image = load_image(photo.image)
    once = twice = 0
    for outline in photo.outlines:
        centre, side = outline.mean(axis=0), float((outline.max(axis=0) - outline.min(axis=0)).max())
        x0, y0 = (centre - 0.8 * side).astype(int).clip(0)
        x1, y1 = (centre + 0.8 * side).astype(int)
        close_up = cv2.resize(image[y0:y1, x0:x1], None, fx=3, fy=3, interpolation=cv2.INTER_CUBIC)
        tile = [(outline - [x0, y0]) * 3]
        once += len(match_indices(finder.find_once(close_up).centers, tile))
        twice += len(match_indices(finder.find(close_up).centers, tile))
    assert twice == len(photo.outlines) > once
