"""The service's watched tables: one :class:`vision.watch.TurnTracker` per session, in memory.

A phone on a stand posts the frames of its camera; each session keeps the same tracker
`rummi watch` uses, so the page gets the turns, timer and verdicts from the one
implementation. Sessions are few and short-lived by nature (a table, a game): at most
:data:`MAX_SESSIONS` are kept, one idle for :data:`IDLE_SECONDS` is forgotten, a game has one
session (a new one for the same game replaces it: the page reloaded, or a second phone took
over), and a new one beyond the bound replaces the one idle longest only when that one has had
no frame for :data:`STALE_SECONDS`; else it is refused (:class:`WatchSessionsFullError`, 503),
so nobody can end another table's watching by starting sessions. A frame that arrives while the session's
previous frame is still being read is skipped at once (``processed: false``), never queued:
the phone simply sends its next one.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rummi.engine.errors import RummiError
from rummi.engine.notation import parse_tile
from rummi.engine.rules import Rules

MAX_SESSIONS = 8
IDLE_SECONDS = 15 * 60
#: A session with no frame for this long is one a camera has stopped feeding (a closed page).
STALE_SECONDS = 60
#: Events a session keeps for ``GET /watch/{session}`` (the newest ones).
KEPT_EVENTS = 500


class WatchSessionsFullError(Exception):
    """Every session is in use: a new one would end a table that is being watched."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} tables are being watched, as many as this service follows at once; "
                         f"try again when one stops (a session with no frame for {STALE_SECONDS} s gives way)")


class WatchSessionNotFoundError(LookupError):
    def __init__(self, session: str) -> None:
        super().__init__(f"no watch session {session!r} (it ended, or was idle over {IDLE_SECONDS // 60} minutes)")


@dataclass
class WatchSession:
    """One watched table: its tracker, what it reported, and the game it records into."""

    id: str
    tracker: Any  # vision.watch.TurnTracker (imported lazily: it loads OpenCV)
    game_id: int | None
    started: float = field(default_factory=time.monotonic)
    used: float = field(default_factory=time.monotonic)
    events: list[dict] = field(default_factory=list)
    busy: threading.Lock = field(default_factory=threading.Lock)

    def clock(self) -> float:
        """Seconds since the session started, for frames posted without a time."""
        return time.monotonic() - self.started

    def keep(self, events: Sequence[dict]) -> None:
        self.events.extend(events)
        del self.events[:-KEPT_EVENTS]

    def summary(self) -> dict[str, Any]:
        tracker = self.tracker
        return {
            "session": self.id,
            "players": list(tracker.players),
            "rules": tracker.rules.name,
            "game": self.game_id,
            "amend_pauses": tracker.settings.amend_same_side,
            "state": tracker.state,
            "next_player": tracker.next_player,
            "turns": tracker.turns,
            "turn_started": None if tracker.turn_started is None else round(tracker.turn_started, 3),
            "table": [[str(t) for t in s] for s in tracker.table],
        }


class WatchSessions:
    """The bounded, expiring set of sessions; safe to use from worker threads."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, idle_seconds: float = IDLE_SECONDS) -> None:
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._sessions: dict[str, WatchSession] = {}
        self._lock = threading.Lock()

    def create(
        self,
        scanner: Any,
        players: Sequence[str],
        rules: Rules,
        *,
        opened: Sequence[str] = (),
        first: str | None = None,
        game_id: int | None = None,
        record: Callable[[Any], None] | None = None,
        amend_pauses: bool = True,
    ) -> WatchSession:
        from rummi.vision.watch import TurnTracker, WatchSettings

        session_id = uuid.uuid4().hex[:16]
        on_turn = record if game_id is not None else None  # writes each turn into the game
        tracker = TurnTracker(scanner, players, rules, opened=opened, first_player=first, on_turn=on_turn,
                              settings=WatchSettings(amend_same_side=amend_pauses))
        session = WatchSession(id=session_id, tracker=tracker, game_id=game_id)
        with self._lock:
            self._expire()
            if game_id is not None:
                for same_game in [s for s in self._sessions.values() if s.game_id == game_id]:
                    del self._sessions[same_game.id]
            if len(self._sessions) >= self.max_sessions:
                oldest = min(self._sessions.values(), key=lambda s: s.used)
                if time.monotonic() - oldest.used < STALE_SECONDS:
                    raise WatchSessionsFullError(len(self._sessions))
                del self._sessions[oldest.id]
            self._sessions[session_id] = session
        return session

    def get(self, session_id: str) -> WatchSession:
        with self._lock:
            self._expire()
            session = self._sessions.get(session_id)
            if session is None:
                raise WatchSessionNotFoundError(session_id)
            session.used = time.monotonic()
            return session

    def end(self, session_id: str) -> WatchSession:
        with self._lock:
            session = self._sessions.pop(session_id, None)
        if session is None:
            raise WatchSessionNotFoundError(session_id)
        return session

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._sessions)

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, s in self._sessions.items() if now - s.used > self.idle_seconds]:
            del self._sessions[key]


def tables_of(event_data: dict, edition: str) -> tuple[list[list], list[list]]:
    """The before and after tables of a turn event, as engine tiles of the game's box."""
    return ([[parse_tile(t, edition) for t in s] for s in event_data["before"]],
            [[parse_tile(t, edition) for t in s] for s in event_data["after"]])


def check_time(session: WatchSession, at: float | None) -> float:
    if at is None:
        return session.clock()
    if at < 0:
        raise RummiError("time is seconds since the session started (0 or more)")
    return at
