"""A game's record as data (engine.game) and the never-opened question (engine.never_opened)."""

from __future__ import annotations

import pytest
from rummi.engine.errors import RummiError
from rummi.engine.game import Game
from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.referee.never_opened import could_have_opened
from rummi.engine.scoring import NotOpened


def test_a_game_tracks_turns_openings_and_the_next_player() -> None:
    game = Game(players=("Ann", "Bob", "Cem"), rules="pressman_us_2009")
    t1 = game.play("Ann", [], parse_sets("r10 r11 r12"))
    assert t1.number == 1 and t1.legal and t1.opens
    t2 = game.play("Bob", t1.after, parse_sets("r10 r11 r12 r13"))  # Bob has not opened
    assert not t2.legal and t2.verdict["violations"][0]["code"] == "opening_too_low"
    t3 = game.play("Cem", t1.after, t1.after, drew=1)
    assert t3.legal and game.next_player == "Ann"
    assert game.never_opened() == ["Bob", "Cem"]
    t4 = game.play("Ann", t3.after, parse_sets("r9 r10 r11 r12"))  # Ann has opened: may extend
    assert t4.legal and not t4.opens
    assert game.table == tuple(tuple(s) for s in parse_sets("r9 r10 r11 r12"))


def test_after_an_illegal_turn_the_table_is_the_one_put_back() -> None:
    game = Game(players=("Ann", "Bob"))
    t1 = game.play("Ann", [], parse_sets("r10 r11 r12"))
    game.play("Bob", t1.after, parse_sets("r10 r11 | r12 k1 k2"))
    assert game.table == t1.after


def test_a_turn_by_a_stranger_or_after_the_end_is_refused() -> None:
    game = Game(players=("Ann", "Bob"))
    with pytest.raises(RummiError, match="not playing"):
        game.play("Zed", [], parse_sets("r10 r11 r12"))
    game.finish({"Ann": [], "Bob": parse_tiles("r1")}, winner="Ann")
    with pytest.raises(RummiError, match="over"):
        game.play("Ann", [], parse_sets("r10 r11 r12"))
    with pytest.raises(RummiError, match="two or more players"):
        Game(players=("Ann", "Ann"))


def test_finishing_under_a_tournament_preset_asks_the_solver_who_could_have_opened() -> None:
    game = Game(players=("Ann", "Bob", "Cem"), rules="pl_wikipedia_tournament")
    t1 = game.play("Ann", [], parse_sets("r10 r11 r12"))
    game.play("Bob", t1.after, t1.after, drew=1)
    game.play("Cem", t1.after, t1.after, drew=1)
    ending = game.finish(
        {"Ann": [], "Bob": parse_tiles("k10 b10 o10 r2"), "Cem": parse_tiles("k1 b5 o9")}, winner="Ann"
    )
    # Bob held 30 in tens and did not open: 200. Cem could not have opened: 100.
    assert dict(ending.scores) == {"Ann": 300, "Bob": -200, "Cem": -100}


def test_the_game_record_round_trips_through_plain_data() -> None:
    game = Game(players=("Ann", "Bob"), rules="goliath_modern")
    t1 = game.play(
        "Ann", [], parse_sets("r10 r11 r12 | J k1 k2"), rack=parse_tiles("r10 r11 r12 J k1 k2"), seconds=31.5
    )
    game.play("Bob", t1.after, t1.after, drew=1)
    game.finish({"Ann": [], "Bob": parse_tiles("o7")}, winner="Ann")
    again = Game.from_dict(game.to_dict())
    assert again.to_dict() == game.to_dict()
    assert again.preset == game.preset and again.turns[0].rack == t1.rack


@pytest.mark.parametrize(
    "rack, preset, could, penalty",
    [
        ("k10 b10 r10 o2", "pl_wikipedia_tournament", True, 200),
        ("r9 J r11 k1", "pl_wikipedia_tournament", True, 200),  # the joker counts as r10: 30
        ("k4 b4 o4 k5 b5 o5", "mso_2019", False, 100),  # 12 + 15 = 27 (PL-GUIDE example)
        ("b10 b11 b12", "sabra_way_50", False, None),  # 33 < 50; no never-opened rule
        ("b10 b11 b12", "pressman_us_2009", True, None),
    ],
)
def test_could_have_opened(rack: str, preset: str, could: bool, penalty: int | None) -> None:
    check = could_have_opened(parse_tiles(rack), rules=preset)
    assert check.could_open is could
    assert check.penalty == penalty
    assert check.not_opened is (NotOpened.COULD_HAVE if could else NotOpened.COULD_NOT)
    if could:
        shown = [t for s in check.hint.table for t in s]
        assert sorted(map(str, shown)) == sorted(str(t) for t in check.hint.play)
        assert check.hint.opening_value >= check.threshold
