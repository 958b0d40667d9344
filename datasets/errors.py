"""Errors for dataset commands: bad labels, missing sources, unusable folders."""

from __future__ import annotations

from rummi.engine.errors import RummiError


class DatasetError(RummiError):
    """A dataset (source or output) is missing, malformed or inconsistent."""
