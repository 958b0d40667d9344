"""Games kept by the service: the referee's :class:`api.storage.GameStore`, safe under load.

Each game has its own lock in this process: read the game, let the engine judge or score,
write the change, all under that game's lock. A turn posted while another is being recorded
for the same game waits and then follows it, so the record stays a clean sequence 1, 2, 3...
whatever the timing; turns of other games go on meanwhile (on PostgreSQL through the pool's
connections; SQLite's one connection takes one transaction at a time). Several service processes on one database are kept
apart by the store itself (a turn must follow the stored turn count); the loser of such a race
gets :class:`GameConflictError` (HTTP 409) and may simply retry.

A turn posted with an ``Idempotency-Key`` is recorded once, whatever the retries: the key is
stored in the turn's own transaction, and a request with a key already stored gets the first
answer back (the game as that turn left it) instead of a second turn. A retry that races its
first attempt in another process loses on the key's unique index and is then answered the
same way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence

from rummi.api.errors import (
    GameConflictError,
    GameNotFoundError,
    NotYourSeatError,
    OutOfTurnError,
    TurnNotAmendableError,
)
from rummi.api.storage import (
    Database,
    DatabaseFailureError,
    GameStore,
    GameSummary,
    StorageError,
    StoredGame,
    WriteConflictError,
)
from rummi.engine.errors import RummiError
from rummi.engine.game import Game, Turn, score_sheet
from rummi.engine.referee import Spot
from rummi.engine.scoring import ScoreSheet
from rummi.engine.tiles import Tile

Sets = Sequence[Sequence[Tile]]


class GameRecords:
    """The service's games: each operation reads, judges and writes under its game's lock."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._lock = threading.Lock()  # guards the table of locks below
        self._game_locks: dict[int, threading.Lock] = {}
        self._editions: dict[int, str] = {}

    def _locked(self, game_id: int) -> threading.Lock:
        with self._lock:
            lock = self._game_locks.get(game_id)
            if lock is None:
                if len(self._game_locks) > 10_000:  # forget idle ones; a held lock stays referenced
                    self._game_locks = {k: v for k, v in self._game_locks.items() if v.locked()}
                lock = self._game_locks[game_id] = threading.Lock()
            return lock

    @classmethod
    def open(cls, url: str) -> GameRecords:
        return cls(GameStore.open(url))

    def close(self) -> None:
        self._store.close()

    @property
    def database(self) -> Database:
        """The store's database (its pool), for what else the service keeps there."""
        return self._store.db

    def create(self, game: Game, *, enforce_order: bool = False) -> StoredGame:
        self._store.create(game, enforce_order=enforce_order)
        return StoredGame(game, enforce_order)

    def load(self, game_id: int) -> Game:
        return self.load_record(game_id).game

    def load_record(self, game_id: int) -> StoredGame:
        with self._locked(game_id):
            return self._load(game_id)

    def edition_of(self, game_id: int) -> str:
        """The game's tile box (fixed at creation), to parse a request before the locked work;
        remembered, so a turn post reads the game once, not twice."""
        edition = self._editions.get(game_id)
        if edition is None:
            edition = self.load(game_id).edition
            if len(self._editions) > 10_000:
                self._editions.clear()
            self._editions[game_id] = edition
        return edition

    def list(self) -> list[GameSummary]:
        return self._store.list_games()

    def ping(self) -> None:
        """Raise :class:`DatabaseFailureError` unless the database answers now (no lock: a
        health check must not queue behind a slow write)."""
        self._store.db.ping()

    def play(
        self,
        game_id: int,
        after: Sets,
        *,
        player: str | None = None,
        before: Sets | None = None,
        rack: Sequence[Tile] | None = None,
        drew: int = 0,
        seconds: float | None = None,
        uncertain: Collection[Spot] = (),
        request_key: str | None = None,
        seat: int | None = None,
        check_order: bool = True,
    ) -> tuple[StoredGame, Turn, bool]:
        """Judge and record the next turn; ``before`` defaults to the table the game left.

        ``player`` defaults to the holder of a player's join code (``seat``), else to whoever
        is next. A game that enforces its order refuses anyone else (:class:`OutOfTurnError`);
        a player's code never posts another player's turn (:class:`NotYourSeatError`).
        ``check_order=False`` is for a caller that owns the order itself: a watch session's
        tracker, which has seen every change at the table, including one it could not judge
        (and so did not record); refusing its next turn would stop the record for good.

        Returns the game, the turn and whether this is the stored answer to an earlier request
        with the same ``request_key`` (then nothing new was recorded).
        """
        with self._locked(game_id):
            if request_key is not None:
                number = self._store.turn_for_request(game_id, request_key)
                if number is not None:
                    return (*self._as_after(game_id, number), True)
            record = self._load(game_id)
            game = record.game
            player = self._whose_turn(record, player, seat, check_order)
            turn = game.play(
                player,
                game.table if before is None else before,
                after,
                rack=rack,
                drew=drew,
                seconds=seconds,
                uncertain=uncertain,
            )
            try:
                self._write(game_id, lambda: self._store.add_turn(game_id, turn, request_key))
            except GameConflictError:
                number = None if request_key is None else self._store.turn_for_request(game_id, request_key)
                if number is None:
                    raise
                return (*self._as_after(game_id, number), True)  # our retry won elsewhere
            return record, turn, False

    def amend_last(
        self,
        game_id: int,
        number: int,
        after: Sets,
        *,
        player: str,
        before: Sets,
        seconds: float | None = None,
        uncertain: Collection[Spot] = (),
    ) -> tuple[StoredGame, Turn]:
        """Judge turn ``number``, the game's last, again on a new table after and record it in
        its place (:meth:`GameStore.replace_last_turn`): a watched player paused, then went on."""
        with self._locked(game_id):
            record = self._load(game_id)
            game = record.game
            if not game.turns or game.turns[-1].number != number or game.turns[-1].player != player:
                last = f"turn {game.turns[-1].number}, {game.turns[-1].player}'s" if game.turns else "no turn"
                raise TurnNotAmendableError(game_id, number, player, last)
            game.turns.pop()
            turn = game.play(player, before, after, seconds=seconds, uncertain=uncertain)
            self._write(game_id, lambda: self._store.replace_last_turn(game_id, turn))
            return record, turn

    @staticmethod
    def _whose_turn(record: StoredGame, player: str | None, seat: int | None, check_order: bool = True) -> str:
        """The player a turn post is for, after the join code's and the turn order's checks."""
        game = record.game
        holder = None
        if seat is not None:
            if seat >= len(game.players):
                raise NotYourSeatError(f"seat {seat + 1}", player or game.next_player)
            holder = game.players[seat]
            if player is not None and player != holder:
                raise NotYourSeatError(holder, player)
        who = player or holder or game.next_player
        if check_order and record.enforce_order and not game.finished and who != game.next_player:
            raise OutOfTurnError(game.id, who, game.next_player, len(game.turns) + 1)
        return who

    def _as_after(self, game_id: int, number: int) -> tuple[StoredGame, Turn]:
        """The game as turn ``number`` left it, and that turn: the first answer to its request."""
        record = self._load(game_id)
        stored = record.game
        game = Game(
            players=stored.players,
            rules=stored.rules,
            turns=list(stored.turns[:number]),
            id=stored.id,
            started_at=stored.started_at,
        )
        return StoredGame(game, record.enforce_order), game.turns[-1]

    def finish(self, game_id: int, racks: Mapping[str, Sequence[Tile]], **how: object) -> StoredGame:
        """Score the end of the game (see :meth:`engine.game.Game.finish`) and record it."""
        with self._locked(game_id):
            record = self._load(game_id)
            game = record.game
            game.finish(racks, **how)  # type: ignore[arg-type]
            self._write(game_id, lambda: self._store.finish(game_id, game))
            return record

    def sheet(self, game_ids: Sequence[int]) -> ScoreSheet:
        if len(set(game_ids)) != len(game_ids):
            raise RummiError("a game can be on the score sheet only once")
        games = [self.load(game_id) for game_id in game_ids]
        return score_sheet(games)

    def _load(self, game_id: int) -> StoredGame:
        try:
            return self._store.load_record(game_id)
        except StorageError as error:
            if str(error) == f"no game {game_id}":
                raise GameNotFoundError(game_id) from None
            raise

    def _write(self, game_id: int, write: Callable[[], object]) -> None:
        try:
            write()
        except DatabaseFailureError:
            raise
        except (StorageError, WriteConflictError) as error:
            # Only another process can have changed the game between our read and this write.
            raise GameConflictError(game_id, str(error)) from None
