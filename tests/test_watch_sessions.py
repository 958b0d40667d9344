"""The service's watch sessions are bounded without letting one caller end another table's."""

from __future__ import annotations

import pytest
from rummi.api import watch_sessions
from rummi.api.watch_sessions import WatchSessionNotFoundError, WatchSessions, WatchSessionsFullError
from rummi.engine.rules import get_rules


def start(sessions: WatchSessions, game_id: int | None = None):
    return sessions.create(None, ["Ann", "Bob"], get_rules(), game_id=game_id)


def test_a_full_service_refuses_a_new_session_rather_than_end_a_watched_table() -> None:
    sessions = WatchSessions(max_sessions=2)
    first, second = start(sessions), start(sessions)
    with pytest.raises(WatchSessionsFullError, match="2 tables are being watched"):
        start(sessions)
    assert sessions.get(first.id) is first and sessions.get(second.id) is second


def test_a_session_no_camera_feeds_any_more_gives_way(monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = WatchSessions(max_sessions=2)
    stale, fed = start(sessions), start(sessions)
    stale.used -= watch_sessions.STALE_SECONDS + 1
    newer = start(sessions)
    with pytest.raises(WatchSessionNotFoundError):
        sessions.get(stale.id)
    assert sessions.get(fed.id) is fed and sessions.get(newer.id) is newer


def test_a_game_has_one_session_a_new_one_replaces() -> None:
    sessions = WatchSessions(max_sessions=2)
    old, other = start(sessions, game_id=7), start(sessions, game_id=8)
    again = start(sessions, game_id=7)  # the page reloaded, or a second phone took over
    with pytest.raises(WatchSessionNotFoundError):
        sessions.get(old.id)
    assert sessions.get(other.id) is other and sessions.get(again.id) is again


@pytest.mark.parametrize(
    ("method", "route", "kind"),
    [
        ("POST", "/watch", "writes"),
        ("POST", "/watch/0123abcd/draw", "writes"),
        ("POST", "/watch/frame", "frames"),
        ("GET", "/watch/0123abcd", None),
        ("POST", "/scan", "scans"),
        ("POST", "/games/3/turns", "writes"),
    ],
)
def test_watching_draws_on_the_clients_allowances(method: str, route: str, kind: str | None) -> None:
    """Starting sessions and posting frames are rate limited like every other write and scan."""
    from rummi.api.rate_limits import kind_of

    assert kind_of(method, route) == kind
