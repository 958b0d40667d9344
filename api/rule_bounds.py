"""The range each numeric rule may take when a request overrides it.

The engine takes any integer a rulebook could mean; a request from the network may send
``joker_penalty: 10**30``, which no rulebook means and which no database column holds (a
PostgreSQL INTEGER stops at 2**31 - 1). So every overridden number is checked against its
rule's own range here, and one outside it is a 422 that says the range.

    >>> check_overrides({"joker_penalty": 50}, {"joker_penalty": 50})
    >>> check_overrides({"joker_penalty": 10**30}, {"joker_penalty": 10**30})
    Traceback (most recent call last):
    ...
    rummi.engine.errors.RummiError: rule joker_penalty: 1000000000000000000000000000000 is outside 0..500
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rummi.engine.errors import RummiError

#: rule -> (smallest, largest) for the rule's number (each number, for a pair of them).
RULE_BOUNDS: dict[str, tuple[int, int]] = {
    "opening_threshold": (0, 500),
    "joker_penalty": (0, 500),
    "never_opened_penalty": (0, 1000),
    "turn_seconds": (1, 86_400),
    "overtime_draw": (0, 40),
    "failed_manipulation_draw": (0, 40),
    "clock_seconds": (1, 86_400),
    "clock_increment_seconds": (0, 3_600),
    "freed_joker_min_own_tiles": (0, 13),
    "target_score": (1, 100_000),
    "players": (1, 8),
}
#: Any other numeric rule (none today; a new one must not be unbounded meanwhile).
DEFAULT_BOUNDS = (-100_000, 100_000)


def check_overrides(overrides: Mapping[str, Any], resolved: Mapping[str, Any]) -> None:
    """Refuse an overridden rule whose resolved value lies outside its range.

    ``resolved`` maps rule names to the values the engine made of the overrides (a number, a
    pair of numbers, ``None``, a word...); only numbers are bounded.
    """
    for name in overrides:
        value = resolved.get(name)
        low, high = RULE_BOUNDS.get(name, DEFAULT_BOUNDS)
        numbers = value if isinstance(value, (tuple, list)) else (value,)
        for number in numbers:
            if isinstance(number, int) and not isinstance(number, bool) and not low <= number <= high:
                raise RummiError(f"rule {name}: {number} is outside {low}..{high}")
