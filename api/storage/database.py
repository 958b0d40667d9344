"""A thin database layer: one connection over DB-API, SQLite or PostgreSQL chosen by URL.

The two differ in three places that matter here, and only here: how to connect, the parameter
placeholder (``?`` vs ``%s``) and the identity column. Everything else (SQL, transactions) is
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


@dataclass(frozen=True)
class Dialect:
    name: str
    placeholder: str
    id_column: str


SQLITE = Dialect("sqlite", "?", "INTEGER PRIMARY KEY AUTOINCREMENT")
POSTGRESQL = Dialect("postgresql", "%s", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")


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
    """One open connection. Use :meth:`transaction` for every write: all of it or none of it."""

    def __init__(self, connection: Any, dialect: Dialect, url: str, driver_error: type[Exception]) -> None:
        self._connection = connection
        self._driver_error = driver_error
        self.dialect = dialect
        self.url = url

    @classmethod
    def open(cls, url: str) -> Database:
        """``sqlite:///games.db`` (relative), ``sqlite:////abs/games.db``, ``sqlite:///:memory:``
        or ``postgresql://user@host:port/dbname``."""
        scheme = urlsplit(url).scheme.lower()
        if scheme == "sqlite":
            return cls(_open_sqlite(url), SQLITE, url, sqlite3.Error)
        if scheme in ("postgresql", "postgres"):
            import psycopg  # _open_postgresql has checked that it is installed

            return cls(_open_postgresql(url), POSTGRESQL, url, psycopg.Error)
        raise StorageError(f"database URL {url!r}: use sqlite:///FILE or postgresql://...")

    @contextlib.contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Transaction]:
        """Commit when the block ends normally, roll back when it raises.

        ``write=False`` is for reads: on SQLite it does not take the write lock, so readers
        never wait for each other (WAL lets them read while a writer writes).

        What the driver raises (a locked file, a lost server, a database of another program
        without our columns) becomes :class:`StorageError`, so a user sees one line, not a
        traceback.
        """
        try:
            with self._driver_transaction(write) as cursor:
                yield Transaction(cursor, self.dialect)
        except self._driver_error as error:
            raise DatabaseFailureError(f"database error: {str(error).strip()}") from error

    @contextlib.contextmanager
    def _driver_transaction(self, write: bool) -> Iterator[Any]:
        if self.dialect is SQLITE:
            cursor = self._connection.cursor()
            # A writer takes the write lock at once, not half-way through its transaction.
            cursor.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield cursor
            except BaseException:
                if self._connection.in_transaction:
                    cursor.execute("ROLLBACK")
                raise
            cursor.execute("COMMIT")
        else:
            with self._connection.transaction(), self._connection.cursor() as cursor:
                yield cursor

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self.transaction(write=False) as tx:
            return tx.execute(sql, params).fetchone()

    def query_all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.transaction(write=False) as tx:
            return tx.execute(sql, params).fetchall()

    def close(self) -> None:
        self._connection.close()

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
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is in the pinned requirements
        raise StorageError("PostgreSQL needs psycopg: pip install 'rummi[postgres]'") from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as error:
        raise StorageError(f"cannot connect to PostgreSQL: {str(error).strip()}") from None
