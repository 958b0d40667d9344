"""The tile notation: what a user types, what the engine prints, and the JSON form (docs/notation.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.engine.editions import EDITIONS, get_edition
from rummi.engine.errors import NotationError, RummiError
from rummi.engine.notation import (
    format_sets,
    format_tiles,
    parse_sets,
    parse_tile,
    parse_tiles,
    sets_from_json,
    sets_to_json,
    tile_from_json,
    tile_to_json,
)
from rummi.engine.tiles import Colour, JokerKind, Tile


def test_tiles_read_case_and_space_insensitively_and_print_canonically() -> None:
    assert format_sets(parse_sets(" R5 r6  r7|k9,b9 O9 ")) == "r5 r6 r7 | k9 b9 o9"


def test_yellow_is_read_as_the_orange_slot() -> None:
    assert parse_tile("y5") == Tile(number=5, colour=Colour.ORANGE)


def test_jokers_of_every_edition_have_their_own_text() -> None:
    assert str(parse_tile("J")) == "J"
    assert [str(t) for t in parse_tiles("Jd Jm Jc Js", "twist")] == ["Jd", "Jm", "Jc", "Js"]
    assert [str(t) for t in parse_tiles("Jk Jb Jo Jr Jy", "expert")] == ["Jk", "Jb", "Jo", "Jr", "Jo"]


def test_a_plain_J_in_a_twist_game_is_twists_ordinary_joker() -> None:
    assert parse_tile("J", "twist") == Tile(joker=JokerKind.STANDARD)


def test_an_empty_table_is_no_sets() -> None:
    assert parse_sets("   ") == []


@pytest.mark.parametrize(
    "text, edition, message, position",
    [
        ("r5 r14", "standard", '"r14": no number 14 in this edition', 3),
        ("r11", "start_right", '"r11": no number 11 in this edition', 0),
        ("r0", "standard", '"r0": no number 0 in this edition', 0),
        ("x5", "standard", '"x5": unknown colour "x"', 0),
        ("r5 q", "standard", '"q": not a tile', 3),
        ("J7", "standard", '"J7": a joker has no number', 0),
        ("Jq", "standard", '"Jq": unknown joker', 0),
        ("Jd", "standard", '"Jd": no joker Jd in the Standard edition', 0),
        ("J", "expert", '"J": no joker J in the Expert edition', 0),
        ("r7 |", "standard", "empty set between '|' separators", 3),
        ("r1 || r2", "standard", "empty set between '|' separators", 4),
    ],
)
def test_malformed_text_says_what_and_where(text: str, edition: str, message: str, position: int) -> None:
    with pytest.raises(NotationError) as caught:
        parse_sets(text, edition)
    assert caught.value.reason.startswith(message)
    assert caught.value.position == position
    assert f"at character {position + 1}" in str(caught.value)


def test_a_rack_may_not_hold_set_separators() -> None:
    with pytest.raises(NotationError, match="separates sets"):
        parse_tiles("r5 | r6")


def test_a_huge_input_gives_a_short_error() -> None:
    # The message quotes the place of the error, not all of the (here 90 kB) text.
    text = "r5 " * 30_000 + "x9"
    with pytest.raises(NotationError) as caught:
        parse_sets(text)
    assert caught.value.position == 90_000
    assert "at character 90001" in str(caught.value) and len(str(caught.value)) < 300
    with pytest.raises(NotationError) as caught:  # Python refuses int() of over 4,300 digits
        parse_tiles("r" + "5" * 10_000)
    assert "no number 5555" in str(caught.value) and len(str(caught.value)) < 300


def test_non_text_is_an_error_not_a_crash() -> None:
    with pytest.raises(NotationError):
        parse_tiles(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(EDITIONS))
def test_every_tile_of_every_edition_prints_and_reads_back(name: str) -> None:
    edition = get_edition(name)
    tiles = list(edition.inventory())
    assert parse_tiles(format_tiles(tiles), edition) == tiles


# --- property tests: parse and print round-trip -------------------------------------------------


def edition_tiles(name: str) -> st.SearchStrategy[Tile]:
    return st.sampled_from(sorted(get_edition(name).inventory(), key=Tile.sort_key))


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, list[list[Tile]]]:
    name = draw(st.sampled_from(sorted(EDITIONS)))
    sets = draw(st.lists(st.lists(edition_tiles(name), min_size=1, max_size=6), max_size=5))
    return name, sets


@settings(max_examples=200, deadline=None)
@given(tables())
def test_printing_then_reading_gives_the_same_table(table: tuple[str, list[list[Tile]]]) -> None:
    name, sets = table
    assert parse_sets(format_sets(sets), name) == sets


@settings(max_examples=200, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_reading_ignores_case_and_spacing(table: tuple[str, list[list[Tile]]], rnd) -> None:
    name, sets = table
    messy = " | ".join(
        rnd.choice([" ", "  ", ",", " , "]).join(
            "".join(ch.upper() if rnd.random() < 0.5 else ch for ch in str(t)) for t in s
        )
        for s in sets
    )
    assert parse_sets(messy, name) == sets


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("rkboyjJdmcs0123456789 |,-x\t\u0667"), max_size=30))
def test_any_text_reads_or_fails_with_a_notation_error(text: str) -> None:
    try:
        sets = parse_sets(text)
    except RummiError:
        return
    assert parse_sets(format_sets(sets)) == sets


# --- JSON form ----------------------------------------------------------------------------------


def test_json_form_of_tiles() -> None:
    assert tile_to_json(parse_tile("r7")) == "r7"
    assert tile_to_json(parse_tile("J")) == "J"
    assert tile_to_json(parse_tile("Jr", "expert")) == "Jr"


def test_json_input_accepts_text_or_parts() -> None:
    assert tile_from_json("k13") == tile_from_json({"colour": "black", "number": 13})
    assert tile_from_json({"colour": "yellow", "number": 2}) == parse_tile("o2")
    assert tile_from_json({"joker": "double"}, "twist") == parse_tile("Jd", "twist")


@pytest.mark.parametrize(
    "value",
    [{"colour": "red", "number": 14}, {"colour": "pink", "number": 3}, {"joker": "huge"}, 7, {"number": 5}],
)
def test_bad_json_tiles_are_notation_errors(value: object) -> None:
    with pytest.raises(NotationError):
        tile_from_json(value)


@settings(max_examples=100, deadline=None)
@given(tables())
def test_json_round_trip(table: tuple[str, list[list[Tile]]]) -> None:
    name, sets = table
    assert sets_from_json(sets_to_json(sets), name) == sets
