"""The referee judges one turn from the table before and after it (rules.md sections 3 and 4).

Every test is a real before/after pair as the camera would see it. Legal manipulations come
from rules.md 4.1; each violation the issue lists has its own illegal example.
"""

from __future__ import annotations

import pytest
from rummi.engine.errors import ImpossibleStateError, NotationError, RummiError
from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.referee import Code, Side, Spot, Status, judge_turn, parse_seen


def judge(before: str, after: str, **kwargs):
    rack = kwargs.pop("rack", None)
    return judge_turn(
        parse_sets(before),
        parse_sets(after),
        rack=parse_tiles(rack) if rack is not None else None,
        **kwargs,
    )


def codes(verdict) -> list[str]:
    return verdict.codes()


# --- legal turns: the manipulations of rules.md 4.1 ------------------------------------------


@pytest.mark.parametrize(
    "before, after, played",
    [
        pytest.param("r5 r6 r7", "r5 r6 r7 r8", "r8", id="extend a run"),
        pytest.param("r5 r6 r7 | k9 b9 o9", "r4 r5 r6 r7 | k9 b9 o9 r9", "r4 r9", id="extend two sets"),
        pytest.param("k5 b5 o5 r5", "k5 b5 o5 | r5 r6 r7", "r6 r7", id="take the 4th of a group"),
        pytest.param(
            "r3 r4 r5 r6 r7 r8", "r3 r4 r5 r6 | r6 r7 r8", "r6", id="split a run by inserting a tile"
        ),
        pytest.param(
            "b2 b3 b4 b5 | k6 o6 r6",
            "b2 b3 b4 | b5 b6 b7 | k6 o6 r6",
            "b6 b7",
            id="take a tile off a run's end for a new set",
        ),
        pytest.param(
            "k5 b5 o5 r5 | b8 b9 b10",
            "k5 b5 o5 | r5 r6 r7 | b7 b8 b9 b10",
            "r6 r7 b7",
            id="combined manipulation",
        ),
        pytest.param(
            "r4 J r6", "r4 r5 r6 | J k7 k8", "r5 k7 k8", id="joker swap, freed joker with 2 own tiles"
        ),
        pytest.param("k5 b5 J", "k5 b5 o5 | J r10 r11", "o5 r10 r11", id="joker swap in a group"),
        pytest.param("", "r10 r11 r12", "r10 r11 r12", id="opening of 33"),
    ],
)
def test_manipulations_of_rules_4_1_are_legal(before: str, after: str, played: str) -> None:
    verdict = judge(before, after, opened=before != "")
    assert verdict.status is Status.LEGAL, [v.message for v in verdict.violations]
    assert sorted(map(str, verdict.played)) == sorted(played.split())
    assert verdict.consequence.text == "No penalty: the turn stands."


def test_a_joker_freed_by_rearranging_is_legal_where_the_preset_allows_it() -> None:
    # GOLIATH-MINIXP-p4 / JUMBO-DE: move k1 and k2 to their groups; the joker is free.
    before = "k1 k2 J | r1 b1 o1 | r2 b2 o2"
    after = "r1 b1 o1 k1 | r2 b2 o2 k2 | J o7 o8"
    assert judge(before, after, opened=True, rules="goliath_modern").legal


def test_a_joker_replaced_by_a_table_tile_is_legal_where_the_preset_allows_it() -> None:
    before = "r4 J r6 | b5 k5 o5 r5"
    after = "r4 r5 r6 | b5 k5 o5 | J k7 k8"
    assert judge(before, after, opened=True, rules="pl_wikipedia_tournament").legal


def test_a_first_turn_opening_reports_that_the_player_has_opened() -> None:
    verdict = judge("k9 b9 o9", "k9 b9 o9 | r10 r11 r12", opened=False)
    assert verdict.legal and verdict.opens and verdict.opening_value == 33


def test_drawing_without_playing_is_a_legal_turn() -> None:
    verdict = judge("r5 r6 r7", "r5 r6 r7", opened=True, drew=True)
    assert verdict.legal and verdict.played == ()


