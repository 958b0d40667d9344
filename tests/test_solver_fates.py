"""engine.solver.fates: table jokers under retrieval rules, by the dynamic programme fate by fate.

Each answer is compared with the integer program (which encodes the preset's joker rules) on the
same position, and the route is checked: these positions must not reach the integer program.
"""

from __future__ import annotations

import itertools

import pytest
import rummi.engine.solver as solver
from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.rules import get_rules
from rummi.engine.solver import Objective, fates, solve
from rummi.engine.solver.position import Position, RuleView
from rummi.engine.solver.turn import TurnAnswer

from benchmarks.positions import PRESET_CLASSES, deal


def _score(hint) -> tuple[int, int, int]:
    return hint.tiles_played, hint.value_played, sum(hint.untouched)


def _no_integer_program(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the integer program was asked")

    monkeypatch.setattr(solver, "solve_turn", refuse)


# seeds whose free-joker play the referee rejects, so the fates decide (found with
# benchmarks/solver.py's classes; each takes the fates route, none falls back)
CASES = [
    ("default: mid-game, table joker", 0),
    ("default: mid-game, table joker", 3),
    ("default: 2 jokers on the table", 3),  # the freed joker's best new set holds a table tile
    ("default: 2 jokers on the table", 4),  # a kept joker's tile would rather join a group
    ("default: 2 jokers on the table", 5),
    # landings that tie: the search's queue once compared two answers to order them
    ("default: 2 jokers on the table", 28),
    # freed with r10 from the rack, landing in r1 J r3 r4 while the rack's own joker plays too
    ("czech_piatnik: mid-game, table joker", 0),
    # two jokers freed, the relaxed play rejected: split by the new sets both land in
    ("default: late-game, 2 table jokers", 19),
    # the freed jokers' landings are walked with the next best of the queue, judged first, as
    # their floor: 4 walks instead of 70 (the big-table walks honour the floor's sets kept)
    ("default: late-game, 2 table jokers", 16),
    ("default: long rack, table joker", 23),
    # a kept joker's tile would be a fourth of a kind in the XP box (the kernel holds three):
    # that fate is walked as a free joker, a bound, instead of sending the position to HiGHS
    ("default: xp 90 + 24, 2 + 2 jokers", 23),
    # such a bound's play is rejected; its exact part, the joker's old set left as it was,
    # ties it and is accepted (fates._whole_part)
    ("default: xp 90 + 24, 2 + 2 jokers", 33),
    # the same, but the exact part's play is rejected too: its freed joker's landings, of
    # which the smallest reaches it (fates._walk_order)
    ("default: xp 90 + 24, 2 + 2 jokers", 4),
    # Expert's coloured jokers: the fates are walked first, with no free-joker play as their
    # bound (fates.first); one freed, one kept, both kept
    ("expert: mid-game, coloured jokers", 1),
    ("expert: mid-game, coloured jokers", 3),
    ("expert: mid-game, coloured jokers", 20),
]


@pytest.mark.parametrize("name, seed", CASES)
@pytest.mark.parametrize("objective", list(Objective))
def test_the_fates_give_the_integer_programs_answer_without_it(
    name: str, seed: int, objective: Objective, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = PRESET_CLASSES[name]
    p = deal(kind, seed)
    rules = get_rules(kind.preset, edition=kind.edition)
    exact = solve(p.table, p.rack, opened=True, edition=p.edition, rules=rules, objective=objective, compiled=False)
    with monkeypatch.context() as m:
        _no_integer_program(m)
        fast = solve(p.table, p.rack, opened=True, edition=p.edition, rules=rules, objective=objective)
    assert _score(fast) == _score(exact)
    assert not fast.is_draw


def test_the_fates_come_first_only_for_coloured_jokers() -> None:
    """Expert's coloured table jokers: the fates before the free-joker walk; plain ones after."""
    for name, edition, first in (
        ("expert: mid-game, coloured jokers", "expert", True),
        ("default: mid-game, table joker", "standard", False),
    ):
        kind = PRESET_CLASSES[name]
        p = deal(kind, 0)
        pos = Position(p.table, p.rack, edition, RuleView.of(get_rules(kind.preset, edition=kind.edition)))
        assert fates.applies(pos, True)
        assert fates.first(pos, True) is first, name
        assert not fates.first(pos, False)  # before the opening the fates never apply


def test_a_joker_kept_in_its_run_is_not_read_into_a_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # J stands for r7 (or r3) in r4 r5 r6 J. With jokers free, k7 b7 J is the best play, which
    # Pressman forbids without r7 or r3 from the rack; kept as r7, its tile may not join k7 b7
    # either (a run joker keeps its place only in a run), so nothing fits: a draw, proven by the
    # fates alone.
    table, rack = "r4 r5 r6 J | k1 k2 k3", "k7 b7 o12"
    rules = get_rules("pressman_us_2009")
    exact = solve(parse_sets(table), parse_tiles(rack), opened=True, rules=rules, compiled=False)
    with monkeypatch.context() as m:
        _no_integer_program(m)
        fast = solve(parse_sets(table), parse_tiles(rack), opened=True, rules=rules)
    assert exact.is_draw and fast.is_draw
    assert fast.reason == "no rack tile fits on the table, even after rearranging it"


def test_fates_of_a_joker_follow_the_preset() -> None:
    table, rack = parse_sets("r5 J r7 | k1 k2 k3"), parse_tiles("r6 b9")
    pressman = Position(table, rack, None, RuleView.of(get_rules("pressman_us_2009")))
    (joker,) = pressman.table_jokers
    found = fates.fates_of(pressman, joker)
    # kept as r6 in a run, or freed with r6 from the rack (Pressman asks for the tile)
    assert [(pressman.tile(f.keep_as) if f.keep_as is not None else None, f.replaced_by) for f in found] == [
        (parse_tiles("r6")[0], ()), (None, (pressman.index(parse_tiles("r6")[0]),)),
    ]
    goliath = Position(table, parse_tiles("b9"), None, RuleView.of(get_rules("goliath_modern")))
    # freed by rearranging: no replacement asked, so one freed fate even without r6
    assert [f.replaced_by for f in fates.fates_of(goliath, goliath.table_jokers[0]) if f.keep_as is None] == [()]


def test_a_freed_joker_lands_only_in_sets_of_its_own_tiles() -> None:
    pos = Position(parse_sets("r5 J r7"), parse_tiles("r6 k8 k9 b9 o2"), None, RuleView.of(get_rules("pressman_us_2009")))
    (joker,) = pos.table_jokers
    freed = next(f for f in fates.fates_of(pos, joker) if f.keep_as is None)
    shown = sorted(" ".join(map(str, s)) for s in fates.landings(pos, freed))
    # two own tiles at least (Pressman), never r6, the tile that replaces it
    assert shown == ["k8 k9", "k9 b9"]


# the joker cross-check's positions where two freed jokers' relaxed play is rejected and the
# split by their new sets answers (benchmarks/solver_exactness.py; best by its exhaustive search)
@pytest.mark.parametrize(
    "table, rack, best",
    [
        ("o11 r11 J | o3 J o5 | b11 k11 r11", "b2 r6 k11 o4 r10 b9", (1, 11, 2)),  # seed 16
        ("r6 r7 r8 J | r6 J r8 r9 r10 r11 | b13 o13 k13", "k6 r7 o7 r9", (3, 23, 2)),  # seed 276
    ],
)
def test_two_freed_jokers_are_split_by_their_new_sets(
    table: str, rack: str, best: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_integer_program(monkeypatch)
    hint = solve(parse_sets(table), parse_tiles(rack), opened=True, rules="pressman_us_2009")
    assert _score(hint) == best


def test_a_floor_prunes_what_cannot_beat_an_accepted_play() -> None:
    """dp.solve_after_opening with a floor answers only a play that beats it (the fates pass
    the best play the referee accepted), else proves there is none."""
    from rummi.engine.solver import dp

    kind = PRESET_CLASSES["default: mid-game, table joker"]
    p = deal(kind, 0)
    pos = fates.jokers_free(Position(p.table, p.rack, p.edition, RuleView.of(get_rules(kind.preset))))
    for objective in Objective:
        best = dp.solve_after_opening(pos, objective)
        assert best is not None and best.tiles > 0
        mark = fates.score(best, objective)
        with pytest.raises(dp.BelowFloor):
            dp.solve_after_opening(pos, objective, floor=mark)  # nothing beats the best itself
        for lower in ((mark[0], mark[1], mark[2] - 1), (mark[0], mark[1] - 1, mark[2]), (mark[0] - 1, 0, 0)):
            again = dp.solve_after_opening(pos, objective, floor=lower)
            assert again is not None and fates.score(again, objective) == mark


def test_a_ceiling_skips_the_walks_that_find_nothing_not_the_best_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """dp.solve_after_opening with a proven ceiling (the fates route passes the free-joker play,
    less a combination's own tiles) starts its walks there: the same best play, in fewer walks
    where the best play leaves rack tiles behind (no walk asks for every rack tile played)."""
    from rummi.engine.solver import dp

    walks = 0
    walk = dp._Walks._walk

    def counted(self, *args, **kwargs):
        nonlocal walks
        walks += 1
        return walk(self, *args, **kwargs)

    monkeypatch.setattr(dp._Walks, "_walk", counted)
    fewer = 0
    for name, seed in CASES[:8]:
        kind = PRESET_CLASSES[name]
        p = deal(kind, seed)
        pos = fates.jokers_free(Position(p.table, p.rack, p.edition, RuleView.of(get_rules(kind.preset))))
        for objective in Objective:
            walks = 0
            best = dp.solve_after_opening(pos, objective)
            plain = walks
            assert best is not None
            mark = fates.score(best, objective)
            walks = 0
            capped = dp.solve_after_opening(pos, objective, ceiling=mark)
            assert capped is not None and fates.score(capped, objective) == mark
            assert walks <= plain
            fewer += walks < plain
            # with a floor too: nothing between the floor and the ceiling but the best play
            below = (mark[0] - 1, 0, 0)
            again = dp.solve_after_opening(pos, objective, floor=below, ceiling=mark)
            assert again is not None and fates.score(again, objective) == mark
            with pytest.raises(dp.BelowFloor):
                dp.solve_after_opening(pos, objective, floor=mark, ceiling=mark)
    assert fewer  # some walk was left out


def test_the_fates_search_finds_the_same_best_play_with_its_ceiling_or_without() -> None:
    """fates.search bounded by the free-joker play (its walks then get it as their ceiling) and
    unbounded: the same best legal play, on the positions where the fates decide."""
    compared = 0
    for name, seed in CASES:
        kind = PRESET_CLASSES[name]
        p = deal(kind, seed)
        rules = get_rules(kind.preset, edition=kind.edition)
        pos = Position(p.table, p.rack, p.edition, RuleView.of(rules))
        judge = solver._joker_judge(pos, rules)
        for objective in Objective:
            relaxed = solver.dp.solve_after_opening(fates.jokers_free(pos), objective)
            if relaxed is None:
                continue  # beyond the programme with every joker free: no ceiling to give
            bounded = fates.search(pos, objective, judge, upper=relaxed).best
            unbounded = fates.search(pos, objective, judge).best
            # (unbounded, the search may run out of landing walks and leave it to HiGHS)
            if bounded is not None and unbounded is not None:
                assert fates.score(bounded, objective) == fates.score(unbounded, objective), (name, seed)
                compared += 1
    assert compared >= len(CASES)


def test_the_joker_question_alone_agrees_with_the_whole_judge() -> None:
    """The fates route asks only the referee's joker question (and set validity) of its own
    plays: on every play it judges in these positions, the verdict is judge_turn's."""
    from rummi.engine.referee.judge import judge_turn

    asked: list[bool] = []
    for name, seed in CASES[:6]:
        kind = PRESET_CLASSES[name]
        p = deal(kind, seed)
        rules = get_rules(kind.preset, edition=kind.edition)
        pos = Position(p.table, p.rack, p.edition, RuleView.of(rules))
        quick = solver._joker_judge(pos, rules)

        def both(answer, pos=pos, rules=rules, quick=quick) -> bool:
            whole = judge_turn(
                pos.table_sets_in, answer.table, opened=True, rack=pos.rack_in, rules=rules, edition=pos.edition
            )
            asked.append(whole.legal)
            assert quick(answer) == whole.legal
            return whole.legal

        for objective in Objective:
            relaxed = solver.dp.solve_after_opening(fates.jokers_free(pos), objective)
            both(relaxed)
            fates.solve(pos, objective, both, upper=relaxed)
    assert False in asked and True in asked  # both verdicts were met


def test_a_fast_play_the_whole_referee_rejects_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    # The relaxed play is asked only the joker question while the search runs; should the
    # programme ever lay out a play that drops a table tile, the whole judge still sees it and
    # the integer program answers. Simulated: the programme's plays lose the table's k1.
    from dataclasses import replace

    from rummi.engine.referee.judge import judge_turn
    from rummi.engine.solver import dp

    table, rack = parse_sets("r5 J r7 | k1 k2 k3 k4"), parse_tiles("k5 r6 b9")
    honest = solve(table, rack, opened=True, rules="pressman_us_2009")
    real = dp.solve_after_opening

    def dropping_k1(pos, objective, **options):
        answer = real(pos, objective, **options)
        if answer is None or answer.tiles == 0:
            return answer
        lost = [[t for t in s if str(t) != "k1"] for s in answer.table]
        return replace(answer, table=[s for s in lost if s])

    monkeypatch.setattr(dp, "solve_after_opening", dropping_k1)
    hint = solve(table, rack, opened=True, rules="pressman_us_2009")
    assert judge_turn(table, hint.table, opened=True, rack=rack, rules="pressman_us_2009").legal
    assert hint.tiles_played >= 1 and (hint.tiles_played, hint.value_played) == (honest.tiles_played, honest.value_played)


@pytest.mark.parametrize("name, seed", [
    ("pl_wikipedia: mid-game, table joker", 16),
    ("russian_wiki: mid-game, table joker", 10),
])
def test_a_freed_joker_the_free_play_already_holds_is_not_walked(
    monkeypatch: pytest.MonkeyPatch, name: str, seed: int
) -> None:
    """The free-joker play that the referee rejects plays the freed joker's replacement and
    breaks its old set: it is a play of that freed combination, the best one (the combination
    is a restriction of the free position), so the search takes it as the combination's answer
    and walks only the kept fates and the landings. The best legal play is the integer
    program's."""
    kind = PRESET_CLASSES[name]
    p = deal(kind, seed)
    rules = get_rules(kind.preset, edition=kind.edition)
    pos = Position(p.table, p.rack, p.edition, RuleView.of(rules))
    settled: list[tuple] = []
    settle = fates.settle

    def recorded(pos, combo, landing=None):
        settled.append((combo, landing))
        return settle(pos, combo, landing)

    monkeypatch.setattr(fates, "settle", recorded)
    judge = solver._joker_judge(pos, rules)
    held = 0
    for objective in Objective:
        settled.clear()
        upper = solver.dp.solve_after_opening(fates.jokers_free(pos), objective)
        assert upper is not None and not judge(upper)
        best = fates.search(pos, objective, judge, upper=upper).best
        exact = solver.solve_turn(pos, True, objective)
        assert best is not None and exact is not None
        assert fates.score(best, objective) == fates.score(exact, objective)
        freed = [c for c in itertools.product(*(fates.fates_of(pos, j) for j in pos.table_jokers))
                 if all(f.keep_as is None for f in c)]
        for combo in freed:
            if fates._holds(pos, combo, upper):
                held += 1
                assert (combo, None) not in settled  # not walked: the free play is its answer
    assert held


def _two_freed_jokers(seed: int) -> tuple[Position, tuple, TurnAnswer, list]:
    """A late-game deal (default preset) with its two table jokers both freed: the position,
    that combination of fates, the free-joker play that bounds it and its landings."""
    kind = PRESET_CLASSES["default: late-game, 2 table jokers"]
    p = deal(kind, seed)
    rules = get_rules(kind.preset, edition=kind.edition)
    pos = Position(p.table, p.rack, p.edition, RuleView.of(rules))
    upper = solver.dp.solve_after_opening(fates.jokers_free(pos), Objective.TILES)
    assert upper is not None
    combo = next(c for c in itertools.product(*(fates.fates_of(pos, j) for j in pos.table_jokers))
                 if all(f.keep_as is None for f in c))
    found = fates._landings_of(pos, combo, [0, 1])
    assert found is not None
    return pos, combo, upper, found


def test_two_freed_jokers_landings_are_the_pairs_that_fit_and_only_the_likeliest_are_ordered() -> None:
    """Late game seed 4: two freed jokers whose free play the referee rejects, 488 landings,
    257 once a pair's mirror image is left out. ``_landings_of`` lists the two in one new set,
    then every pair of new sets that the rack holds together (checked here by Counter sums, as
    it was computed before), the first of a pair and its mirror; and
    ``_likeliest_first`` orders only the landings that can be walked (MAX_LANDING_WALKS, and
    one to tell that the cap was reached), the same first ones as ordering all of them."""
    from collections import Counter

    pos, combo, upper, found = _two_freed_jokers(4)
    assert len(found) == 257
    rack = Counter({i: n for i, n in enumerate(pos.rack_count) if n})
    rack -= Counter(i for f in combo for i in f.replaced_by)
    firsts = fates.landings(pos, combo[0], replaced=combo[1].replaced_by)
    seconds = fates.landings(pos, combo[1], replaced=combo[0].replaced_by)
    pairs = [(((0,), a), ((1,), b)) for a in firsts for b in seconds
             if not Counter(pos.index(t) for t in (*a, *b) if not t.is_joker) - rack]
    together = [landing for landing in found if len(landing) == 1]
    # the two jokers are alike: of a pair and its mirror image only the first listed is kept
    assert combo[0].joker.tile == combo[1].joker.tile and firsts == seconds
    assert len(pairs) == 488 - len(together)
    unique = [p for p in pairs if firsts.index(p[0][1]) <= seconds.index(p[1][1])]
    assert found == together + unique
    likeliest = fates._likeliest_first(found, upper, combo)
    assert len(likeliest) == fates.MAX_LANDING_WALKS + 1

    jokers = {f.joker.tile for f in combo}
    beside = Counter(t for s in upper.table if any(t in jokers for t in s) for t in s if not t.is_joker)

    def promise(landing):
        tiles = Counter(t for _, rack in landing for t in rack if not t.is_joker)
        return -sum((tiles & beside).values()), -sum(len(rack) for _, rack in landing)

    assert likeliest == sorted(found, key=promise)[: len(likeliest)]


def test_the_smallest_landings_are_walked_second_besides_the_likeliest() -> None:
    """``_walk_order``: the likeliest landing first, then the smallest ones (fewest rack tiles,
    the first listed among equals), then the other likeliest, none twice."""
    _, combo, upper, found = _two_freed_jokers(4)
    likeliest = fates._likeliest_first(found, upper, combo)
    order = fates._walk_order(found, upper, combo)

    def size(landing):
        return sum(len(rack) for _, rack in landing)

    smallest = sorted(found, key=size)[: fates.SMALLEST_LANDINGS]
    expected = []
    for landing in likeliest[:1] + smallest + likeliest[1:]:
        if not any(landing is seen for seen in expected):
            expected.append(landing)
    assert order == expected
    assert len({id(landing) for landing in order}) == len(order)
    assert size(order[1]) == min(size(landing) for landing in found)


def _outcome(pos: Position, objective: Objective, tails=None) -> object:
    """A walk's answer as its score, or the proof it ended with."""
    try:
        found = solver.dp.solve_after_opening(pos, objective, tell_whole_rack=True, tails=tails)
    except (solver.dp.NoWholeRack, solver.dp.BelowFloor) as proof:
        return type(proof)
    return None if found is None else fates.score(found, objective)


def test_landings_walk_with_their_combinations_kept_bounds_to_the_same_end() -> None:
    """dp.TailBounds: the kept bounds of a combination's position (its freed jokers free) hold
    for each of its landings, so each landing's walk reusing them ends as its own tightened
    bounds make it end (late game seeds 4 and 30: two freed jokers, the landings walked before
    the integer program). A position that is not a landing of it (a kept fate: one more table
    tile) is refused."""
    reused = 0
    for seed in (4, 30):
        pos, combo, upper, found = _two_freed_jokers(seed)
        parent = solver.dp.tail_bounds(fates.settle(pos, combo), Objective.TILES)
        assert parent is not None and parent.kept is not None
        for landing in fates._walk_order(found, upper, combo)[:20]:
            settled = fates.settle(pos, combo, landing)
            assert parent.bounds_for(solver.dp._Walks(settled, Objective.TILES)) is not None
            assert _outcome(settled, Objective.TILES, parent) == _outcome(settled, Objective.TILES)
            reused += 1
        per_joker = [fates.fates_of(pos, j) for j in pos.table_jokers]
        kept = next(c for c in itertools.product(*per_joker) if any(f.keep_as is not None for f in c))
        settled = fates.settle(pos, kept)
        assert parent.bounds_for(solver.dp._Walks(settled, Objective.TILES)) is None
    assert reused == 40
