"""Twist's special jokers (rules.md 2.3 and 2.4): double, mirror and colour change."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.engine.editions import get_edition
from rummi.engine.melds import SetKind, classify
from rummi.engine.notation import parse_tiles
from rummi.engine.tiles import JokerKind, Tile

TWIST = get_edition("twist")


def verdict(text: str):
    return classify(parse_tiles(text, TWIST), TWIST)


# --- double joker -------------------------------------------------------------------------------


def test_double_joker_in_a_run_stands_for_two_numbers_and_counts_both() -> None:
    # TWIST-EN: 2 - Double Joker - 5, the joker is 3 and 4, worth 7 in the opening.
    v = verdict("r2 Jd r5")
    assert v.kind is SetKind.RUN
    assert v.joker_options() == [[tuple(parse_tiles("r3 r4"))]]
    assert v.value == 2 + 3 + 4 + 5


def test_double_joker_in_a_group_stands_for_the_two_missing_colours() -> None:
    # TWIST-EN: Blue 3 - Pink 3 - Double Joker stands for the other two colours.
    v = verdict("b3 r3 Jd")
    assert v.kind is SetKind.GROUP
    assert v.joker_options() == [[tuple(parse_tiles("k3 o3"))]]
    assert v.value == 12


def test_double_joker_may_be_first_or_last_but_stays_within_the_numbers() -> None:
    # "not before 2 or after 12": only 1 comes before 2 and only 13 after 12.
    assert verdict("Jd r3 r4").joker_options() == [[tuple(parse_tiles("r1 r2")), tuple(parse_tiles("r5 r6"))]]
    assert verdict("r12 r13 Jd").joker_options() == [[tuple(parse_tiles("r10 r11"))]]
    assert verdict("r1 Jd r4").valid


def test_a_set_with_a_double_joker_still_needs_three_tiles() -> None:
    assert verdict("r5 Jd").reason == "only 2 tiles"


def test_a_double_joker_cannot_overfill_a_group() -> None:
    assert "at most 4 tiles" in verdict("b3 r3 k3 Jd").reason


def test_special_jokers_and_plain_jokers_share_a_set() -> None:
    # TWIST-EN: a series may contain more than one special or regular joker.
    v = verdict("r5 Jd J")
    assert v.valid
    assert v.value == 5 + 6 + 7 + 8  # the best of the runs 2-5 ... 5-8 and the group of 5s (20)


# --- mirror joker -------------------------------------------------------------------------------


def test_mirror_run_reads_the_same_on_both_sides_and_the_mirror_is_worth_0() -> None:
    # RKB-PL-TWIST's example 2-3-J-3-2.
    v = verdict("r2 r3 Jm r3 r2")
    assert v.valid and v.kind is SetKind.RUN
    assert [str(t) for t in v.readings[0].stands_for] == ["r2", "r3", "Jm", "r3", "r2"]
    assert v.value == 10


def test_mirror_group() -> None:
    v = verdict("r5 b5 Jm b5 r5")
    assert v.kind is SetKind.GROUP and v.value == 20


def test_a_plain_joker_may_mirror_a_tile() -> None:
    v = verdict("r2 r3 Jm r3 J")
    assert v.valid and v.joker_options()[1] == [(parse_tiles("r2")[0],)]


@pytest.mark.parametrize(
    "text, reason",
    [
        ("r2 r3 Jm r4 r3 r2", "not the same on both sides of the mirror: r4 has no partner"),
        ("r2 r4 Jm r4 r2", "one side of the mirror is not part of a group or run"),
        ("r2 Jm Jm r2 r3", "a set holds at most one mirror joker"),
        ("r2 Jm r2 Jd", "a mirror set holds only numbered tiles and plain jokers besides the mirror"),
    ],
)
def test_invalid_mirror_sets(text: str, reason: str) -> None:
    v = verdict(text)
    assert not v.valid and v.reason.startswith(reason)


# --- colour-change joker ------------------------------------------------------------------------


def test_colour_changes_across_the_colour_change_joker() -> None:
    v = verdict("r3 r4 Jc b6 b7")
    assert v.kind is SetKind.RUN
    assert v.joker_options() == [[tuple(parse_tiles("r5"))]]
    assert v.value == 3 + 4 + 5 + 6 + 7


def test_colour_change_joker_forces_a_change() -> None:
    assert (
        verdict("r3 r4 Jc r6 r7").reason == "a colour-change joker needs different colours on its two sides"
    )


def test_colour_change_joker_only_goes_in_runs() -> None:
    assert not verdict("r5 b5 Jc").valid


def test_a_run_cannot_change_colour_without_a_colour_change_joker() -> None:
    assert not verdict("r3 r4 b5 J").valid


def test_two_colour_change_jokers_may_return_to_the_first_colour() -> None:
    assert verdict("r3 Jc b5 Jc r7").valid


# --- property test: double jokers against a brute force ------------------------------------------


def _plain(tiles: list[Tile]) -> bool:
    numbers = sorted(t.number for t in tiles)
    group = 3 <= len(tiles) <= 4 and len(set(numbers)) == 1 and len({t.colour for t in tiles}) == len(tiles)
    run = (
        len(tiles) >= 3
        and len({t.colour for t in tiles}) == 1
        and numbers == list(range(numbers[0], numbers[0] + len(tiles)))
    )
    return group or run


def brute_force_double(tiles: list[Tile]) -> bool:
    """A double joker is two tiles side by side in a run, or two missing colours of a group."""
    if len(tiles) < 3:
        return False
    box = [t for t in TWIST.inventory() if not t.is_joker]
    pairs = [
        (a, b)
        for a, b in itertools.product(box, box)
        if (a.colour == b.colour and b.number == a.number + 1)
        or (a.number == b.number and a.colour != b.colour)
    ]
    numbered = [t for t in tiles if not t.is_joker]
    plain = [t for t in tiles if t.joker in (JokerKind.STANDARD,)]
    doubles = [t for t in tiles if t.joker is JokerKind.DOUBLE]
    for double_choice in itertools.product(pairs, repeat=len(doubles)):
        for plain_choice in itertools.product(box, repeat=len(plain)):
            full = numbered + [t for pair in double_choice for t in pair] + list(plain_choice)
            if _plain(full):
                return True
    return False


@st.composite
def double_sets(draw: st.DrawFn) -> list[Tile]:
    rnd = draw(st.randoms(use_true_random=False))
    colour = rnd.choice(TWIST.colours)
    if draw(st.booleans()):
        start = rnd.randint(1, 13)
        tiles = [Tile(number=n, colour=colour) for n in range(start, min(start + rnd.randint(2, 5), 14))]
    else:
        number = rnd.randint(1, 13)
        tiles = [Tile(number=number, colour=c) for c in rnd.sample(list(TWIST.colours), rnd.randint(1, 3))]
    if tiles:
        tiles.pop(rnd.randrange(len(tiles)))
    tiles.append(Tile(joker=JokerKind.DOUBLE))
    if draw(st.booleans()):
        tiles.append(Tile(joker=JokerKind.STANDARD))
    if draw(st.booleans()):
        tiles[0] = Tile(number=rnd.randint(1, 13), colour=rnd.choice(TWIST.colours))
    rnd.shuffle(tiles)
    return tiles


@settings(max_examples=120, deadline=None)
@given(double_sets())
def test_double_joker_sets_agree_with_brute_force(tiles: list[Tile]) -> None:
    v = classify(tiles, TWIST)
    assert v.valid == brute_force_double(tiles), v.describe()


# --- property test: one colour-change joker against a brute force --------------------------------


def brute_force_colour_change(tiles: list[Tile]) -> bool:
    """One colour-change joker: a run whose colour differs below and above the joker's number."""
    numbered = [t for t in tiles if not t.is_joker]
    plain = sum(1 for t in tiles if t.joker is JokerKind.STANDARD)
    numbers = [t.number for t in numbered]
    if len(tiles) < 3 or len(set(numbers)) != len(numbers):
        return False
    for start in range(1, 14 - len(tiles) + 1):
        span = range(start, start + len(tiles))
        if not set(numbers) <= set(span):
            continue
        for at in (n for n in span if n not in numbers):  # where the colour-change joker sits
            if len(span) - len(numbers) - 1 != plain:
                continue
            below = {t.colour for t in numbered if t.number < at}
            above = {t.colour for t in numbered if t.number > at}
            if len(below) <= 1 and len(above) <= 1 and not (below and above and below == above):
                return True
    return False


