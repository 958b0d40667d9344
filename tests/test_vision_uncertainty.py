"""One rule says which reads are uncertain (vision/uncertainty.py): low confidence, a tile the
photo's edge cuts, or a photo too blurred or dark; the scanner's answer is that rule's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.image_io import load_image
from rummi.vision.scanner import Scanner
from rummi.vision.uncertainty import uncertain_tiles

SCATTER = Path(__file__).resolve().parents[1] / "vision" / "samples" / "images" / "scatter-rummy-42.jpg"


def tile(x: float, y: float, w: float = 40, h: float = 56) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def four_tiles(confidence: list[float]) -> TileDetections:
    """Three whole tiles (one touching the left edge) and one halved by the right edge."""
    found = TileDetections.from_corners(np.stack([tile(100, 100), tile(0, 100), tile(150, 100),
                                                  tile(280, 20, w=20)]), np.ones(4))
    return found.with_reads(found.corners, ["r1", "r2", "r3", "r4"], np.array(confidence, np.float32))


def test_low_confidence_and_a_cut_tile_are_uncertain_a_whole_one_at_the_edge_is_not() -> None:
    found = four_tiles([0.95, 0.95, 0.5, 0.99])
    assert uncertain_tiles(found, (300, 200), 0.7) == [2, 3]


def test_an_unreadable_photo_makes_every_read_uncertain() -> None:
    found = four_tiles([0.95, 0.95, 0.95, 0.95])
    assert uncertain_tiles(found, (300, 200), 0.7, readable=False) == [0, 1, 2, 3]
    assert uncertain_tiles(TileDetections.empty(), (300, 200), 0.7) == []


def test_the_scanner_flags_what_the_rule_says() -> None:
    """The left half of a sample photo, where the edge cuts some tiles: the scan's uncertain
    tiles are the rule's, judged in the photo's own pixels."""
    scanner = Scanner.load()
    photo = load_image(SCATTER)
    half = np.ascontiguousarray(photo[:, : photo.shape[1] // 2])
    result = scanner.scan(half)
    assert len(result.found)
    expected = uncertain_tiles(result.found, (half.shape[1], half.shape[0]), scanner.uncertain_below,
                               result.quality.readable)
    assert result.uncertain == expected
