"""Errors the engine raises.

Every error a user can cause is a subclass of :class:`RummiError`, so the command line and the
service can turn it into a clear message (exit code 2, HTTP 4xx) instead of a traceback.
"""

from __future__ import annotations


class RummiError(ValueError):
    """Base class for every error caused by what a user asked for."""


class NotationError(RummiError):
    """Text in the tile notation could not be read.

    ``position`` is the 0-based character offset of the offending token in ``text`` (or ``None``
    when the error is not tied to one place), so a caller can point at it.
    """

    def __init__(self, message: str, text: str = "", position: int | None = None) -> None:
        self.reason = message
        self.text = text
        self.position = position
        where = ""
        if position is not None and text:
            where = f" (at character {position + 1} of {_excerpt(text, position)!r})"
        super().__init__(f"{message}{where}")


def _excerpt(text: str, position: int, width: int = 60) -> str:
    """``text`` as a message quotes it: whole when short, else the stretch around ``position``.

    A pasted megabyte must give a one-line message, not a megabyte of it.
    """
    if len(text) <= width:
        return text
    start = max(0, min(position - width // 2, len(text) - width))
    head = "..." if start > 0 else ""
    tail = "..." if start + width < len(text) else ""
    return f"{head}{text[start : start + width]}{tail}"


class ImpossibleStateError(RummiError):
    """A game state that cannot happen with the edition's tiles (too many copies, a 14...)."""