@st.composite
def colour_change_sets(draw: st.DrawFn) -> list[Tile]:
    """A run in up to two colours; one tile becomes the colour-change joker, maybe one a plain joker."""
    rnd = draw(st.randoms(use_true_random=False))
    start, length = rnd.randint(1, 11), rnd.randint(3, 6)
    first, second = rnd.choice(TWIST.colours), rnd.choice(TWIST.colours)
    cut = rnd.randint(0, length)
    tiles = [
        Tile(number=n, colour=first if i < cut else second)
        for i, n in enumerate(range(start, min(start + length, 14)))
    ]
    positions = rnd.sample(range(len(tiles)), 2)
    tiles[positions[0]] = Tile(joker=JokerKind.COLOUR_CHANGE)
    if draw(st.booleans()):
        tiles[positions[1]] = Tile(joker=JokerKind.STANDARD)
    if draw(st.booleans()):  # and sometimes a stray tile
        tiles.append(Tile(number=rnd.randint(1, 13), colour=rnd.choice(TWIST.colours)))
    rnd.shuffle(tiles)
    return tiles


@settings(max_examples=150, deadline=None)
@given(colour_change_sets())
def test_colour_change_sets_agree_with_brute_force(tiles: list[Tile]) -> None:
    v = classify(tiles, TWIST)
    assert v.valid == brute_force_colour_change(tiles), v.describe()
