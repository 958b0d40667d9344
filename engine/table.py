"""A whole table: a verdict for every set, one overall verdict, and the tile-count check.

The table is valid when every set is a group or a run and no tile appears more often than the
edition holds it. Racks are optional; when given, they are counted with the table, because three
r7 in a standard game are impossible whether the third one lies on the table or on a rack.

    >>> from rummi.engine.notation import parse_sets
    >>> verdict = validate_table(parse_sets("r5 r6 r7 | k9 b9 b9"))
    >>> verdict.valid, verdict.invalid_sets
    (False, [1])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rummi.engine.editions import Edition, get_edition, inventory_problems
from rummi.engine.melds import SetVerdict, classify
from rummi.engine.notation import format_tiles, tile_to_json
from rummi.engine.tiles import Tile


@dataclass(frozen=True)
class TableVerdict:
    """What the engine says about a table (and the racks counted with it)."""

    edition: Edition
    sets: tuple[SetVerdict, ...]
    inventory: tuple[str, ...] = ()
    racks: Mapping[str, tuple[Tile, ...]] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        """Every set valid and the tiles possible in this edition."""
        return self.sets_valid and not self.inventory

    @property
    def sets_valid(self) -> bool:
        return all(v.valid for v in self.sets)

    @property
    def invalid_sets(self) -> list[int]:
        """0-based positions of the invalid sets."""
        return [i for i, v in enumerate(self.sets) if not v.valid]

    @property
    def value(self) -> int:
        """Points of all valid sets, jokers at their best reading."""
        return sum(v.value for v in self.sets)

    def summary(self) -> str:
        """One line: the overall verdict and why."""
        if self.valid:
            count = len(self.sets)
            return f"valid table: {count} set{'s' if count != 1 else ''} ({self.edition.title})"
        reasons = []
        bad = self.invalid_sets
        if bad:
            shown = ", ".join(str(i + 1) for i in bad)
            reasons.append(f"set{'s' if len(bad) > 1 else ''} {shown} invalid")
        if self.inventory:
            reasons.append("impossible in this edition: " + "; ".join(self.inventory))
        return "invalid table: " + "; ".join(reasons)

    def describe(self) -> str:
        """Several lines for a person: one per set, then the overall verdict."""
        lines = [f"{i + 1}. {v.describe()}" for i, v in enumerate(self.sets)]
        for name, tiles in self.racks.items():
            lines.append(f"rack {name}: {format_tiles(tiles) or '(empty)'}")
        lines.append(self.summary())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the overall verdict, every set's verdict, the inventory problems."""
        return {
            "valid": self.valid,
            "edition": self.edition.name,
            "summary": self.summary(),
            "sets": [set_verdict_to_dict(v) for v in self.sets],
            "inventory_problems": list(self.inventory),
            "racks": {name: [tile_to_json(t) for t in tiles] for name, tiles in self.racks.items()},
        }


def set_verdict_to_dict(verdict: SetVerdict) -> dict[str, Any]:
    """One set's verdict in JSON form; every joker lists all tiles it may stand for."""
    return {
        "tiles": [tile_to_json(t) for t in verdict.tiles],
        "text": format_tiles(verdict.tiles),
        "kind": verdict.kind.value,
        "valid": verdict.valid,
        "reason": verdict.reason,
        "value": verdict.value,
        "ambiguous": verdict.ambiguous,
        "jokers": [[[str(t) for t in option] for option in options] for options in verdict.joker_options()],
        "readings": [
            {"kind": r.kind.value, "stands_for": [str(t) for t in r.stands_for], "value": r.value}
            for r in verdict.readings
        ],
        "notes": list(verdict.notes),
    }


def validate_table(
    sets: Sequence[Sequence[Tile]],
    edition: Edition | str | None = None,
    racks: Mapping[str, Sequence[Tile]] | None = None,
) -> TableVerdict:
    """Judge every set of ``sets`` and count all tiles (table and ``racks``) against ``edition``."""
    ed = get_edition(edition)
    rack_tiles = {name: tuple(tiles) for name, tiles in (racks or {}).items()}
    verdicts = tuple(classify(s, ed) for s in sets)
    every_tile = [t for s in sets for t in s] + [t for tiles in rack_tiles.values() for t in tiles]
    problems = tuple(inventory_problems(ed, every_tile))
    return TableVerdict(edition=ed, sets=verdicts, inventory=problems, racks=rack_tiles)
