"""Secrets `rummi serve` keeps in the data folder, so that a restart changes nothing a user holds.

Two of them, each in a private file of its own, made on first use:

* ``join-secret`` signs the games' join codes (:class:`api.access.Access`: a code is an HMAC of
  the game id). Signed with the organiser's token, every phone's code would change whenever the
  token did. ``RUMMI_JOIN_SECRET`` replaces the file (the same on every machine of a scale-out).
* ``organiser-token``: the token made up when `rummi serve` listens beyond loopback and none is
  given (``--token``, ``RUMMI_TOKEN``). Made up anew on every start, it locked the organiser's
  own page (which keeps the token it was opened with) out after each restart of a tournament.

Deleting a file revokes what it signs or grants: new ones are made at the next start.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

JOIN_SECRET_FILE = "join-secret"
ORGANISER_TOKEN_FILE = "organiser-token"


def stored_join_secret(folder: Path) -> str:
    """The join secret kept in ``folder``, made now if there is none."""
    return stored_secret(folder, JOIN_SECRET_FILE, nbytes=32)


def stored_organiser_token(folder: Path) -> str:
    """The organiser token kept in ``folder``, made now if there is none (short enough to type)."""
    return stored_secret(folder, ORGANISER_TOKEN_FILE, nbytes=18)


def stored_secret(folder: Path, name: str, *, nbytes: int) -> str:
    """The secret kept in ``folder / name`` (owner-only), made now from ``nbytes`` random bytes.

    Several workers starting at once agree on one: the secret is written to a private file of
    its own and then linked into place, which fails for all but the first, who then read it.
    """
    path = folder / name
    with contextlib.suppress(FileNotFoundError):
        return _read(path)
    folder.mkdir(parents=True, exist_ok=True)
    draft = folder / f".{name}.{os.getpid()}.{secrets.token_hex(4)}"
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(nbytes) + "\n")
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
    return _read(path)


def _read(path: Path) -> str:
    secret = path.read_text(encoding="ascii").strip()
    if len(secret) < 16:
        raise ValueError(f"{path} holds no usable secret: delete it and start again")
    return secret
