"""Scoring (rules.md section 5): one game, the three bank-empty formulas, and a match score sheet.

The test vectors are the ones rules.md section 7 asks for: the Pressman round table, the PL-WIKI
bank-empty example under all three formulas, and the Polish guide's table with its sum fixed.
"""

from __future__ import annotations

import pytest
from rummi.engine.errors import ImpossibleStateError, RummiError
from rummi.engine.notation import parse_tiles
from rummi.engine.rules import get_rules
from rummi.engine.scoring import GameEnd, NotOpened, ScoreSheet, rack_points, score_game


def racks(**text: str) -> dict[str, list]:
    return {player: parse_tiles(tiles) for player, tiles in text.items()}


# --- someone went out (5.1, 5.2) ----------------------------------------------------------------


def test_polish_guide_example_with_its_arithmetic_fixed() -> None:
    # rules.md 5.4: B (red 4, blue 8), C (black 10, black 11, yellow 2), D (red 1 + joker).
    # The guide wrote D = "1 + 30 = 28" and the winner +63; 1 + 30 is 31, so the winner gets 66.
    result = score_game(racks(A="", B="r4 b8", C="k10 k11 y2", D="r1 J"), "pressman_us_2009", winner="A")
    assert result.scores == {"A": 66, "B": -12, "C": -23, "D": -31}
    assert result.zero_sum and result.end is GameEnd.WENT_OUT


@pytest.mark.parametrize(
    "preset, joker",
    [("pressman_us_2009", 30), ("pl_wikipedia_tournament", 50), ("mso_2019", 50), ("be_cafe_tournament", 25)],
)
def test_a_joker_left_on_a_rack_costs_the_presets_penalty(preset: str, joker: int) -> None:
    # rules.md 5.2: red 1 + joker is -31 under the 30 rule and -51 under the 50 rule.
    result = score_game(racks(A="", D="r1 J"), preset, winner="A")
    assert result.scores == {"A": 1 + joker, "D": -(1 + joker)}


def test_rack_points_use_the_preset_joker_value() -> None:
    assert rack_points(parse_tiles("k13 J"), "pl_wikipedia_tournament") == 63


def test_the_winner_must_have_gone_out() -> None:
    with pytest.raises(RummiError, match="A went out but still holds r5"):
        score_game(racks(A="r5", B="r4"), winner="A")
    with pytest.raises(RummiError, match="name the player who went out"):
        score_game(racks(A="", B="r4"))
    with pytest.raises(RummiError, match="no rack given for Z"):
        score_game(racks(A="", B="r4"), winner="Z")
    with pytest.raises(RummiError, match="no rack given for ''"):  # `rummi score --winner ""`
        score_game(racks(A="r1", B="r4"), winner="", bank_empty=True)


def test_racks_that_cannot_come_from_one_box_are_refused() -> None:
    # Three jokers in a standard box is a typo; scoring it would charge 90 points.
    with pytest.raises(ImpossibleStateError, match="3 x J, but the Standard edition has only 2"):
        score_game(racks(A="", B="J J", C="J"), winner="A")
    assert score_game(racks(A="", B="J J J"), "czech_piatnik", winner="A").scores["B"] == -90  # 4 jokers


# --- never opened (5.3) -------------------------------------------------------------------------


def test_never_opened_costs_100_or_200_under_tournament_presets() -> None:
    result = score_game(
        racks(A="", B="r4 b8", C="k10 k11", D="r1 r2"),
        "mso_2019",
        winner="A",
        not_opened={"C": NotOpened.COULD_NOT, "D": "could_have"},
    )
    assert result.scores == {"A": 12 + 100 + 200, "B": -12, "C": -100, "D": -200}


def test_pl_wiki_waives_the_200_after_an_announced_opening() -> None:
    game = racks(A="", B="r4")
    assert (
        score_game(game, "pl_wikipedia_tournament", winner="A", not_opened={"B": "announced"}).scores["B"]
        == -100
    )
    assert score_game(game, "mso_2019", winner="A", not_opened={"B": "announced"}).scores["B"] == -200


def test_never_opened_is_a_went_out_rule() -> None:
    with pytest.raises(RummiError, match="applies when someone goes out"):
        score_game(racks(A="r1", B="r4"), "mso_2019", bank_empty=True, not_opened={"B": "could_not"})


def test_box_rules_have_no_never_opened_penalty() -> None:
    result = score_game(racks(A="", B="r4"), "pressman_us_2009", winner="A", not_opened={"B": "could_have"})
    assert result.scores == {"A": 4, "B": -4}


# --- the pool ran dry (5.5) ---------------------------------------------------------------------

PL_WIKI_RACKS = dict(A="r1", B="r5", C="r10", D="r7 r8")  # rack totals 1, 5, 10, 15


@pytest.mark.parametrize(
    "formula, expected",
    [
        ("pl_wiki", {"A": 29, "B": -5, "C": -10, "D": -15}),  # PL-WIKI's own example
        ("difference", {"A": 27, "B": -4, "C": -9, "D": -14}),
        ("plain", {"A": 30, "B": -5, "C": -10, "D": -15}),
    ],
)
def test_polish_wikipedia_bank_empty_example_under_each_formula(formula: str, expected: dict) -> None:
    result = score_game(racks(**PL_WIKI_RACKS), get_rules(bank_empty_scoring=formula), bank_empty=True)
    assert result.winner == "A" and result.end is GameEnd.BANK_EMPTY
    assert result.scores == expected


