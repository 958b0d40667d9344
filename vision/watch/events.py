"""What the tracker reports: one event per thing that happened at the table.

Every event is ``{"event": KIND, "time": seconds into the source, ...}`` in JSON, the same on
the command line (``rummi watch --json``, one per line) and in the service's answers:

* ``settled`` -- the table is still and read (``table``, ``tiles``, ``changed``, ``restored``);
* ``disturbed`` -- a hand or an arm over the table, or the camera moved (``reason``);
* ``turn`` -- a settled change, judged: ``number``, ``player``, ``before``, ``after``,
  ``played``, ``seconds``, ``started``, ``first_hand``, ``settled_at``, ``drew``, ``verdict``;
  with ``amends`` (the same number) when it replaces the turn just reported: the same player
  went on after a pause, so that turn is judged again on the whole change;
* ``uncertain`` -- a turn whose verdict hangs on tiles read with low confidence: the same
  fields as ``turn`` plus ``depends_on`` (never an accusation), or a reading the referee could
  not use at all (``reason``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SETTLED = "settled"
DISTURBED = "disturbed"
TURN = "turn"
UNCERTAIN = "uncertain"
KINDS = (SETTLED, DISTURBED, TURN, UNCERTAIN)


@dataclass(frozen=True)
class WatchEvent:
    """``spots``: for a turn, where the tiles read with low confidence lie (``engine.referee.Spot``),
    so whoever records the turn can judge it exactly as the tracker did; not part of the JSON."""

    kind: str
    time: float
    data: dict[str, Any] = field(default_factory=dict)
    spots: tuple[Any, ...] = ()

    @property
    def is_turn(self) -> bool:
        """A turn was recorded (a plain ``turn`` or an ``uncertain`` one with a verdict)."""
        return self.kind == TURN or (self.kind == UNCERTAIN and "verdict" in self.data)

    def to_json(self) -> dict[str, Any]:
        return {"event": self.kind, "time": round(self.time, 3), **self.data}
