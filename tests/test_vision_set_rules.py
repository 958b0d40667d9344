"""An unsure tile re-read by the rules of the set it lies in (vision/set_rules.py)."""

from __future__ import annotations

import numpy as np
import pytest
from rummi.vision.classes import READER_CLASSES
from rummi.vision.detections import TileDetections
from rummi.vision.scanner import UNCERTAIN_BELOW
from rummi.vision.set_rules import mend_by_set_rules


def row(count: int) -> TileDetections:
    boxes = np.array([[[x, 0], [x + 30, 0], [x + 30, 40], [x, 40]] for x in range(0, 31 * count, 31)], np.float32)
    return TileDetections.from_corners(boxes, np.ones(count, np.float32))


def read_as(*beliefs: dict[str, float]) -> TileDetections:
    """A row of tiles as the reader left them: per tile, its chances of each answer (the way
    up its corners lie); the label is the likeliest (a joker ``J``, as a standard box names it)."""
    found = row(len(beliefs))
    probabilities = np.full((len(found), 2, len(READER_CLASSES)), 1e-6, np.float32)
    for i, chances in enumerate(beliefs):
        for name, chance in chances.items():
            probabilities[i, 0, READER_CLASSES.index(name)] = chance
    labels = [max(chances, key=chances.__getitem__) for chances in beliefs]
    labels = ["J" if label.startswith("J") else label for label in labels]
    confidence = np.array([max(chances.values()) for chances in beliefs], np.float32)
    return found.with_reads(found.corners, labels, confidence, probabilities)


def test_a_teal_tile_read_black_in_a_group_with_a_black_one_is_read_blue_and_stays_flagged() -> None:
    # A dim photo: the teal 12 read black at 0.83, blue a distant 0.03; the group o12 k12 k12 is no set.
    found = read_as({"o12": 0.95}, {"k12": 0.83, "b12": 0.03, "k13": 0.14}, {"k12": 0.97})
    mended = mend_by_set_rules(found, [[0, 1, 2]], READER_CLASSES)
    assert mended.labels == ("o12", "b12", "k12")
    # as sure as the reader was of blue: flagged for the player to check, never silently mended
    assert mended.read_confidence[1] == pytest.approx(0.03, abs=1e-3)
    assert mended.read_confidence[1] < UNCERTAIN_BELOW
    assert np.array_equal(mended.read_confidence[[0, 2]], found.read_confidence[[0, 2]])
    assert np.array_equal(mended.read_probabilities, found.read_probabilities)  # the reader's belief is kept


def test_a_run_takes_the_number_the_reader_believed_next() -> None:
    found = read_as({"r7": 0.96}, {"r10": 0.6, "r8": 0.3, "k8": 0.05}, {"r9": 0.93})
    assert mend_by_set_rules(found, [[0, 1, 2]], READER_CLASSES).labels == ("r7", "r8", "r9")


def test_sure_readings_valid_sets_jokers_and_settled_tiles_are_left_as_read() -> None:
    sure = read_as({"o12": 0.95}, {"k12": 0.93, "b12": 0.05}, {"k12": 0.97})
    assert mend_by_set_rules(sure, [[0, 1, 2]], READER_CLASSES) is sure  # the player's invalid group, shown as laid
    valid = read_as({"o12": 0.95}, {"k12": 0.6, "b12": 0.3}, {"r12": 0.97})
    assert mend_by_set_rules(valid, [[0, 1, 2]], READER_CLASSES) is valid
    joker = read_as({"o12": 0.95}, {"Jk": 0.6, "b12": 0.3}, {"o12": 0.97})
    assert mend_by_set_rules(joker, [[0, 1, 2]], READER_CLASSES) is joker  # never from a joker...
    to_joker = read_as({"r5": 0.95}, {"r9": 0.6, "Jr": 0.3}, {"r7": 0.97})
    assert mend_by_set_rules(to_joker, [[0, 1, 2]], READER_CLASSES) is to_joker  # ...nor to one
    unsure = read_as({"o12": 0.95}, {"k12": 0.83, "b12": 0.03}, {"k12": 0.97})
    settled = mend_by_set_rules(unsure, [[0, 1, 2]], READER_CLASSES, settled=np.array([False, True, False]))
    assert settled is unsure  # the watch's still tile keeps its reading
    assert mend_by_set_rules(unsure, [[0, 1]], READER_CLASSES) is unsure  # two tiles are no set to judge by
    unbelieved = unsure.with_reads(unsure.corners, unsure.labels, unsure.read_confidence)
    assert mend_by_set_rules(unbelieved, [[0, 1, 2]], READER_CLASSES) is unbelieved