# --- illegal turns: one test per violation ------------------------------------------------------


def test_a_tile_gone_from_the_table_is_illegal() -> None:
    verdict = judge("r5 r6 r7 r8", "r5 r6 r7 | k1 k2 k3", opened=True)
    assert codes(verdict) == ["tile_removed"]
    assert [str(t) for t in verdict.violations[0].tiles] == ["r8"]
    assert verdict.consequence.restore_table
    assert verdict.consequence.draw == 3  # Pressman: restore and draw 3


def test_an_invalid_set_left_on_the_table_says_which_and_why() -> None:
    verdict = judge("r5 r6 r7", "r5 r6 | r7 r8 r9", opened=True)
    assert codes(verdict) == ["invalid_set"]
    assert verdict.violations[0].sets == (0,)
    assert (
        "set 1 (r5 r6)" in verdict.violations[0].message and "only 2 tiles" in verdict.violations[0].message
    )
    assert "take back r8 r9" in verdict.consequence.text.replace("takes back", "take back")


def test_a_set_that_was_already_invalid_is_noted_not_held_against_the_player() -> None:
    verdict = judge("r5 r6 | k1 k2 k3", "r5 r6 | k1 k2 k3 k4", opened=True)
    assert verdict.legal
    assert "already invalid" in verdict.notes[0]


def test_no_tile_played_means_the_player_must_draw() -> None:
    verdict = judge("r5 r6 r7", "r5 r6 r7", opened=True)
    assert codes(verdict) == ["no_tile_played"]
    assert not verdict.consequence.restore_table and verdict.consequence.draw == 1


def test_rearranging_without_playing_a_tile_is_a_failed_turn() -> None:
    verdict = judge("k5 b5 o5 r5 | r6 r7 r8", "k5 b5 o5 | r5 r6 r7 r8", opened=True)
    assert codes(verdict) == ["rearranged_without_playing"]
    assert verdict.consequence.restore_table


def test_drawing_and_playing_in_one_turn_is_illegal() -> None:
    verdict = judge("r5 r6 r7", "r5 r6 r7 r8", opened=True, drew=True)
    assert codes(verdict) == ["drew_and_played"]


def test_an_opening_below_the_threshold() -> None:
    verdict = judge("", "k4 b4 o4 | k5 b5 o5", opened=False)  # 12 + 15 = 27 (PL-GUIDE)
    assert codes(verdict) == ["opening_too_low"]
    assert "worth 27" in verdict.violations[0].message
    assert judge("", "b10 b11 b12", opened=False).legal  # 33 (PL-GUIDE)


def test_the_sabra_way_opening_needs_50() -> None:
    verdict = judge("", "b10 b11 b12", opened=False, rules="sabra_way_50")
    assert codes(verdict) == ["opening_too_low"]


def test_an_opening_that_uses_table_tiles() -> None:
    verdict = judge("k5 b5 o5 r5", "k5 b5 o5 | r5 r6 r7 | k10 k11 k12", opened=False)
    assert "opening_used_table" in codes(verdict)
    assert "r5" in verdict.violations[-1].message


def test_an_opening_that_also_adds_to_the_table_where_the_preset_forbids_it() -> None:
    verdict = judge("r4 r5 r6", "r4 r5 r6 r7 | k10 k11 k12", opened=False, rules="jumbo_de")
    assert codes(verdict) == ["opening_added_to_table"]
    assert [str(t) for t in verdict.violations[0].tiles] == ["r7"]
    # PAGAT-COPY allows table play in the same turn once the new sets reach 30.
    assert judge("r4 r5 r6", "r4 r5 r6 r7 | k10 k11 k12", opened=False, rules="pagat_sabra").legal


def test_a_joker_in_the_opening_where_the_preset_forbids_it() -> None:
    verdict = judge("", "r10 J r12", opened=False, rules="russian_wiki")
    assert codes(verdict) == ["opening_with_joker"]
    assert judge("", "r10 J r12", opened=False).legal


