"""Classifying sets (rules.md section 2): groups, runs, jokers, values, and why a set is invalid.

The property tests compare the classifier with a brute-force checker written from the rule text
alone: try every tile each joker could be, and accept the set when one choice gives a plain
group (3 or more tiles, one number, different colours) or a plain run (3 or more, one colour,
consecutive numbers).
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.engine.editions import EDITIONS, Edition, get_edition
from rummi.engine.melds import SetKind, classify, is_valid_set, set_value
from rummi.engine.notation import parse_tile, parse_tiles
from rummi.engine.tiles import Colour, JokerKind, Tile


def verdict(text: str, edition: str = "standard"):
    return classify(parse_tiles(text, edition), edition)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("k9 b9 o9", SetKind.GROUP),
        ("k9 b9 o9 r9", SetKind.GROUP),
        ("r5 r6 r7", SetKind.RUN),
        ("r7 r5 r6", SetKind.RUN),  # a set is its tiles, whatever order they were typed in
        ("b1 b2 b3", SetKind.RUN),  # 1 is always low (rules.md 2.2)
        ("k1 k2 k3 k4 k5 k6 k7 k8 k9 k10 k11 k12 k13", SetKind.RUN),  # at most 13 (JUMBO-DE)
    ],
)
def test_valid_sets(text: str, kind: SetKind) -> None:
    assert verdict(text).kind is kind


@pytest.mark.parametrize(
    "text, reason",
    [
        ("r8 r8 k8", "colour repeated: r8 r8 k8"),
        ("k12 k13 k1", "13 does not wrap to 1"),  # rules.md 2.2: 12-13-1 is not a run
        ("k13 k1 k2", "13 does not wrap to 1"),
        ("r5 r6", "only 2 tiles"),
        ("r5", "only 1 tile"),
        ("r5 b6 k7", "neither one number in different colours nor one colour in sequence"),
        ("r5 r7 r9", "gap in the run between r5 and r9 that jokers cannot fill"),
        ("r5 r5 r6", "number repeated in a run: r5 twice"),
        ("k9 b9 o9 r9 J", "a group has at most 4 tiles (one per colour)"),
        ("J J J", "a set of jokers only stands for nothing"),
    ],
)
def test_invalid_sets_say_why(text: str, reason: str) -> None:
    v = verdict(text)
    assert not v.valid
    assert v.reason == reason
    assert v.describe().endswith(f"invalid, {reason}")


def test_a_joker_in_a_3_tile_group_keeps_both_missing_colours() -> None:
    v = verdict("r5 b5 J")
    assert v.ambiguous
    assert v.joker_meanings() == [[parse_tile("k5"), parse_tile("o5")]]


def test_a_joker_at_the_end_of_a_run_may_be_either_end() -> None:
    v = verdict("r7 r8 J")
    assert v.ambiguous
    assert sorted(str(t) for t in v.joker_meanings()[0]) == ["r6", "r9"]
    assert v.value == 7 + 8 + 9  # the player chooses where it stands: the best reading counts


def test_a_joker_at_the_top_cannot_pass_the_highest_number() -> None:
    v = verdict("r12 r13 J")
    assert not v.ambiguous
    assert v.joker_meanings() == [[parse_tile("r11")]]


def test_a_joker_inside_a_run_is_fixed() -> None:
    v = verdict("r5 J r7")
    assert not v.ambiguous and v.joker_meanings() == [[parse_tile("r6")]]


def test_joker_counts_as_the_tile_it_stands_for_in_the_opening() -> None:
    # PL-GUIDE's example (rules.md 2.4): red 5 + J + red 7, the joker is red 6 worth 6.
    assert set_value(parse_tiles("r5 J r7")) == 18


def test_two_jokers_may_share_a_set() -> None:
    # MSO-2025 and the online-app FAQ allow it (rules.md 2.3).
    v = verdict("r5 J J")
    assert v.valid and v.value == 5 + 6 + 7  # best of the group of 5s and the runs 3-5, 4-6, 5-7
    assert verdict("J r13 J").valid


def test_a_set_cannot_hold_more_jokers_than_the_box() -> None:
    # Each joker may stand for each missing tile, so n jokers give up to n! readings: a typed
    # "r1" and twelve jokers took minutes to classify before this limit.
    assert verdict("r1 " + "J " * 12).reason == "12 jokers in one set, but the Standard edition has only 2"
    assert verdict("r5 J J J", "xp").valid  # XP has four
    assert verdict("r1 Js Js Js Jc", "twist").reason == "3 x Js in one set, but the Twist edition has only 2"


def test_one_tile_and_jokers_may_be_a_group_or_a_run() -> None:
    v = verdict("J J r13")
    assert {r.kind for r in v.readings} == {SetKind.GROUP, SetKind.RUN}
    assert v.value == 39  # three 13s beat 11-12-13


def test_opening_values_from_the_polish_guide() -> None:
    # rules.md 3: blue 10-11-12 = 33 opens; 4s (12) + 5s (15) = 27 does not.
    assert set_value(parse_tiles("b10 b11 b12")) == 33
    assert set_value(parse_tiles("k4 b4 r4")) + set_value(parse_tiles("k5 b5 r5")) == 27


def test_xp_groups_still_stop_at_four_colours() -> None:
    # rules.md 1.2: three copies of each tile, but a group needs different colours.
    assert not verdict("k9 b9 o9 r9 r9", "xp").valid
    assert verdict("k9 b9 o9 r9", "xp").valid


def test_start_right_runs_end_at_ten() -> None:
    assert verdict("r8 r9 r10", "start_right").valid
    assert verdict("r9 r10 J", "start_right").joker_meanings() == [[parse_tile("r8", "start_right")]]


def test_expert_jokers_only_join_sets_of_their_colour() -> None:
    # rules.md 1.4: runs of the joker's colour; in a group it stands for its own colour.
    assert verdict("Jr r5 r6", "expert").valid
    assert verdict("Jb r5 r6", "expert").reason == "a coloured joker can only join a run of its own colour"
    group = verdict("k5 b5 Jr", "expert")
    assert group.valid and group.joker_meanings() == [[parse_tile("r5")]]
    assert not verdict("k5 r5 Jr", "expert").valid


def test_the_engine_is_generic_in_numbers_and_colours() -> None:
    # Nothing assumes 13 numbers or 4 colours: a made-up box of 1-9 in three colours.
    small = Edition(
        name="small",
        title="Small",
        max_number=9,
        colours=(Colour.RED, Colour.BLUE, Colour.BLACK),
        copies=1,
        jokers={Tile(joker=JokerKind.PLAIN): 1},
    )
    assert classify(parse_tiles("r7 r8 r9"), small).valid
    assert (
        classify(
            [
                Tile(number=9, colour=Colour.RED),
                Tile(number=1, colour=Colour.RED),
                Tile(number=2, colour=Colour.RED),
            ],
            small,
        ).reason
        == "9 does not wrap to 1"
    )
    assert not classify(parse_tiles("r5 b5 k5 J"), small).valid  # only three colours
    assert classify(parse_tiles("r8 r9 J"), small).joker_meanings() == [[parse_tile("r7")]]


def test_describe_names_every_joker_meaning() -> None:
    assert verdict("r5 r6 J").describe() == "r5 r6 J: run worth 18 (J = r4 or r7)"


# --- property tests against an independent brute-force checker ---------------------------------


def _plain_group(tiles: list[Tile], edition: Edition) -> bool:
    return (
        3 <= len(tiles) <= len(edition.colours)
        and len({t.number for t in tiles}) == 1
        and len({t.colour for t in tiles}) == len(tiles)
    )


def _plain_run(tiles: list[Tile], edition: Edition) -> bool:
    numbers = sorted(t.number for t in tiles)
    return (
        len(tiles) >= 3
        and len({t.colour for t in tiles}) == 1
        and numbers == list(range(numbers[0], numbers[0] + len(tiles)))
    )


def brute_force(tiles: list[Tile], edition: Edition) -> tuple[bool, int]:
    """(valid, best value) by trying every numbered tile of the box for every joker."""
    numbered = [t for t in tiles if not t.is_joker]
    jokers = [t for t in tiles if t.is_joker]
    box = [t for t in edition.inventory() if not t.is_joker]
    best = None
    for choice in itertools.product(box, repeat=len(jokers)):
        if any(j.joker is JokerKind.COLOURED and j.colour != c.colour for j, c in zip(jokers, choice)):
            continue
        full = numbered + list(choice)
        if _plain_group(full, edition) or _plain_run(full, edition):
            value = sum(t.number for t in full)
            best = value if best is None else max(best, value)
    return best is not None, best or 0


@st.composite
def candidate_sets(draw: st.DrawFn, edition_name: str) -> list[Tile]:
    """Mostly near-valid sets (a real group or run, then jokers and one change), some random."""
    edition = get_edition(edition_name)
    rnd = draw(st.randoms(use_true_random=False))
    numbered = sorted((t for t in edition.inventory() if not t.is_joker), key=Tile.sort_key)
    jokers = sorted((t for t in edition.inventory() if t.is_joker), key=Tile.sort_key)
    size = draw(st.integers(2, 6))
    shape = draw(st.sampled_from(["group", "run", "random"]))
    if shape == "group":
        number = rnd.choice(list(edition.numbers))
        colours = rnd.sample(list(edition.colours), min(size, len(edition.colours)))
        tiles = [Tile(number=number, colour=c) for c in colours]
    elif shape == "run":
        start = rnd.choice(list(edition.numbers))
        colour = rnd.choice(edition.colours)
        tiles = [
            Tile(number=n, colour=colour) for n in range(start, min(start + size, edition.max_number + 1))
        ]
    else:
        tiles = [rnd.choice(numbered) for _ in range(size)]
    for _ in range(draw(st.integers(0, 2))):  # some tiles become jokers, often of a fitting colour
        if tiles:
            at = rnd.randrange(len(tiles))
            fitting = [j for j in jokers if j.colour in (None, tiles[at].colour)]
            tiles[at] = rnd.choice(fitting if fitting and rnd.random() < 0.5 else jokers)
    if draw(st.integers(0, 3)) == 0 and tiles:  # and one tile may change to anything
        tiles[rnd.randrange(len(tiles))] = rnd.choice(numbered)
    if sum(t.is_joker for t in tiles) > 2:  # keep the brute force small
        tiles = [t for t in tiles if not t.is_joker] + [t for t in tiles if t.is_joker][:2]
    rnd.shuffle(tiles)
    return tiles


@pytest.mark.parametrize("edition_name", ["standard", "start_right", "expert", "xp"])
def test_classifier_agrees_with_brute_force(edition_name: str) -> None:
    edition = get_edition(edition_name)

    @settings(max_examples=250, deadline=None)
    @given(candidate_sets(edition_name))
    def check(tiles: list[Tile]) -> None:
        v = classify(tiles, edition)
        valid, best = brute_force(tiles, edition)
        assert v.valid == valid, (v.describe(), valid)
        assert v.value == best
        for reading in v.readings:  # every reading is itself a plain valid set of the given tiles
            stands = list(reading.stands_for)
            assert _plain_group(stands, edition) or _plain_run(stands, edition)
            real = sorted((t for t in tiles if not t.is_joker), key=Tile.sort_key)
            assert sorted(stands, key=Tile.sort_key) == sorted(real + list(reading.jokers), key=Tile.sort_key)

    check()


def test_every_accepted_set_is_valid_on_a_sample_of_all_small_sets() -> None:
    # A deterministic sweep besides hypothesis: 3-tile sets with up to one joker.
    edition = get_edition("standard")
    rnd = random.Random(7)
    box = [t for t in edition.inventory() if not t.is_joker] + [Tile(joker=JokerKind.PLAIN)]
    for _ in range(2000):
        tiles = [rnd.choice(box) for _ in range(3)]
        if sum(t.is_joker for t in tiles) > 1:
            continue
        assert is_valid_set(tiles) == brute_force(tiles, edition)[0], tiles


def test_all_editions_are_covered() -> None:
    assert {"standard", "xp", "start_right", "twist", "expert", "cards", "standard4j"} <= set(EDITIONS)


def test_the_engines_module_caches_are_bounded_for_a_long_lived_process() -> None:
    """Each cached verdict or array is a few objects every full garbage collection walks: an
    unbounded (or 200,000-entry) cache grew a service's heap hint after hint, and with it those
    pauses, past a hint's own time. Every module-level cache of the engine stays small."""
    import importlib
    import pkgutil

    import rummi.engine as engine
    from rummi.engine.melds import CLASSIFY_CACHE_SIZE

    caches = {}
    for info in pkgutil.walk_packages(engine.__path__, engine.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if hasattr(value, "cache_info") and getattr(value, "__module__", None) == info.name:
                caches[f"{info.name}.{name}"] = value.cache_info().maxsize
    assert "rummi.engine.melds._classify_cached" in caches
    assert all(size is not None and size <= CLASSIFY_CACHE_SIZE for size in caches.values()), caches
