"""Editions (rules.md section 1): how many of each tile a box holds, and impossible states."""

from __future__ import annotations

import pytest
from rummi.engine.editions import EDITIONS, get_edition, inventory_problems
from rummi.engine.errors import ImpossibleStateError, RummiError
from rummi.engine.notation import parse_tile, parse_tiles
from rummi.engine.tiles import JokerKind, Tile


@pytest.mark.parametrize(
    "name, tiles, jokers",
    [
        ("standard", 106, 2),  # 104 numbered + 2 jokers (rules.md 1.1)
        ("standard4j", 108, 4),  # CZ-SHOP's Piatnik box: 4 jokers
        ("xp", 160, 4),  # 156 numbered (x3) + 4 jokers (1.2)
        ("start_right", 42, 2),  # 40 tiles 1-10 + 2 jokers (1.5)
        ("twist", 112, 8),  # 104 numbered + 8 special jokers (1.3)
        ("expert", 112, 8),  # 104 numbered + 8 coloured jokers (1.4)
        ("cards", 106, 2),  # two 52-card decks + 2 jokers (1.7)
    ],
)
def test_each_edition_holds_its_tiles(name: str, tiles: int, jokers: int) -> None:
    edition = get_edition(name)
    assert edition.tile_count == tiles
    assert edition.joker_count == jokers
    assert sum(edition.inventory().values()) == tiles


def test_twist_has_two_of_each_special_joker() -> None:
    twist = get_edition("twist")
    for kind in (JokerKind.STANDARD, JokerKind.DOUBLE, JokerKind.MIRROR, JokerKind.COLOUR_CHANGE):
        assert twist.copies_of(Tile(joker=kind)) == 2


def test_three_r7_in_a_standard_game_are_impossible() -> None:
    assert inventory_problems(get_edition("standard"), parse_tiles("r7 r7 r7")) == [
        "3 x r7, but the Standard edition has only 2"
    ]
    assert inventory_problems(get_edition("xp"), parse_tiles("r7 r7 r7")) == []


def test_a_third_joker_is_impossible_in_the_standard_box() -> None:
    problems = inventory_problems(get_edition("standard"), parse_tiles("J J J"))
    assert problems == ["3 x J, but the Standard edition has only 2"]


def test_a_tile_the_box_lacks_is_reported() -> None:
    assert inventory_problems(get_edition("start_right"), [parse_tile("r13")]) == [
        "no number 13 in this edition (Start Right: 1-10)"
    ]


def test_check_inventory_raises_a_user_error() -> None:
    with pytest.raises(ImpossibleStateError, match="only 1"):
        get_edition("start_right").check_inventory(parse_tiles("r5 r5", "start_right"))


def test_unknown_edition_lists_the_known_ones() -> None:
    with pytest.raises(RummiError, match="known editions: " + ", ".join(EDITIONS)):
        get_edition("deluxe")


def test_edition_names_are_forgiving() -> None:
    assert get_edition("Start-Right") is EDITIONS["start_right"]
