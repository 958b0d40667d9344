"""One scoring of a scan against labels (vision/evaluation.py), for `rummi eval` and the benchmarks."""

from __future__ import annotations

import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.evaluation import NONE, Evaluation
from rummi.vision.layout import Layout
from rummi.vision.scanner import ScanResult


def _square(x: float, y: float) -> np.ndarray:
    return np.array([[x, y], [x + 40, y], [x + 40, y + 56], [x, y + 56]], np.float32)


def _scan(boxes: list[np.ndarray], labels: list[str]) -> ScanResult:
    found = TileDetections.from_corners(np.stack(boxes), np.ones(len(boxes)))
    found = found.with_reads(found.corners, labels, np.ones(len(boxes)))
    return ScanResult(found=found, layout=Layout([], None), uncertain=[])


def test_one_photo_scored_tile_by_tile() -> None:
    truth = ["r1", "J", "b3", "k4"]
    outlines = [_square(0, 0), _square(100, 0), _square(200, 0), _square(300, 0)]
    # r1 right, an Expert joker (Jb) right as a joker, b3 read b8, k4 missed, one box on nothing.
    result = _scan([_square(2, 1), _square(101, 2), _square(199, 0), _square(500, 0)], ["r1", "Jb", "b8", "k5"])
    scores = Evaluation()
    matched = scores.add("p", truth, outlines, result, 12.0)
    assert matched.partner == {0: 0, 1: 1, 2: 2} and matched.right == {0, 1}
    assert (scores.reported, scores.labelled, scores.read_right) == (4, 4, 2)
    assert scores.precision == 0.5 and scores.recall == 0.5
    assert scores.perfect == 0 and scores.imperfect == ["p"]
    assert scores.confusion[("b3", "b8")] == 1 and scores.confusion[("k4", NONE)] == 1
    assert scores.confusion[(NONE, "k5")] == 1 and scores.confusion[("J", "J")] == 1


def test_a_tile_not_counted_is_neither_missed_nor_a_phantom() -> None:
    truth, outlines = ["r1", "r2"], [_square(0, 0), _square(100, 0)]
    counted = np.array([True, False])  # the second is mostly outside a crop
    scores = Evaluation()
    scores.add("found both", truth, outlines, _scan([_square(0, 0), _square(100, 0)], ["r1", "o9"]), 1.0, counted)
    scores.add("found one", truth, outlines, _scan([_square(0, 0)], ["r1"]), 3.0, counted)
    assert (scores.reported, scores.labelled, scores.read_right, scores.perfect) == (2, 2, 2, 2)
    assert scores.median_latency_ms == 2.0