def test_touching_the_table_before_opening_without_playing() -> None:
    verdict = judge("k5 b5 o5 r5 | r6 r7 r8", "k5 b5 o5 | r5 r6 r7 r8", opened=False)
    assert set(codes(verdict)) == {"rearranged_without_playing", "opening_used_table"}


def test_a_joker_taken_before_the_players_opening() -> None:
    verdict = judge("r4 J r6", "r4 r5 r6 | J k10 k11 | o10 o11 o12", opened=False)
    assert "joker_before_opening" in codes(verdict)


def test_a_freed_joker_that_is_not_reused() -> None:
    verdict = judge("r4 J r6", "r4 r5 r6", opened=True)
    assert codes(verdict) == ["joker_not_reused"]
    assert "must be played again" in verdict.violations[0].message


def test_a_freed_joker_reused_with_too_few_own_tiles() -> None:
    before = "r4 J r6 | k7 k8 k9"
    after = "r4 r5 r6 | k7 k8 k9 J"  # joker moved onto a table run with no own tile
    verdict = judge(before, after, opened=True)  # Pressman: new set, 2 own tiles
    assert set(codes(verdict)) == {"freed_joker_too_few_own_tiles", "freed_joker_not_in_new_set"}
    # PL-WIKI asks for 1 own tile: the replacement r5 went elsewhere, so the joker's set has none.
    verdict = judge(before, after, opened=True, rules="pl_wikipedia_tournament")
    assert "freed_joker_too_few_own_tiles" in codes(verdict)


def test_a_freed_joker_in_a_new_set_with_one_own_tile_under_pressman() -> None:
    # engine.joker_fate: a freed joker's new set is made of jokers and rack tiles only, so k10
    # taken off a table run does not count as the player's own tile.
    before = "r4 J r6 | k7 k8 k9 k10"
    after = "r4 r5 r6 | k7 k8 k9 | J k10 k11"
    verdict = judge(before, after, opened=True)
    assert set(codes(verdict)) == {"freed_joker_too_few_own_tiles", "freed_joker_not_in_new_set"}
    assert any("at least 2" in v.message for v in verdict.violations)
    verdict = judge(before, after, opened=True, rules="pl_wikipedia_tournament")
    assert codes(verdict) == ["freed_joker_not_in_new_set"]
    # PL-WIKI's one own tile: with two jokers, one rack tile makes the new set.
    assert judge("r4 J r6 | k7 J k9", "r4 r5 r6 | k7 k8 k9 | J J k11", opened=True,
                 rules="pl_wikipedia_tournament").legal


def test_a_joker_left_in_its_place_in_a_split_run_stays() -> None:
    # issue 19 case 4: the joker still stands for r8 beside r9; nothing freed it.
    assert judge("r5 r6 r7 J r9", "r5 r6 r7 | r7 J r9", opened=True).legal


def test_a_group_joker_that_jumps_into_a_run_was_freed() -> None:
    # issue 19 case 2: J stood for b3 or o3 in a group; as b3 in a run it left its set.
    verdict = judge("k3 r3 J | b4 b5 b6", "k3 r3 o3 | b2 J b4 b5 b6", opened=True)
    assert set(codes(verdict)) == {"freed_joker_too_few_own_tiles", "freed_joker_not_in_new_set"}


def test_pressman_needs_a_rack_tile_to_free_a_joker() -> None:
    # issue 19 case 3 (rules.md 4.2: "from his rack, not the table"): no rack tile, no joker.
    before = "k1 k2 J | r1 b1 o1 | r2 b2 o2"
    after = "r1 b1 o1 k1 | r2 b2 o2 k2 | J o7 o8"
    assert codes(judge(before, after, opened=True)) == ["joker_freed_by_rearranging"]
    assert judge(before, after, opened=True, rules="jumbo_de").legal


