"""The robustness benchmark's photo variants carry the labels with the pixels, and its scoring
counts what it says it counts (benchmarks/vision_robustness.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("vision_robustness", ROOT / "benchmarks" / "vision_robustness.py")
robustness = importlib.util.module_from_spec(_spec)
sys.modules["vision_robustness"] = robustness  # dataclasses look their module up
_spec.loader.exec_module(robustness)  # type: ignore[union-attr]


def bright_square_case() -> robustness.Case:
    """A dark photo with two bright squares, labelled by their outlines."""
    image = np.full((300, 400, 3), 30, np.uint8)
    outlines = []
    for x0, y0 in ((60, 50), (250, 180)):
        image[y0:y0 + 60, x0:x0 + 45] = 230
        outlines.append(np.array([[x0, y0], [x0 + 45, y0], [x0 + 45, y0 + 60], [x0, y0 + 60]], np.float32))
    return robustness.Case("two", image, ["r1", "k2"], outlines, np.ones(2, bool), [], None)


@pytest.mark.parametrize("name", ["rot-90", "rot-180", "rot-270", "640px", "tilt-30", "crop-half",
                                  "tilt-50-side-tele", "crop-third-off-centre"])
def test_a_variant_moves_the_outlines_with_the_pixels(name: str) -> None:
    changed = robustness.VARIANTS[name](bright_square_case())
    bright = changed.image.max(axis=2) > 130
    for outline, counted in zip(changed.outlines, changed.counted):
        if not counted:
            continue
        mask = np.zeros(bright.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 1)
        inside = bright[mask > 0].mean()
        assert inside > 0.9, f"{name}: only {inside:.0%} of the labelled outline is the square"


def test_crop_half_does_not_count_a_tile_mostly_outside() -> None:
    changed = robustness.VARIANTS["crop-half"](bright_square_case())
    # the square at (60, 50) lies left of and above the middle half; the one at (250, 180) three quarters in it
    assert changed.image.shape[:2] == (150, 200)
    assert changed.counted.tolist() == [False, True]


def test_light_variants_change_only_pixels() -> None:
    case = bright_square_case()
    for name in ("gamma-2.2", "brightness-40%", "warm-cast", "jpeg-25", "motion-blur-9px"):
        changed = robustness.VARIANTS[name](case)
        assert changed.image.shape == case.image.shape
        assert all(np.array_equal(a, b) for a, b in zip(changed.outlines, case.outlines))
    warm = robustness.VARIANTS["warm-cast"](case).image[80, 80]
    assert warm.tolist() == pytest.approx([230 * 0.55, 230 * 0.8, 230], abs=1)  # BGR: blue and green dimmed


def test_the_tally_says_which_stage_failed() -> None:
    """One tile missed, one read wrong, one box on the table: the finder's two errors and the
    reader's one are counted apart, and the photo is not perfect."""
    from rummi.vision.detections import TileDetections
    from rummi.vision.layout import Layout
    from rummi.vision.scanner import ScanResult

    case = bright_square_case()
    case.labels.append("b3")
    case.outlines.append(np.array([[150, 200], [195, 200], [195, 260], [150, 260]], np.float32))
    case.counted = np.ones(3, bool)
    boxes = np.stack([case.outlines[0], case.outlines[1], np.array([[5, 5], [40, 5], [40, 50], [5, 50]], np.float32)])
    found = TileDetections.from_corners(boxes, np.ones(3, np.float32))
    found = found.with_reads(found.corners, ["r1", "k3", "k5"], np.ones(3, np.float32))
    tally = robustness.Tally()
    tally.add(case, ScanResult(found=found, layout=Layout([], None), uncertain=[]), 1.0)
    row = tally.row("x")
    assert (row["missed"], row["false_finds"], row["misread"]) == (1, 1, 1)
    assert row["perfect"] == 0 and row["precision"] == pytest.approx(1 / 3, abs=1e-3)


def test_a_joker_read_in_its_colour_is_right_and_counted_as_coloured() -> None:
    """Scanned as Expert, a red joker comes back as ``Jr``: right as a joker, and its colour
    counted; a blue one read as black is a joker still, with the colour wrong."""
    from rummi.vision.detections import TileDetections
    from rummi.vision.layout import Layout
    from rummi.vision.scanner import ScanResult

    case = bright_square_case()
    case.labels[:] = ["J", "J"]
    case.joker_colours = {0: "Jr", 1: "Jb"}
    found = TileDetections.from_corners(np.stack(case.outlines), np.ones(2, np.float32))
    found = found.with_reads(found.corners, ["Jr", "Jk"], np.ones(2, np.float32))
    tally = robustness.Tally()
    tally.add(case, ScanResult(found=found, layout=Layout([], None), uncertain=[]), 1.0)
    row = tally.row("x")
    assert row["perfect"] == 1 and row["precision"] == 1.0
    assert (row["joker_colour_right"], row["jokers_coloured"]) == (1, 2)


