"""A thin database layer over DB-API, SQLite or PostgreSQL chosen by URL.

The two differ in four places that matter here, and only here: how to connect (one SQLite
connection; a psycopg_pool of PostgreSQL connections that replaces a lost one), the parameter
placeholder (``?`` vs ``%s``), the identity column and how a read sees one snapshot. Everything else (SQL, transactions) is
written once. SQLite is the default: a file, no server, in WAL mode with ``synchronous=FULL``,
so a committed transaction survives the process (or the machine) dying right after.

    >>> db = Database.open("sqlite:///:memory:")
    >>> with db.transaction() as tx:
    ...     _ = tx.execute("CREATE TABLE t (x INTEGER)")
    ...     _ = tx.execute("INSERT INTO t VALUES (?)", (7,))
    >>> db.query_one("SELECT x FROM t")
    (7,)
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rummi.engine.errors import RummiError


class StorageError(RummiError):
    """The database could not be opened or used as asked (bad URL, missing server, conflict)."""


class DatabaseFailureError(StorageError):
    """The database itself failed (a locked file, a lost server, a foreign schema).

    Kept apart from refusals about the game (no such game, a turn out of order) so the service
    answers 503 ("try again later") instead of blaming the request.
    """


class WriteConflictError(StorageError):
    """A write collided with another writer's (a unique key taken meanwhile): the loser of a
    race between two processes, answered 409 by the service."""


@dataclass(frozen=True)
class Dialect:
    name: str
    placeholder: str
    id_column: str


SQLITE = Dialect("sqlite", "?", "INTEGER PRIMARY KEY AUTOINCREMENT")
POSTGRESQL = Dialect("postgresql", "%s", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")

#: Connections the PostgreSQL pool keeps at most per process (the service locks per game, so
#: turns of different games use one each; four processes hold 32 of PostgreSQL's default 100).
POOL_SIZE = 8
#: Seconds to wait for a connection (a server that is down answers 503 after this, not never).
CONNECT_TIMEOUT_S = 5


class Transaction:
    """The cursor of one open transaction; SQL is written with ``?`` placeholders."""

    def __init__(self, cursor: Any, dialect: Dialect) -> None:
        self._cursor = cursor
        self._dialect = dialect

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Transaction:
        self._cursor.execute(_adapt(sql, self._dialect), tuple(params))
        return self

    def fetchone(self) -> tuple[Any, ...] | None:
        row = self._cursor.fetchone()
        return None if row is None else tuple(row)

    def fetchall(self) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self._cursor.fetchall()]

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)


class Database:
    """SQLite through one connection, PostgreSQL through a pool that replaces lost connections.

    Use :meth:`transaction` for every write: all of it or none of it.
    """

    def __init__(
        self,
        connector: Any,
        dialect: Dialect,
        url: str,
        driver_error: type[Exception],
        conflict_error: type[Exception],
    ) -> None:
        self._connector = connector
        self._driver_error = driver_error
        self._conflict_error = conflict_error
        self._sqlite_lock = threading.Lock()
        self.dialect = dialect
        self.url = url

    @classmethod
    def open(cls, url: str) -> Database:
        """``sqlite:///games.db`` (relative), ``sqlite:////abs/games.db``, ``sqlite:///:memory:``
        or ``postgresql://user@host:port/dbname``."""
        scheme = urlsplit(url).scheme.lower()
        if scheme == "sqlite":
            return cls(_open_sqlite(url), SQLITE, url, sqlite3.Error, sqlite3.IntegrityError)
        if scheme in ("postgresql", "postgres"):
            import psycopg  # _open_postgresql has checked that it is installed

            return cls(_open_postgresql(url), POSTGRESQL, url, psycopg.Error, psycopg.IntegrityError)
        raise StorageError(f"database URL {url!r}: use sqlite:///FILE or postgresql://...")

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True, snapshot: bool = False) -> Iterator[Transaction]:
        """Commit when the block ends normally, roll back when it raises.

        ``write=False`` is for reads: on SQLite it does not take the write lock, so readers
        never wait for each other (WAL lets them read while a writer writes).
        ``snapshot=True`` makes every statement of the block see the same moment of the
        database (PostgreSQL: REPEATABLE READ; a SQLite read transaction always does): several
        SELECTs of one game then never mix two writers' states.

        What the driver raises (a locked file, a lost server, a database of another program
        without our columns) becomes :class:`DatabaseFailureError` (a unique key taken meanwhile:
        :class:`WriteConflictError`), so a user sees one line, not a traceback.
        """
        try:
            with self._driver_transaction(write, snapshot) as cursor:
                yield Transaction(cursor, self.dialect)
        except self._conflict_error as error:
            raise WriteConflictError(f"conflicting write: {str(error).strip()}") from error
        except self._driver_error as error:
            raise DatabaseFailureError(f"database error: {str(error).strip()}") from error

    @contextlib.contextmanager
    def _driver_transaction(self, write: bool, snapshot: bool) -> Iterator[Any]:
        if self.dialect is SQLITE:
            with self._sqlite_lock:
                connection = self._connector
                cursor = connection.cursor()
                # A writer takes the write lock at once, not half-way through its transaction.
                cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    yield cursor
                except BaseException:
                    if connection.in_transaction:
                        cursor.execute("ROLLBACK")
                    raise
                cursor.execute("COMMIT")
        else:
            # The pool checks a connection before lending it and opens a new one for a lost one,
            # so a restarted server or a dropped connection costs at most this request.
            with self._connector.connection() as connection:
                with connection.transaction(), connection.cursor() as cursor:
                    if snapshot:
                        level = "REPEATABLE READ" + ("" if write else " READ ONLY")
                        cursor.execute(f"SET TRANSACTION ISOLATION LEVEL {level}")
                    yield cursor

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self.transaction(write=False) as tx:
            return tx.execute(sql, params).fetchone()

    def query_all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.transaction(write=False) as tx:
            return tx.execute(sql, params).fetchall()

    def ping(self) -> None:
        """Raise :class:`DatabaseFailureError` unless the database answers a query now."""
        self.query_one("SELECT 1")

    def close(self) -> None:
        self._connector.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _adapt(sql: str, dialect: Dialect) -> str:
    sql = sql.replace("{id}", dialect.id_column)
    return sql if dialect.placeholder == "?" else sql.replace("?", dialect.placeholder)


