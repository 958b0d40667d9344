"""The record of one game: players, preset, every turn with its two pictures and verdict, the end.

Pure data and bookkeeping, no I/O: :mod:`api.storage` writes these records to a database and
exports them. A turn keeps the verdict as the referee gave it at the time (a plain dict), so
a record read back years later says what was decided then, whatever the engine says now.

    >>> from rummi.engine.notation import parse_sets, parse_tiles
    >>> game = Game(players=("Ann", "Bob"), rules="pressman_us_2009")
    >>> turn = game.play("Ann", [], parse_sets("r10 r11 r12"))
    >>> turn.legal, game.has_opened("Ann"), game.next_player
    (True, True, 'Bob')
    >>> game.play("Bob", turn.after, turn.after, drew=1).legal
    True
    >>> game.finish({"Ann": [], "Bob": parse_tiles("k5 J")}, winner="Ann").scores
    {'Ann': 35, 'Bob': -35}
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rummi.engine.errors import NotationError, RummiError
from rummi.engine.notation import (
    parse_sets,
    parse_tiles,
    sets_from_json,
    sets_to_json,
    tile_from_json,
    tile_to_json,
)
from rummi.engine.referee import judge_turn
from rummi.engine.referee.seen import Spot
from rummi.engine.rules import Rules, get_rules
from rummi.engine.scoring import GameEnd, GameResult, NotOpened, ScoreSheet, score_game
from rummi.engine.tiles import Tile

if TYPE_CHECKING:
    from rummi.engine.referee.never_opened import OpeningCheck

Table = tuple[tuple[Tile, ...], ...]


@dataclass(frozen=True)
class Turn:
    """One turn as recorded: who, the table before and after, what was drawn, the verdict.

    ``drew`` counts every tile the player took from the pool this turn (the plain draw and any
    penalty tiles). ``verdict`` is :meth:`engine.referee.TurnVerdict.to_dict` output.
    """

    number: int
    player: str
    before: Table
    after: Table
    verdict: Mapping[str, Any]
    rack: tuple[Tile, ...] | None = None
    drew: int = 0
    seconds: float | None = None

    @property
    def legal(self) -> bool:
        return bool(self.verdict.get("legal"))

    @property
    def opens(self) -> bool:
        return bool(self.verdict.get("opens"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "player": self.player,
            "before": sets_to_json(self.before),
            "after": sets_to_json(self.after),
            "rack": None if self.rack is None else [tile_to_json(t) for t in self.rack],
            "drew": self.drew,
            "seconds": self.seconds,
            "verdict": dict(self.verdict),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], edition: str | None = None) -> Turn:
        rack = data.get("rack")
        return cls(
            number=int(data["number"]),
            player=str(data["player"]),
            before=_table(_read_sets(data["before"], edition)),
            after=_table(_read_sets(data["after"], edition)),
            verdict=dict(data["verdict"]),
            rack=None if rack is None else tuple(_read_tiles(rack, edition)),
            drew=int(data.get("drew") or 0),
            seconds=None if data.get("seconds") is None else float(data["seconds"]),
        )


def _read_sets(value: Any, edition: str | None) -> list[list[Tile]]:
    """A table as records hold it: the JSON form (a list of sets), or notation text (records
    written before the JSON form was one, and the database's columns)."""
    return parse_sets(value, edition) if isinstance(value, str) else sets_from_json(value, edition)


def _read_tiles(value: Any, edition: str | None) -> list[Tile]:
    if isinstance(value, str):
        return parse_tiles(value, edition)
    if not isinstance(value, list):
        raise NotationError("a rack is a list of tiles")
    return [tile_from_json(t, edition) for t in value]


@dataclass(frozen=True)
class Ending:
    """How the game ended and what everyone scored (engine scoring)."""

    end: GameEnd
    winner: str
    racks: Mapping[str, tuple[Tile, ...]]
    scores: Mapping[str, int]
    explanations: Mapping[str, str]

    @classmethod
    def from_result(cls, result: GameResult, racks: Mapping[str, Sequence[Tile]]) -> Ending:
        return cls(
            end=result.end,
            winner=result.winner,
            racks={p: tuple(t) for p, t in racks.items()},
            scores=dict(result.scores),
            explanations=dict(result.explanations),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "end": self.end.value,
            "winner": self.winner,
            "racks": {p: [tile_to_json(t) for t in tiles] for p, tiles in self.racks.items()},
            "scores": dict(self.scores),
            "explanations": dict(self.explanations),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], edition: str | None = None) -> Ending:
        return cls(
            end=GameEnd(data["end"]),
            winner=str(data["winner"]),
            racks={p: tuple(_read_tiles(t, edition)) for p, t in data["racks"].items()},
            scores={p: int(s) for p, s in data["scores"].items()},
            explanations=dict(data.get("explanations") or {}),
        )


