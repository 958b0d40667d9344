"""Rule presets: every point where the sources disagree, as named, overridable data.

The engine never picks one reading of the rules silently. A :class:`Rules` value holds one
answer to each disagreement listed in rules.md section 6 (the ``#n`` comments name the row), and
:data:`PRESETS` bundles those answers the way one source states them. A user starts from a preset
and may override any single rule::

    >>> from rummi.engine.rules import get_rules
    >>> get_rules("pl_wikipedia_tournament").joker_penalty
    50
    >>> get_rules("pressman_us_2009", joker_penalty=25).joker_penalty
    25

Where a source is silent a preset keeps the majority answer of rules.md; such values are marked
"not stated" in the preset's ``notes`` so a reader can tell a sourced value from a filled-in one.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from rummi.engine.editions import Edition, get_edition
from rummi.engine.errors import RummiError


class BankEmptyScoring(enum.Enum):
    """How a game is scored when the pool runs out and nobody went out (rules.md 5.5, #18).

    W is the winner's (lowest) rack total, L_i each loser's.
    """

    DIFFERENCE = "difference"  # losers -(L_i - W), winner sum(L_i - W); zero-sum
    PL_WIKI = "pl_wiki"  # losers -L_i, winner sum(L_i) - W (PL-WIKI example: 29)
    PLAIN = "plain"  # losers -L_i, winner sum(L_i); zero-sum (EP)


class MatchEnd(enum.Enum):
    """Who wins a match of several games (rules.md 5.6, #19)."""

    HIGHEST_TOTAL = "highest_total"  # after the agreed games, the highest running total
    TARGET_SCORE = "target_score"  # the first to reach ``target_score`` ends the match
    MOST_GAMES_WON = "most_games_won"  # most games won; the total breaks ties (US-MOSTWINS)


@dataclass(frozen=True)
class Rules:
    """One complete set of answers to the disagreements between rule sources.

    Field comments give the rules.md section 6 row (``#n``) or section each field decides.
    """

    name: str
    title: str
    source: str
    edition: str = "standard"
    opening_threshold: int = 30  # #5
    joker_in_opening: bool = True  # #7
    table_play_in_opening_turn: bool = False  # #6: may the opener also add to / rearrange the table
    joker_penalty: int = 30  # #15: a joker left on a loser's rack
    never_opened_penalty: tuple[int, int] | None = None  # #16: (could not open, could have opened)
    never_opened_waiver: bool = False  # #16: PL-WIKI waives the 200 after an announced opening
    bank_empty_scoring: BankEmptyScoring = BankEmptyScoring.DIFFERENCE  # #18
    bank_empty_last_round: bool = False  # #17: one more round of attempts, not "until nobody can play"
    turn_seconds: int | None = 60  # #12: None = no per-turn limit
    overtime_draw: int = 1  # #14: tiles drawn when over time
    overtime_restores_table: bool = False  # #14: over time is merged with a failed manipulation
    failed_manipulation_draw: int = 3  # #13: tiles drawn after the table is restored
    clock_seconds: int | None = None  # MSO-2019: Bronstein chess clock per player
    clock_increment_seconds: int = 0  # MSO-2019: Bronstein delay per move
    joker_replacement_from_table: bool = False  # #8: replacement tile may also come from the table
    joker_free_by_rearranging: bool = True  # #9: a joker may be freed without a replacement tile
    freed_joker_min_own_tiles: int = 2  # #10: rack tiles that must go with a freed joker
    freed_joker_in_new_set: bool = True  # #10: a freed joker must start a new set
    strict_joker_group: bool = False  # #11 / toggle 8: a 3-tile group's joker needs both colours
    locked_joker_sets: bool = False  # #9 / toggle 9: sets with a joker may only be extended
    match_end: MatchEnd = MatchEnd.HIGHEST_TOTAL  # #19
    target_score: int | None = None  # #19 with MatchEnd.TARGET_SCORE
    players: tuple[int, int] = (2, 4)  # smallest and largest number of players
    clockwise: bool = True  # #20
    deal_one_joker_each: bool = False  # #22: MSO deals 1 joker + 13 tiles per player
    reshuffle_on_three_pairs: bool = False  # #22: three doubles in a hand may demand a new deal
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        problems = _problems(self)
        if problems:
            raise RummiError(f"rules {self.name!r}: " + "; ".join(problems))

    @property
    def box(self) -> Edition:
        """The edition (tile box) these rules are played with."""
        return get_edition(self.edition)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (enums as their string values, tuples as lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, enum.Enum):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    def differences(self, other: Rules) -> dict[str, tuple[Any, Any]]:
        """Rule fields whose values differ from ``other`` (name, title, source, notes left out)."""
        skip = {"name", "title", "source", "notes"}
        return {
            f.name: (getattr(self, f.name), getattr(other, f.name))
            for f in dataclasses.fields(self)
            if f.name not in skip and getattr(self, f.name) != getattr(other, f.name)
        }


def _problems(rules: Rules) -> list[str]:
    problems = []
    for name in (
        "opening_threshold",
        "joker_penalty",
        "overtime_draw",
        "failed_manipulation_draw",
        "freed_joker_min_own_tiles",
        "clock_increment_seconds",
    ):
        if getattr(rules, name) < 0:
            problems.append(f"{name} cannot be negative")
    for name in ("turn_seconds", "clock_seconds", "target_score"):
        value = getattr(rules, name)
        if value is not None and value <= 0:
            problems.append(f"{name} must be positive (or none)")
    if rules.never_opened_penalty is not None:
        if len(rules.never_opened_penalty) != 2 or min(rules.never_opened_penalty) < 0:
            problems.append("never_opened_penalty is two non-negative numbers: could not open, could have")
    if rules.match_end is MatchEnd.TARGET_SCORE and rules.target_score is None:
        problems.append("match_end target_score needs a target_score")
    low, high = rules.players
    if not 1 <= low <= high:
        problems.append("players is (fewest, most) with 1 <= fewest <= most")
    try:
        get_edition(rules.edition)
    except RummiError as error:
        problems.append(str(error))
    return problems


_NOT_STATED = "not stated by the source; keeps the majority value of rules.md"

PRESETS: dict[str, Rules] = {
    r.name: r
    for r in (
        Rules(
            name="pressman_us_2009",
            title="Pressman US rulebook (2009)",
            source="PRESSMAN-2009 (rules.md 0); bundle 1 of rules.md 6",
            turn_seconds=120,  # #12 2 min
            overtime_draw=1,  # #14
            failed_manipulation_draw=3,  # #13
            joker_replacement_from_table=False,  # #8 "from his rack, not the table"
            joker_free_by_rearranging=False,  # #9 retrieval only shown with a rack tile (#8 wins)
            freed_joker_min_own_tiles=2,  # #10 "with 2 or more tiles from his rack"
            joker_penalty=30,  # #15
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18
            match_end=MatchEnd.HIGHEST_TOTAL,  # #19 (or a target agreed at the start)
            notes=(
                "table play in the opening turn: " + _NOT_STATED,
                "freeing a joker by rearranging: the rulebook lets a set with a joker be split and "
                "lose tiles but retrieves a joker only with a tile 'from his rack, not the table' "
                "(rules.md 4.2); a freed joker therefore needs a rack tile it stood for. Allowing "
                "freeing by rearranging would let a table tile take its place, which #8 forbids",
                "match end: 'decide how many points to reach'; override match_end=target_score "
                "and target_score=N for that",
            ),
        ),
        Rules(
            name="goliath_modern",
            title="Goliath / rummikub.com (modern official)",
            source="GOLIATH-XP, GOLIATH-MINIXP-p4, RKB-COM-RULES, RKB-COM-ONLINE, RKB-OLDTEXT; bundle 2",
            turn_seconds=60,  # #12
            overtime_draw=3,  # #14 merged with the failed-manipulation penalty
            overtime_restores_table=True,  # #14
            failed_manipulation_draw=3,  # #13
            joker_replacement_from_table=True,  # #8 RKB-OLDTEXT
            joker_free_by_rearranging=True,  # #9 GOLIATH-MINIXP-p4 example
            freed_joker_min_own_tiles=0,  # #10 "a new set", count not stated
            table_play_in_opening_turn=False,  # #6
            joker_penalty=30,  # #15
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18
            notes=("freed joker: a new set is required but no number of own tiles is stated",),
        ),
        Rules(
            name="pl_wikipedia_tournament",
            title="Polish Wikipedia, tournament rules",
            source="PL-WIKI; bundle 3",
            turn_seconds=40,  # #12 tournaments (1 min in friendly play)
            overtime_draw=1,  # #14
            failed_manipulation_draw=1,  # #13
            joker_replacement_from_table=True,  # #8
            joker_free_by_rearranging=True,  # #9
            freed_joker_min_own_tiles=1,  # #10
            joker_penalty=50,  # #15
            never_opened_penalty=(100, 200),  # #16
            never_opened_waiver=True,  # #16
            bank_empty_scoring=BankEmptyScoring.PL_WIKI,  # #18 the worked example (29)
            notes=(
                "bank-empty scoring follows PL-WIKI's worked example (winner 29); its own scoring "
                "paragraph is internally unclear (rules.md 5.5)",
            ),
        ),
        Rules(
            name="mso_2019",
            title="Mind Sports Olympiad 2019 (2 players)",
            source="MSO-2019 (two jokers in one set per MSO-2025); bundle 4",
            players=(2, 2),
            deal_one_joker_each=True,  # #22
            reshuffle_on_three_pairs=True,  # #22
            turn_seconds=None,  # #12 no per-turn limit: Bronstein clock instead
            clock_seconds=600,
            clock_increment_seconds=10,
            table_play_in_opening_turn=False,  # #6
            joker_penalty=50,  # #15
            never_opened_penalty=(100, 200),  # #16
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18 "the loser pays, the winner gains"
            notes=(
                "bank-empty formula: not stated; DIFFERENCE chosen as the zero-sum reading [inferred]",
                "joker retrieval and failed-manipulation penalty: " + _NOT_STATED,
            ),
        ),
        Rules(
            name="czech_piatnik",
            title="Piatnik (Czech shop text)",
            source="CZ-SHOP; bundle 5",
            edition="standard4j",  # #2 four jokers in the box
            turn_seconds=120,  # #12
            overtime_draw=1,  # #14
            failed_manipulation_draw=3,  # #13
            joker_replacement_from_table=False,  # #8 "a tile on the player's own rack"
            joker_free_by_rearranging=False,  # #9 as pressman_us_2009: the rack tile is the way
            freed_joker_min_own_tiles=2,  # #10
            joker_penalty=30,  # #15
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18 losers subtract the winner's sum
        ),
        Rules(
            name="jumbo_de",
            title="Jumbo Original (Germany / Netherlands)",
            source="JUMBO-DE, KLUB-DE; bundle 5b",
            turn_seconds=60,  # #12 "we recommend 1 minute"
            table_play_in_opening_turn=False,  # #6
            joker_free_by_rearranging=True,  # #9
            joker_penalty=30,  # #15
            bank_empty_last_round=True,  # #17
            reshuffle_on_three_pairs=True,  # #22 KLUB-DE
            notes=(
                "time penalties, joker replacement, freed-joker tiles: " + _NOT_STATED,
                "bank-empty formula: the source's sentence is cut off; DIFFERENCE kept [inferred]",
            ),
        ),
        Rules(
            name="russian_wiki",
            title="Russian Wikipedia",
            source="RU-WIKI; bundle 6",
            turn_seconds=60,  # #12
            failed_manipulation_draw=3,  # #13
            joker_replacement_from_table=True,  # #8
            freed_joker_min_own_tiles=0,  # #10 new set, count not stated
            joker_in_opening=False,  # #7 literal wording "the joker cannot be used in the first move"
            joker_penalty=30,  # #15
            bank_empty_last_round=True,  # #17 "everyone gets one more turn"
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18
            notes=(
                "joker_in_opening follows the literal text; rules.md 3 suspects it means retrieving "
                "a table joker. Override joker_in_opening=true for the other reading",
            ),
        ),
        Rules(
            name="sabra_way_50",
            title="Sabra Way (50-point opening)",
            source="SABRA-WAY; bundle 7",
            opening_threshold=50,  # #5
            clockwise=False,  # #20
            joker_penalty=30,  # #15
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18
            notes=("time limit and joker retrieval: " + _NOT_STATED,),
        ),
        Rules(
            name="pagat_sabra",
            title="Sabra rules as copied from pagat.com",
            source="PAGAT-COPY (topcasinoguide paraphrase); toggle 9 of rules.md 6",
            table_play_in_opening_turn=True,  # #6 "in the same or subsequent turns"
            joker_free_by_rearranging=False,  # #9
            locked_joker_sets=True,  # #9 / toggle 9
            notes=("everything else: " + _NOT_STATED,),
        ),
        Rules(
            name="us_most_wins",
            title="US rulebook, most games won",
            source="US-MOSTWINS (Anniversary edition text)",
            joker_penalty=30,  # #15
            bank_empty_scoring=BankEmptyScoring.DIFFERENCE,  # #18
            match_end=MatchEnd.MOST_GAMES_WON,  # #19
        ),
        Rules(
            name="be_cafe_tournament",
            title="Belgian café tournament",
            source="BE-TOURN (also NL-ONCS for the 25-point joker)",
            joker_penalty=25,  # #15
            notes=("everything but the joker value: " + _NOT_STATED,),
        ),
        Rules(
            name="strict_group_1980",
            title="Pressman 1980 / Official Book strict joker group",
            source="PAGAT-QUOTES, RKB-ORG; toggle 8 of rules.md 6",
            turn_seconds=120,
            strict_joker_group=True,  # #11
            joker_free_by_rearranging=False,  # #9 as pressman_us_2009
            notes=("PRESSMAN-2009 values with the strict 3-tile-group rule",),
        ),
    )
}

#: The primary, fully read rulebook (rules.md section 0).
DEFAULT_PRESET = "pressman_us_2009"

_FIELDS = {f.name: f for f in dataclasses.fields(Rules)}
_FIXED = {"name"}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NONE = {"none", "null", "off", ""}


def get_rules(preset: str | Rules | None = None, **overrides: Any) -> Rules:
    """A preset by name (or a given :class:`Rules`), with any single rule overridden.

    Override values may be typed values or text as a user writes it on a command line
    (``"50"``, ``"true"``, ``"pl_wiki"``, ``"none"``, ``"100,200"``). An unknown preset or rule
    name raises :class:`RummiError` that lists the known ones.
    """
    base = _lookup(preset)
    if not overrides:
        return base
    unknown = sorted(set(overrides) - set(_FIELDS))
    if unknown:
        known = ", ".join(name for name in _FIELDS if name not in _FIXED)
        raise RummiError(f"unknown rule {', '.join(unknown)}; known rules: {known}")
    if "name" in overrides:
        raise RummiError("a preset's name cannot be overridden")
    values = {key: coerce_rule_value(key, value) for key, value in overrides.items()}
    return dataclasses.replace(base, **values)


def _lookup(preset: str | Rules | None) -> Rules:
    if preset is None:
        return PRESETS[DEFAULT_PRESET]
    if isinstance(preset, Rules):
        return preset
    if not isinstance(preset, str):
        raise RummiError(f"a preset is a name, got {type(preset).__name__}")
    key = preset.strip().lower().replace("-", "_")
    if key in PRESETS:
        return PRESETS[key]
    raise RummiError(f"unknown preset {preset!r}; known presets: {', '.join(PRESETS)}")


def parse_override(text: str) -> tuple[str, Any]:
    """Read one ``rule=value`` pair as typed on a command line, value still as text."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise RummiError(f"{text!r}: write a rule override as name=value, e.g. joker_penalty=50")
    return name.strip().lower().replace("-", "_"), value.strip()


def coerce_rule_value(name: str, value: Any) -> Any:
    """Turn ``value`` into the type the rule ``name`` holds; text is read leniently."""
    hint = typing.get_type_hints(Rules)[name]
    try:
        return _coerce(hint, value)
    except (TypeError, ValueError) as error:
        raise RummiError(f"rule {name}: {value!r} is not a valid value ({_describe_type(hint)})") from error


def _coerce(hint: Any, value: Any) -> Any:
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if value is None or (isinstance(value, str) and value.strip().lower() in _NONE):
            return None
        return _coerce(inner[0], value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        if isinstance(value, hint):
            return value
        return hint(str(value).strip().lower().replace("-", "_"))
    if hint is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError(value)
    if hint is int:
        if isinstance(value, bool):
            raise TypeError(value)
        if isinstance(value, int):
            return value
        return int(str(value).strip())
    if hint is str:
        if not isinstance(value, str):
            raise TypeError(value)
        return value
    if origin is tuple:
        items = value.split(",") if isinstance(value, str) else list(value)
        if args and args[-1] is not Ellipsis:
            if len(items) != len(args):
                raise ValueError(value)
            return tuple(_coerce(a, v) for a, v in zip(args, items))
        return tuple(_coerce(args[0], v) for v in items) if args else tuple(items)
    raise TypeError(hint)


def _describe_type(hint: Any) -> str:
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        return _describe_type(inner[0]) + " or none"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "one of " + ", ".join(m.value for m in hint)
    if hint is bool:
        return "true or false"
    if hint is int:
        return "a whole number"
    if origin is tuple:
        return "comma-separated values"
    return getattr(hint, "__name__", str(hint))
