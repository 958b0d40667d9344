"""Scoring: one game (someone went out, or the pool ran dry) and a match of several games.

Every number a preset decides comes from :class:`engine.rules.Rules` (rules.md section 5):

* a joker left on a rack costs ``joker_penalty`` (30, 50 or 25);
* someone went out: each loser scores minus their rack, the winner plus the sum (zero-sum);
  under tournament presets a player who never opened pays ``never_opened_penalty`` (100 if they
  could not have opened, 200 if they could have) **instead of** the rack count, and the winner
  collects it (rules.md 5.3: **[inferred]** replacement, since the loser "pays" what the winner gains);
* the pool ran dry: the lowest rack wins and one of three formulas applies (``BankEmptyScoring``).

    >>> from rummi.engine.notation import parse_tiles
    >>> racks = {"A": [], "B": parse_tiles("r4 b8"), "C": parse_tiles("r1 J")}
    >>> result = score_game(racks, "pressman_us_2009", winner="A")
    >>> result.scores
    {'A': 43, 'B': -12, 'C': -31}
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rummi.engine.errors import RummiError
from rummi.engine.notation import format_tiles
from rummi.engine.rules import BankEmptyScoring, MatchEnd, Rules, get_rules
from rummi.engine.tiles import Tile


class NotOpened(enum.Enum):
    """Why a player never laid their opening meld, for the never-opened penalty (rules.md 5.3)."""

    COULD_NOT = "could_not"  # could not have made the threshold: the lower penalty
    COULD_HAVE = "could_have"  # could have opened and did not: the higher penalty
    ANNOUNCED = "announced"  # could have, but drew the completing tile last round and announced it


class GameEnd(enum.Enum):
    WENT_OUT = "went_out"
    BANK_EMPTY = "bank_empty"


def rack_points(tiles: Iterable[Tile], rules: Rules | str | None = None) -> int:
    """What a rack costs its holder: face values, each joker at the preset's penalty."""
    penalty = get_rules(rules).joker_penalty
    return sum(penalty if t.is_joker else t.face_value for t in tiles)


@dataclass(frozen=True)
class GameResult:
    """The score of one game for every player, with the reason for each figure."""

    rules: Rules
    end: GameEnd
    winner: str
    scores: dict[str, int]
    rack_totals: dict[str, int]
    explanations: dict[str, str]

    @property
    def zero_sum(self) -> bool:
        return sum(self.scores.values()) == 0

    def describe(self) -> str:
        how = "went out" if self.end is GameEnd.WENT_OUT else "has the lowest rack (pool empty)"
        lines = [f"{self.winner} {how}; rules: {self.rules.name}"]
        for player, score in self.scores.items():
            lines.append(f"  {player}: {score:+d}  ({self.explanations[player]})")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.name,
            "end": self.end.value,
            "winner": self.winner,
            "scores": dict(self.scores),
            "rack_totals": dict(self.rack_totals),
            "explanations": dict(self.explanations),
            "zero_sum": self.zero_sum,
        }


def score_game(
    racks: Mapping[str, Sequence[Tile]],
    rules: Rules | str | None = None,
    *,
    winner: str | None = None,
    bank_empty: bool = False,
    not_opened: Mapping[str, NotOpened | str] | None = None,
) -> GameResult:
    """Score one game.

    ``racks`` maps every player (the winner included, in seating order) to the tiles left on
    their rack. When someone went out, ``winner`` names them and their rack must be empty. When
    the pool ran dry (``bank_empty``), the lowest rack wins; ``winner`` may name one of the tied
    lowest racks and is required when there is such a tie.

    The racks together must fit in the preset's box: three jokers in a standard game are a
    typo, not 90 points (:class:`ImpossibleStateError`).

    ``not_opened`` names players who never laid their opening. It matters only under presets
    with ``never_opened_penalty`` and only when someone went out, which is how PL-WIKI and
    MSO-2019 word the rule (rules.md 5.3); asking for it after the pool ran dry is an error.
    """
    preset = get_rules(rules)
    if len(racks) < 2:
        raise RummiError("scoring needs at least two players")
    preset.box.check_inventory(t for tiles in racks.values() for t in tiles)
    totals = {player: rack_points(tiles, preset) for player, tiles in racks.items()}
    not_opened = {p: NotOpened(v) if isinstance(v, str) else v for p, v in (not_opened or {}).items()}
    unknown = sorted(set(not_opened) - set(racks))
    if winner is not None and winner not in racks:
        unknown.append(winner)
    if unknown:
        named = ", ".join(name or "''" for name in unknown)  # an empty name must still show
        raise RummiError(f"no rack given for {named}; players: {', '.join(racks)}")
    if bank_empty:
        if not_opened and preset.never_opened_penalty is not None:
            raise RummiError(
                "the never-opened penalty applies when someone goes out, not when the pool runs dry"
            )
        return _score_bank_empty(racks, totals, preset, winner)
    return _score_went_out(racks, totals, preset, winner, not_opened)


