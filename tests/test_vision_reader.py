"""The reader's answers: a joker is first a joker (its colours added up), then named as the
edition names it; "none" marks a box on no tile, which never reaches a layout (vision/reader.py,
vision/classes.py); and the training's targets accept what each label allows
(vision/training/reader.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rummi.vision.classes import JOKER_COLOURS, NOT_A_TILE, READER_CLASSES, TILE_CLASSES, joker_names
from rummi.vision.detections import TileDetections
from rummi.vision.image_io import load_image
from rummi.vision.reader import TileReader
from rummi.vision.scanner import UNCERTAIN_BELOW, Scanner
from rummi.vision.training import reader as training


@dataclass
class FixedAnswers:
    """An onnx model's interface (``meta``, ``run``) answering the same probabilities for every
    crop: the reader's arithmetic on them is under test here, not a network."""

    meta: dict[str, Any]
    probabilities: np.ndarray  # (2 * answers,) upright half, then upside-down half
    folder: Path = Path(".")

    def run(self, batch: np.ndarray) -> np.ndarray:
        return np.log(np.tile(self.probabilities, (len(batch), 1)) + 1e-12)


def reader_answering(names: tuple[str, ...], **chances: float) -> TileReader:
    probabilities = np.full(2 * len(names), 1e-9)
    for name, chance in chances.items():
        probabilities[names.index(name)] = chance  # upright
    meta = {"tiles": list(names), "input_wh": [48, 64], "crop_wh": [72, 96], "not_a_tile": NOT_A_TILE}
    return TileReader(FixedAnswers(meta, probabilities / probabilities.sum()))


def one_box() -> tuple[np.ndarray, TileDetections]:
    photo = np.full((200, 200, 3), 200, np.uint8)
    box = np.array([[[70, 60], [130, 60], [130, 140], [70, 140]]], np.float32)
    return photo, TileDetections.from_corners(box, np.ones(1, np.float32))


def test_a_joker_split_between_two_colours_is_still_surely_a_joker() -> None:
    reader = reader_answering(READER_CLASSES, Jk=0.3, Jr=0.35, k5=0.35)
    photo, found = one_box()
    read = reader.read(photo, found)
    assert read.labels == ("J",)
    assert read.read_confidence[0] == pytest.approx(0.65, abs=0.01)


@pytest.mark.parametrize(("edition", "name"), [("standard", "J"), ("expert", "Jr"), ("twist", "Js")])
def test_the_joker_is_named_as_the_edition_names_it(edition: str, name: str) -> None:
    reader = reader_answering(READER_CLASSES, Jk=0.2, Jr=0.7, k5=0.1)
    photo, found = one_box()
    assert reader.read(photo, found, edition).labels == (name,)


def test_every_joker_colour_has_a_name_in_every_edition() -> None:
    assert set(joker_names("expert").values()) == {"Jk", "Jb", "Jo", "Jr"}
    assert set(joker_names("twist").values()) == {"Jc", "Jd", "Jm", "Js"}
    assert set(joker_names("standard").values()) == {"J"}
    assert set(joker_names("expert")) == set(JOKER_COLOURS)


def test_a_box_on_no_tile_is_dropped_before_the_layout() -> None:
    reader = reader_answering(READER_CLASSES, none=0.8, k5=0.2)
    photo, found = one_box()
    read = reader.read(photo, found)
    assert read.labels == (NOT_A_TILE,)
    assert not read.counted_as_tiles(UNCERTAIN_BELOW).any()  # as the scanner drops it


def test_a_reader_of_the_old_53_answers_still_reads() -> None:
    reader = reader_answering(TILE_CLASSES, J=0.9, k5=0.1)
    photo, found = one_box()
    read = reader.read(photo, found, "expert")
    assert read.labels == ("J",) and read.read_confidence[0] == pytest.approx(0.9, abs=0.01)
    assert reader.none_column is None


