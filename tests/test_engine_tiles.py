"""Tiles as values: equal tiles hash and compare the same however they were made, copied or sent."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from itertools import product

import pytest
from rummi.engine.editions import EDITIONS
from rummi.engine.tiles import Colour, JokerKind, Tile


def _every_tile() -> list[Tile]:
    """Each distinct tile of every edition, and numbered tiles no box holds (0, negative, large)."""
    tiles = {tile for edition in EDITIONS.values() for tile in edition.inventory()}
    tiles |= {Tile(number=n, colour=c) for n in (-65, -1, 0, 14, 64, 65, 10**6) for c in Colour}
    return sorted(tiles, key=Tile.sort_key)


def _made_again(tile: Tile) -> Tile:
    return Tile(number=tile.number, colour=tile.colour, joker=tile.joker)


def test_tiles_are_equal_exactly_when_their_three_values_are() -> None:
    tiles = _every_tile()
    twins = [_made_again(t) for t in tiles]
    for (a, b) in product(range(len(tiles)), repeat=2):
        same_values = dataclasses.astuple(tiles[a]) == dataclasses.astuple(twins[b])
        assert (tiles[a] == twins[b]) is same_values
        assert (tiles[a] != twins[b]) is not same_values
    assert all(hash(t) == hash(u) for t, u in zip(tiles, twins))
    assert len({hash(t) for t in tiles}) == len(tiles)  # no two distinct tiles share a hash


def test_a_tile_is_never_equal_to_something_else() -> None:
    seven = Tile.numbered(Colour.RED, 7)
    assert seven != "r7"
    assert seven != (7, Colour.RED, None)
    assert seven != 7


def test_counting_tiles_counts_values_not_objects() -> None:
    from collections import Counter

    counts = Counter([Tile.numbered(Colour.BLUE, 4), Tile(number=4, colour=Colour.BLUE), Tile.make_joker()])
    assert counts[Tile.numbered(Colour.BLUE, 4)] == 2
    assert counts[Tile(joker=JokerKind.PLAIN)] == 1
    assert counts[Tile(joker=JokerKind.STANDARD)] == 0


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_pickled_tile_comes_back_equal_with_the_same_hash(protocol: int) -> None:
    for tile in _every_tile():
        back = pickle.loads(pickle.dumps(tile, protocol=protocol))
        assert back == tile
        assert hash(back) == hash(tile)
        assert repr(back) == repr(tile)


def test_the_pickled_state_is_the_three_values_so_older_pickles_still_load() -> None:
    coloured = Tile.make_joker(JokerKind.COLOURED, Colour.ORANGE)
    assert coloured.__reduce_ex__(2)[2] == [None, Colour.ORANGE, JokerKind.COLOURED]
    loaded = Tile.__new__(Tile)
    loaded.__setstate__([None, Colour.ORANGE, JokerKind.COLOURED])
    assert loaded == coloured
    assert hash(loaded) == hash(coloured)


def test_a_tile_made_in_another_process_hashes_and_compares_the_same() -> None:
    child = (
        "import pickle, sys\n"
        "from rummi.engine.editions import EDITIONS\n"
        "tiles = sorted(EDITIONS['expert'].inventory(), key=lambda t: t.sort_key())"
        " + sorted(EDITIONS['twist'].inventory(), key=lambda t: t.sort_key())\n"
        "sys.stdout.buffer.write(pickle.dumps([(t, hash(t)) for t in tiles]))\n"
    )
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, check=True).stdout
    for tile, their_hash in pickle.loads(out):
        assert hash(tile) == their_hash == hash(_made_again(tile))
        assert tile == _made_again(tile)


def test_copies_and_replacements_are_tiles_like_any_other() -> None:
    seven = Tile.numbered(Colour.BLACK, 7)
    for twin in (copy.copy(seven), copy.deepcopy(seven), dataclasses.replace(seven)):
        assert twin == seven
        assert hash(twin) == hash(seven)
    eight = dataclasses.replace(seven, number=8)
    assert eight == Tile.numbered(Colour.BLACK, 8) != seven
    assert hash(eight) == hash(Tile.numbered(Colour.BLACK, 8))


def test_the_dataclass_surface_is_the_three_values() -> None:
    joker = Tile.make_joker(JokerKind.COLOURED, Colour.BLUE)
    assert [f.name for f in dataclasses.fields(Tile)] == ["number", "colour", "joker"]
    assert dataclasses.asdict(joker) == {"number": None, "colour": Colour.BLUE, "joker": JokerKind.COLOURED}
    assert repr(joker) == "parse_tile('Jb')"
    with pytest.raises(dataclasses.FrozenInstanceError):
        joker.number = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        _ = joker < Tile.make_joker()  # type: ignore[operator]  # tiles have no order; sort_key has


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"number": "7", "colour": Colour.RED}, "whole number"),
        ({"number": 7.0, "colour": Colour.RED}, "whole number"),
        ({"number": 7, "colour": "r"}, "a Colour"),
        ({"joker": "J"}, "a JokerKind"),
        ({"number": 7}, "needs a number and a colour"),
    ],
)
def test_a_tile_of_wrong_values_is_a_clear_error(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tile(**values)  # type: ignore[arg-type]
