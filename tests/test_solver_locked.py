"""engine.solver.locked: Pagat's Sabra locked joker sets by the dynamic programme, growth by growth.

Each answer is compared with the integer program (which encodes the locked sets as choices of
growths) on the same position, and the route is checked: these positions must not reach it.
"""

from __future__ import annotations

import pytest
from rummi.engine.notation import format_sets, parse_sets, parse_tiles
from rummi.engine.referee import judge_turn
from rummi.engine.rules import get_rules
from rummi.engine.solver import Objective, locked, solve
from rummi.engine.solver.position import Position, RuleView

from benchmarks.positions import PRESET_CLASSES, deal, joker_deal
from tests.test_solver_fates import _no_integer_program, _score

SABRA = "pagat_sabra"


def _fast_and_exact(table, rack, edition, objective, monkeypatch, opened=True):
    exact = solve(table, rack, opened=opened, edition=edition, rules=SABRA, objective=objective, compiled=False)
    with monkeypatch.context() as m:
        _no_integer_program(m)
        fast = solve(table, rack, opened=opened, edition=edition, rules=SABRA, objective=objective)
    return fast, exact


# the benchmark's Sabra class: 3 settled by a bound the referee accepts, 14 and 26 walk every
# growth (the bound is not reached), 22 and 28 hold 117-138 growths of one locked run
@pytest.mark.parametrize("seed", [0, 3, 8, 14, 22, 26, 28])
@pytest.mark.parametrize("objective", list(Objective))
def test_locked_sets_give_the_integer_programs_answer_without_it(
    seed: int, objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = PRESET_CLASSES["pagat_sabra: mid-game, table joker"]
    p = deal(kind, seed)
    fast, exact = _fast_and_exact(p.table, p.rack, p.edition, objective, monkeypatch)
    assert _score(fast) == _score(exact)
    assert judge_turn(p.table, fast.table, opened=True, rack=p.rack, rules=SABRA, edition=p.edition).legal


def test_small_positions_with_locked_sets_match_the_integer_program(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for seed in range(60):
        p = joker_deal(seed, get_rules(SABRA).edition)
        pos = Position(p.table, p.rack, p.edition, RuleView.of(SABRA))
        if not p.opened or not locked.applies(pos, True):
            continue
        for objective in Objective:
            fast, exact = _fast_and_exact(p.table, p.rack, p.edition, objective, monkeypatch)
            assert _score(fast) == _score(exact), (seed, objective, format_sets(p.table))
        checked += 1
    assert checked >= 30


def test_a_growth_may_take_a_table_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    # r8 fits only once r7 leaves its group for the locked run: r4 J r6 r7 r8, b7 o7 k7
    fast, exact = _fast_and_exact(parse_sets("r4 J r6 | r7 b7 o7 k7"), parse_tiles("r8 k1"), None,
                                  Objective.TILES, monkeypatch)
    assert fast.tiles_played == exact.tiles_played == 1
    assert sorted(format_sets(fast.table).split(" | ")) == ["k7 b7 o7", "r4 J r6 r7 r8"]


def test_a_locked_set_left_as_it_was_counts_as_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, exact = _fast_and_exact(parse_sets("r5 J r7 | k1 k2 k3"), parse_tiles("k4 b9"), None,
                                  Objective.TILES, monkeypatch)
    assert _score(fast) == _score(exact) == (1, 4, 1)
    assert "r5 J r7" in format_sets(fast.table).split(" | ")


def test_nothing_fits_a_locked_set_is_a_draw_without_the_integer_program(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, exact = _fast_and_exact(parse_sets("r5 J r7"), parse_tiles("k1 b9"), None, Objective.TILES, monkeypatch)
    assert fast.is_draw and exact.is_draw


def test_many_locked_sets_are_walked_lazily_and_coloured_jokers_do_not_break_the_walk() -> None:
    # Review finding: eight locked Expert runs of 10-12 growths each make 207 million
    # combinations; building them all ran out of memory, and a walk with no plain rack joker
    # asked for one (KeyError). The walk takes them lazily and stops at MAX_WALKS; the hint is
    # the referee's legal best (the integer program's answer, 20 tiles).
    table = parse_sets("r2 Jr r4 r5 | r9 Jr r11 r12 | b2 Jb b4 b5 | b9 Jb b11 b12 | "
                       "k2 Jk k4 k5 | k9 Jk k11 k12 | o2 Jo o4 o5 | o9 Jo o11 o12", "expert")
    rack = parse_tiles("r1 r6 r7 r8 r13 b1 b6 b7 b8 b13 k1 k6 k7 k8 k13 o1 o6 o7 o8 o13 b3 k3", "expert")
    pos = Position(table, rack, "expert", RuleView.of(SABRA))
    combinations = locked._likeliest_first(pos, [k for k, s in enumerate(pos.sets) if s.locked], None)
    assert not isinstance(combinations, list) and len(next(iter(combinations))) == 8
    hint = solve(table, rack, opened=True, edition="expert", rules=SABRA)
    assert hint.tiles_played == 20
    verdict = judge_turn(table, hint.table, rules=get_rules(SABRA), opened=True, rack=rack, edition="expert")
    assert verdict.status.value == "legal"