def test_training_targets_accept_what_a_label_allows() -> None:
    labels = np.array([training.LABELS.index(n) for n in ("r7", "J", NOT_A_TILE)])
    flipped = np.array([True, False, False])
    known = np.array([True, True, False])
    mask = training.answer_mask(labels, flipped, known)
    answers = len(training.TILE_NAMES)
    r7, none = training.TILE_NAMES.index("r7"), training.TILE_NAMES.index(NOT_A_TILE)
    jokers = [training.TILE_NAMES.index(c) for c in JOKER_COLOURS]
    assert np.flatnonzero(mask[0]).tolist() == [answers + r7]  # turned round: the upside-down r7 only
    assert np.flatnonzero(mask[1]).tolist() == jokers  # upright, any colour
    assert np.flatnonzero(mask[2]).tolist() == [none, answers + none]  # no up to a non-tile


def test_augmented_crops_keep_their_size() -> None:
    rng = np.random.default_rng(0)
    crop = np.random.default_rng(1).integers(0, 255, (96, 72, 3), dtype=np.uint8)
    for change in (training.motion_blurred, training.defocused, training.perspective, training.sheared,
                   training.sideways, training.low_resolution, training.augment):
        out = change(crop, rng)
        assert out.shape == crop.shape and out.dtype == np.uint8
        assert not np.array_equal(out, crop), change.__name__


# --- the shipped reader, on the bundled real photos ------------------------------------------
SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples"


@pytest.fixture(scope="module")
def shipped_reader() -> TileReader:
    from rummi.vision.onnx_model import default_models_dir, load_onnx_model

    return TileReader(load_onnx_model(default_models_dir() / "tile-reader", 1))


def sample_boxes(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per bundled photo: the photo, its labelled tiles' corners (TL, TR, BR, BL of the
    minimum-area box) and tile-sized boxes on no tile (on the table, half off a tile)."""
    import cv2
    from rummi.vision.evaluation import labelled_photos
    from rummi.vision.geometry import portrait_order
    from rummi.vision.image_io import load_image
    from rummi.vision.training.hard_examples import clear_of_tiles, straddling, tile_sized_box

    rng = np.random.default_rng(seed)
    out = []
    for photo in labelled_photos(SAMPLES):
        image = load_image(photo.image)
        quads = np.stack([portrait_order(cv2.boxPoints(cv2.minAreaRect(np.asarray(o, np.float32))))
                          for o in photo.outlines])
        width = float(np.median(np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1)))
        empty = []
        for quad in quads:
            moved = straddling(quad, rng)
            if clear_of_tiles(moved.mean(axis=0), quads):
                empty.append(moved)
        h, w = image.shape[:2]
        while len(empty) < 2 * len(quads):
            centre = rng.uniform([width, width], [w - width, h - width])
            if clear_of_tiles(centre, quads, clear=0.75):
                empty.append(tile_sized_box(centre, width, rng))
        out.append((image, quads.astype(np.float32), np.stack(empty).astype(np.float32)))
    return out


def test_the_shipped_reader_refuses_boxes_on_no_tile_and_keeps_the_tiles(shipped_reader: TileReader) -> None:
    if shipped_reader.none_column is None:
        pytest.fail("the shipped tile-reader has no 'none' answer (model.json: not_a_tile)")
    kept = refused = tiles = empties = 0
    for image, quads, empty in sample_boxes():
        read = shipped_reader.read(image, TileDetections.from_corners(quads, np.ones(len(quads))))
        kept += sum(label != NOT_A_TILE for label in read.labels)
        tiles += len(quads)
        read = shipped_reader.read(image, TileDetections.from_corners(empty, np.ones(len(empty))))
        refused += sum(label == NOT_A_TILE for label in read.labels)
        empties += len(empty)
    assert kept / tiles >= 0.98, f"{tiles - kept} of {tiles} real tiles answered 'none'"
    assert refused / empties >= 0.9, f"only {refused} of {empties} boxes on no tile answered 'none'"


def test_the_confusion_picture_has_a_row_for_every_tile_whatever_the_reader_answers() -> None:
    from collections import Counter

    from rummi.vision.evaluation import NONE, confusion_image

    picture = confusion_image(Counter({("J", "J"): 2, ("r7", NONE): 1}), list(READER_CLASSES))
    rows = len(TILE_CLASSES) + 1  # the 53 tiles (one J) and "no tile"
    assert picture.shape[:2] == (40 + rows * 16 + 10, 40 + rows * 16 + 10)


def test_clutter_crops_are_tile_sized_things_written_as_none(tmp_path: Path) -> None:
    from rummi.datasets.synth.distractors import TILE_SIZED, tile_sized_clutter
    from rummi.vision.geometry import CROP_SIZE
    from rummi.vision.training.hard_examples import clutter_negatives
    from rummi.vision.training.hard_examples import main as hard_main

    names = {tile_sized_clutter(np.random.default_rng(seed), 40.0)[1] for seed in range(30)}
    assert names == set(TILE_SIZED)
    picture, _ = tile_sized_clutter(np.random.default_rng(3), 40.0)
    assert picture.shape == (160, 160, 3) and picture.dtype == np.uint8
    crops = clutter_negatives(5, np.random.default_rng(0))
    assert [c.shape for c in crops] == [(CROP_SIZE[1], CROP_SIZE[0], 3)] * 5
    assert all(float(c.std()) > 1.0 for c in crops)  # something is in them, not a flat fill
    again = clutter_negatives(5, np.random.default_rng(0))
    assert all(np.array_equal(a, b) for a, b in zip(crops, again))
    assert hard_main(["--clutter", "4", "--out", str(tmp_path)]) == 0
    assert len(list((tmp_path / "crops" / "train" / NOT_A_TILE).glob("*.jpg"))) == 4
    assert len(list((tmp_path / "crops" / "val" / NOT_A_TILE).glob("*.jpg"))) == 1
    with pytest.raises(SystemExit):  # neither --scenes nor --clutter
        hard_main(["--out", str(tmp_path / "other")])


# --- a tile's way up weighed by its set-mates ------------------------------------------------
def row_of_three(first_turned: bool) -> TileDetections:
    """Three boxes side by side; the first one's corners lie turned round when asked."""
    boxes = np.array([[[x, 0], [x + 30, 0], [x + 30, 40], [x, 40]] for x in (0, 31, 62)], np.float32)
    if first_turned:
        boxes[0] = np.roll(boxes[0], 2, axis=0)
    return TileDetections.from_corners(boxes, np.ones(3, np.float32))


