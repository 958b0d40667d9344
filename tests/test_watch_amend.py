"""A watched turn amended in the game's record, on SQLite and PostgreSQL.

A player who pauses mid-turn and goes on makes one turn (vision/watch/tracker.py): the record
gets the first part as the game's last turn, then that turn judged again on the whole change
in its place (GameRecords.amend_last, GameStore.replace_last_turn). Only the last turn of a
game still being played can change.
"""

from __future__ import annotations

import pytest
from rummi.api.errors import GameConflictError, TurnNotAmendableError
from rummi.api.game_records import GameRecords
from rummi.api.storage import GameStore, StorageError
from rummi.engine.game import Game
from rummi.engine.notation import parse_sets

from tests.test_storage import postgres_url, url  # noqa: F401  (the two databases' fixtures)

START = parse_sets("k3 k4 k5")
HALFWAY = parse_sets("k3 k4 k5 | r10 r11")
WHOLE = parse_sets("k3 k4 k5 | r10 r11 r12")


def test_the_last_turn_is_judged_again_in_its_place(url: str) -> None:  # noqa: F811
    records = GameRecords(GameStore.open(url))
    try:
        game_id = records.create(Game(players=("Ann", "Bob"), rules="pressman_us_2009")).game.id
        _, first, _ = records.play(game_id, HALFWAY, player="Ann", before=START, seconds=12.0, check_order=False)
        assert first.number == 1 and first.verdict["status"] == "illegal"  # r10 r11 alone is no set
        _, amended = records.amend_last(game_id, 1, WHOLE, player="Ann", before=START, seconds=20.5)
        assert amended.number == 1 and amended.verdict["status"] == "legal" and amended.opens
        stored = records.load(game_id)
        assert [(t.number, t.player, t.seconds) for t in stored.turns] == [(1, "Ann", 20.5)]
        assert stored.turns[0].after == amended.after and stored.next_player == "Bob"
        assert stored.has_opened("Ann")
        # the game goes on from the amended turn
        _, second, _ = records.play(game_id, WHOLE, player="Bob", before=WHOLE, drew=1, seconds=4.0)
        assert second.number == 2 and [t.player for t in records.load(game_id).turns] == ["Ann", "Bob"]
        # only the last turn, by its player, can be amended
        with pytest.raises(TurnNotAmendableError, match="turn 1 by Ann is not the game's last") as refused:
            records.amend_last(game_id, 1, WHOLE, player="Ann", before=START)
        # a conflict to the service (409), but not one a retry mends
        assert isinstance(refused.value, GameConflictError) and "retry" not in str(refused.value)
        with pytest.raises(GameConflictError, match="turn 2 by Ann is not the game's last"):
            records.amend_last(game_id, 2, WHOLE, player="Ann", before=WHOLE)
    finally:
        records.close()


def test_the_store_replaces_only_the_last_turn_of_a_game_in_play(url: str) -> None:  # noqa: F811
    game = Game(players=("Ann", "Bob"), rules="pressman_us_2009")
    first = game.play("Ann", START, HALFWAY)
    with GameStore.open(url) as store:
        game_id = store.create(Game(players=game.players, rules=game.preset))
        store.add_turn(game_id, first)
        game.turns.pop()
        again = game.play("Ann", START, WHOLE)
        store.replace_last_turn(game_id, again)
        assert [t.after for t in store.load(game_id).turns] == [again.after]
        later = game.play("Bob", WHOLE, WHOLE, drew=1)
        with pytest.raises(StorageError, match="last turn is number 1, not 2"):
            store.replace_last_turn(game_id, later)
        bobs = Game(players=game.players, rules=game.preset).play("Bob", START, WHOLE)  # number 1, Bob's
        with pytest.raises(StorageError, match="turn 1 is Ann's, not Bob's"):
            store.replace_last_turn(game_id, bobs)
        with pytest.raises(StorageError, match="no game 999"):
            store.replace_last_turn(999, again)
        store.add_turn(game_id, later)
        game.finish({"Ann": [], "Bob": []}, winner="Ann")
        store.finish(game_id, game)
        with pytest.raises(StorageError, match="is over"):
            store.replace_last_turn(game_id, later)
        assert len(store.load(game_id).turns) == 2


