"""What the referee says about a turn: violations, their consequence, the verdict.

Plain data with stable codes (:class:`Code`) for JSON and the service; :mod:`engine.referee`
fills it in. :func:`consequence_of` turns violations into what happens next under a preset.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rummi.engine.notation import format_tiles
from rummi.engine.referee.seen import Spot
from rummi.engine.rules import Rules
from rummi.engine.tiles import Tile


class Penalty(enum.Enum):
    """What kind of consequence a violation carries."""

    DRAW = "draw"  # nothing was played: the player draws one tile, as on any turn without a play
    FAILED_TURN = "failed_turn"  # restore the table, take back own tiles, draw the preset's penalty
    OVERTIME = "overtime"  # the preset's over-time penalty
    CHECK = "check"  # the tiles themselves must be checked; no automatic penalty


class Code(enum.Enum):
    """Every violation the referee detects. The value is the stable code in JSON output."""

    TILE_REMOVED = "tile_removed"
    JOKER_NOT_REUSED = "joker_not_reused"
    INVALID_SET = "invalid_set"
    NO_TILE_PLAYED = "no_tile_played"
    REARRANGED_WITHOUT_PLAYING = "rearranged_without_playing"
    DREW_AND_PLAYED = "drew_and_played"
    TILE_NOT_ON_RACK = "tile_not_on_rack"
    IMPOSSIBLE_TILES = "impossible_tiles"
    OPENING_TOO_LOW = "opening_too_low"
    OPENING_USED_TABLE = "opening_used_table"
    OPENING_ADDED_TO_TABLE = "opening_added_to_table"
    OPENING_WITH_JOKER = "opening_with_joker"
    JOKER_BEFORE_OPENING = "joker_before_opening"
    FREED_JOKER_TOO_FEW_OWN_TILES = "freed_joker_too_few_own_tiles"
    FREED_JOKER_NOT_IN_NEW_SET = "freed_joker_not_in_new_set"
    JOKER_REPLACED_FROM_TABLE = "joker_replaced_from_table"
    JOKER_FREED_BY_REARRANGING = "joker_freed_by_rearranging"
    STRICT_JOKER_GROUP = "strict_joker_group"
    LOCKED_JOKER_SET = "locked_joker_set"
    OVER_TIME = "over_time"

    @property
    def penalty(self) -> Penalty:
        if self is Code.NO_TILE_PLAYED:
            return Penalty.DRAW
        if self is Code.OVER_TIME:
            return Penalty.OVERTIME
        if self in (Code.TILE_NOT_ON_RACK, Code.IMPOSSIBLE_TILES):
            return Penalty.CHECK
        return Penalty.FAILED_TURN


@dataclass(frozen=True)
class Doubt:
    """An uncertain tile that a violation depends on: read as ``alternatives``, it goes away."""

    spot: Spot
    seen: Tile
    alternatives: tuple[Tile, ...]

    def describe(self) -> str:
        options = ", ".join(str(t) for t in self.alternatives[:6])
        more = f" (+{len(self.alternatives) - 6} more)" if len(self.alternatives) > 6 else ""
        return (
            f"{self.spot} was read as {self.seen} with low confidence; "
            f"read as {options}{more}, this problem goes away"
        )


@dataclass(frozen=True)
class Violation:
    """One broken rule: a stable code, a sentence for people, and what it involves.

    ``sets`` are indices into the table after the turn (or before, for removed tiles' sets);
    ``doubts`` is empty when the violation does not depend on any uncertain tile.
    """

    code: Code
    message: str
    tiles: tuple[Tile, ...] = ()
    sets: tuple[int, ...] = ()
    doubts: tuple[Doubt, ...] = ()

    @property
    def certain(self) -> bool:
        return not self.doubts

    @property
    def key(self) -> tuple[Code, tuple[int, ...]]:
        """What identifies this violation across readings of uncertain tiles."""
        return (self.code, self.sets if self.code is Code.INVALID_SET else ())

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            "message": self.message,
            "tiles": [str(t) for t in self.tiles],
            "sets": list(self.sets),
            "penalty": self.code.penalty.value,
            "certain": self.certain,
            "depends_on": [
                {
                    "side": d.spot.side.value,
                    "set": d.spot.set_index,
                    "index": d.spot.index,
                    "seen": str(d.seen),
                    "alternatives": [str(t) for t in d.alternatives],
                }
                for d in self.doubts
            ],
        }


@dataclass(frozen=True)
class Consequence:
    """What happens next under the preset. Penalties do not add up: the heaviest applies."""

    restore_table: bool = False
    take_back: tuple[Tile, ...] = ()
    draw: int = 0
    check_tiles: bool = False

    @property
    def text(self) -> str:
        sentences = []
        if self.restore_table:
            sentences.append("Put the table back as it was before the turn.")
        player = []
        if self.take_back:
            player.append(f"takes back {format_tiles(self.take_back)}")
        if self.draw:
            player.append(f"draws {self.draw} tile{'s' if self.draw != 1 else ''}")
        if player:
            sentences.append("The player " + " and ".join(player) + ".")
        if self.check_tiles:
            sentences.append("Check the tiles named above before play goes on.")
        return " ".join(sentences) or "No penalty: the turn stands."

    def to_dict(self) -> dict[str, Any]:
        return {
            "restore_table": self.restore_table,
            "take_back": [str(t) for t in self.take_back],
            "draw": self.draw,
            "check_tiles": self.check_tiles,
            "text": self.text,
        }


class Status(enum.Enum):
    LEGAL = "legal"
    ILLEGAL = "illegal"
    UNCERTAIN = "uncertain"  # every violation goes away under another reading of an unsure tile


@dataclass(frozen=True)
class TurnVerdict:
    """The referee's answer for one turn.

    ``opens``: this turn was the player's opening. An undecided turn counts too: until the
    unsure tiles are checked, the player is not treated as having broken a rule.
    """

    status: Status
    played: tuple[Tile, ...]
    violations: tuple[Violation, ...]
    consequence: Consequence
    opens: bool = False
    opening_value: int | None = None
    rules: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def legal(self) -> bool:
        return self.status is Status.LEGAL

    @property
    def depends_on(self) -> tuple[Spot, ...]:
        """The uncertain tiles the verdict hangs on (empty when it is certain)."""
        return tuple(sorted({d.spot for v in self.violations for d in v.doubts}))

    def codes(self) -> list[str]:
        return [v.code.value for v in self.violations]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "legal": self.legal,
            "played": [str(t) for t in self.played],
            "opens": self.opens,
            "opening_value": self.opening_value,
            "violations": [v.to_dict() for v in self.violations],
            "consequence": self.consequence.to_dict(),
            "depends_on": [str(s) for s in self.depends_on],
            "rules": self.rules,
            "notes": list(self.notes),
        }


def consequence_of(found: Sequence[Violation], played: tuple[Tile, ...], rules: Rules) -> Consequence:
    """What happens next: penalties do not add up, the heaviest applies."""
    penalties = {v.code.penalty for v in found}
    restore = Penalty.FAILED_TURN in penalties or (
        Penalty.OVERTIME in penalties and rules.overtime_restores_table
    )
    draws = [0]
    if Penalty.FAILED_TURN in penalties:
        draws.append(rules.failed_manipulation_draw)
    if Penalty.OVERTIME in penalties:
        draws.append(rules.overtime_draw)
    if Penalty.DRAW in penalties:
        draws.append(1)
    return Consequence(
        restore_table=restore,
        take_back=played if restore else (),
        draw=max(draws),
        check_tiles=Penalty.CHECK in penalties,
    )