def believed(found: TileDetections, names: tuple[str, ...], *beliefs: dict[tuple[int, str], float]) -> TileDetections:
    """``found`` as the reader left it: per tile, chances of (way up as its corners lie: 0, or
    turned round: 1, answer); the label is the likeliest."""
    probabilities = np.full((len(found), 2, len(names)), 1e-6, np.float32)
    labels, confidence = [], []
    for i, chances in enumerate(beliefs):
        for (way, name), chance in chances.items():
            probabilities[i, way, names.index(name)] = chance
        (_, best), top = max(chances.items(), key=lambda item: item[1])
        labels.append(best)
        confidence.append(top)
    return found.with_reads(found.corners, labels, np.array(confidence), probabilities)


SURE_O7, SURE_O8 = {(0, "o7"): 0.99}, {(0, "o8"): 0.99}


def test_an_upright_6_half_taken_for_a_turned_9_is_a_6_among_upright_mates() -> None:
    reader = reader_answering(READER_CLASSES)
    found = believed(row_of_three(first_turned=True), READER_CLASSES,
                     {(0, "o9"): 0.64, (1, "o6"): 0.30}, SURE_O7, SURE_O8)
    weighed = reader.agree_with_set_mates(found, [[0, 1, 2]])
    assert weighed.labels == ("o6", "o7", "o8")
    # no surer than the reader alone was of a 6: the mates choose the way up, not how clear
    # the crop is (flagged, so no referee accuses over it)
    assert weighed.read_confidence[0] == pytest.approx(0.30, abs=1e-3)
    # and never surer for a tile that keeps its label either
    assert (weighed.read_confidence <= found.read_confidence + 1e-6).all()
    assert np.array_equal(weighed.corners[0], row_of_three(first_turned=False).corners[0])  # faces as its mates
    assert weighed.read_probabilities[0, 0, READER_CLASSES.index("o6")] == pytest.approx(0.30)  # kept as it lies now
    assert weighed.labels[1:] == found.labels[1:] and np.array_equal(weighed.corners[1:], found.corners[1:])


