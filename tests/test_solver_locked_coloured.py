"""Pagat's Sabra (a set holding a joker only grows) with Expert's box (a joker only of its colour).

The referee accepts a locked set grown by a coloured rack joker of a colour the set may take (a
run's own colour, a colour a group lacks) and rejects any other colour; the hint must do the
same by both of its routes, the dynamic programme's walk over growths
(:mod:`engine.solver.locked`) and the integer program. The positions are from the cross-check
class "jokers: pagat_sabra, expert, coloured growth" (benchmarks/solver_exactness.py), where the
hint drew or played less before the growths counted coloured jokers.
"""

from __future__ import annotations

import pytest
from rummi.engine.notation import format_sets, format_tiles, parse_sets, parse_tiles
from rummi.engine.referee import judge_turn
from rummi.engine.solver import Objective
from rummi.engine.solver.position import ANY, Position, RuleView

from tests.test_solver_fates import _score
from tests.test_solver_locked import _fast_and_exact

SABRA = "pagat_sabra"
EXPERT = "expert"


def _legal(table: str, after: str, rack: str) -> bool:
    verdict = judge_turn(parse_sets(table, EXPERT), parse_sets(after, EXPERT), opened=True,
                         rack=parse_tiles(rack, EXPERT), rules=SABRA, edition=EXPERT)
    return verdict.legal


@pytest.mark.parametrize("table,rack,tiles,grown", [
    ("r4 Jr r6", "Jr r8", 2, "r4 Jr r6 Jr r8"),  # a run grown by a joker of its colour
    # seed 15: a group's missing black taken by Jk (the hint drew)
    ("o5 o6 o7 Jo o9 o10 | o5 r5 Jb", "o7 r3 r6 o12 Jk", 1, "o5 r5 Jb Jk"),
    # seed 33: the group by Jk and the run by r13 (the hint played r13 only)
    ("b4 r4 Jo | r7 r8 Jr r10 r11 r12", "r13 r9 k12 Jk", 2, "b4 r4 Jo Jk"),
])
@pytest.mark.parametrize("objective", list(Objective))
def test_a_locked_set_grows_by_a_coloured_rack_joker_of_a_colour_it_may_take(
    table: str, rack: str, tiles: int, grown: str, objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, exact = _fast_and_exact(parse_sets(table, EXPERT), parse_tiles(rack, EXPERT), EXPERT, objective,
                                  monkeypatch)
    assert fast.tiles_played == exact.tiles_played == tiles
    assert _score(fast) == _score(exact)
    for h in (fast, exact):
        assert _legal(table, format_sets(h.table), rack)
        shown = {format_tiles(sorted(s, key=lambda t: (t.is_joker, t.sort_key()))) for s in h.table}
        assert format_tiles(sorted(parse_tiles(grown, EXPERT), key=lambda t: (t.is_joker, t.sort_key()))) in shown


@pytest.mark.parametrize("table,rack,after", [
    ("r4 Jr r6", "Jb r8", "r4 Jr r6 Jb r8"),  # a run takes a joker of its own colour only
    ("b4 r4 Jo", "Jr k12", "b4 r4 Jo Jr"),  # a group's Jr would stand for r4, which it holds
])
@pytest.mark.parametrize("objective", list(Objective))
def test_a_locked_set_never_grows_by_a_joker_of_another_colour(
    table: str, rack: str, after: str, objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert not _legal(table, after, rack)
    fast, exact = _fast_and_exact(parse_sets(table, EXPERT), parse_tiles(rack, EXPERT), EXPERT, objective,
                                  monkeypatch)
    assert fast.is_draw and exact.is_draw


def test_the_growths_name_each_joker_kind_they_take() -> None:
    """One list of growths serves both routes: each names its rack jokers by kind key."""
    pos = Position(parse_sets("r4 Jr r6", EXPERT), parse_tiles("Jr Jb r8", EXPERT), EXPERT, RuleView.of(SABRA))
    (s,) = pos.sets
    red, blue = pos.colours.index(parse_tiles("r1")[0].colour), pos.colours.index(parse_tiles("b1")[0].colour)
    kinds = {key for jokers in s.extension_jokers for key, _ in jokers}
    assert red in kinds and blue not in kinds and ANY not in kinds
    assert (((pos.index(parse_tiles("r8")[0]), 1),), ((red, 1),)) in set(zip(s.extensions, s.extension_jokers))



@pytest.mark.parametrize("rack,score", [
    ("r13 k13 r7 k3 Jo Jk", (5, 93, 1)),  # the seed's rack: 2 sets said kept, 1 was
    ("r13 k13 r7 k3 Jo Jr Jk", (6, 123, 0)),  # with Jr too (an earlier deal): 1 said, none was
])
def test_an_old_set_counted_whole_is_on_the_table_as_it_was(rack: str, score: tuple[int, int, int]) -> None:
    """Cross-check seed 41: the bound with ``Jo`` read as ``o10`` kept ``o6 o7 o8 o9 o10`` whole,
    and putting ``Jo`` back took that set's ``o10`` (copies are alike to the programme), so the
    hint counted an old set whole that was not on the table any more (engine.solver.fates)."""
    from rummi.engine.joker_fate import intact_pairs
    from rummi.engine.solver import solve

    table = parse_sets("r11 Jr r13 | o7 o8 o9 Jo | o6 o7 o8 o9 o10", EXPERT)
    for compiled in (True, False):
        h = solve(table, parse_tiles(rack, EXPERT), opened=True, edition=EXPERT, rules=SABRA, compiled=compiled)
        assert _score(h) == score
        assert sum(h.untouched) == len(intact_pairs(table, h.table))
