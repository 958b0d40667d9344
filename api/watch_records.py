"""A watched table's turns written into its stored game: one implementation for the service's
watch sessions and for `rummi watch --game`.

The tracker numbers its turns from 1 for the session and counts a reading it could not judge
(never stored); the game numbers every turn it holds (some recorded by hand, or by an earlier
session). So each tracker turn this recorder wrote is mapped to the ``Turn.number`` the game
gave it, and an amend (the same player went on after a pause) replaces *that* turn, through
:meth:`GameRecords.amend_last` (the game's lock, and only while it is still the game's last
and its player's): never a turn this recorder did not write itself, such as one a player
posted with their own code. An amend whose first part was not written records the whole turn
as a new one.
"""

from __future__ import annotations

import logging
from typing import Any

from rummi.api.errors import GameConflictError, GameNotFoundError
from rummi.api.game_records import GameRecords
from rummi.api.storage import StorageError
from rummi.api.watch_sessions import tables_of
from rummi.engine.errors import RummiError

log = logging.getLogger("rummi.api")


class WatchedGameGoneError(RummiError):
    """The game a watch records into no longer exists (deleted while it was watched)."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id} no longer exists (it was deleted while the table was watched): "
                         "watching it has stopped")


class WatchedGameRecorder:
    """Writes each judged turn of one watched table into stored game ``game_id``."""

    def __init__(self, games: GameRecords, game_id: int, edition: str) -> None:
        self.games = games
        self.game_id = game_id
        self.edition = edition
        self._recorded_as: dict[int, int] = {}  # tracker turn number -> the game's Turn.number

    def add(self, event: Any) -> None:
        """Record one ``turn``/``uncertain`` event; sets ``recorded`` (and ``game_turn`` or
        ``record_error``) in its data. Raises :class:`WatchedGameGoneError` when the game is gone:
        nothing more can be recorded, so the watching must stop."""
        data = event.data
        if "verdict" not in data:
            # A reading no table can be (more of a tile than the box holds): there is no turn
            # the game's referee could judge, so nothing to store; the page says so, and the
            # referee records the turn by hand once the table is checked (docs/watch.md).
            data["recorded"] = False
            data["record_error"] = "the camera's reading of this turn cannot be judged; check the table"
            return
        try:
            before, after = tables_of(data, self.edition)
            amended = self._recorded_as.get(data["amends"]) if "amends" in data else None
            if amended is not None:  # the same player went on after a pause: one turn, judged again
                _, turn = self.games.amend_last(self.game_id, amended, after, player=data["player"], before=before,
                                                seconds=data["seconds"], uncertain=event.spots)
            else:
                # The tracker owns the order: it saw every change, also one it could not judge
                # (and so did not record); the game's own order check would refuse every turn after it.
                _, turn, _ = self.games.play(self.game_id, after, player=data["player"], before=before,
                                             drew=1 if data["drew"] else 0, seconds=data["seconds"],
                                             uncertain=event.spots, check_order=False)
        except GameNotFoundError:
            data["recorded"] = False
            error = WatchedGameGoneError(self.game_id)
            data["record_error"] = str(error)
            raise error from None
        except (RummiError, StorageError, GameConflictError) as error:
            log.warning("watch: turn not recorded in game %s: %s", self.game_id, error)
            data["recorded"] = False
            data["record_error"] = str(error)
            return
        self._recorded_as[data["number"]] = turn.number
        data["recorded"] = True
        data["game_turn"] = turn.number