def sqlite_path(url: str) -> str:
    """The file a ``sqlite:///`` URL names (``:memory:`` for an in-memory database)."""
    if not url.lower().startswith("sqlite:///"):
        raise StorageError(f"database URL {url!r}: a SQLite URL starts with sqlite:/// (then the file)")
    path = url[len("sqlite:///") :]
    if not path:
        raise StorageError(f"database URL {url!r} names no file")
    return path


def _open_sqlite(url: str) -> sqlite3.Connection:
    path = sqlite_path(url)
    if path != ":memory:":
        parent = Path(path).parent
        if not parent.is_dir():
            raise StorageError(f"cannot create {path}: folder {parent} does not exist")
    try:
        # isolation_level=None: no implicit transactions; Database.transaction() says when.
        connection = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error as error:
        raise StorageError(f"cannot open SQLite database {path}: {error}") from None
    return connection


def _open_postgresql(url: str) -> Any:
    """A pool of connections; the first one must open now, so a wrong URL is one clear line."""
    try:
        import psycopg
        from psycopg_pool import ConnectionPool
    except ImportError:  # pragma: no cover - psycopg is in the pinned requirements
        raise StorageError("PostgreSQL needs psycopg and psycopg-pool: pip install 'rummi[postgres]'") from None
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=POOL_SIZE,
        kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
        check=ConnectionPool.check_connection,
        timeout=CONNECT_TIMEOUT_S,
        # Retry a lost server with backoff for this long, then give up until the next request
        # asks for a connection again (so a long outage never leaves minutes between tries).
        reconnect_timeout=30,
        open=False,
        name="rummi",
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
    except psycopg.Error as error:
        pool.close()
        raise StorageError(f"cannot connect to PostgreSQL: {str(error).strip()}") from None
    return pool
