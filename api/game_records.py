"""Games kept by the service: the referee's :class:`api.storage.GameStore`, safe under load.

The store holds one database connection, so this process lets one operation use it at a time:
read the game, let the engine judge or score, write the change, all under one lock. A turn
posted while another is being recorded waits and then follows it, so the record stays a clean
sequence 1, 2, 3... whatever the timing. Several service processes on one database are kept
apart by the store itself (a turn must follow the stored turn count); the loser of such a race
gets :class:`GameConflictError` (HTTP 409) and may simply retry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence

from rummi.api.errors import GameConflictError, GameNotFoundError
from rummi.api.storage import DatabaseFailureError, GameStore, GameSummary, StorageError
from rummi.engine.errors import RummiError
from rummi.engine.game import Game, Turn, score_sheet
from rummi.engine.referee import Spot
from rummi.engine.scoring import ScoreSheet
from rummi.engine.tiles import Tile

Sets = Sequence[Sequence[Tile]]


class GameRecords:
    """The service's games: each operation reads, judges and writes under one lock."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._lock = threading.Lock()

    @classmethod
    def open(cls, url: str) -> GameRecords:
        return cls(GameStore.open(url))

    def close(self) -> None:
        with self._lock:
            self._store.close()

    def create(self, game: Game) -> Game:
        with self._lock:
            self._store.create(game)
        return game

    def load(self, game_id: int) -> Game:
        with self._lock:
            return self._load(game_id)

    def list(self) -> list[GameSummary]:
        with self._lock:
            return self._store.list_games()

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
    ) -> tuple[Game, Turn]:
        """Judge and record the next turn; ``before`` defaults to the table the game left."""
        with self._lock:
            game = self._load(game_id)
            turn = game.play(
                player or game.next_player,
                game.table if before is None else before,
                after,
                rack=rack,
                drew=drew,
                seconds=seconds,
                uncertain=uncertain,
            )
            self._write(game_id, lambda: self._store.add_turn(game_id, turn))
            return game, turn

    def finish(self, game_id: int, racks: Mapping[str, Sequence[Tile]], **how: object) -> Game:
        """Score the end of the game (see :meth:`engine.game.Game.finish`) and record it."""
        with self._lock:
            game = self._load(game_id)
            game.finish(racks, **how)  # type: ignore[arg-type]
            self._write(game_id, lambda: self._store.finish(game_id, game))
            return game

    def sheet(self, game_ids: Sequence[int]) -> ScoreSheet:
        if len(set(game_ids)) != len(game_ids):
            raise RummiError("a game can be on the score sheet only once")
        with self._lock:
            games = [self._load(game_id) for game_id in game_ids]
        return score_sheet(games)

    def _load(self, game_id: int) -> Game:
        try:
            return self._store.load(game_id)
        except StorageError as error:
            if str(error) == f"no game {game_id}":
                raise GameNotFoundError(game_id) from None
            raise

    def _write(self, game_id: int, write: Callable[[], object]) -> None:
        try:
            write()
        except DatabaseFailureError:
            raise
        except StorageError as error:
            # Only another process can have changed the game between our read and this write.
            raise GameConflictError(game_id, str(error)) from None