def test_presets_choose_their_bank_empty_formula() -> None:
    game = racks(**PL_WIKI_RACKS)
    assert score_game(game, "pl_wikipedia_tournament", bank_empty=True).scores["A"] == 29
    assert score_game(game, "pressman_us_2009", bank_empty=True).scores["A"] == 27


def test_only_the_pl_wiki_formula_is_not_zero_sum() -> None:
    game = racks(**PL_WIKI_RACKS)
    assert not score_game(game, "pl_wikipedia_tournament", bank_empty=True).zero_sum
    assert score_game(game, "pressman_us_2009", bank_empty=True).zero_sum


def test_jokers_count_in_the_lowest_rack_comparison() -> None:
    # JUMBO-DE: jokers 30 each when the lowest rack is found.
    result = score_game(racks(A="J", B="k13 k12"), "jumbo_de", bank_empty=True)
    assert result.winner == "B"


def test_a_tie_for_the_lowest_rack_needs_a_named_winner() -> None:
    game = racks(A="r5", B="b5", C="r9")
    with pytest.raises(RummiError, match="A and B tie for the lowest rack"):
        score_game(game, bank_empty=True)
    assert score_game(game, bank_empty=True, winner="B").scores == {"A": 0, "B": 4, "C": -4}
    with pytest.raises(RummiError, match="C does not hold the lowest rack"):
        score_game(game, bank_empty=True, winner="C")


# --- a match (5.6) ------------------------------------------------------------------------------


def pressman_sheet(preset: str = "pressman_us_2009", **overrides) -> ScoreSheet:
    """The three games of the Pressman score table (rules.md 5.1), rebuilt from racks."""
    sheet = ScoreSheet(("A", "B", "C", "D"), get_rules(preset, **overrides))
    sheet.score(racks(A="", B="r5", C="r3 r13", D="r3"), winner="A")
    sheet.score(racks(A="r6", B="r11", C="", D="r5"), winner="C")
    sheet.score(racks(A="r10 r9 r13", B="r13", C="r2", D=""), winner="D")
    return sheet


def test_pressman_round_table_totals() -> None:
    sheet = pressman_sheet()
    assert [g.scores for g in sheet.games] == [
        {"A": 24, "B": -5, "C": -16, "D": -3},
        {"A": -6, "B": -11, "C": 22, "D": -5},
        {"A": -32, "B": -13, "C": -2, "D": 47},
    ]
    assert sheet.totals == {"A": -14, "B": -29, "C": 4, "D": 39}
    assert sum(sheet.totals.values()) == 0
    assert sheet.match_winner == "D"
    assert sheet.describe().splitlines()[-2:] == [
        "total    -14    -29     +4    +39",
        "match winner: D",
    ]


def test_most_games_won_decides_the_us_mostwins_example() -> None:
    # US-MOSTWINS 4-game example: totals A -24, B -54, C +45, D +33; C won two games.
    sheet = pressman_sheet("us_most_wins")
    sheet.score(racks(A="r10", B="r12 r13", C="", D="r6"), winner="C")
    assert sheet.totals == {"A": -24, "B": -54, "C": 45, "D": 33}
    assert sheet.games_won == {"A": 1, "B": 0, "C": 2, "D": 1}
    assert sheet.match_winner == "C"


def test_most_games_won_ties_are_broken_by_score() -> None:
    sheet = pressman_sheet("us_most_wins")  # A, C and D each won once
    assert sheet.standings() == ["D", "C", "A", "B"]
    assert sheet.match_winner == "D"


def test_a_target_score_ends_the_match() -> None:
    sheet = ScoreSheet(("A", "B"), get_rules(match_end="target_score", target_score=20))
    sheet.score(racks(A="", B="r13"), winner="A")
    assert not sheet.finished and sheet.match_winner is None
    sheet.score(racks(A="", B="r9"), winner="A")
    assert sheet.finished and sheet.match_winner == "A"
    with pytest.raises(RummiError, match="the match is over"):
        sheet.score(racks(A="", B="r1"), winner="A")


def test_a_tie_has_no_match_winner() -> None:
    sheet = ScoreSheet(("A", "B"))
    sheet.score(racks(A="", B="r5"), winner="A")
    sheet.score(racks(A="r5", B=""), winner="B")
    assert sheet.totals == {"A": 0, "B": 0} and sheet.match_winner is None


def test_games_must_have_the_sheets_players() -> None:
    sheet = ScoreSheet(("A", "B"))
    with pytest.raises(RummiError, match="differ from the sheet's"):
        sheet.score(racks(A="", C="r5"), winner="A")
    with pytest.raises(RummiError, match="two or more different players"):
        ScoreSheet(("A", "A"))


def test_score_sheet_json() -> None:
    data = pressman_sheet().to_dict()
    assert data["totals"] == {"A": -14, "B": -29, "C": 4, "D": 39}
    assert data["match_winner"] == "D" and len(data["games"]) == 3