def test_a_joker_replaced_by_a_table_tile_where_the_preset_forbids_it() -> None:
    before = "r4 J r6 | b5 k5 o5 r5"
    after = "r4 r5 r6 | b5 k5 o5 | J k7 k8"
    verdict = judge(before, after, opened=True, rules="pressman_us_2009")
    assert codes(verdict) == ["joker_replaced_from_table"]
    assert [str(t) for t in verdict.violations[0].tiles] == ["r5"]


def test_a_joker_freed_by_rearranging_where_the_preset_forbids_it() -> None:
    before = "k1 k2 J | r1 b1 o1 | r2 b2 o2"
    after = "r1 b1 o1 k1 | r2 b2 o2 k2 | J o7 o8"
    verdict = judge(before, after, opened=True, rules="pagat_sabra")
    assert set(codes(verdict)) == {"joker_freed_by_rearranging", "locked_joker_set"}


def test_the_strict_joker_group_needs_both_missing_colours() -> None:
    before, after = "k5 b5 J", "k5 b5 o5 | J k7 k8"
    verdict = judge(before, after, opened=True, rules="strict_group_1980")
    assert codes(verdict) == ["strict_joker_group"]
    assert "r5 missing" in verdict.violations[0].message
    assert judge("k5 b5 J", "k5 b5 o5 r5 | J k7 k8", opened=True, rules="strict_group_1980").legal


def test_a_locked_joker_set_may_still_be_extended() -> None:
    assert judge("r4 J r6", "r4 J r6 r7", opened=True, rules="pagat_sabra").legal


def test_a_tile_that_cannot_exist() -> None:
    verdict = judge("r7 r8 r9 | r7 b7 k7", "r7 r8 r9 | r7 b7 k7 | r7 r8 r9 r10", opened=True)
    assert codes(verdict) == ["impossible_tiles"]
    assert "3 x r7" in verdict.violations[0].message
    assert verdict.consequence.check_tiles


def test_a_tile_that_cannot_exist_counting_the_rack() -> None:
    verdict = judge("r7 r8 r9 | r7 b7 k7", "r7 r8 r9 | r7 b7 k7 | k1 k2 k3", opened=True, rack="r7 k1 k2 k3")
    assert codes(verdict) == ["impossible_tiles"]


def test_more_tiles_than_the_box_holds_is_bad_input_not_a_long_wait() -> None:
    # Matching sets before and after is quadratic, and each unsure tile multiplies it by its 53
    # readings: a pasted 2,000-set table kept the referee busy for minutes.
    crowded = parse_sets(" | ".join(["r5 r6 r7"] * 40))
    with pytest.raises(ImpossibleStateError, match="after the turn holds 120 tiles; the Standard box has 106"):
        judge_turn(parse_sets("r5 r6 r7"), crowded, opened=True)
    with pytest.raises(ImpossibleStateError, match="rack holds 120 tiles"):
        judge_turn([], parse_sets("r5 r6 r7"), opened=True, rack=[t for s in crowded for t in s])


def test_a_played_tile_that_was_not_on_the_rack() -> None:
    verdict = judge("", "r10 r11 r12", opened=False, rack="r10 r11 k1")
    assert codes(verdict) == ["tile_not_on_rack"]
    assert [str(t) for t in verdict.violations[0].tiles] == ["r12"]


def test_unknown_rack_skips_only_the_checks_that_need_it() -> None:
    verdict = judge("", "r10 r11 r12", opened=False)
    assert verdict.legal


@pytest.mark.parametrize(
    "preset, restore, draw",
    [("pressman_us_2009", False, 1), ("goliath_modern", True, 3), ("pl_wikipedia_tournament", False, 1)],
)
def test_over_time_penalty_follows_the_preset(preset: str, restore: bool, draw: int) -> None:
    verdict = judge("r5 r6 r7", "r5 r6 r7 r8", opened=True, rules=preset, seconds=130)
    assert codes(verdict) == ["over_time"]
    assert verdict.consequence.restore_table is restore
    assert verdict.consequence.draw == draw


