"""Rate-limit buckets kept in PostgreSQL, so several service processes share one allowance.

Each process keeping its own buckets lets a client send N times its allowance to N processes.
Here every (client, kind) bucket is one row, and taking a request is one statement: an upsert
that refills the bucket by the time passed since its last use (the database's clock, so
processes on different machines agree), takes one request if a whole one is there, and returns
whether it did. PostgreSQL runs an ``INSERT ... ON CONFLICT DO UPDATE`` on one row atomically,
so two processes taking from one bucket at once are served one after the other, never both
from the same token.

The table is ``UNLOGGED``: no write-ahead log for it (a crash of the database empties it,
which only hands every client a full allowance again), and it is not part of the game record
or its migrations. A bucket untouched for its refill time is full again, just like a missing
one, so rows older than that are deleted now and then.
"""

from __future__ import annotations

import threading
import time

from rummi.api.storage.database import Database

#: Seconds a bucket takes to refill from empty (the allowance is per minute).
REFILL_S = 60.0
#: How often a process deletes buckets that are full again.
PRUNE_EVERY_S = 60.0

CREATE = (
    "CREATE UNLOGGED TABLE IF NOT EXISTS rate_buckets ("
    " client TEXT NOT NULL, kind TEXT NOT NULL, level DOUBLE PRECISION NOT NULL,"
    " stamp DOUBLE PRECISION NOT NULL, taken BOOLEAN NOT NULL, PRIMARY KEY (client, kind))"
)
#: Parameters: client, kind, capacity (a new bucket), then capacity and rate (per second) for
#: each of the four places the refilled level is written.
_REFILLED = "LEAST(?, b.level + (EXCLUDED.stamp - b.stamp) * ?)"
TAKE = (
    "INSERT INTO rate_buckets AS b (client, kind, level, stamp, taken) "
    "SELECT ?, ?, ? - 1, EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION, TRUE "
    "ON CONFLICT (client, kind) DO UPDATE SET "
    f"level = CASE WHEN {_REFILLED} >= 1 THEN {_REFILLED} - 1 ELSE {_REFILLED} END, "
    f"taken = {_REFILLED} >= 1, "
    "stamp = EXCLUDED.stamp "
    "RETURNING taken, level"
)
PRUNE = f"DELETE FROM rate_buckets WHERE stamp < EXTRACT(EPOCH FROM clock_timestamp()) - {REFILL_S}"


class SharedBuckets:
    """Token buckets of ``per_minute`` requests (a burst of as many) in the ``rate_buckets``
    table of a PostgreSQL database."""

    def __init__(self, db: Database) -> None:
        if db.dialect.name != "postgresql":
            raise ValueError("shared rate-limit buckets need PostgreSQL (SQLite serves one machine)")
        self._db = db
        self._pruned = time.monotonic()
        self._prune_lock = threading.Lock()
        with db.transaction() as tx:
            # Workers starting at once must not race on CREATE TABLE's catalogue rows.
            tx.execute("SELECT pg_advisory_xact_lock(4243)")
            tx.execute(CREATE)

    def take(self, client: str, kind: str, per_minute: int) -> float:
        """Take one request: 0.0 if allowed, else the seconds until one would be.

        Raises :class:`~rummi.api.storage.DatabaseFailureError` when the database does not
        answer (the caller falls back to its own buckets).
        """
        capacity = float(per_minute)
        rate = per_minute / REFILL_S
        refills = (capacity, rate) * 4  # the refilled level is written four times in TAKE
        with self._db.transaction() as tx:
            row = tx.execute(TAKE, (client[:100], kind, capacity, *refills)).fetchone()
        self._maybe_prune()
        assert row is not None
        taken, level = bool(row[0]), float(row[1])
        return 0.0 if taken else (1.0 - level) / rate

    def _maybe_prune(self) -> None:
        now = time.monotonic()
        if now - self._pruned < PRUNE_EVERY_S or not self._prune_lock.acquire(blocking=False):
            return
        try:
            self._pruned = now
            with self._db.transaction() as tx:
                tx.execute(PRUNE)
        finally:
            self._prune_lock.release()
