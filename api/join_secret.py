"""The secret that signs join codes, kept in the data folder so the codes survive a restart.

A join code is an HMAC of the game id (:class:`api.access.Access`). Signed with the organiser's
token, every code changed whenever `rummi serve` started without ``--token`` (it makes a new
token each time): a tournament lost every phone's code on a restart. So `rummi serve` signs
them with a secret of their own: ``RUMMI_JOIN_SECRET`` when given (the same on every machine
of a scale-out), else ``join-secret`` in the data folder, made on first use, readable by its
owner only. Deleting that file revokes every code (new ones are made at the next start).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

FILE_NAME = "join-secret"


def stored_join_secret(folder: Path) -> str:
    """The join secret kept in ``folder``, made now if there is none.

    Several workers starting at once agree on one: the secret is written to a private file of
    its own and then linked into place, which fails for all but the first, who then read it.
    """
    path = folder / FILE_NAME
    with contextlib.suppress(FileNotFoundError):
        return _read(path)
    folder.mkdir(parents=True, exist_ok=True)
    draft = folder / f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}"
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
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
        raise ValueError(f"{path} holds no usable join secret: delete it and start again")
    return secret
