"""Properties of the referee on random tables (Hypothesis): what must hold for every table."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.engine.editions import STANDARD
from rummi.engine.referee import Code, Status, judge_turn
from rummi.engine.tiles import JOKER, Colour, Tile

COLOURS = list(Colour)


@st.composite
def tables(draw: st.DrawFn, max_sets: int = 5) -> tuple[list[list[Tile]], Counter[Tile]]:
    """A valid table from one standard box, and what is left in the box."""
    box = STANDARD.inventory()
    sets: list[list[Tile]] = []
    for _ in range(draw(st.integers(0, max_sets))):
        if draw(st.booleans()):
            colour = draw(st.sampled_from(COLOURS))
            length = draw(st.integers(3, 5))
            start = draw(st.integers(1, 14 - length))
            tiles = [Tile(number=n, colour=colour) for n in range(start, start + length)]
            if draw(st.booleans()):
                tiles[draw(st.integers(0, length - 1))] = JOKER
        else:
            number = draw(st.integers(1, 13))
            colours = draw(st.lists(st.sampled_from(COLOURS), min_size=3, max_size=4, unique=True))
            tiles = [Tile(number=number, colour=c) for c in colours]
        if all(box[t] >= n for t, n in Counter(tiles).items()):
            box.subtract(Counter(tiles))
            sets.append(tiles)
    return sets, box


@settings(max_examples=60, deadline=None)
@given(tables(), st.data())
def test_laying_new_valid_sets_after_opening_is_always_legal(table, data) -> None:
    before, box = table
    new_sets, _ = data.draw(
        tables(max_sets=2).filter(lambda t: t[0] and not Counter(x for s in t[0] for x in s) - box)
    )
    after = [list(s) for s in before] + new_sets
    verdict = judge_turn(before, after, opened=True)
    assert verdict.status is Status.LEGAL, verdict.codes()
    assert Counter(verdict.played) == Counter(t for s in new_sets for t in s)


@settings(max_examples=60, deadline=None)
@given(tables().filter(lambda t: t[0]), st.data())
def test_a_tile_taken_off_the_table_is_always_caught(table, data) -> None:
    before, _ = table
    s = data.draw(st.integers(0, len(before) - 1))
    i = data.draw(st.integers(0, len(before[s]) - 1))
    after = [list(x) for x in before]
    taken = after[s].pop(i)
    if not after[s]:
        after.pop(s)
    verdict = judge_turn(before, after, opened=True)
    assert verdict.status is Status.ILLEGAL
    expected = Code.JOKER_NOT_REUSED if taken.is_joker else Code.TILE_REMOVED
    assert expected in {v.code for v in verdict.violations}


@settings(max_examples=60, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_the_order_of_sets_and_tiles_does_not_matter(table, rng) -> None:
    before, _ = table
    after = [rng.sample(s, len(s)) for s in before]
    rng.shuffle(after)
    verdict = judge_turn(before, after, opened=True)
    assert verdict.codes() == ["no_tile_played"]
    assert judge_turn(before, after, opened=True, drew=True).legal
