"""The integer program told what the fast routes proved: a legal play to beat (the floor) and
the free-joker play that bounds every legal one (the ceiling), engine.solver.turn._between.

The rows only confine HiGHS to where the best play lies, so every answer must be the one the
integer program gives without them; and a floor that is already the best must come back as
"nothing beats it" (``None``), which is how the solver then answers with the floor.
"""

from __future__ import annotations

import pytest
import rummi.engine.solver as solver
from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.rules import get_rules
from rummi.engine.solver import Objective, fates, solve
from rummi.engine.solver.position import Position, RuleView
from rummi.engine.solver.turn import solve_turn

from benchmarks.positions import PRESET_CLASSES, deal


def _score(hint) -> tuple[int, int, int]:
    return hint.tiles_played, hint.value_played, sum(hint.untouched)


@pytest.mark.parametrize("objective", list(Objective))
def test_a_floor_that_is_the_best_play_is_proven_so(objective: Objective) -> None:
    pos = Position(parse_sets("r5 J r7 | k1 k2 k3 | b9 o9 k9"), parse_tiles("r6 k4 b10 o2"), None,
                   RuleView.of("pressman_us_2009"))
    best = solve_turn(pos, True, objective)
    assert best is not None and best.tiles > 0
    top = fates.score(best, objective)
    assert solve_turn(pos, True, objective, floor=top, ceiling=top) is None
    as_good = solve_turn(pos, True, objective, floor=top)  # no ceiling: the floor is no cut
    assert as_good is not None and fates.score(as_good, objective) == top
    one_kept_less = (top[0], top[1], top[2] - 1)
    again = solve_turn(pos, True, objective, floor=one_kept_less, ceiling=top)
    assert again is not None and fates.score(again, objective) == top
    # a floor one tile short of the best, no ceiling: the best is still found
    lower = solve_turn(pos, True, objective, floor=(top[0] - 1, 0, 0))
    assert lower is not None and fates.score(lower, objective) == top


# a seed of the benchmark where the fates route gives up after 40 landing walks and hands the
# integer program a floor (the best play it accepted) and a ceiling (the free-joker play)
CASES = [("default: late-game, 2 table jokers", 4)]


@pytest.mark.parametrize("name, seed", CASES)
@pytest.mark.parametrize("objective", list(Objective))
def test_the_bounded_integer_program_answers_as_the_plain_one(
    name: str, seed: int, objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = PRESET_CLASSES[name]
    p = deal(kind, seed)
    rules = get_rules(kind.preset, edition=kind.edition)
    told: list[bool] = []
    bounded = solver._beyond_the_fast_routes

    def recorded(pos, opened, goal, floor, ceiling):
        told.append(floor is not None and ceiling is not None)
        return bounded(pos, opened, goal, floor, ceiling)

    with monkeypatch.context() as m:
        m.setattr(solver, "_beyond_the_fast_routes", recorded)
        fast = solve(p.table, p.rack, opened=True, edition=p.edition, rules=rules, objective=objective)
    exact = solve(p.table, p.rack, opened=True, edition=p.edition, rules=rules, objective=objective, compiled=False)
    assert told == [True]  # the route under test was taken
    assert _score(fast) == _score(exact)


@pytest.mark.parametrize("objective", list(Objective))
def test_the_free_joker_ceiling_keeps_the_best_play(objective: Objective) -> None:
    # late game seed 0: the free-joker play (rejected) ties the best legal play on every
    # criterion; as one row of the packed objective this ceiling made HiGHS answer one set
    # kept fewer, criterion by criterion it keeps the best
    kind = PRESET_CLASSES["default: late-game, 2 table jokers"]
    p = deal(kind, 0)
    pos = Position(p.table, p.rack, p.edition, RuleView.of(get_rules(kind.preset, edition=kind.edition)))
    relaxed = solver.dp.solve_after_opening(fates.jokers_free(pos), objective)
    plain = solve_turn(pos, True, objective)
    capped = solve_turn(pos, True, objective, ceiling=fates.score(relaxed, objective))
    assert plain is not None and capped is not None
    assert fates.score(capped, objective) == fates.score(plain, objective)