def test_rummi_watch_game_records_an_amended_turn_in_place(tmp_path) -> None:
    """`rummi watch --game`'s recorder: the first part appended, the amended turn in its place."""
    from rummi.api.commands.watch import _GameRecorder
    from rummi.vision.watch import WatchEvent

    database = f"sqlite:///{tmp_path / 'games.db'}"
    with GameStore.open(database) as store:
        game_id = store.create(Game(players=("Ann", "Bob"), rules="pressman_us_2009"))
    recorder = _GameRecorder(GameStore.open(database), game_id)
    try:
        tables = lambda sets: [[str(t) for t in s] for s in sets]  # noqa: E731
        part = {"number": 1, "player": "Ann", "before": tables(START), "after": tables(HALFWAY),
                "seconds": 6.0, "drew": False, "verdict": {"status": "illegal"}}
        recorder.add(WatchEvent("turn", 7.0, part))
        whole = {**part, "after": tables(WHOLE), "seconds": 11.0, "amends": 1, "verdict": {"status": "legal"}}
        recorder.add(WatchEvent("turn", 12.0, whole))
        assert part["recorded"] and whole["recorded"]
    finally:
        recorder.close()
    with GameStore.open(database) as store:
        turns = store.load(game_id).turns
    assert [(t.number, t.player, t.seconds, t.verdict["status"]) for t in turns] == [(1, "Ann", 11.0, "legal")]


def _event(number: int, after, *, amends: int | None = None, player: str = "Ann"):
    from rummi.vision.watch import WatchEvent

    tables = lambda sets: [[str(t) for t in s] for s in sets]  # noqa: E731
    data = {"number": number, "player": player, "before": tables(START), "after": tables(after),
            "seconds": 6.0, "drew": False, "verdict": {"status": "judged again by the record"}}
    if amends is not None:
        data["amends"] = amends
    return WatchEvent("turn", 7.0, data)


def test_a_watch_amends_only_a_turn_it_recorded_itself(url: str) -> None:  # noqa: F811
    """The game's turn 1 was posted by hand (a player's own code): the watch's "amend of its
    turn 1", whose first part it never recorded, is a turn of its own; and once a player posted
    a turn after the watch's, the watch's amend is refused, the player's turn untouched."""
    from rummi.api.watch_records import WatchedGameRecorder

    records = GameRecords(GameStore.open(url))
    try:
        game_id = records.create(Game(players=("Ann", "Bob"), rules="pressman_us_2009")).game.id
        records.play(game_id, START, player="Ann", before=START, drew=1)
        recorder = WatchedGameRecorder(records, game_id, "standard")
        whole = _event(1, WHOLE, amends=1, player="Bob")
        recorder.add(whole)
        assert whole.data["recorded"] and whole.data["game_turn"] == 2
        assert [(t.number, t.player, t.drew) for t in records.load(game_id).turns] == [(1, "Ann", 1), (2, "Bob", 0)]
        records.play(game_id, WHOLE, player="Ann", before=WHOLE, drew=1)  # Ann posts her turn herself
        again = _event(1, WHOLE, amends=1, player="Bob")
        recorder.add(again)
        assert again.data["recorded"] is False and "not the game's last" in again.data["record_error"]
        assert [(t.number, t.player, t.drew) for t in records.load(game_id).turns] == [
            (1, "Ann", 1), (2, "Bob", 0), (3, "Ann", 1)]
    finally:
        records.close()


def test_a_game_deleted_while_watched_stops_the_recording_clearly(tmp_path) -> None:
    from rummi.api.watch_records import WatchedGameGoneError, WatchedGameRecorder

    records = GameRecords(GameStore.open(f"sqlite:///{tmp_path / 'games.db'}"))
    try:
        game_id = records.create(Game(players=("Ann", "Bob"), rules="pressman_us_2009")).game.id
        recorder = WatchedGameRecorder(records, game_id, "standard")
        with GameStore.open(f"sqlite:///{tmp_path / 'games.db'}") as other:  # another process, say
            other.delete(game_id)
        turn = _event(1, HALFWAY)
        with pytest.raises(WatchedGameGoneError, match=f"game {game_id} no longer exists"):
            recorder.add(turn)
        assert turn.data["recorded"] is False and "no longer exists" in turn.data["record_error"]
    finally:
        records.close()
