"""Where rummi keeps its files: per-user folders, never the folder it was started in.

* the data folder (games database, saved corrections, the https certificate):
  ``$RUMMI_DATA_DIR``, else the platform's user data folder (``~/.local/share/rummi`` on Linux);
* the cache folder (numba's compiled hint solver): ``$RUMMI_CACHE_DIR``, else the platform's
  user cache folder (``~/.cache/rummi``).

An installed package may sit in a read-only site-packages, so nothing is ever written beside the
code; and a user who runs ``rummi serve`` from their home folder should not find a database there.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DATA_DIR_ENV = "RUMMI_DATA_DIR"
CACHE_DIR_ENV = "RUMMI_CACHE_DIR"


def data_dir() -> Path:
    """The user's rummi data folder (not created here: the code that writes into it does that)."""
    return Path(os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_path("rummi"))


def cache_dir() -> Path:
    """The user's rummi cache folder: anything in it can be deleted and is made again."""
    return Path(os.environ.get(CACHE_DIR_ENV) or platformdirs.user_cache_path("rummi"))


def use_numba_cache() -> Path:
    """Point numba's cache at the user's cache folder (unless ``NUMBA_CACHE_DIR`` is set already).

    Must run before numba is imported: numba reads the variable once. Without it numba caches
    beside the source, which fails silently in a read-only install and then compiles the hint
    solver again (about 30 s) in every new process.
    """
    folder = Path(os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir() / "numba")))
    return folder