def _score_went_out(
    racks: Mapping[str, Sequence[Tile]],
    totals: dict[str, int],
    rules: Rules,
    winner: str | None,
    not_opened: Mapping[str, NotOpened],
) -> GameResult:
    if winner is None:
        raise RummiError("name the player who went out (or say the pool ran empty)")
    if racks[winner]:
        raise RummiError(f"{winner} went out but still holds {format_tiles(racks[winner])}")
    if winner in not_opened:
        raise RummiError(f"{winner} went out, so {winner} has opened")
    scores: dict[str, int] = {}
    explanations: dict[str, str] = {}
    for player, tiles in racks.items():
        if player == winner:
            continue
        owed, why = _owed(player, tiles, totals[player], rules, not_opened.get(player))
        scores[player] = -owed
        explanations[player] = why
    scores[winner] = sum(-s for s in scores.values())
    explanations[winner] = "sum of what the others lost"
    ordered = {p: scores[p] for p in racks}
    return GameResult(rules, GameEnd.WENT_OUT, winner, ordered, totals, {p: explanations[p] for p in racks})


def _owed(
    player: str, tiles: Sequence[Tile], total: int, rules: Rules, reason: NotOpened | None
) -> tuple[int, str]:
    rack_text = _rack_text(tiles, total, rules)
    if reason is None or rules.never_opened_penalty is None:
        return total, rack_text
    could_not, could_have = rules.never_opened_penalty
    if reason is NotOpened.COULD_NOT:
        return could_not, f"never opened, could not have: {could_not} instead of the rack"
    if reason is NotOpened.ANNOUNCED and rules.never_opened_waiver:
        return could_not, f"never opened, announced opening waives the {could_have}: {could_not}"
    return could_have, f"never opened though able to: {could_have} instead of the rack"


def _rack_text(tiles: Sequence[Tile], total: int, rules: Rules) -> str:
    if not tiles:
        return "empty rack"
    jokers = sum(1 for t in tiles if t.is_joker)
    extra = f", joker {rules.joker_penalty} each" if jokers else ""
    return f"rack {format_tiles(tiles)} = {total}{extra}"


def _score_bank_empty(
    racks: Mapping[str, Sequence[Tile]], totals: dict[str, int], rules: Rules, winner: str | None
) -> GameResult:
    lowest = min(totals.values())
    tied = [p for p, t in totals.items() if t == lowest]
    if winner is None:
        if len(tied) > 1:
            raise RummiError(f"{' and '.join(tied)} tie for the lowest rack ({lowest}); name the winner")
        winner = tied[0]
    elif winner not in tied:
        raise RummiError(f"{winner} does not hold the lowest rack ({totals[winner]} > {lowest})")
    w = totals[winner]
    losers = [p for p in racks if p != winner]
    formula = rules.bank_empty_scoring
    scores: dict[str, int] = {}
    explanations: dict[str, str] = {}
    for p in losers:
        base = _rack_text(racks[p], totals[p], rules)
        if formula is BankEmptyScoring.DIFFERENCE:
            scores[p] = -(totals[p] - w)
            explanations[p] = f"{base}, minus the winner's {w}"
        else:
            scores[p] = -totals[p]
            explanations[p] = base
    gained = sum(-scores[p] for p in losers)
    if formula is BankEmptyScoring.PL_WIKI:
        scores[winner] = gained - w
        explanations[winner] = f"the others' racks ({gained}) minus own rack ({w})"
    else:
        scores[winner] = gained
        explanations[winner] = (
            "sum of the differences to the others' racks"
            if formula is BankEmptyScoring.DIFFERENCE
            else "sum of the others' racks"
        )
    ordered = {p: scores[p] for p in racks}
    return GameResult(rules, GameEnd.BANK_EMPTY, winner, ordered, totals, {p: explanations[p] for p in racks})


