"""Holding out validation photos by shooting session, never by random file.

Photos taken in one sitting share a file-name prefix and a running number (``rummy4-12``):
neighbouring numbers show the same layout from a slightly moved phone, so a random split puts
near-copies on both sides and flatters the score. (The shared export's own ``valid`` folder is
such a random split: ``rummy-8`` is valid while ``rummy-7`` and ``rummy-9``, the same table,
are train.) We hold out, per session, one contiguous block at the end of its numbers instead.

    >>> session_of("rummy4-12_jpeg.rf.0123abcd.jpg")
    ('rummy4', 12)
    >>> split_by_session([("a", n) for n in range(1, 11)], val_fraction=0.2)[("a", 9)]
    'val'
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable

from rummi.datasets.errors import DatasetError

_NAME = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z0-9]*?)-(?P<number>\d+)(?:[_.].*)?$")


def session_of(file_name: str) -> tuple[str, int]:
    """(prefix, number) of a photo's file name, e.g. ``rummy2-11_jpeg.rf.x.jpg`` -> ('rummy2', 11)."""
    match = _NAME.match(file_name)
    if not match:
        raise DatasetError(f"{file_name!r}: expected a name like 'prefix-12...' to tell its session")
    return match["prefix"], int(match["number"])


def split_by_session(photos: Iterable[tuple[str, int]], val_fraction: float = 0.2) -> dict[tuple[str, int], str]:
    """'train' or 'val' per (prefix, number): each prefix's highest numbers go to val.

    At least ``val_fraction`` of each session's photos (rounded up, at least one when a session
    has two or more) are held out, so every kind of scene is in both splits and no train number
    of a session lies inside or beyond its val block.
    """
    if not 0.0 < val_fraction < 1.0:
        raise DatasetError(f"val fraction must be between 0 and 1, got {val_fraction}")
    by_prefix: dict[str, list[int]] = defaultdict(list)
    for prefix, number in photos:
        by_prefix[prefix].append(number)
    split: dict[tuple[str, int], str] = {}
    for prefix, numbers in by_prefix.items():
        ordered = sorted(set(numbers))
        held = math.ceil(len(ordered) * val_fraction) if len(ordered) > 1 else 0
        first_val = ordered[len(ordered) - held] if held else math.inf
        for number in ordered:
            split[(prefix, number)] = "val" if number >= first_val else "train"
    return split


def val_ranges(split: dict[tuple[str, int], str]) -> dict[str, list[int]]:
    """Per prefix, [first, last] number of the val block (for the manifest and the docs)."""
    ranges: dict[str, list[int]] = {}
    for (prefix, number), side in split.items():
        if side == "val":
            low, high = ranges.get(prefix, [number, number])
            ranges[prefix] = [min(low, number), max(high, number)]
    return dict(sorted(ranges.items()))