def test_a_tile_surely_read_turned_stays_turned_and_a_lone_or_unbelieved_tile_is_left_alone() -> None:
    reader = reader_answering(READER_CLASSES)
    surely_turned = believed(row_of_three(first_turned=True), READER_CLASSES,
                             {(0, "o9"): 0.995, (1, "o6"): 0.004}, SURE_O7, SURE_O8)
    weighed = reader.agree_with_set_mates(surely_turned, [[0, 1, 2]])
    assert weighed.labels[0] == "o9" and np.array_equal(weighed.corners, surely_turned.corners)
    assert weighed.read_confidence[0] == surely_turned.read_confidence[0]  # as the reader read it
    half = believed(row_of_three(first_turned=True), READER_CLASSES,
                    {(0, "o9"): 0.64, (1, "o6"): 0.30}, SURE_O7, SURE_O8)
    # one mate is no set; mates unsure of their own way up say nothing
    assert reader.agree_with_set_mates(half, [[0, 1], [2]]).labels[0] == "o9"
    unsure_mates = believed(row_of_three(first_turned=True), READER_CLASSES, {(0, "o9"): 0.64, (1, "o6"): 0.30},
                            {(0, "o7"): 0.6, (1, "o7"): 0.4}, {(0, "o8"): 0.6, (1, "o8"): 0.4})
    assert reader.agree_with_set_mates(unsure_mates, [[0, 1, 2]]).labels[0] == "o9"
    # a reading whose belief was not kept (the watch's settled tiles) is taken as it is
    unbelieved = half.with_reads(half.corners, half.labels, half.read_confidence)
    assert reader.agree_with_set_mates(unbelieved, [[0, 1, 2]]).labels == half.labels


def test_a_tile_weighed_by_its_mates_is_never_turned_into_no_tile() -> None:
    # Taken for a tile already (the scanner dropped the reader's "none" boxes before the
    # layout): the weighing chooses its way up and its face, never "none" (which has no up).
    reader = reader_answering(READER_CLASSES)
    found = believed(row_of_three(first_turned=True), READER_CLASSES,
                     {(0, "o9"): 0.40, (0, NOT_A_TILE): 0.35, (1, NOT_A_TILE): 0.2, (1, "o6"): 0.05},
                     SURE_O7, SURE_O8)
    assert reader.agree_with_set_mates(found, [[0, 1, 2]]).labels[0] == "o6"


def test_settled_tiles_tell_a_fresh_mate_its_way_up_and_stay_as_read() -> None:
    # The watch keeps a still tile's reading: it is a mate of a tile laid beside it, never re-read.
    reader = reader_answering(READER_CLASSES)
    found = believed(row_of_three(first_turned=True), READER_CLASSES,
                     {(0, "o9"): 0.64, (1, "o6"): 0.30}, SURE_O7, SURE_O8)
    fresh_first = reader.agree_with_set_mates(found, [[0, 1, 2]], settled=np.array([False, True, True]))
    assert fresh_first.labels == ("o6", "o7", "o8")
    settled_first = reader.agree_with_set_mates(found, [[0, 1, 2]], settled=np.array([True, True, True]))
    assert settled_first.labels == found.labels and np.array_equal(settled_first.corners, found.corners)


# --- crops as a steep view and a sideways box give them (vision/training/reader.py) ----------
def two_tone_crop() -> np.ndarray:
    """A 72x96 crop whose upper half is red and lower half blue (BGR), so which way up and which
    way round it came out can be read off its pixels."""
    crop = np.zeros((96, 72, 3), np.uint8)
    crop[:48] = (0, 0, 255)
    crop[48:] = (255, 0, 0)
    return crop


def test_a_finder_box_is_the_rectangle_round_the_face_in_the_faces_own_order() -> None:
    import cv2

    face = np.array([[10, 0], [40, 10], [40, 50], [10, 40]], float)  # a parallelogram, TL first
    box = training.finder_box(face)
    sides = np.roll(box, -1, axis=0) - box
    assert abs(float(sides[0] @ sides[1])) < 1e-3 * float(sides[0] @ sides[0])  # a right angle
    contour = box.astype(np.float32).reshape(-1, 1, 2)
    assert all(cv2.pointPolygonTest(contour, (float(x), float(y)), True) >= -1e-3 for x, y in face)
    nearest = [int(np.argmin(np.linalg.norm(face - corner, axis=1))) for corner in box]
    assert nearest == [0, 1, 2, 3]
    upright = np.array([[0, 0], [30, 0], [30, 40], [0, 40]], float)
    assert np.allclose(training.finder_box(upright), upright, atol=1e-4)
    # a face squeezed wider than tall keeps its top first: the crop stays upright
    wide = np.array([[0, 0], [40, 0], [40, 20], [0, 20]], float)
    assert np.allclose(training.finder_box(wide), wide, atol=1e-4)


