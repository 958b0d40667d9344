"""Say in a few words how to get from the old table to the new one.

The solver only knows tile counts, so where a tile came from is reconstructed here: each new set
is matched to the old set it shares most tiles with, the rest of its tiles are taken from other
old sets, and what is left came from the rack. The lines read like a player's moves:
``add r8 J to r5 r6 r7``, ``swap the joker in r5 J r7 for r6``, ``new set k3 b3 o3 from your rack``.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from engine.notation import format_tiles
from engine.tiles import Tile

if TYPE_CHECKING:
    from engine.solver.position import Position
    from engine.solver.turn import TurnAnswer


def explain(pos: "Position", answer: "TurnAnswer", opened: bool) -> list[str]:
    old_sets = [list(s) for s in pos.table_sets_in]
    new_sets = [s for s, kept in zip(answer.table, answer.untouched) if not kept]
    kept_old = _kept_indices(old_sets, [s for s, kept in zip(answer.table, answer.untouched) if kept])
    remaining = {k: Counter(s) for k, s in enumerate(old_sets) if k not in kept_old}
    rack_left = Counter(answer.played)
    lines: list[str] = []
    opening = not opened
    if opening and answer.opening_value:
        lines.append(f"opening worth {answer.opening_value} points")
    # biggest overlap first, so a set that grew is read as "add", not as a new set
    order = sorted(range(len(new_sets)), key=lambda i: -max(
        [sum((Counter(new_sets[i]) & c).values()) for c in remaining.values()] + [0]
    ))
    for i in order:
        new = new_sets[i]
        need = Counter(new)
        sources: list[tuple[list[Tile], list[Tile]]] = []  # (old set, tiles taken from it)
        while need and remaining:
            k, overlap = max(
                ((k, need & c) for k, c in remaining.items()), key=lambda kc: sum(kc[1].values())
            )
            if not overlap:
                break
            remaining[k] -= overlap
            need -= overlap
            sources.append((old_sets[k], list(overlap.elements())))
            if not remaining[k]:
                del remaining[k]
        from_rack = need & rack_left
        rack_left -= from_rack
        need -= from_rack
        lines.append(_line(new, sources, list(from_rack.elements())))
    return lines


def _kept_indices(old_sets: list[list[Tile]], kept_sets: list[list[Tile]]) -> set[int]:
    used: set[int] = set()
    for s in kept_sets:
        for k, old in enumerate(old_sets):
            if k not in used and Counter(old) == Counter(s):
                used.add(k)
                break
    return used


def _line(new: list[Tile], sources: list[tuple[list[Tile], list[Tile]]], rack: list[Tile]) -> str:
    text = format_tiles(new)
    rack_text = format_tiles(rack)
    if not sources:
        return f"new set {text} from your rack"
    if len(sources) == 1:
        old, taken = sources[0]
        whole = Counter(taken) == Counter(old)
        if whole and rack:
            return f"add {rack_text} to {format_tiles(old)} to make {text}"
        left_out = list((Counter(old) - Counter(taken)).elements())
        jokers_out = [t for t in left_out if t.is_joker]
        if jokers_out and len(left_out) == len(jokers_out) and rack and not any(t.is_joker for t in rack):
            return f"swap the joker in {format_tiles(old)} for {rack_text}: {text}"
    parts = [f"{format_tiles(taken)} from {format_tiles(old)}" for old, taken in sources]
    if rack:
        parts.append(f"{rack_text} from your rack")
    return f"make {text} with " + ", ".join(parts)
