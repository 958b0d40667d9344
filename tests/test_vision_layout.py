"""Layout on synthetic geometry: tiles placed by hand, at any angle, grouped and ordered."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.vision.detections import TileDetections
from rummi.vision.layout import lay_out

WIDTH, HEIGHT = 30.0, 40.0


def tile_corners(cx: float, cy: float, turn_degrees: float = 0.0) -> np.ndarray:
    """Corners TL, TR, BR, BL of an upright tile centred at (cx, cy), turned clockwise on screen."""
    half = np.array([[-WIDTH / 2, -HEIGHT / 2], [WIDTH / 2, -HEIGHT / 2],
                     [WIDTH / 2, HEIGHT / 2], [-WIDTH / 2, HEIGHT / 2]])
    a = math.radians(turn_degrees)
    rotation = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return (half @ rotation.T + [cx, cy]).astype(np.float32)


def scene(tiles: list[tuple[str, float, float, float]]) -> TileDetections:
    """Read tiles from (label, cx, cy, turn) tuples, as the reader would leave them."""
    corners = np.stack([tile_corners(x, y, t) for _, x, y, t in tiles])
    found = TileDetections.from_corners(corners, np.ones(len(tiles)))
    return found.with_reads(found.corners, [label for label, *_ in tiles], np.ones(len(tiles)))


def row(labels: list[str], x: float, y: float, turn: float = 0.0, gap: float = 1.0) -> list[tuple[str, float, float, float]]:
    """Tiles side by side along their own reading direction, starting at (x, y)."""
    a = math.radians(turn)
    step = (WIDTH + gap) * np.array([math.cos(a), math.sin(a)])
    return [(label, x + i * step[0], y + i * step[1], turn) for i, label in enumerate(labels)]


def labels_of(found: TileDetections, groups: list[list[int]]) -> list[list[str]]:
    return [[found.labels[i] for i in g] for g in groups]


def test_two_rows_are_two_sets_read_left_to_right_top_down() -> None:
    found = scene(row(["k9", "b9", "o9"], 300, 100) + row(["r5", "r6", "r7"], 50, 100))
    layout = lay_out(found)
    assert labels_of(found, layout.sets) == [["r5", "r6", "r7"], ["k9", "b9", "o9"]]
    assert layout.rack is None


def test_a_row_turned_upside_down_is_read_from_the_other_end() -> None:
    # Seen from across the table: tiles turned by 180 degrees, laid out right to left on screen.
    found = scene(row(["r5", "r6", "r7"], 400, 200, turn=180))
    assert labels_of(found, lay_out(found).sets) == [["r5", "r6", "r7"]]


def test_tiles_on_a_ledge_next_to_sets_are_the_rack() -> None:
    found = scene(row(["r5", "r6", "r7"], 50, 50) + [("k1", 100, 300, 0), ("J", 160, 300, 0), ("b8", 230, 300, 0)])
    layout = lay_out(found, on_ledge=np.array([False, False, False, True, True, True]))
    assert labels_of(found, layout.sets) == [["r5", "r6", "r7"]]
    assert [found.labels[i] for i in layout.rack] == ["k1", "J", "b8"]
    assert found.with_rack(np.isin(np.arange(6), layout.rack)).on_rack.sum() == 3


def test_one_or_two_tiles_on_something_dark_are_no_rack() -> None:
    # A tile's shadow, or a dark stripe in a cloth, under one or two tiles is not a rack's tier.
    found = scene(row(["r5", "r6", "r7"], 50, 50) + [("k1", 100, 300, 0), ("J", 160, 300, 0)])
    layout = lay_out(found, on_ledge=np.array([False, False, False, True, True]))
    assert layout.rack is None


def test_the_upper_tier_of_a_rack_needs_no_ledge_of_its_own() -> None:
    lower = row(["b2", "b9", "r11", "k4"], 50, 300)
    upper = row(["o1", "o2", "o3"], 50, 300 - 1.2 * HEIGHT)
    found = scene(lower + upper)
    layout = lay_out(found, on_ledge=np.array([True] * 4 + [False] * 3))
    assert layout.sets == []
    assert [found.labels[i] for i in layout.rack] == ["o1", "o2", "o3", "b2", "b9", "r11", "k4"]


def test_a_close_up_of_both_tiers_is_a_rack_when_together_they_show_enough_ledge() -> None:
    # A close-up of a two-tier rack (held-out rack photo rummy4-92 cropped to its middle half):
    # two of five upper tiles show a ledge through the lower tier's gap, two of three lower
    # tiles do; neither tier alone has three.
    upper = row(["k5", "k7", "r2", "J", "r8"], 50, 300 - 1.2 * HEIGHT)
    lower = row(["o1", "o12"], 50, 300) + [("b2", 50 + 4 * 31, 300, 0)]
    found = scene(upper + lower)
    on_ledge = np.array([False, False, True, True, False, False, True, True])
    layout = lay_out(found, on_ledge=on_ledge, bar_between=lambda i, j: True)
    assert layout.sets == []
    assert [found.labels[i] for i in layout.rack] == ["k5", "k7", "r2", "J", "r8", "o1", "o12", "b2"]
    # One line alone with two ledge tiles is no rack, nor two lines too far apart to be tiers.
    alone = scene(lower)
    assert lay_out(alone, on_ledge=np.array([False, True, True]), bar_between=lambda i, j: True).rack is None
    apart = scene(row(["k5", "k7", "r2"], 50, 300 - 2.5 * HEIGHT) + lower)
    assert lay_out(apart, on_ledge=np.array([False, True, True, False, True, True]),
                   bar_between=lambda i, j: True).rack is None


def test_an_upper_tier_hidden_behind_the_lower_one_counts_neither_for_nor_against_the_rack() -> None:
    # The upper tier's ledge shows only through the lower tier's gap (held-out rack photo
    # rummy4-87 turned a quarter): its four hidden tiles are no evidence that this is no rack.
    upper = row(["k5", "k7", "r2", "J", "r8"], 50, 300 - 1.05 * HEIGHT)
    lower = [tile for k, tile in enumerate(row(["o1", "o12", "-", "b2", "b3"], 50, 300)) if k != 2]
    found = scene(upper + lower)
    on_ledge = np.array([False, False, True, False, False] + [True, False, True, False])
    layout = lay_out(found, on_ledge=on_ledge)
    assert [found.labels[i] for i in layout.rack] == ["k5", "k7", "r2", "J", "r8", "o1", "o12", "b2", "b3"]


def test_upright_loose_tiles_with_no_ledge_are_on_the_table() -> None:
    # Standing alike is no rack: a lone upright tile, or two, lie on the table.
    found = scene(row(["r5", "r6", "r7"], 50, 50) + [("k1", 100, 300, 0), ("J", 200, 300, 0)])
    for on_ledge in (None, np.zeros(5, bool)):
        layout = lay_out(found, on_ledge=on_ledge)
        assert layout.rack is None
        assert sorted(labels_of(found, layout.sets)) == [["J"], ["k1"], ["r5", "r6", "r7"]]


def test_a_tile_beside_the_rack_in_its_tier_is_on_it_and_a_table_set_stays_a_set() -> None:
    tier = row(["b2", "b9", "r11", "k4"], 50, 300)
    found = scene(row(["r5", "r6", "r7"], 50, 50) + tier)
    on_ledge = np.array([False] * 3 + [True, True, False, True])  # r11's ledge was missed
    layout = lay_out(found, on_ledge=on_ledge)
    assert labels_of(found, layout.sets) == [["r5", "r6", "r7"]]
    assert [found.labels[i] for i in layout.rack] == ["b2", "b9", "r11", "k4"]


def test_a_tile_put_on_the_rack_upside_down_is_still_on_it() -> None:
    # Players slip a tile in turned round; it stands in its tier like the others (it fell to
    # the table in four generated rack scenes).
    tier = row(["b9", "b4", "b2", "k4"], 50, 300)
    tier[1] = ("b4", tier[1][1], tier[1][2], 180)
    found = scene(row(["r5", "r6", "r7"], 50, 50) + tier)
    for turned_on_ledge in (True, False):
        on_ledge = np.array([False] * 3 + [True, turned_on_ledge, True, True])
        layout = lay_out(found, on_ledge=on_ledge)
        assert labels_of(found, layout.sets) == [["r5", "r6", "r7"]]
        assert [found.labels[i] for i in layout.rack] == ["b9", "b4", "b2", "k4"]


def test_tiles_of_one_tier_far_apart_are_one_rack_where_its_bar_shows_between_them() -> None:
    # Two on a ledge, a gap of three tiles, then two more: no piece has three on a ledge.
    tier = row(["b2", "b9"], 50, 300) + row(["r11", "k4"], 50 + 5 * 31, 300)
    found = scene(row(["r5", "r6", "r7"], 50, 50) + tier)
    on_ledge = np.array([False] * 3 + [True] * 4)
    asked: list[tuple[int, int]] = []

    def bar(i: int, j: int) -> bool:
        asked.append((i, j))
        return True

    layout = lay_out(found, on_ledge=on_ledge, bar_between=bar)
    assert asked == [(4, 5)]  # only the gap between the two pieces is looked at
    assert labels_of(found, layout.sets) == [["r5", "r6", "r7"]]
    assert [found.labels[i] for i in layout.rack] == ["b2", "b9", "r11", "k4"]
    # Where the gap shows table instead, the pieces are tiles on the table.
    for bar_between in (None, lambda i, j: False):
        layout = lay_out(found, on_ledge=on_ledge, bar_between=bar_between)
        assert layout.rack is None
        assert labels_of(found, layout.sets) == [["r5", "r6", "r7"], ["b2", "b9"], ["r11", "k4"]]


def test_tiles_standing_between_ledge_tiles_join_them_in_one_tier() -> None:
    # Ledges seen under the first, third and last tiles only (the others' strips in shadow).
    tier = row(["b2", "b9", "r11", "k4", "o7"], 50, 300, gap=20)
    found = scene(tier)
    layout = lay_out(found, on_ledge=np.array([True, False, True, False, True]))
    assert [found.labels[i] for i in layout.rack] == ["b2", "b9", "r11", "k4", "o7"]


def test_a_rack_seen_at_a_low_angle_is_one_tier_from_its_far_end_to_its_near_one() -> None:
    # Seen along the rack, its near end is three times the size of its far end, and the tiles
    # (a tile's width apart, in their own size) spread further apart on screen as they grow.
    scales = 0.7 * 1.17 ** np.arange(8)
    corners, x = [], 40.0
    for k, scale in enumerate(scales):
        if k:
            x += (scales[k - 1] + scale) * WIDTH  # a tile's width of gap between each two
        w, h = WIDTH * scale, HEIGHT * scale
        corners.append(np.array([[x - w / 2, 300 - h], [x + w / 2, 300 - h], [x + w / 2, 300], [x - w / 2, 300]],
                                np.float32))
    labels = ["b2", "b9", "r11", "k4", "o7", "o8", "k1", "J"]
    found = TileDetections.from_corners(np.stack(corners), np.ones(8))
    found = found.with_reads(found.corners, labels, np.ones(8))
    layout = lay_out(found, on_ledge=np.ones(8, bool))
    assert layout.sets == [] and [found.labels[i] for i in layout.rack] == labels


def test_a_few_shadows_along_a_long_row_of_table_sets_are_no_rack() -> None:
    # Four sets a tile apart, one tile of each taken for standing on a ledge (its shadow).
    sets = [["r5", "r6", "r7"], ["k9", "b9", "o9"], ["b1", "b2", "b3"], ["o4", "o5", "o6"]]
    tiles = [t for k, labels in enumerate(sets) for t in row(labels, 50 + k * 4 * 31, 100)]
    found = scene(tiles)
    on_ledge = np.zeros(12, bool)
    on_ledge[[1, 4, 7]] = True
    layout = lay_out(found, on_ledge=on_ledge, bar_between=lambda i, j: False)
    assert layout.rack is None
    assert labels_of(found, layout.sets) == sets


def test_rows_of_table_sets_one_above_the_other_with_shadows_are_no_rack() -> None:
    # Tables are laid as rows of sets, one row above the other; shadows on a dark cloth can
    # look like ledges. Hidden strips and stacked lines must not make a rack of them (found by
    # review): a rack's bottom tier shows its own ledge.
    sets = [["r5", "r6", "r7"], ["k9", "b9", "o9"], ["b1", "b2", "b3"], ["o4", "o5", "o6"]]

    def table_row(y: float) -> list[tuple[str, float, float, float]]:
        return [t for k, labels in enumerate(sets) for t in row(labels, 50 + k * 4 * 31, y)]

    for spacing, shadows in ((1.1, [1, 4, 7]), (1.3, [1, 4, 7]), (1.5, [1, 4, 7]), (1.3, [1, 7, 16])):
        found = scene(table_row(100) + table_row(100 + spacing * HEIGHT))
        on_ledge = np.zeros(24, bool)
        on_ledge[shadows] = True
        layout = lay_out(found, on_ledge=on_ledge, bar_between=lambda i, j: False)
        assert layout.rack is None, (spacing, shadows)
        assert len(layout.sets) == 8


def test_loose_tiles_lying_every_which_way_are_unfinished_table_sets_not_a_rack() -> None:
    # Tiles scattered at many angles stand in no rack's tiers: they are on the table, and the
    # table check then says each is no set.
    found = scene(row(["r5", "r6", "r7"], 50, 50) + [("k1", 100, 300, 0), ("J", 250, 300, 70), ("b4", 400, 300, 135)])
    layout = lay_out(found)
    assert layout.rack is None
    assert sorted(labels_of(found, layout.sets)) == [["J"], ["b4"], ["k1"], ["r5", "r6", "r7"]]


def test_a_gap_of_a_whole_tile_splits_a_row() -> None:
    found = scene(row(["r5", "r6", "r7"], 50, 50) + row(["k2", "k3", "k4"], 50 + 3 * 31 + 30, 50))
    assert labels_of(found, lay_out(found).sets) == [["r5", "r6", "r7"], ["k2", "k3", "k4"]]


def test_tiles_stacked_top_to_bottom_make_a_column_set() -> None:
    found = scene([("b4", 100, 141, 0), ("b3", 100, 100, 0), ("b5", 100, 182, 0)])
    assert labels_of(found, lay_out(found).sets) == [["b3", "b4", "b5"]]


def test_a_rack_photo_with_touching_tiles_is_a_rack_even_where_they_make_a_set() -> None:
    top = row(["r1", "k9", "o3", "b12"], 50, 50)
    bottom = row(["r11", "r12", "r13"], 50, 95)  # a valid run, but standing in the rack
    found = scene(top + bottom)
    layout = lay_out(found, on_ledge=np.ones(7, bool))
    assert layout.sets == []
    assert [found.labels[i] for i in layout.rack] == ["r1", "k9", "o3", "b12", "r11", "r12", "r13"]


def test_kind_overrides_the_guess() -> None:
    found = scene(row(["r5", "r6", "r7"], 50, 50) + [("k1", 300, 300, 0)])
    assert labels_of(found, lay_out(found, "table").sets) == [["r5", "r6", "r7"], ["k1"]]
    assert lay_out(found, "table").rack is None
    assert [found.labels[i] for i in lay_out(found, "rack").rack] == ["r5", "r6", "r7", "k1"]
    with pytest.raises(ValueError, match="unknown layout kind"):
        lay_out(found, "floor")  # type: ignore[arg-type]


def test_nothing_found_is_an_empty_table() -> None:
    layout = lay_out(TileDetections.empty())
    assert layout.sets == [] and layout.rack is None


@settings(max_examples=60, deadline=None)
@given(turn=st.floats(-180, 180), gap=st.floats(0, 8))
def test_sets_do_not_depend_on_the_angle_of_the_photo(turn: float, gap: float) -> None:
    """Two sets at any common angle, with any small gap between tiles, come out the same."""
    a = math.radians(turn)
    across = np.array([-math.sin(a), math.cos(a)]) * (HEIGHT * 2.5)  # the second row, further "down"
    tiles = row(["r5", "r6", "r7", "r8"], 500, 500, turn, gap)
    tiles += row(["k9", "b9", "o9"], 500 + across[0], 500 + across[1], turn, gap)
    found = scene(tiles)
    sets = labels_of(found, lay_out(found).sets)
    assert sorted(sets) == [["k9", "b9", "o9"], ["r5", "r6", "r7", "r8"]]
