"""The game record in a database: games, turns, endings and scores.

Each write is one transaction, so a process killed at any moment leaves every turn either
fully stored or not at all. A turn's row and the game's turn counter change together; the
counter also makes a second writer that lost the race fail loudly instead of overwriting.

    >>> from rummi.engine.game import Game
    >>> from rummi.engine.notation import parse_sets
    >>> store = GameStore.open("sqlite:///:memory:")
    >>> game = Game(players=("Ann", "Bob"))
    >>> game_id = store.create(game)
    >>> store.add_turn(game_id, game.play("Ann", [], parse_sets("r10 r11 r12")))
    >>> [t.player for t in store.load(game_id).turns]
    ['Ann']
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rummi.api.storage.database import Database, StorageError, Transaction
from rummi.engine.game import Ending, Game, Turn, rules_from_dict
from rummi.engine.notation import format_sets, format_tiles

from rummi.places import default_database_url

#: The tables of the record, version by version. A database at version N gets the steps after
#: N, in order, in one transaction with the new version number, so every process that opens it
#: agrees on its layout. A step is never edited once released; a change is a new step.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            """CREATE TABLE IF NOT EXISTS games (
                id {id},
                started_at TEXT NOT NULL,
                players TEXT NOT NULL,
                preset TEXT NOT NULL,
                rules TEXT NOT NULL,
                turn_count INTEGER NOT NULL DEFAULT 0,
                finished_at TEXT
            )""",
            """CREATE TABLE IF NOT EXISTS turns (
                game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                number INTEGER NOT NULL,
                player TEXT NOT NULL,
                before_table TEXT NOT NULL,
                after_table TEXT NOT NULL,
                rack TEXT,
                drew INTEGER NOT NULL,
                seconds DOUBLE PRECISION,
                legal INTEGER NOT NULL,
                verdict TEXT NOT NULL,
                PRIMARY KEY (game_id, number)
            )""",
            """CREATE TABLE IF NOT EXISTS endings (
                game_id BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
                how TEXT NOT NULL,
                winner TEXT NOT NULL,
                detail TEXT NOT NULL
            )""",
            """CREATE TABLE IF NOT EXISTS scores (
                game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                seat INTEGER NOT NULL,
                player TEXT NOT NULL,
                points INTEGER NOT NULL,
                PRIMARY KEY (game_id, seat)
            )""",
        ),
    ),
    (
        2,
        # Exactly-once turns: the Idempotency-Key a client sent with a turn, and the turn it made.
        (
            """CREATE TABLE IF NOT EXISTS turn_requests (
                game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
                request_key TEXT NOT NULL,
                number INTEGER NOT NULL,
                PRIMARY KEY (game_id, request_key)
            )""",
        ),
    ),
    (
        3,
        # Whether the service refuses a turn by anyone but the next player. Games stored before
        # had no such rule, so they keep a free order.
        ("ALTER TABLE games ADD COLUMN enforce_order INTEGER NOT NULL DEFAULT 0",),
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1][0]


@dataclass(frozen=True)
class StoredGame:
    """A game as stored, with what the record keeps beside the engine's game: whether the
    service enforces its turn order (the engine records any player's turn)."""

    game: Game
    enforce_order: bool


@dataclass(frozen=True)
class GameSummary:
    """One line of the list of stored games."""

    id: int
    started_at: str
    players: tuple[str, ...]
    preset: str
    turns: int
    finished: bool


class GameStore:
    """Games kept in a database (SQLite file by default, PostgreSQL given a URL)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._create_schema()

    @classmethod
    def open(cls, url: str | None = None) -> GameStore:
        """Open (and on first use create) the store at ``url``, else ``$RUMMI_DATABASE_URL``,
        else ``games.db`` in the user's data folder (:func:`rummi.places.default_database_url`)."""
        return cls(Database.open(url or os.environ.get("RUMMI_DATABASE_URL") or default_database_url()))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing ----------------------------------------------------------------------------

    def create(self, game: Game, *, enforce_order: bool = False) -> int:
        """Store a new game (with any turns and ending it already has); sets and returns its id.

        ``enforce_order``: the service will refuse a turn by anyone but the next player.
        """
        started = game.started_at or _now()
        with self.db.transaction() as tx:
            row = tx.execute(
                "INSERT INTO games (started_at, players, preset, rules, turn_count, enforce_order) "
                "VALUES (?, ?, ?, ?, 0, ?) RETURNING id",
                (
                    started,
                    json.dumps(list(game.players)),
                    game.preset.name,
                    json.dumps(game.preset.to_dict()),
                    1 if enforce_order else 0,
                ),
            ).fetchone()
            assert row is not None
            game_id = int(row[0])
            for turn in game.turns:
                _insert_turn(tx, game_id, turn)
            if game.ending is not None:
                _insert_ending(tx, game_id, game.players, game.ending)
        game.id, game.started_at = game_id, started
        return game_id

    def add_turn(self, game_id: int, turn: Turn, request_key: str | None = None) -> None:
        """Append one turn; its number must follow the last stored one.

        ``request_key`` (a client's Idempotency-Key) is stored with the turn in the same
        transaction, so :meth:`turn_for_request` finds it exactly when the turn was recorded.
        """
        with self.db.transaction() as tx:
            _insert_turn(tx, game_id, turn)
            if request_key is not None:
                tx.execute(
                    "INSERT INTO turn_requests (game_id, request_key, number) VALUES (?, ?, ?)",
                    (game_id, request_key, turn.number),
                )

    def replace_last_turn(self, game_id: int, turn: Turn) -> None:
        """Put ``turn`` in the place of the game's last stored turn, which has its number.

        For a watched table: a player who paused mid-turn and went on made one turn, judged
        again on the whole change. Only the last turn of a game still being played can change,
        and only by a turn of the same player.
        """
        with self.db.transaction() as tx:
            row = tx.execute("SELECT turn_count, finished_at FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise StorageError(f"no game {game_id}")
            if row[1] is not None:
                raise StorageError(f"game {game_id} is over; its turns stay as they are")
            if int(row[0]) != turn.number:
                raise StorageError(f"game {game_id}'s last turn is number {row[0]}, not {turn.number}")
            player = tx.execute("SELECT player FROM turns WHERE game_id = ? AND number = ?",
                                (game_id, turn.number)).fetchone()
            if player is None or player[0] != turn.player:
                # One player's turn never takes the place of another's, whoever asks.
                raise StorageError(f"game {game_id}'s turn {turn.number} is {player[0] if player else 'nobody'}'s, "
                                   f"not {turn.player}'s")
            tx.execute("DELETE FROM turns WHERE game_id = ? AND number = ?", (game_id, turn.number))
            tx.execute("UPDATE games SET turn_count = turn_count - 1 WHERE id = ?", (game_id,))
            _insert_turn(tx, game_id, turn)

    def turn_for_request(self, game_id: int, request_key: str) -> int | None:
        """The number of the turn recorded for this Idempotency-Key, if one was."""
        row = self.db.query_one(
            "SELECT number FROM turn_requests WHERE game_id = ? AND request_key = ?", (game_id, request_key)
        )
        return None if row is None else int(row[0])

    def finish(self, game_id: int, game: Game) -> None:
        """Store the ending and every player's score of a finished game, all at once."""
        if game.ending is None:
            raise StorageError("the game has not ended yet")
        with self.db.transaction() as tx:
            _insert_ending(tx, game_id, game.players, game.ending)

    def delete(self, game_id: int) -> None:
        with self.db.transaction() as tx:
            for table in ("turn_requests", "scores", "endings", "turns"):
                tx.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            if tx.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
                raise StorageError(f"no game {game_id}")

    # --- reading ----------------------------------------------------------------------------

    def load(self, game_id: int) -> Game:
        """The whole record of one game, as stored (see :meth:`load_record`)."""
        return self.load_record(game_id).game

    def load_record(self, game_id: int) -> StoredGame:
        """The whole record of one game, as stored: its four SELECTs read one snapshot, so a
        turn another process records meanwhile is either wholly in it or wholly not."""
        with self.db.transaction(write=False, snapshot=True) as tx:
            head = tx.execute(
                "SELECT started_at, players, rules, turn_count, enforce_order FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if head is None:
                raise StorageError(f"no game {game_id}")
            turn_rows = tx.execute(
                "SELECT number, player, before_table, after_table, rack, drew, seconds, verdict "
                "FROM turns WHERE game_id = ? ORDER BY number",
                (game_id,),
            ).fetchall()
            ending_row = tx.execute(
                "SELECT how, winner, detail FROM endings WHERE game_id = ?", (game_id,)
            ).fetchone()
            score_rows = tx.execute(
                "SELECT player, points FROM scores WHERE game_id = ? ORDER BY seat", (game_id,)
            ).fetchall()
        started_at, players, rules_json, turn_count, enforce_order = head
        if len(turn_rows) != turn_count:
            raise StorageError(
                f"game {game_id}: {len(turn_rows)} turns stored but the counter says {turn_count}"
            )
        rules = rules_from_dict(json.loads(rules_json))
        turns = [
            Turn.from_dict(
                {
                    "number": r[0],
                    "player": r[1],
                    "before": r[2],
                    "after": r[3],
                    "rack": r[4],
                    "drew": r[5],
                    "seconds": r[6],
                    "verdict": json.loads(r[7]),
                },
                rules.edition,
            )
            for r in turn_rows
        ]
        ending = None
        if ending_row is not None:
            detail = json.loads(ending_row[2])
            ending = Ending.from_dict(
                {
                    "end": ending_row[0],
                    "winner": ending_row[1],
                    "racks": detail["racks"],
                    "explanations": detail["explanations"],
                    "scores": dict(score_rows),
                },
                rules.edition,
            )
        game = Game(
            players=tuple(json.loads(players)),
            rules=rules,
            turns=turns,
            ending=ending,
            id=game_id,
            started_at=started_at,
        )
        return StoredGame(game, bool(enforce_order))

    def list_games(self) -> list[GameSummary]:
        rows = self.db.query_all(
            "SELECT id, started_at, players, preset, turn_count, finished_at FROM games ORDER BY id"
        )
        return [
            GameSummary(int(r[0]), r[1], tuple(json.loads(r[2])), r[3], int(r[4]), r[5] is not None)
            for r in rows
        ]

    # --- schema -----------------------------------------------------------------------------

    def _create_schema(self) -> None:
        """Bring the database to :data:`SCHEMA_VERSION` by the steps of :data:`MIGRATIONS`."""
        with self.db.transaction() as tx:
            if self.db.dialect.name == "postgresql":
                # Two processes opening a fresh database at once must not both migrate it.
                tx.execute("SELECT pg_advisory_xact_lock(4242)")
            tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = tx.execute("SELECT version FROM schema_version").fetchone()
            current = 0 if row is None else int(row[0])
            if current > SCHEMA_VERSION:
                raise StorageError(
                    f"database schema version {current}; this rummi reads up to version {SCHEMA_VERSION}"
                )
            for version, statements in MIGRATIONS:
                if version > current:
                    for statement in statements:
                        tx.execute(statement)
            if row is None:
                tx.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif current != SCHEMA_VERSION:
                tx.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def schema_version(self) -> int:
        row = self.db.query_one("SELECT version FROM schema_version")
        return 0 if row is None else int(row[0])


def _insert_turn(tx: Transaction, game_id: int, turn: Turn) -> None:
    moved = tx.execute(
        "UPDATE games SET turn_count = turn_count + 1 "
        "WHERE id = ? AND turn_count = ? AND finished_at IS NULL",
        (game_id, turn.number - 1),
    ).rowcount
    if moved != 1:
        row = tx.execute("SELECT turn_count, finished_at FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise StorageError(f"no game {game_id}")
        if row[1] is not None:
            raise StorageError(f"game {game_id} is over; no more turns")
        raise StorageError(f"game {game_id} has {row[0]} turns stored; turn {turn.number} does not follow")
    data = turn.to_dict()
    tx.execute(
        "INSERT INTO turns (game_id, number, player, before_table, after_table, rack, drew, seconds, "
        "legal, verdict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            game_id,
            turn.number,
            turn.player,
            format_sets(turn.before),  # the columns hold notation text, readable in any SQL client
            format_sets(turn.after),
            None if turn.rack is None else format_tiles(turn.rack),
            turn.drew,
            turn.seconds,
            1 if turn.legal else 0,
            json.dumps(data["verdict"], sort_keys=True),
        ),
    )


def _insert_ending(tx: Transaction, game_id: int, players: tuple[str, ...], ending: Ending) -> None:
    done = tx.execute(
        "UPDATE games SET finished_at = ? WHERE id = ? AND finished_at IS NULL", (_now(), game_id)
    ).rowcount
    if done != 1:
        exists = tx.execute("SELECT id FROM games WHERE id = ?", (game_id,)).fetchone()
        raise StorageError(f"game {game_id} is already over" if exists else f"no game {game_id}")
    data: dict[str, Any] = ending.to_dict()
    detail = {"racks": data["racks"], "explanations": data["explanations"]}
    tx.execute(
        "INSERT INTO endings (game_id, how, winner, detail) VALUES (?, ?, ?, ?)",
        (game_id, data["end"], data["winner"], json.dumps(detail, sort_keys=True)),
    )
    for seat, player in enumerate(players):
        tx.execute(
            "INSERT INTO scores (game_id, seat, player, points) VALUES (?, ?, ?, ?)",
            (game_id, seat, player, int(ending.scores[player])),
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