def test_a_steep_view_cuts_through_a_parallelogram_round_the_same_tile() -> None:
    face = np.array([[100, 100], [130, 100], [130, 140], [100, 140]], float)
    rng = np.random.default_rng(0)
    for _ in range(20):
        source = training.seen_steeply(face, rng)
        assert np.allclose(source.mean(axis=0), face.mean(axis=0), atol=1e-6)
        assert np.allclose(source[0] - source[1], source[3] - source[2], atol=1e-6)  # a parallelogram
        nearest = [int(np.argmin(np.linalg.norm(face - corner, axis=1))) for corner in source]
        assert nearest == [0, 1, 2, 3]
    assert not np.allclose(training.seen_steeply(face, rng), face)


def test_a_sheared_crop_stays_upright_and_a_sideways_one_does_not() -> None:
    crop = two_tone_crop()
    rng = np.random.default_rng(1)
    for _ in range(10):
        out = training.sheared(crop, rng)
        assert out.shape == crop.shape and out.dtype == np.uint8
        assert out[10:30, 30:42, 2].mean() > 200 and out[66:86, 30:42, 0].mean() > 200  # red up, blue down
    turned = training.sideways(crop, rng)
    assert turned.shape == crop.shape
    left, right = turned[:, :30].reshape(-1, 3).mean(0), turned[:, 42:].reshape(-1, 3).mean(0)
    assert {int(np.argmax(left)), int(np.argmax(right))} == {0, 2}  # red and blue now side by side


def test_sideways_crops_are_tiles_only_and_may_have_any_answer() -> None:
    rng = np.random.default_rng(2)
    tiles = np.array([training.LABELS.index("r7")] * 200 + [training.LABELS.index(NOT_A_TILE)] * 200)
    images = np.stack([two_tone_crop()] * len(tiles))
    inputs, mask, turned = training._finish(images, tiles, np.ones(len(tiles), bool), rng, train=True)
    assert inputs.shape == (len(tiles), 3, 64, 48)
    assert 0 < turned[:200].sum() < 50 and not turned[200:].any()
    assert mask[turned].all() and not mask[~turned].all(axis=1).any()
    _, _, unturned = training._finish(images, tiles, np.ones(len(tiles), bool), rng, train=False)
    assert not unturned.any()  # validation crops are never turned sideways


def test_a_sideways_crop_is_taught_even_odds_and_a_tile_its_answer() -> None:
    torch = pytest.importorskip("torch")
    answers = 2 * len(training.TILE_NAMES)
    mask = torch.zeros(2, answers, dtype=torch.bool)
    mask[0, 3] = True
    mask[1] = True
    sideways = torch.tensor([False, True])
    logits = torch.zeros(2, answers, requires_grad=True)
    training._loss(torch, logits, mask, sideways).backward()
    assert logits.grad[0, 3] < 0  # the tile's answer is pulled up
    assert torch.allclose(logits.grad[1], torch.zeros(answers), atol=1e-7)  # even odds: already the best
    sure = torch.zeros(1, answers)
    sure[0, 3] = 10.0
    even = torch.zeros(1, answers)
    assert training._loss(torch, sure, mask[1:], sideways[1:]) > training._loss(torch, even, mask[1:], sideways[1:])


def test_a_tile_read_black_whose_ink_is_blue_is_read_blue_and_black_ink_stays_black() -> None:
    # A reader that takes every crop for a black 7, most of the time, on a real photo's tiles:
    # the blue tiles' ink turns the belief blue (the same number), the black tiles' does not.
    photo = load_image(Path(__file__).resolve().parents[1] / "vision" / "samples" / "images" / "sets-rummy-11.jpg")
    tiles = Scanner.load().scan(photo).found
    colours = [label[0] for label in tiles.labels]
    assert colours.count("b") >= 2 and colours.count("k") >= 4
    reader = reader_answering(READER_CLASSES, k7=0.86, b7=0.04, r7=0.1)
    read = reader.read(photo, TileDetections.from_corners(tiles.corners, np.ones(len(tiles), np.float32)))
    for colour, label, confidence in zip(colours, read.labels, read.read_confidence):
        if colour == "b":
            assert label == "b7" and confidence > 0.85
        elif colour == "k":
            assert label == "k7" and confidence == pytest.approx(0.86, abs=0.01)


