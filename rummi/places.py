"""Where rummi keeps its files on this machine: the user's data and cache folders, never the
current one, never beside the code (an installed package may sit in a read-only site-packages).

A service started from a random folder (a USB stick, the home folder, a checkout) must not
scatter ``rummi.db`` and a ``data/corrections`` tree there. Everything goes under the per-user
data folder that the platform expects (``~/.local/share/rummi`` on Linux, ``%LOCALAPPDATA%``
on Windows, ``~/Library/Application Support`` on macOS; see platformdirs), and every place can
be moved by a setting (``RUMMI_DATABASE_URL``, ``RUMMI_CORRECTIONS_DIR``, ``RUMMI_DATA_DIR``).
What can be made again (numba's compiled hint solver) goes to the user cache folder instead
(``~/.cache/rummi``; ``RUMMI_CACHE_DIR``).

    >>> str(data_dir({"RUMMI_DATA_DIR": "/srv/rummi"}))
    '/srv/rummi'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

APP_NAME = "rummi"


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The folder for the database, the corrections and the TLS certificate (not created here)."""
    env = os.environ if environ is None else environ
    chosen = env.get("RUMMI_DATA_DIR")
    return Path(chosen) if chosen else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_database_url() -> str:
    """``sqlite:///<data dir>/games.db``; the folder is created on first use."""
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(folder / 'games.db').resolve()}"


def default_corrections_dir() -> Path:
    """Where corrected photos go unless ``RUMMI_CORRECTIONS_DIR`` says otherwise."""
    return data_dir() / "corrections"


def tls_dir() -> Path:
    """Where `rummi serve --lan` keeps its self-signed certificate and key."""
    return data_dir() / "tls"


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's rummi cache folder: anything in it can be deleted and is made again."""
    env = os.environ if environ is None else environ
    chosen = env.get("RUMMI_CACHE_DIR")
    return Path(chosen) if chosen else Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def use_numba_cache() -> Path:
    """Point numba's cache at the user's cache folder (unless ``NUMBA_CACHE_DIR`` is set already).

    Must run before numba is imported: numba reads the variable once. Without it numba caches
    beside the source, which fails silently in a read-only install and then compiles the hint
    solver again (about 30 s) in every new process.
    """
    return Path(os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir() / "numba")))
