"""Where the service keeps its files on this machine: the user's data folder, never the
current one.

A service started from a random folder (a USB stick, the home folder, a checkout) must not
scatter ``rummi.db`` and a ``data/corrections`` tree there. Everything goes under the per-user
data folder that the platform expects (``~/.local/share/rummi`` on Linux, ``%LOCALAPPDATA%``
on Windows, ``~/Library/Application Support`` on macOS; see platformdirs), and every place can
be moved by a setting (``RUMMI_DATABASE_URL``, ``RUMMI_CORRECTIONS_DIR``, ``RUMMI_DATA_DIR``).

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