def scatter_seen_steeply(axis: str) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The bundled scatter photo with the phone turned 50 degrees about ``axis`` ("y": a side
    recedes, the robustness benchmark's tilt-50-side-tele; "x": the top recedes) through a tele
    lens, fitted back in the frame: (the photo, its tiles, each boxed as a finder boxes it, the
    rectangle round its sheared face)."""
    import cv2
    from rummi.datasets.real_views import fit_in_frame, tilt_matrix
    from rummi.vision.evaluation import labelled_photos
    from rummi.vision.geometry import portrait_order

    photo = next(p for p in labelled_photos(SAMPLES) if p.image.name == "scatter-rummy-42.jpg")
    image = load_image(photo.image)
    height, width = image.shape[:2]
    matrix = tilt_matrix(width, height, 50.0, axis, 45.0)
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32).reshape(-1, 1, 2)
    matrix = fit_in_frame(cv2.perspectiveTransform(frame, matrix).reshape(-1, 2), width, height) @ matrix
    tilted = cv2.warpPerspective(image, matrix, (width, height))
    faces = [cv2.perspectiveTransform(np.asarray(o, np.float32).reshape(-1, 1, 2), matrix).reshape(-1, 2)
             for o in photo.outlines]
    boxes = np.stack([portrait_order(cv2.boxPoints(cv2.minAreaRect(f))) for f in faces]).astype(np.float32)
    return tilted, photo.tiles, boxes


def test_a_tile_sheared_by_a_steep_view_is_read_along_its_face(shipped_reader: TileReader) -> None:
    # Read along the face outline, every tile of the side-tilted scatter photo reads right
    # (without it one does not).
    tilted, tiles, boxes = scatter_seen_steeply("y")
    read = shipped_reader.read(tilted, TileDetections.from_corners(boxes, np.ones(len(boxes))))
    assert list(read.labels) == tiles


def test_a_second_box_on_a_sheared_tile_does_not_hide_its_face(shipped_reader: TileReader) -> None:
    # The same photo tilted the other way (its top recedes). A finder sometimes puts two boxes
    # on one tile (dropped later as a repeat); the other box's centre lies on the same face and
    # must not count as another tile's (found by review: both read "none").
    tilted, tiles, boxes = scatter_seen_steeply("x")
    doubled = np.concatenate([boxes, boxes[[15, 3]] + 3.0])
    read = shipped_reader.read(tilted, TileDetections.from_corners(doubled, np.ones(len(doubled))))
    assert [read.labels[i] for i in (3, 15)] == [tiles[3], tiles[15]]


def test_each_folder_weighs_the_same_and_a_joker_as_many_times_as_asked() -> None:
    labels = training.LABELS
    tiles = np.array([labels.index(n) for n in ("k1", "k2", "J", "Jr", "b5", "r9", "o3", "J")])
    source = np.array([0, 0, 0, 0, 1, 1, 1, 1])  # folder 0: 2 tiles, 2 jokers; folder 1: 3 tiles, 1 joker
    crops = training.CropSet(np.zeros((8, 96, 72, 3), np.uint8), tiles, np.ones(8, bool), source)
    plain = training.draw_weights(crops)
    assert np.allclose(plain, [1 / 8] * 4 + [1 / 8] * 4)
    weighted = training.draw_weights(crops, joker_weight=4.0)
    assert np.isclose(weighted.sum(), 1.0)
    assert np.isclose(weighted[source == 0].sum(), 0.5) and np.isclose(weighted[source == 1].sum(), 0.5)
    assert np.isclose(weighted[2], 4 * weighted[0]) and np.isclose(weighted[3], 4 * weighted[1])
    assert np.isclose(weighted[7], 4 * weighted[4]) and np.isclose(weighted[4], weighted[6])
    with pytest.raises(ValueError, match="positive"):
        training.draw_weights(crops, joker_weight=0.0)
