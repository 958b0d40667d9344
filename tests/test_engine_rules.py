"""Rule presets (rules.md section 6): each value comes from its source, and any one rule can change."""

from __future__ import annotations

from pathlib import Path

import pytest
from rummi.api.presets_doc import presets_markdown
from rummi.engine.errors import RummiError
from rummi.engine.rules import (
    DEFAULT_PRESET,
    PRESETS,
    BankEmptyScoring,
    MatchEnd,
    Rules,
    get_rules,
    parse_override,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules-presets.md"


@pytest.mark.parametrize(
    "preset, rule, value",
    [
        # 1 pressman_us_2009: 2 min, draw 1 over time, restore + 3, rack only, >=2 own tiles, joker 30
        ("pressman_us_2009", "turn_seconds", 120),
        ("pressman_us_2009", "overtime_draw", 1),
        ("pressman_us_2009", "failed_manipulation_draw", 3),
        ("pressman_us_2009", "joker_replacement_from_table", False),
        ("pressman_us_2009", "freed_joker_min_own_tiles", 2),
        ("pressman_us_2009", "strict_joker_group", False),
        ("pressman_us_2009", "joker_penalty", 30),
        ("pressman_us_2009", "bank_empty_scoring", BankEmptyScoring.DIFFERENCE),
        # 2 goliath_modern: 1 min, over time merged with restore + 3, joker from rack or table
        ("goliath_modern", "turn_seconds", 60),
        ("goliath_modern", "overtime_draw", 3),
        ("goliath_modern", "overtime_restores_table", True),
        ("goliath_modern", "joker_replacement_from_table", True),
        ("goliath_modern", "joker_free_by_rearranging", True),
        ("goliath_modern", "table_play_in_opening_turn", False),
        # 3 pl_wikipedia_tournament: 40 s, draw 1, restore + 1, >=1 own tile, joker 50, -100/-200
        ("pl_wikipedia_tournament", "turn_seconds", 40),
        ("pl_wikipedia_tournament", "failed_manipulation_draw", 1),
        ("pl_wikipedia_tournament", "freed_joker_min_own_tiles", 1),
        ("pl_wikipedia_tournament", "joker_penalty", 50),
        ("pl_wikipedia_tournament", "never_opened_penalty", (100, 200)),
        ("pl_wikipedia_tournament", "never_opened_waiver", True),
        ("pl_wikipedia_tournament", "bank_empty_scoring", BankEmptyScoring.PL_WIKI),
        # 4 mso_2019: 2 players, 1 joker + 13, Bronstein 10 min + 10 s, joker 50, -100/-200
        ("mso_2019", "players", (2, 2)),
        ("mso_2019", "deal_one_joker_each", True),
        ("mso_2019", "turn_seconds", None),
        ("mso_2019", "clock_seconds", 600),
        ("mso_2019", "clock_increment_seconds", 10),
        ("mso_2019", "joker_penalty", 50),
        ("mso_2019", "never_opened_penalty", (100, 200)),
        # 5 czech_piatnik: Pressman-like with 4 jokers
        ("czech_piatnik", "edition", "standard4j"),
        ("czech_piatnik", "turn_seconds", 120),
        ("czech_piatnik", "freed_joker_min_own_tiles", 2),
        # 5b jumbo_de: 1 min, one more round after the last tile, three-pairs reshuffle
        ("jumbo_de", "turn_seconds", 60),
        ("jumbo_de", "bank_empty_last_round", True),
        ("jumbo_de", "reshuffle_on_three_pairs", True),
        # 6 russian_wiki: joker from rack or table, one extra turn, literal "no joker in the first move"
        ("russian_wiki", "joker_replacement_from_table", True),
        ("russian_wiki", "bank_empty_last_round", True),
        ("russian_wiki", "joker_in_opening", False),
        # 7 sabra_way_50: 50-point opening, counter-clockwise
        ("sabra_way_50", "opening_threshold", 50),
        ("sabra_way_50", "clockwise", False),
        # toggles 8 and 9, and the other sourced values of rules.md 5
        ("strict_group_1980", "strict_joker_group", True),
        ("pagat_sabra", "locked_joker_sets", True),
        ("pagat_sabra", "table_play_in_opening_turn", True),
        ("pagat_sabra", "joker_free_by_rearranging", False),
        ("us_most_wins", "match_end", MatchEnd.MOST_GAMES_WON),
        ("be_cafe_tournament", "joker_penalty", 25),
    ],
)
def test_preset_values_follow_their_source(preset: str, rule: str, value: object) -> None:
    assert getattr(PRESETS[preset], rule) == value


def test_the_presets_the_issue_names_exist() -> None:
    wanted = {
        "pressman_us_2009",
        "goliath_modern",
        "pl_wikipedia_tournament",
        "mso_2019",
        "czech_piatnik",
        "jumbo_de",
        "russian_wiki",
        "sabra_way_50",
    }
    assert wanted <= set(PRESETS)
    assert DEFAULT_PRESET in PRESETS
    assert all(r.source for r in PRESETS.values())


def test_no_preset_is_silently_the_same_as_another() -> None:
    presets = list(PRESETS.values())
    for a, b in zip(presets, presets[1:]):
        assert a.differences(b), (a.name, b.name)


def test_get_rules_defaults_to_the_default_preset() -> None:
    assert get_rules() is PRESETS[DEFAULT_PRESET]
    assert get_rules("Pl-Wikipedia-Tournament") is PRESETS["pl_wikipedia_tournament"]


def test_any_single_rule_can_be_overridden() -> None:
    rules = get_rules("pressman_us_2009", joker_penalty=50, opening_threshold="50")
    assert rules.joker_penalty == 50 and rules.opening_threshold == 50
    assert rules.differences(PRESETS["pressman_us_2009"]) == {
        "joker_penalty": (50, 30),
        "opening_threshold": (50, 30),
    }


@pytest.mark.parametrize(
    "text, expected",
    [
        ("bank_empty_scoring=plain", BankEmptyScoring.PLAIN),
        ("turn_seconds=none", None),
        ("never_opened_penalty=100,200", (100, 200)),
        ("strict-joker-group=yes", True),
        ("match_end=most-games-won", MatchEnd.MOST_GAMES_WON),
    ],
)
def test_overrides_are_read_from_command_line_text(text: str, expected: object) -> None:
    name, value = parse_override(text)
    assert getattr(get_rules(None, **{name: value}), name) == expected


def test_a_target_score_match() -> None:
    rules = get_rules(match_end="target_score", target_score="300")
    assert rules.match_end is MatchEnd.TARGET_SCORE and rules.target_score == 300


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: get_rules("house"), "unknown preset 'house'; known presets: pressman_us_2009"),
        (lambda: get_rules(joker=50), "unknown rule joker; known rules: title"),
        (
            lambda: get_rules(joker_penalty="fifty"),
            "joker_penalty: 'fifty' is not a valid value (a whole number)",
        ),
        (lambda: get_rules(joker_penalty=-5), "joker_penalty cannot be negative"),
        (lambda: get_rules(bank_empty_scoring="avg"), "one of difference, pl_wiki, plain"),
        (lambda: get_rules(match_end="target_score"), "needs a target_score"),
        (lambda: get_rules(edition="deluxe"), "unknown edition 'deluxe'"),
        (lambda: get_rules(name="mine"), "cannot be overridden"),
        (lambda: parse_override("joker_penalty"), "write a rule override as name=value"),
    ],
)
def test_bad_rules_are_user_errors_that_list_the_choices(call, message: str) -> None:
    with pytest.raises(RummiError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_rules_are_plain_json_data() -> None:
    data = PRESETS["mso_2019"].to_dict()
    assert data["bank_empty_scoring"] == "difference"
    assert data["never_opened_penalty"] == [100, 200]


def test_every_preset_plays_a_known_edition() -> None:
    for rules in PRESETS.values():
        assert rules.box.name == rules.edition


def test_docs_table_is_generated_from_the_presets() -> None:
    assert presets_markdown() in DOCS.read_text(encoding="utf-8")


def test_rules_are_immutable() -> None:
    with pytest.raises(AttributeError):
        PRESETS["mso_2019"].joker_penalty = 10  # type: ignore[misc]
    assert isinstance(PRESETS["mso_2019"], Rules)