@dataclass
class ScoreSheet:
    """Running scores of a match: one row per game, totals, games won and the match winner.

    How the match ends follows ``rules.match_end``: the highest total after the games played,
    the first to ``rules.target_score``, or the most games won with the total breaking ties.
    """

    players: tuple[str, ...]
    rules: Rules = field(default_factory=get_rules)
    games: list[GameResult] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.players = tuple(self.players)
        if len(set(self.players)) != len(self.players) or len(self.players) < 2:
            raise RummiError("a score sheet needs two or more different players")
        self.rules = get_rules(self.rules)

    def add(self, result: GameResult) -> None:
        if set(result.scores) != set(self.players):
            raise RummiError(
                f"game players {', '.join(result.scores)} differ from the sheet's {', '.join(self.players)}"
            )
        if self.finished:
            raise RummiError(f"the match is over: {self.match_winner} reached {self.rules.target_score}")
        self.games.append(result)

    def score(self, racks: Mapping[str, Sequence[Tile]], **kwargs: Any) -> GameResult:
        """Score one game with the sheet's rules and add it as the next row."""
        result = score_game(racks, self.rules, **kwargs)
        self.add(result)
        return result

    @property
    def totals(self) -> dict[str, int]:
        return {p: sum(g.scores[p] for g in self.games) for p in self.players}

    @property
    def games_won(self) -> dict[str, int]:
        return {p: sum(1 for g in self.games if g.winner == p) for p in self.players}

    @property
    def finished(self) -> bool:
        """Only a target score ends a match by itself; otherwise the players decide when to stop."""
        if self.rules.match_end is not MatchEnd.TARGET_SCORE:
            return False
        return max(self.totals.values(), default=0) >= (self.rules.target_score or 0)

    def standings(self) -> list[str]:
        """Players from first to last under the preset's match-end rule."""
        totals, won = self.totals, self.games_won
        if self.rules.match_end is MatchEnd.MOST_GAMES_WON:
            return sorted(self.players, key=lambda p: (-won[p], -totals[p]))
        return sorted(self.players, key=lambda p: -totals[p])

    @property
    def match_winner(self) -> str | None:
        """The leader, or ``None`` while nobody has played, it is a tie, or a target is unreached."""
        if not self.games:
            return None
        if self.rules.match_end is MatchEnd.TARGET_SCORE and not self.finished:
            return None
        first, second = self.standings()[:2]
        if self._rank_key(first) == self._rank_key(second):
            return None
        return first

    def _rank_key(self, player: str) -> tuple[int, ...]:
        if self.rules.match_end is MatchEnd.MOST_GAMES_WON:
            return (self.games_won[player], self.totals[player])
        return (self.totals[player],)

    def describe(self) -> str:
        """The score sheet as a table, as players write it."""
        width = max(6, *(len(p) for p in self.players))
        header = "game  " + " ".join(p.rjust(width) for p in self.players)
        rows = [header]
        for number, game in enumerate(self.games, 1):
            rows.append(f"{number:<5} " + " ".join(f"{game.scores[p]:+d}".rjust(width) for p in self.players))
        rows.append("total " + " ".join(f"{t:+d}".rjust(width) for t in self.totals.values()))
        if self.rules.match_end is MatchEnd.MOST_GAMES_WON:
            rows.append("won   " + " ".join(str(n).rjust(width) for n in self.games_won.values()))
        winner = self.match_winner
        rows.append(f"match winner: {winner}" if winner else "match winner: none yet")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.name,
            "players": list(self.players),
            "games": [g.to_dict() for g in self.games],
            "totals": self.totals,
            "games_won": self.games_won,
            "match_end": self.rules.match_end.value,
            "finished": self.finished,
            "match_winner": self.match_winner,
        }
