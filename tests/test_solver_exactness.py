"""The solver against an exhaustive search on small seeded positions, both objectives.

The full 1,000-position-per-class check is ``benchmarks/solver_exactness.py``; this test runs a
slice of it so a regression shows up in the normal suite.
"""

from __future__ import annotations

import pytest
from rummi.engine.referee import judge_turn
from rummi.engine.rules import Rules, get_rules
from rummi.engine.solver import solve

from benchmarks.positions import (
    ALIKE_TWIST_PRESETS,
    Deal,
    alike_twist_deal,
    joker_deal,
    locked_growth_deal,
    small_deal,
)
from benchmarks.solver_reference import reference_best

PRESETS = ["pressman_us_2009", "goliath_modern", "pl_wikipedia_tournament", "strict_group_1980"]


def assert_legal_and_optimal(deal: Deal, rules: Rules, label: str) -> None:
    """Both objectives' hints for ``deal``: judged legal by the referee, and scoring as the
    exhaustive reference's best (tiles, points, old sets kept)."""
    for objective in ("tiles", "value"):
        hint = solve(deal.table, deal.rack, opened=deal.opened, edition=deal.edition, rules=rules, objective=objective)
        if not hint.is_draw:
            verdict = judge_turn(deal.table, hint.table, opened=deal.opened, rack=deal.rack, rules=rules,
                                 edition=deal.edition)
            assert verdict.legal, (label, objective, [v.message for v in verdict.violations])
        ref = reference_best(deal.table, deal.rack, deal.opened, deal.edition, rules, value_first=objective == "value")
        mine = None if hint.is_draw else (hint.tiles_played, hint.value_played, sum(hint.untouched))
        theirs = None if ref is None else (ref.tiles, ref.value, ref.untouched)
        assert mine == theirs, f"{label} {objective}: {deal}"


@pytest.mark.parametrize("objective", ["tiles", "value"])
@pytest.mark.parametrize("preset", PRESETS)
def test_solver_matches_exhaustive_search(preset: str, objective: str) -> None:
    rules = get_rules(preset)
    for seed in range(12):
        deal = small_deal(seed * 7 + len(preset))
        hint = solve(
            deal.table, deal.rack, opened=deal.opened, edition=deal.edition, rules=rules, objective=objective
        )
        ref = reference_best(
            deal.table, deal.rack, deal.opened, deal.edition, rules, value_first=objective == "value"
        )
        mine = None if hint.is_draw else (hint.tiles_played, hint.value_played, sum(hint.untouched))
        theirs = None if ref is None else (ref.tiles, ref.value, ref.untouched)
        assert mine == theirs, f"seed {seed}: {deal}"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_hints_with_table_jokers_are_legal_and_optimal_under_every_preset(preset: str) -> None:
    """A sample of ``benchmarks/solver_exactness.py``'s "jokers: <preset>" classes."""
    rules = get_rules(preset)
    for seed in range(4):
        assert_legal_and_optimal(joker_deal(seed + 100, rules.edition), rules, f"seed {seed}")


@pytest.mark.parametrize("seed", [2, 6, 15, 25, 33, 41])
def test_locked_sets_grown_by_coloured_jokers_are_legal_and_optimal(seed: int) -> None:
    """A sample of ``benchmarks/solver_exactness.py``'s "jokers: pagat_sabra, expert, coloured
    growth" class (Pagat's Sabra in Expert's box): 15, 25 and 33 played less while a locked
    set's growths counted plain rack jokers only, 41 counted an old set whole that was not
    (``fates.restore``), 2 and 6 grow a locked set by a coloured joker."""
    rules = get_rules("pagat_sabra", edition="expert")
    assert_legal_and_optimal(locked_growth_deal(seed), rules, f"seed {seed}")


@pytest.mark.parametrize("seed", [197, 215, 318, 5, 12])
def test_twist_hints_with_an_alike_twin_on_the_rack_are_legal_and_optimal(seed: int) -> None:
    """A sample of ``benchmarks/solver_exactness.py``'s "jokers: twist, alike twin on the rack"
    class: 197 (mso_2019: a special set left a standard joker's set as no set), 215 (strict 1980:
    two special sets needing one tile) and 318 (goliath_modern: two colour-change jokers side by
    side) were hints marked proven but not optimal before the review's fixes."""
    rules = get_rules(ALIKE_TWIST_PRESETS[seed % len(ALIKE_TWIST_PRESETS)], edition="twist")
    assert_legal_and_optimal(alike_twist_deal(seed), rules, f"seed {seed}")


@pytest.mark.parametrize("edition,jokers", [("standard", 0), ("standard", 2), ("xp", 4), ("start_right", 1)])
def test_opening_search_agrees_with_the_integer_program(edition: str, jokers: int) -> None:
    """Two methods for the opening (branch-and-bound over rack sets, and the full model)."""
    from rummi.engine.solver import opening
    from rummi.engine.solver.position import Position, RuleView
    from rummi.engine.solver.turn import Objective, solve_turn

    from benchmarks.positions import DealClass, deal

    kind = DealClass(f"opening-{edition}-{jokers}", 0, 14 if edition != "start_right" else 9, jokers,
                     edition=edition, opened=False)
    for seed in range(15):
        position = deal(kind, seed)
        for rules in (RuleView(), RuleView(threshold=50)):
            pos = Position(position.table, position.rack, position.edition, rules)
            for objective in Objective:
                fast = opening.search(pos, objective)
                full = solve_turn(pos, False, objective)
                assert (fast and (fast.tiles, fast.value)) == (full and (full.tiles, full.value))
