"""Joker retrieval: who may take a joker off the table, how, and where it must go (rules.md 4.2).

Every question on which the sources disagree is a preset field: replacement from the table
(#8), freeing by rearranging (#9), own tiles with a freed joker and "a new set" (#10), the strict
3-tile group (#11) and sets with a joker that may only grow (toggle 9). What happened to each
joker is read by :func:`rummi.engine.joker_fate.read_joker_fates`, the one definition the hint
solver encodes too, so a hint is never judged by other rules than it was found by; this module
turns its problems into violations.
"""

from __future__ import annotations

from rummi.engine.editions import Edition
from rummi.engine.joker_fate import read_joker_fates
from rummi.engine.referee.changes import TableChanges
from rummi.engine.referee.verdicts import Code, Violation
from rummi.engine.rules import Rules


def joker_violations(changes: TableChanges, rules: Rules, may_take: bool, box: Edition) -> list[Violation]:
    """Jokers that left their set: who may take them, how, and where they must go.

    ``may_take``: the player may take table jokers this turn (they had opened, or the preset
    lets them use the table in the opening turn once the opening stands). Asked in the box's
    edition, not with the judge's own set verdicts (classify caches those already): so the
    reading is the one the hint solver asked of the same play, remembered by
    :func:`read_joker_fates`, not read twice.
    """
    reading = read_joker_fates(changes.before, changes.after, rules=rules, may_take=may_take, edition=box)
    return [
        Violation(Code(p.code), p.message, tiles=p.tiles, sets=p.sets) for p in reading.problems
    ]
