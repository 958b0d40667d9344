"""Joker retrieval: who may take a joker off the table, how, and where it must go (rules.md 4.2).

Every question on which the sources disagree is a preset field: replacement from the table
(#8), freeing by rearranging (#9), own tiles with a freed joker and "a new set" (#10), the strict
3-tile group (#11) and sets with a joker that may only grow (toggle 9). A joker is *freed* when
it is no longer in its set's heir (see :mod:`rummi.engine.referee.changes`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from rummi.engine.melds import SetKind, SetVerdict
from rummi.engine.notation import format_tiles
from rummi.engine.referee.changes import RACK, TableChanges
from rummi.engine.referee.verdicts import Code, Violation
from rummi.engine.rules import Rules
from rummi.engine.tiles import Tile

VerdictOf = Callable[[tuple[Tile, ...]], SetVerdict]


def joker_violations(
    changes: TableChanges, rules: Rules, may_take: bool, verdict_of: VerdictOf
) -> list[Violation]:
    """Jokers that left their set: who may take them, how, and where they must go.

    ``may_take``: the player may take table jokers this turn (they had opened, or the preset
    lets them use the table in the opening turn once the opening stands).
    """
    out: list[Violation] = []
    freed_anywhere = False
    for b, tiles in enumerate(changes.before):
        jokers = [t for t in tiles if t.is_joker]
        if not jokers or b in changes.intact_before:
            continue
        heir = changes.heir[b]
        stayed = sum(1 for t in changes.tiles_from(heir, b) if t.is_joker) if heir is not None else 0
        if rules.locked_joker_sets and not changes.extended(b):
            out.append(
                Violation(
                    Code.LOCKED_JOKER_SET,
                    f"a set holding a joker ({format_tiles(tiles)}) may only be added to under {rules.title}",
                    tiles=tiles,
                )
            )
        if stayed == len(jokers):
            continue
        freed_anywhere = True
        out += _how_freed(changes, b, rules, verdict_of)
    if freed_anywhere and not may_take:
        out.append(
            Violation(
                Code.JOKER_BEFORE_OPENING,
                "a joker on the table may only be taken after the player's own opening",
                tiles=tuple(t for t in changes.removed if t.is_joker) or _freed_jokers(changes),
            )
        )
    out += _where_freed_jokers_went(changes, rules)
    return out


def _freed_jokers(changes: TableChanges) -> tuple[Tile, ...]:
    return tuple(t for a in range(len(changes.after)) for t in _freed_jokers_in(changes, a))


def _freed_jokers_in(changes: TableChanges, a: int) -> list[Tile]:
    """Jokers of after-set ``a`` that came from a table set other than the one ``a`` continues."""
    return [
        tile
        for tile, source in zip(changes.after[a], changes.sources[a])
        if tile.is_joker and source != RACK and changes.heir.get(source) != a
    ]


def _how_freed(changes: TableChanges, b: int, rules: Rules, verdict_of: VerdictOf) -> list[Violation]:
    """Was the freed joker replaced by a rack tile, a table tile, or freed by rearranging?"""
    old = changes.before[b]
    verdict = verdict_of(old)
    if not verdict.valid:
        return []  # what the joker stood for is unknown; the set was already broken
    meanings = {t for options in verdict.joker_meanings() for t in options}
    heir = changes.heir[b]
    replacements = (
        []
        if heir is None
        else [
            (tile, source)
            for tile, source in zip(changes.after[heir], changes.sources[heir])
            if source != b and tile in meanings
        ]
    )
    out: list[Violation] = []
    from_rack = [t for t, s in replacements if s == RACK]
    from_table = [t for t, s in replacements if s != RACK]
    if not from_rack and from_table and not rules.joker_replacement_from_table:
        out.append(
            Violation(
                Code.JOKER_REPLACED_FROM_TABLE,
                f"the joker in {format_tiles(old)} was replaced by {format_tiles(from_table)} taken from "
                f"another set; under {rules.title} the replacement must come from the rack",
                tiles=tuple(from_table),
            )
        )
    if not replacements and not rules.joker_free_by_rearranging:
        out.append(
            Violation(
                Code.JOKER_FREED_BY_REARRANGING,
                f"the joker in {format_tiles(old)} was freed by rearranging, without a tile that "
                f"replaces it; {rules.title} does not allow that",
                tiles=old,
            )
        )
    if rules.strict_joker_group and _three_tile_group(verdict):
        present = Counter(changes.after[heir]) if heir is not None else Counter()
        missing = [t for t in sorted(meanings, key=Tile.sort_key) if present[t] == 0]
        if missing:
            out.append(
                Violation(
                    Code.STRICT_JOKER_GROUP,
                    f"the joker of the 3-tile group {format_tiles(old)} may only be taken when both "
                    f"missing colours are added; {format_tiles(missing)} missing",
                    tiles=tuple(missing),
                )
            )
    return out


def _three_tile_group(verdict: SetVerdict) -> bool:
    jokers = sum(1 for t in verdict.tiles if t.is_joker)
    return len(verdict.tiles) == 3 and jokers == 1 and verdict.kind is SetKind.GROUP


def _where_freed_jokers_went(changes: TableChanges, rules: Rules) -> list[Violation]:
    out = []
    heirs = {h for h in changes.heir.values() if h is not None}
    for a, tiles in enumerate(changes.after):
        if not _freed_jokers_in(changes, a):
            continue
        own = changes.own_count(a)
        if own < rules.freed_joker_min_own_tiles:
            out.append(
                Violation(
                    Code.FREED_JOKER_TOO_FEW_OWN_TILES,
                    f"a freed joker went into {format_tiles(tiles)} with {own} tile{'s' if own != 1 else ''} "
                    f"from the rack; {rules.title} asks for at least {rules.freed_joker_min_own_tiles}",
                    tiles=tiles,
                    sets=(a,),
                )
            )
        if rules.freed_joker_in_new_set and a in heirs:
            out.append(
                Violation(
                    Code.FREED_JOKER_NOT_IN_NEW_SET,
                    f"a freed joker must start a new set; it was added to {format_tiles(tiles)}, "
                    "a set already on the table",
                    tiles=tiles,
                    sets=(a,),
                )
            )
    return out