def test_within_time_is_fine_and_no_limit_means_no_check() -> None:
    assert judge("r5 r6 r7", "r5 r6 r7 r8", opened=True, seconds=75).legal  # Pressman: 120 s
    assert judge("r5 r6 r7", "r5 r6 r7 r8", opened=True, seconds=9999, rules="mso_2019").legal


def test_penalties_do_not_add_up_the_heaviest_applies() -> None:
    verdict = judge("r5 r6 r7", "r5 r6 | r7 r8", opened=True, seconds=500)
    assert set(codes(verdict)) == {"invalid_set", "over_time"}
    assert verdict.consequence.restore_table and verdict.consequence.draw == 3


# --- uncertain camera readings -----------------------------------------------------------------


def test_an_uncertain_tile_turns_an_accusation_into_a_question() -> None:
    after, spots = parse_seen("r5 r6 r8? | k1 k2 k3", Side.AFTER)
    verdict = judge_turn(parse_sets("r5 r6 | k1 k2 k3"), after, opened=True, uncertain=spots)
    assert verdict.status is Status.UNCERTAIN
    assert verdict.depends_on == (Spot(Side.AFTER, 0, 2),)
    doubt = verdict.violations[0].doubts[0]
    assert "r7" in map(str, doubt.alternatives)
    assert "would be legal" in verdict.notes[-1]


def test_an_uncertain_tile_that_cannot_explain_the_problem_changes_nothing() -> None:
    after, spots = parse_seen("r5 r6 r7? | k1 k2", Side.AFTER)
    verdict = judge_turn(parse_sets("r5 r6 | k1 k2 k3"), after, opened=True, uncertain=spots)
    assert verdict.status is Status.ILLEGAL
    by_code = {v.code: v for v in verdict.violations}
    # Read as k3, the unsure tile would explain the missing k3, but k1 k2 stays broken anyway.
    assert [str(t) for d in by_code[Code.TILE_REMOVED].doubts for t in d.alternatives] == ["k3"]
    assert by_code[Code.INVALID_SET].certain


def test_an_uncertain_rack_tile() -> None:
    rack, spots = parse_seen("r10 r11 k12?", Side.RACK)
    verdict = judge_turn([], parse_sets("r10 r11 r12"), opened=False, rack=rack[0], uncertain=spots)
    assert verdict.status is Status.UNCERTAIN
    assert verdict.depends_on == (Spot(Side.RACK, 0, 2),)
    assert verdict.opens  # not held against the player until the tile is checked


def test_a_question_mark_on_its_own_and_a_spot_with_no_tile_are_bad_input() -> None:
    with pytest.raises(NotationError):
        parse_seen("r5 ? r6", Side.AFTER)
    with pytest.raises(NotationError, match="write r6\\?, not \\?r6"):  # was read as a sure r6
        parse_seen("r5 ?r6 r7", Side.AFTER)
    with pytest.raises(RummiError):
        judge_turn([], parse_sets("r10 r11 r12"), opened=True, uncertain=[Spot(Side.AFTER, 3, 0)])


def test_verdict_as_json_names_codes_penalties_and_consequence() -> None:
    data = judge("r4 J r6", "r4 r5 r6", opened=True).to_dict()
    assert data["status"] == "illegal" and data["legal"] is False
    assert data["violations"][0]["code"] == "joker_not_reused"
    assert data["violations"][0]["penalty"] == "failed_turn"
    assert data["consequence"]["restore_table"] is True
    assert data["played"] == ["r5"]


def test_a_locked_set_grows_only_with_its_jokers_where_they_stood() -> None:
    # pagat_sabra: r6 taking the joker's place while the joker moves on rearranges the set.
    assert not judge("r5 J r7", "r5 r6 r7 r8 J", opened=True, rules="pagat_sabra").legal
    assert judge("r5 J r7", "r5 J r7 J", opened=True, rules="pagat_sabra").legal  # a rack joker joins
    assert judge("k5 b5 J", "k5 b5 o5 J", opened=True, rules="pagat_sabra").legal
