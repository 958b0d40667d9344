"""Schema migrations: an ordered list with a version table; a database of the first layout is
brought up to date in place (its games kept), one from a newer rummi is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rummi.api.storage import MIGRATIONS, SCHEMA_VERSION, Database, GameStore, StorageError
from rummi.engine.game import Game
from rummi.engine.notation import parse_sets

from tests.api_server import fresh_postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}"
    else:
        with fresh_postgres_database() as pg_url:
            yield pg_url


def test_the_steps_are_numbered_in_order() -> None:
    assert [v for v, _ in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1)) and SCHEMA_VERSION >= 2


def test_a_version_1_database_gets_the_later_steps_and_keeps_its_games(url: str) -> None:
    # Version 1 as rummi 0.1 left it: the first step's tables, the version row, a game in it.
    with Database.open(url) as db, db.transaction() as tx:
        for statement in MIGRATIONS[0][1]:
            tx.execute(statement)
        tx.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        tx.execute("INSERT INTO schema_version (version) VALUES (1)")
        old_id = tx.execute(  # a game as version 1 wrote it
            "INSERT INTO games (started_at, players, preset, rules, turn_count) VALUES (?, ?, ?, ?, 0) RETURNING id",
            ("2026-01-01T00:00:00+00:00", json.dumps(["Cy", "Di"]), Game(players=("Cy", "Di")).preset.name,
             json.dumps(Game(players=("Cy", "Di")).preset.to_dict())),
        ).fetchone()[0]
    with GameStore.open(url) as store:
        assert store.schema_version() == SCHEMA_VERSION
        old = store.load_record(old_id)
        assert old.game.players == ("Cy", "Di")
        assert old.enforce_order is False  # stored before the service could enforce it
        game = Game(players=("Ann", "Bob"))
        game_id = store.create(game)
        store.add_turn(game_id, game.play("Ann", [], parse_sets("r10 r11 r12")), request_key="retry-1")
        assert store.turn_for_request(game_id, "retry-1") == 1


def test_a_database_from_a_newer_rummi_is_refused(url: str) -> None:
    GameStore.open(url).close()
    with Database.open(url) as db, db.transaction() as tx:
        tx.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(StorageError, match=f"version {SCHEMA_VERSION + 1}"):
        GameStore.open(url)