def test_a_tile_the_reader_refused_is_not_the_finder_s_miss() -> None:
    from rummi.vision.detections import TileDetections
    from rummi.vision.layout import Layout
    from rummi.vision.scanner import ScanResult

    case = bright_square_case()
    found = TileDetections.from_corners(np.stack(case.outlines[:1]), np.ones(1, np.float32))
    found = found.with_reads(found.corners, ["r1"], np.ones(1, np.float32))
    refused = TileDetections.from_corners(np.stack(case.outlines[1:]), np.ones(1, np.float32))
    tally = robustness.Tally()
    tally.add(case, ScanResult(found=found, layout=Layout([], None), uncertain=[], refused=refused), 1.0)
    row = tally.row("x")
    assert (row["missed"], row["refused"], row["misread"]) == (0, 1, 0) and row["recall"] == 0.5


def test_a_generated_tile_too_hidden_to_label_is_not_counted_but_not_a_phantom() -> None:
    cases = list(robustness.generated_cases("classic", 8))
    hidden = 0
    for case in cases:
        assert len(case.labels) == len(case.outlines) == len(case.counted)
        for label, counted in zip(case.labels, case.counted):
            if label == "hidden":
                hidden += 1
                assert not counted
    assert hidden > 0
    # A find on what shows of a hidden tile is matched to it, so it is neither a false find nor counted.
    case = next(c for c in cases if "hidden" in c.labels)
    t = case.labels.index("hidden")
    found = robustness.TileDetections.from_corners(box_inside(case.outlines[t], case.image.shape[:2])[None], np.ones(1))
    found = found.with_reads(found.corners, ["r1"], np.ones(1))
    tally = robustness.Tally()
    from rummi.vision.layout import Layout
    from rummi.vision.scanner import ScanResult

    tally.add(case, ScanResult(found=found, layout=Layout([], None), uncertain=[]), 1.0)
    assert tally.false_finds == 0 and tally.scores.reported == 0
    assert tally.row("x")["excused"] == 1


def box_inside(outline: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """A 6 x 6 px box centred on the point of ``outline`` farthest from its edge."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(outline).astype(np.int32)], 1)
    depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    y, x = np.unravel_index(int(depth.argmax()), depth.shape)
    return np.array([[x - 3, y - 3], [x + 3, y - 3], [x + 3, y + 3], [x - 3, y + 3]], np.float32)


def test_a_find_on_the_hand_over_a_hidden_tile_is_a_false_find() -> None:
    """A tile of which only a strip shows (a hand covers the rest) excuses a find on the strip,
    not one on the hand: the hidden tile is matched by its visible pixels, not its whole face."""
    from rummi.vision.layout import Layout
    from rummi.vision.scanner import ScanResult

    ids = np.zeros((200, 200), np.int32)
    ids[50:150, 60:70] = 1  # placement 1: a tile face 60..130 x 50..150, only its left strip shows
    outline = robustness.visible_outline(ids, 1)
    assert outline is not None and robustness.visible_outline(ids, 2) is None
    case = robustness.Case("hand", np.zeros((200, 200, 3), np.uint8), ["hidden"], [outline],
                           np.zeros(1, bool), [], None)
    on_hand = np.array([[90, 90], [110, 90], [110, 110], [90, 110]], np.float32)  # inside the face, under the hand
    on_strip = np.array([[62, 95], [68, 95], [68, 105], [62, 105]], np.float32)
    for box, false_finds, excused in ((on_hand, 1, 0), (on_strip, 0, 1)):
        found = robustness.TileDetections.from_corners(box[None], np.ones(1))
        found = found.with_reads(found.corners, ["J"], np.ones(1))
        tally = robustness.Tally()
        tally.add(case, ScanResult(found=found, layout=Layout([], None), uncertain=[]), 1.0)
        row = tally.row("x")
        assert (row["false_finds"], row["excused"]) == (false_finds, excused)


def test_a_right_read_flagged_uncertain_is_counted_as_the_flags_cost() -> None:
    from rummi.vision.detections import TileDetections
    from rummi.vision.layout import Layout
    from rummi.vision.scanner import ScanResult

    case = bright_square_case()
    found = TileDetections.from_corners(np.stack(case.outlines), np.ones(2, np.float32))
    found = found.with_reads(found.corners, ["r1", "k5"], np.ones(2, np.float32))
    tally = robustness.Tally()
    tally.add(case, ScanResult(found=found, layout=Layout([], None), uncertain=[0, 1]), 1.0)
    row = tally.row("x")
    assert row["right_unsure"] == 1  # the r1 read right; the wrong k5 is no cost of the flag
    assert row["sure_wrong_per_200_tiles"] == 0.0


def test_the_off_centre_third_is_a_third_and_counts_the_tile_inside() -> None:
    case = bright_square_case()
    case.image[50:110, 260:305] = 230  # a third square, inside the window
    case.labels.append("o9")
    case.outlines.append(np.array([[260, 50], [305, 50], [305, 110], [260, 110]], np.float32))
    case.counted = np.ones(3, bool)
    changed = robustness.VARIANTS["crop-third-off-centre"](case)
    # a window 133 x 100 from (240, 30): the first two squares lie outside it, the third inside
    assert changed.image.shape[:2] == (100, 133)
    assert changed.counted.tolist() == [False, False, True]
    assert changed.image[30, 40].tolist() == [230, 230, 230]  # the third square, moved with the window