def test_a_tile_barely_believed_two_tied_readings_or_two_misreads_change_nothing() -> None:
    faint = read_as({"o12": 0.95}, {"k12": 0.83, "b12": 0.01}, {"k12": 0.97})
    assert mend_by_set_rules(faint, [[0, 1, 2]], READER_CLASSES) is faint
    # a group of o5 k5 and an unsure tile read k5, believed blue or red alike: no telling which
    tied = read_as({"o5": 0.95}, {"k5": 0.6, "b5": 0.15, "r5": 0.15}, {"k5": 0.97})
    assert mend_by_set_rules(tied, [[0, 1, 2]], READER_CLASSES) is tied
    # one tile changes per set: a set two misreads away is no set either way
    twice = read_as({"r7": 0.96}, {"r10": 0.6, "r8": 0.3}, {"r12": 0.6, "r9": 0.3})
    assert mend_by_set_rules(twice, [[0, 1, 2]], READER_CLASSES) is twice


def test_of_two_unsure_tiles_the_likelier_mend_is_taken() -> None:
    # o12 k12 k12: either black tile may be the blue one; the reader believed blue more of the second
    found = read_as({"o12": 0.95}, {"k12": 0.8, "b12": 0.04}, {"k12": 0.7, "b12": 0.2})
    assert mend_by_set_rules(found, [[0, 1, 2]], READER_CLASSES).labels == ("o12", "k12", "b12")


def test_the_scanner_reads_a_laid_set_by_its_rules_but_not_a_rack() -> None:
    # The shipped models' answers; the layout makes the row a set, or a rack tier when told so.
    from rummi.vision.layout import lay_out
    from rummi.vision.scanner import Scanner

    scanner = Scanner.load(threads=1)
    found = read_as({"o12": 0.95}, {"k12": 0.83, "b12": 0.03, "k13": 0.14}, {"k12": 0.97})
    as_table, layout = scanner.weigh_by_set_mates(found, lay_out(found, "table"), "standard")
    assert layout.sets == [[0, 1, 2]] and as_table.labels == ("o12", "b12", "k12")
    as_rack, layout = scanner.weigh_by_set_mates(found, lay_out(found, "rack"), "standard")
    assert layout.rack and as_rack.labels == found.labels  # a rack holds any tiles: no rule to read by


def test_an_answer_the_box_does_not_hold_is_never_taken() -> None:
    # Start Right's box numbers 1-10: the reader's r11 is no answer there (it raised before)
    found = read_as({"r8": 0.96}, {"r10": 0.6, "r11": 0.3}, {"r7": 0.93})
    assert mend_by_set_rules(found, [[0, 1, 2]], READER_CLASSES, "start_right") is found
    fits = read_as({"r8": 0.96}, {"r10": 0.6, "r11": 0.1, "r9": 0.25}, {"r7": 0.93})
    assert mend_by_set_rules(fits, [[0, 1, 2]], READER_CLASSES, "start_right").labels == ("r8", "r9", "r7")


def test_two_nearly_as_likely_mends_change_nothing_and_a_mend_stays_under_the_flag_line() -> None:
    near = read_as({"o5": 0.95}, {"k5": 0.6, "b5": 0.16, "r5": 0.15}, {"k5": 0.97})
    assert mend_by_set_rules(near, [[0, 1, 2]], READER_CLASSES) is near
    clear = read_as({"o5": 0.95}, {"k5": 0.6, "b5": 0.3, "r5": 0.05}, {"k5": 0.97})
    mended = mend_by_set_rules(clear, [[0, 1, 2]], READER_CLASSES, flagged_below=0.2)
    assert mended.labels[1] == "b5" and mended.read_confidence[1] < 0.2
