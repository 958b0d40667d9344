"""Where game records are kept: a thin layer over SQLite (default) or PostgreSQL, plus exports.

I/O lives here, not in the engine: :mod:`engine.game` holds the record as data, this package
writes it (one transaction per turn) and reads it back.
"""

from rummi.api.storage.database import Database, DatabaseFailureError, StorageError, WriteConflictError
from rummi.api.storage.export import game_from_json, game_to_json, score_sheet_csv
from rummi.api.storage.games import MIGRATIONS, SCHEMA_VERSION, GameStore, GameSummary, StoredGame

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Database",
    "GameStore",
    "GameSummary",
    "StoredGame",
    "DatabaseFailureError",
    "StorageError",
    "WriteConflictError",
    "game_from_json",
    "game_to_json",
    "score_sheet_csv",
]