@dataclass
class Game:
    """A game in progress or finished. ``id`` is set by whoever stores it."""

    players: tuple[str, ...]
    rules: Rules | str | None = None
    turns: list[Turn] = field(default_factory=list)
    ending: Ending | None = None
    id: int | None = None
    started_at: str | None = None

    def __post_init__(self) -> None:
        self.players = tuple(self.players)
        self.rules = get_rules(self.rules)
        if len(self.players) < 2 or len(set(self.players)) != len(self.players):
            raise RummiError("a game needs two or more players with different names")
        if any(not p.strip() for p in self.players):
            raise RummiError("a player's name cannot be empty")

    @property
    def preset(self) -> Rules:
        assert isinstance(self.rules, Rules)
        return self.rules

    @property
    def edition(self) -> str:
        return self.preset.edition

    @property
    def finished(self) -> bool:
        return self.ending is not None

    @property
    def next_player(self) -> str:
        """Who plays next, in seating order from the first player."""
        return self.players[len(self.turns) % len(self.players)]

    @property
    def table(self) -> Table:
        """The table as the last turn left it (empty before the first).

        After an illegal turn whose consequence restores the table, that is the table before
        it: the player had to put it back.
        """
        if not self.turns:
            return ()
        last = self.turns[-1]
        restored = last.verdict.get("status") == "illegal" and last.verdict.get("consequence", {}).get(
            "restore_table"
        )
        return last.before if restored else last.after

    def has_opened(self, player: str) -> bool:
        return any(t.player == player and t.opens for t in self.turns)

    def play(
        self,
        player: str,
        before: Sequence[Sequence[Tile]],
        after: Sequence[Sequence[Tile]],
        *,
        rack: Sequence[Tile] | None = None,
        drew: int = 0,
        seconds: float | None = None,
        uncertain: Collection[Spot] = (),
    ) -> Turn:
        """Judge a turn with the game's preset and add it to the record."""
        self._check_player(player)
        if self.finished:
            raise RummiError("the game is over; start a new one")
        verdict = judge_turn(
            before,
            after,
            opened=self.has_opened(player),
            rack=rack,
            rules=self.preset,
            seconds=seconds,
            drew=drew > 0,
            uncertain=uncertain,
        )
        turn = Turn(
            number=len(self.turns) + 1,
            player=player,
            before=_table(before),
            after=_table(after),
            verdict=verdict.to_dict(),
            rack=None if rack is None else tuple(rack),
            drew=drew,
            seconds=seconds,
        )
        self.turns.append(turn)
        return turn

    def finish(
        self,
        racks: Mapping[str, Sequence[Tile]],
        *,
        winner: str | None = None,
        bank_empty: bool = False,
        not_opened: Mapping[str, NotOpened | str] | None = None,
    ) -> Ending:
        """End the game: score every rack with the preset (see :func:`engine.scoring.score_game`).

        ``not_opened`` says, for players who never opened, whether they could have (the
        tournament presets' 100/200 penalty). When it is not given and the preset has that
        penalty, the solver decides it from each such player's last rack (:meth:`opening_checks`).
        """
        if self.finished:
            raise RummiError("the game is already over")
        if set(racks) != set(self.players):
            raise RummiError(f"give a rack for every player: {', '.join(self.players)}")
        ordered = {p: list(racks[p]) for p in self.players}
        if not_opened is None and self.preset.never_opened_penalty is not None and not bank_empty:
            not_opened = {p: c.not_opened for p, c in self.opening_checks(ordered).items() if p != winner}
        result = score_game(ordered, self.preset, winner=winner, bank_empty=bank_empty, not_opened=not_opened)
        self.ending = Ending.from_result(result, ordered)
        return self.ending

    def never_opened(self) -> list[str]:
        """Players who have not laid their opening meld yet."""
        return [p for p in self.players if not self.has_opened(p)]

    def opening_checks(self, racks: Mapping[str, Sequence[Tile]]) -> dict[str, OpeningCheck]:
        """For each player who never opened: could their rack have opened? (with one opening).

        A player who never opened has only ever drawn, so their last rack holds every earlier
        one: if any rack of theirs could open, this one can.
        """
        from rummi.engine.referee.never_opened import (
            could_have_opened,  # the solver loads SciPy: only when asked
        )

        return {p: could_have_opened(racks[p], rules=self.preset) for p in self.never_opened() if p in racks}

    def _check_player(self, player: str) -> None:
        if player not in self.players:
            raise RummiError(f"{player!r} is not playing; players: {', '.join(self.players)}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started_at": self.started_at,
            "players": list(self.players),
            "rules": self.preset.to_dict(),
            "turns": [t.to_dict() for t in self.turns],
            "ending": None if self.ending is None else self.ending.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        rules = rules_from_dict(data["rules"])
        return cls(
            players=tuple(data["players"]),
            rules=rules,
            turns=[Turn.from_dict(t, rules.edition) for t in data.get("turns") or ()],
            ending=None if not data.get("ending") else Ending.from_dict(data["ending"], rules.edition),
            id=data.get("id"),
            started_at=data.get("started_at"),
        )


def rules_from_dict(data: Mapping[str, Any] | str) -> Rules:
    """Rules written by :meth:`Rules.to_dict` (or a preset name), read back exactly."""
    if isinstance(data, str):
        return get_rules(data)
    base = get_rules(data["name"])
    overrides = {
        k: v
        for k, v in data.items()
        if k not in ("name", "title", "source", "notes") and base.to_dict().get(k) != v
    }
    return get_rules(base, **overrides)


def score_sheet(games: Sequence[Game]) -> ScoreSheet:
    """The running score sheet of finished games played by the same players under one preset."""
    if not games:
        raise RummiError("no games to put on a score sheet")
    first = games[0]
    sheet = ScoreSheet(first.players, first.preset)
    for game in games:
        if game.ending is None:
            raise RummiError(f"game {game.id} is not finished")
        result = GameResult(
            rules=game.preset,
            end=game.ending.end,
            winner=game.ending.winner,
            scores=dict(game.ending.scores),
            rack_totals={},
            explanations=dict(game.ending.explanations),
        )
        sheet.add(result)
    return sheet


def _table(sets: Sequence[Sequence[Tile]]) -> Table:
    return tuple(tuple(s) for s in sets)
