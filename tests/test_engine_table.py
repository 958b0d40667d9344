"""A whole table: a verdict per set, an overall verdict, and the tile count across table and racks."""

from __future__ import annotations

import json

from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.table import validate_table


def test_a_valid_table() -> None:
    verdict = validate_table(parse_sets("r5 r6 r7 | k9 b9 o9"))
    assert verdict.valid
    assert verdict.value == 18 + 27
    assert verdict.summary() == "valid table: 2 sets (Standard)"


def test_each_set_gets_its_own_verdict() -> None:
    verdict = validate_table(parse_sets("r5 r6 r7 | k9 b9 b9 | k12 k13 k1"))
    assert not verdict.valid
    assert verdict.invalid_sets == [1, 2]
    assert verdict.describe().splitlines() == [
        "1. r5 r6 r7: run worth 18",
        "2. k9 b9 b9: invalid, colour repeated: b9 b9 k9",
        "3. k12 k13 k1: invalid, 13 does not wrap to 1",
        "invalid table: sets 2, 3 invalid",
    ]


def test_tiles_are_counted_across_table_and_racks() -> None:
    verdict = validate_table(parse_sets("r7 r8 r9 | k7 b7 r7"), racks={"A": parse_tiles("r7 b1")})
    assert verdict.sets_valid and not verdict.valid
    assert verdict.inventory == ("3 x r7, but the Standard edition has only 2",)
    assert verdict.summary().startswith("invalid table: impossible in this edition")


def test_the_same_table_is_possible_with_the_xp_box() -> None:
    verdict = validate_table(parse_sets("r7 r8 r9 | k7 b7 r7"), "xp", racks={"A": parse_tiles("r7")})
    assert verdict.valid


def test_an_empty_table_is_valid() -> None:
    assert validate_table([]).valid


def test_json_form_of_a_verdict() -> None:
    data = validate_table(parse_sets("r5 b5 J")).to_dict()
    json.dumps(data)  # plain JSON values only
    assert data["valid"] is True
    (one,) = data["sets"]
    assert one["kind"] == "group" and one["ambiguous"] is True
    assert one["jokers"] == [[["k5"], ["o5"]]]
    assert one["value"] == 15
