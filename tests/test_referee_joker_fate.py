"""engine.joker_fate: the one definition of what happened to each table joker (issue 19)."""

from __future__ import annotations

from rummi.engine.joker_fate import RACK, TABLE, read_joker_fates
from rummi.engine.notation import parse_sets
from rummi.engine.rules import get_rules


def fates(before: str, after: str, preset: str = "pressman_us_2009", may_take: bool = True):
    return read_joker_fates(parse_sets(before), parse_sets(after), rules=get_rules(preset), may_take=may_take)


def test_an_unchanged_set_keeps_its_joker() -> None:
    reading = fates("r4 J r6 | k1 k2 k3", "r4 J r6 | k1 k2 k3 k4")
    assert reading.legal
    (fate,) = reading.fates
    assert fate.kept and fate.after_set == 0 and fate.stands_for is None


def test_a_joker_in_its_place_in_a_split_run_is_kept_and_says_what_it_stands_for() -> None:
    reading = fates("r5 r6 r7 J r9", "r5 r6 r7 | r7 J r9")
    (fate,) = reading.fates
    assert reading.legal and fate.kept and str(fate.stands_for) == "r8" and fate.after_set == 1


def test_a_swapped_joker_is_freed_replaced_from_the_rack_into_a_new_set() -> None:
    reading = fates("r4 J r6", "r4 r5 r6 | J k7 k8")
    (fate,) = reading.fates
    assert reading.legal and not fate.kept
    assert [str(t) for t in fate.replaced_by] == ["r5"] and fate.replaced_from == RACK
    assert fate.after_set == 1 and fate.own_tiles == 2


def test_a_table_tile_replaces_a_joker_only_where_the_preset_allows_it() -> None:
    before, after = "r4 J r6 | b5 k5 o5 r5", "r4 r5 r6 | b5 k5 o5 | J k7 k8"
    assert [p.code for p in fates(before, after).problems] == ["joker_replaced_from_table"]
    reading = fates(before, after, "pl_wikipedia_tournament")
    (fate,) = reading.fates
    assert reading.legal and fate.replaced_from == TABLE


def test_a_group_joker_in_a_run_jumped_sets() -> None:
    reading = fates("k3 r3 J | b4 b5 b6", "k3 r3 o3 | b2 J b4 b5 b6")
    assert not reading.legal
    assert {p.code for p in reading.problems} == {"freed_joker_not_in_new_set", "freed_joker_too_few_own_tiles"}


def test_one_tile_does_not_both_replace_a_joker_and_make_its_new_set() -> None:
    # the 4-group's joker stood for o3 only; o3 cannot also be a tile of J's new set
    assert not fates("k3 b3 J r3", "k3 b3 r3 | o3 o4 J").legal
    assert fates("k3 b3 J r3", "k3 b3 o3 r3 | o4 o5 J").legal  # o3 replaces it, o4 o5 its own
    assert fates("k3 b3 J r3", "k3 b3 o3 r3 | J o4 o5", "goliath_modern").legal  # freed by rearranging


def test_a_joker_may_not_be_taken_before_the_players_opening() -> None:
    reading = fates("r4 J r6", "r4 r5 r6 | J k7 k8", may_take=False)
    assert [p.code for p in reading.problems] == ["joker_before_opening"]


def test_a_special_joker_whose_place_a_standard_joker_took_was_moved_not_kept() -> None:
    # Twist seed 0 of the cross-check: Jc stood for r8; Js from the rack now stands there and Jc
    # went into a new set. The jokers are different tiles, so Jc was taken without a tile it
    # stood for, which pressman_us_2009 does not allow (rules.md 4.2: a joker is replaced by the
    # tile it represents); the same move with plain jokers is no move at all.
    before = parse_sets("r5 r6 r7 Jc | r9 o9 k9", edition="twist")
    after = parse_sets("k9 b9 o9 | k10 o12 Jc | r5 r6 r7 r9 Js", edition="twist")
    reading = read_joker_fates(before, after, rules=get_rules("pressman_us_2009"), may_take=True, edition="twist")
    assert not reading.legal
    assert [p.code for p in reading.problems] == ["joker_freed_by_rearranging"]
    plain = fates("r5 r6 r7 J | r9 o9 k9", "k9 b9 o9 | k10 J k12 | r5 r6 r7 r9 J")
    assert plain.legal


def test_a_freed_expert_joker_must_land_itself_in_a_new_set() -> None:
    # cross-check "jokers: expert" seed 259: Jr (it stood for r12) moved to r9 and r12 from the
    # rack replaced it, so Jr was freed; the new set of own tiles holds the rack's black joker,
    # not Jr, which stayed in a set of table tiles (Expert's jokers differ by colour)
    before = parse_sets("r10 r11 Jr r13 | b11 o11 Jk", edition="expert")
    after = parse_sets("b11 o11 Jk | o13 r13 Jk | r10 r11 r12 r13 Jr", edition="expert")
    reading = read_joker_fates(before, after, rules=get_rules("pressman_us_2009"), may_take=True, edition="expert")
    assert not reading.legal
    assert "freed_joker_not_in_new_set" in {p.code for p in reading.problems}


def test_a_reading_asked_twice_is_remembered_and_is_the_one_read_afresh() -> None:
    # the hint solver asks the reading of the play it settles on, and the referee's whole
    # judgement asks it again: the second ask is the remembered reading, the same as one read
    # with the caller's own set verdicts (which are never remembered)
    from rummi.engine.melds import classify

    before, after = parse_sets("r4 J r6 | k3 b3 o3"), parse_sets("r4 r5 r6 | k3 b3 o3 | J k7 k8")
    rules = get_rules("pressman_us_2009")
    first = read_joker_fates(before, after, rules=rules, may_take=True)
    again = read_joker_fates([list(s) for s in before], [list(s) for s in after], rules=rules, may_take=True)
    afresh = read_joker_fates(before, after, rules=rules, may_take=True, verdict_of=lambda s: classify(s))
    assert again is first
    assert afresh == first and afresh is not first
    assert first.legal and not first.fates[0].kept
    # another preset's rules, or no right to take jokers yet, is another reading
    assert not read_joker_fates(before, after, rules=rules, may_take=False).legal
    strict = read_joker_fates(before, after, rules=get_rules("czech_piatnik"), may_take=True)
    assert strict is not first
