"""The referee: was one turn legal, and if not, exactly why and what happens next.

One job a module, in the order a turn is judged:

* :mod:`~rummi.engine.referee.seen` -- what the camera saw, with the tiles it was unsure of;
* :mod:`~rummi.engine.referee.changes` -- which tiles moved where between before and after;
* :mod:`~rummi.engine.referee.jokers` -- what happened to each table joker, against the preset;
* :mod:`~rummi.engine.referee.judge` -- every rule checked, the verdict (:func:`judge_turn`);
* :mod:`~rummi.engine.referee.verdicts` -- violations, doubts and the preset's consequence;
* :mod:`~rummi.engine.referee.never_opened` -- could a player who never opened have opened
  (loads the solver, so it is imported only when asked).

The names below are imported on first use (see :mod:`rummi.engine.lazy`).
"""

from typing import TYPE_CHECKING

from rummi.engine.lazy import lazy_exports

if TYPE_CHECKING:
    from rummi.engine.referee.judge import judge_turn
    from rummi.engine.referee.seen import Side, Spot, parse_seen
    from rummi.engine.referee.verdicts import (
        Code,
        Consequence,
        Doubt,
        Penalty,
        Status,
        TurnVerdict,
        Violation,
    )

_HOME = {
    "judge_turn": "rummi.engine.referee.judge",
    **dict.fromkeys(("Side", "Spot", "parse_seen"), "rummi.engine.referee.seen"),
    **dict.fromkeys(
        ("Code", "Consequence", "Doubt", "Penalty", "Status", "TurnVerdict", "Violation"),
        "rummi.engine.referee.verdicts",
    ),
}

__all__ = [
    "Code",
    "Consequence",
    "Doubt",
    "Penalty",
    "Side",
    "Spot",
    "Status",
    "TurnVerdict",
    "Violation",
    "judge_turn",
    "parse_seen",
]
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)
