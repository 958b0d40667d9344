"""The dynamic programme after the opening against the integer program, and its edge cases.

Both are exact, so on every position both cover they must agree on (tiles, value, old sets
left whole), for both objectives; the answer must also pass the audit (valid sets, tiles
conserved, played tiles from the rack).
"""

from __future__ import annotations

import pytest
from rummi.engine.editions import get_edition
from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.rules import get_rules
from rummi.engine.solver import dp, solve
from rummi.engine.solver.position import Position, RuleView
from rummi.engine.solver.turn import Objective, TurnAnswer, solve_turn

from benchmarks.positions import CLASSES, deal, small_deal
from benchmarks.solver_reference import audit

FREE = dict(freed_joker_in_new_set=False, freed_joker_min_own_tiles=0, joker_free_by_rearranging=True)


def _both(table, rack, edition="standard", preset="goliath_modern", objective=Objective.TILES):
    rules = get_rules(preset, edition=edition, **FREE)
    pos = Position(table, rack, rules.box, RuleView.of(rules))
    assert dp.applies(pos, True)
    fast = dp.solve_after_opening(pos, objective)
    slow = solve_turn(pos, True, objective)
    assert fast is not None
    problems = audit(table, rack, fast.played, fast.table, rules.box, False)
    assert not problems, problems
    return fast, slow


def _key(answer):
    return answer.tiles, answer.value, sum(answer.untouched)


@pytest.mark.parametrize("objective", [Objective.TILES, Objective.VALUE])
@pytest.mark.parametrize("name", ["mid-game", "jokers to place"])
def test_agrees_with_the_integer_program_on_seeded_positions(name: str, objective: Objective) -> None:
    for seed in range(8):
        position = deal(CLASSES[name], seed)
        fast, slow = _both(position.table, position.rack, objective=objective)
        assert _key(fast) == _key(slow), f"{name} seed {seed}"


@pytest.mark.parametrize("objective", [Objective.TILES, Objective.VALUE])
def test_big_tables_agree_with_the_integer_program(objective: Objective) -> None:
    """More than 64 tiles: the beam walk and the one exact walk that proves it."""
    for seed in (0, 2):
        position = deal(CLASSES["late-game"], seed)
        assert sum(not t.is_joker for s in position.table for t in s) + len(position.rack) > dp.MAX_TILES
        fast, slow = _both(position.table, position.rack, objective=objective)
        assert _key(fast) == _key(slow), f"late-game seed {seed}"


def test_big_xp_tables_agree_with_the_integer_program() -> None:
    """Three copies of every tile, jokers on the table and the rack: the same big-table route."""
    for seed in (0, 3):
        position = deal(CLASSES["hard: xp jokers"], seed)
        fast, slow = _both(position.table, position.rack, edition="xp")
        assert _key(fast) == _key(slow), f"xp seed {seed}"


@pytest.mark.parametrize("edition", ["standard", "xp", "start_right", "standard4j"])
def test_agrees_on_small_positions_of_every_edition(edition: str) -> None:
    for seed in range(25):
        position = small_deal(seed, edition)
        for objective in Objective:
            fast, slow = _both(position.table, position.rack, edition=edition, objective=objective)
            assert _key(fast) == _key(slow), f"{edition} seed {seed} {objective}"


@pytest.mark.parametrize(
    "table,rack,tiles",
    [
        ("r5 r6 r7", "J", 1),  # a lone joker onto a 3-tile run
        ("r5 r6 r7", "r8 J", 2),  # going out
        ("k9 b9 o9", "J", 1),  # the 4th of a group
        ("r5 J r7", "r6", 1),  # a table joker swapped out and placed again
        ("J r12 r13 | J b12 b13", "r11", 1),  # jokers in front: read as standing behind
        ("r1 r2 r3 r4 r5 r6 r7 r8 r9 r10 r11 r12 r13", "J", 1),  # a full run split to take it
        # r4 J goes in front of r6 r7 r8 r9 while r3 r4 r5 stays whole: the run that follows a
        # kept run takes its slot, and the look-ahead must not count r6 as held by the kept run
        ("r3 r4 r5 | r6 r7 r8 r9 | b10 o10 k10", "r4 J", 2),
        ("k1 k2 k3 k4 | k5 k6 k7 | k12 r12 b12", "b5 k7 k4 r6 r6", 1),  # k4 in front of k5 k6 k7
    ],
)
def test_named_cases(table: str, rack: str, tiles: int) -> None:
    fast, slow = _both(parse_sets(table), parse_tiles(rack))
    assert fast.tiles == tiles
    assert _key(fast) == _key(slow)


def test_two_runs_needing_jokers_in_front_are_kept_whole() -> None:
    table = parse_sets("J r12 r13 | J r12 r13")
    fast, slow = _both(table, parse_tiles("k1"), edition="xp")
    assert fast.tiles == 0 and sum(fast.untouched) == 2
    assert _key(fast) == _key(slow)


def test_a_preset_with_joker_retrieval_rules_goes_to_the_integer_program() -> None:
    rules = get_rules("pressman_us_2009")
    table, rack = parse_sets("r5 J r7"), parse_tiles("r6 k3 b3")
    pos = Position(table, rack, get_edition("standard"), RuleView.of(rules))
    assert not dp.applies(pos, True)
    hint = solve(table, rack, opened=True, rules=rules)
    assert hint.tiles_played == 3


def test_too_big_a_walk_hands_over_to_the_integer_program(monkeypatch: pytest.MonkeyPatch) -> None:
    position = deal(CLASSES["mid-game"], 3)
    rules = get_rules("goliath_modern", **FREE)
    pos = Position(position.table, position.rack, rules.box, RuleView.of(rules))
    monkeypatch.setattr(dp, "ROW_BUDGET", 10)
    assert dp.solve_after_opening(pos, Objective.TILES) is None
    hint = solve(position.table, position.rack, opened=True, rules=rules)
    assert hint.tiles_played == solve_turn(pos, True, Objective.TILES).tiles


def _joker_positions(pos: Position, tiles: list, kept: bool) -> list[int]:
    """Number indices of a set's jokers as the walks count them: a kept set's at its first
    numbered tile (kept sets take their jokers there), a group's at its number, a run's where
    they stand, except that jokers in front of a run stand past its end (``J r12 r13`` is
    walked as ``r12 r13 J``)."""
    numbered = [k for k, t in enumerate(tiles) if not t.is_joker]
    first = tiles[numbered[0]].number - pos.numbers[0]
    jokers = [k for k, t in enumerate(tiles) if t.is_joker]
    if kept or len({tiles[k].number for k in numbered}) == 1:
        return [first] * len(jokers)
    start = first - numbered[0]
    end = start + len(tiles) - 1
    return [start + k if k > numbered[0] else end + 1 + k for k in jokers]


@pytest.mark.parametrize(
    "name, objective",
    [("late-game", Objective.TILES), ("late-game", Objective.VALUE), ("hard: xp jokers", Objective.TILES)],
)
def test_tail_bounds_never_cut_below_the_best_play(name: str, objective: Objective) -> None:
    """The bounds from relaxed tails must hold for an optimal play found without them: from
    every number v on, it keeps no more old sets than the bound allows with the jokers the
    numbers below v left it."""
    kind = CLASSES[name]
    rules = get_rules("goliath_modern", edition=kind.edition, **FREE)
    for seed in (1, 3, 5):
        position = deal(kind, seed)
        pos = Position(position.table, position.rack, rules.box, RuleView.of(rules))
        best = solve_turn(pos, True, objective)
        assert best.tiles == len(position.rack)  # the case big tables cover: the whole rack
        walks = dp._Walks(pos, objective)
        walks.budget = dp.BIG_ROW_BUDGET
        dp._tighten_kept_bounds(walks, int(walks.main_left[0]))
        kept_firsts, joker_at = [], []
        for tiles, kept in zip(best.table, best.untouched):
            first = min(t.number for t in tiles if not t.is_joker) - pos.numbers[0]
            if kept:
                kept_firsts.append(first)
            joker_at += _joker_positions(pos, tiles, kept)
        for v in range(walks.values):
            free = walks.pool - sum(at < v for at in joker_at)
            kept_from_v = sum(first >= v for first in kept_firsts)
            assert kept_from_v <= walks.kept_left[v, free], f"seed {seed} number {v}"
        assert walks.kept_left[0, walks.pool] < len(pos.sets)  # and they do bound something


@pytest.mark.parametrize("retry", [1, dp.BEAM_RETRY])
def test_a_beam_that_finds_nothing_hands_over(monkeypatch: pytest.MonkeyPatch, retry: int) -> None:
    """A beam of one state finds no play on these tables: the wider beam takes over, or if it
    fails too (a width of one again), exact walks down from the bound."""
    monkeypatch.setattr(dp, "BEAM", 1)
    monkeypatch.setattr(dp, "BEAM_RETRY", retry)
    for seed in (0, 4):
        position = deal(CLASSES["late-game"], seed)
        fast, slow = _both(position.table, position.rack)
        assert _key(fast) == _key(slow), f"late-game seed {seed}"


def test_a_beam_wider_than_every_layer_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """A beam that never had to drop a state walked every state: its play is the best, so no
    exact walk follows it (and it agrees with the integer program)."""
    monkeypatch.setattr(dp, "BEAM", 10**7)
    walked: list[int] = []
    main = dp._Walks.main
    monkeypatch.setattr(dp._Walks, "main", lambda self, *a, **k: walked.append(1) or main(self, *a, **k))
    runs = " | ".join(" ".join(f"{c}{n}" for n in range(1, 14)) for c in "kbor")  # 52 tiles: a big table
    for rack in ("k1 k2 k3 k4 b5 b6 b7 o8 o9 o10 r11 r12 r13 J", "k5 b5 o5 r5 k9 b9 o9 r9 k12 b12 o12 r12 k1 J"):
        walked.clear()
        fast, slow = _both(parse_sets(runs), parse_tiles(rack))
        assert _key(fast) == _key(slow), rack
        assert len(walked) == 1, f"{rack}: {len(walked)} walks after the bounds"


def test_relaxed_tails_free_the_near_tiles_and_the_sets_begun_below() -> None:
    """Each tail from number index s: the tiles of s and s + 1 (table and rack) and the tiles of
    old sets begun below s may be placed or not; every other table tile must be, every other
    rack tile may be played; the rack below s + 2 and the jokers are what the tail leaves out."""
    kind = CLASSES["late-game"]
    rules = get_rules("goliath_modern", edition=kind.edition, **FREE)
    position = deal(kind, 2)
    walks = dp._Walks(Position(position.table, position.rack, rules.box, RuleView.of(rules)), Objective.TILES)
    starts = sorted({r.first for r in walks.old}, reverse=True)
    table, rack, spares, below = walks.relaxed_tails(starts)
    for k, s in enumerate(starts):
        begun = walks.table_count * 0
        for r in walks.old:
            if r.first < s:
                for (v, c), n in r.tiles.items():
                    begun[v, c] += n if v >= s else 0
        near = slice(s, s + 2)
        assert (spares[k][near] == walks.table_count[near] + walks.rack_count[near]).all()
        assert (table[k][near] == 0).all() and (rack[k][near] == 0).all()
        far = [v for v in range(walks.values) if not s <= v < s + 2]
        assert (spares[k][far] == begun[far]).all()
        assert (table[k][far] + spares[k][far] == walks.table_count[far]).all()
        assert (rack[k][far] == walks.rack_count[far]).all()
        left = walks.main_left
        assert below[k] == left[0] - left[min(s + 2, walks.values)] + left[walks.values]


@pytest.mark.parametrize("objective", [Objective.TILES, Objective.VALUE])
def test_expert_coloured_jokers_agree_with_the_integer_program(objective: Objective) -> None:
    """Expert: each coloured joker walked as a wild tile of its colour, on the table and rack."""
    from benchmarks.positions import PRESET_CLASSES

    for seed in range(10):
        position = deal(PRESET_CLASSES["expert: mid-game, coloured jokers"], seed)
        fast, slow = _both(position.table, position.rack, edition="expert", objective=objective)
        assert _key(fast) == _key(slow), f"expert seed {seed} {objective}"


@pytest.mark.parametrize(
    "table,rack,tiles",
    [
        ("", "k5 b5 Jo", 3),  # a group takes a joker of a colour it lacks
        ("", "k5 b5 Jk", 0),  # but not one of a colour it has
        ("", "Jk Jb b5", 0),  # Jb cannot stand beside b5: no group, no run
        ("", "k5 Jb Jo", 3),  # two jokers and one numbered tile make a group
        ("", "k5 b5 Jo Jr r12 r13", 6),  # Jr in front of r12 r13, Jo in the group
        ("k11 k12 k13", "Jk Jk", 2),  # both black jokers onto the black run
        ("r5 r6 r7", "Jk", 0),
        # r6 frees Jr (it goes on standing in a red place); Jo finds no orange place
        ("r5 Jr r7 | k9 b9 o9", "r6 Jo", 1),
    ],
)
def test_expert_named_cases(table: str, rack: str, tiles: int) -> None:
    fast, slow = _both(parse_sets(table, edition="expert") if table else [], parse_tiles(rack, edition="expert"),
                       edition="expert")
    assert fast.tiles == tiles
    assert _key(fast) == _key(slow)


def _big_table_whole_rack_play(seed: int) -> tuple[Position, TurnAnswer]:
    """A free-joker late-game deal (a big table) and its best play, which plays the whole rack
    (the test is skipped where it does not)."""
    rules = get_rules("goliath_modern", **FREE)
    p = deal(CLASSES["late-game"], seed)
    pos = Position(p.table, p.rack, rules.box, RuleView.of(rules))
    assert dp._is_big(pos)
    best = dp.solve_after_opening(pos, Objective.TILES)
    if best is None or best.tiles < len(p.rack):
        pytest.skip("no whole-rack play here")
    return pos, best


@pytest.mark.parametrize("seed", range(4))
def test_a_big_tables_floor_asks_for_more_sets_kept_whole(seed: int) -> None:
    # on a big table only whole-rack plays are walked; a floor at the best play's own score
    # asks for one more old set kept whole, which no play has (engine.solver.fates' floors)
    pos, best = _big_table_whole_rack_play(seed)
    tiles, value, kept = _key(best)
    with pytest.raises(dp.BelowFloor):
        dp.solve_after_opening(pos, Objective.TILES, floor=(tiles, value, kept))
    again = dp.solve_after_opening(pos, Objective.TILES, floor=(tiles, value, kept - 1))
    assert again is not None and _key(again) == _key(best)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_big_tables_ceiling_caps_the_sets_kept(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # a proven ceiling (engine.solver.fates: the play with every joker free) at the best play's
    # own score gives the same play, and no walk asks for more sets kept than it; one short of
    # the whole rack proves that no whole-rack play exists, without a walk
    pos, best = _big_table_whole_rack_play(seed)
    tiles, value, kept = _key(best)
    asked: list[int] = []
    main = dp._Walks.main

    def recorded(self, floor, kept_floor, beam=0):
        asked.append(kept_floor)
        return main(self, floor, kept_floor, beam)

    monkeypatch.setattr(dp._Walks, "main", recorded)
    capped = dp.solve_after_opening(pos, Objective.TILES, ceiling=(tiles, value, kept))
    assert capped is not None and _key(capped) == _key(best)
    assert max(asked) <= kept
    asked.clear()
    assert dp.solve_after_opening(pos, Objective.TILES, ceiling=(tiles - 1, value, kept)) is None
    with pytest.raises(dp.BelowFloor):
        dp.solve_after_opening(pos, Objective.TILES, floor=(0, 0, 0), ceiling=(tiles, value - 1, kept))
    assert asked == []


def _without_set(position, k):
    return [s for i, s in enumerate(position.table) if i != k]


def _criteria(answer, objective):
    """(primary, secondary, old sets kept), the order of the objective."""
    tiles, value, kept = _key(answer)
    return (tiles, value, kept) if objective is Objective.TILES else (value, tiles, kept)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_spares_bound_every_table_between_the_counts(seed: int) -> None:
    """best_with_spares over the tiles every table must place, the others as spares: no spares
    is the best play itself; with a set's tiles as spares, it bounds the table without that set
    (old sets and all) and the table with it (tiles and points: the set is no old set there)."""
    kind = CLASSES["mid-game"]
    rules = get_rules("goliath_modern", edition=kind.edition, **FREE)
    position = deal(kind, seed)
    whole = Position(position.table, position.rack, rules.box, RuleView.of(rules))
    nothing = (-1, -1, -1)
    for objective in Objective:
        assert dp.best_with_spares(whole, objective, [0] * whole.size, nothing) == _criteria(
            dp.solve_after_opening(whole, objective), objective
        )
        for k in (0, len(position.table) // 2):
            rest = Position(_without_set(position, k), position.rack, rules.box, RuleView.of(rules))
            spares = [w - r for w, r in zip(whole.table_count, rest.table_count)]
            bound = dp.best_with_spares(rest, objective, spares, nothing)
            assert bound >= _criteria(dp.solve_after_opening(rest, objective), objective)
            assert bound[:2] >= _criteria(dp.solve_after_opening(whole, objective), objective)[:2]
            with pytest.raises(dp.BelowFloor):  # nothing scores more than the bound
                dp.best_with_spares(rest, objective, spares, bound)


@pytest.mark.parametrize("seed", [0, 1])
def test_positions_with_the_same_keepable_sets_share_their_old_set_arrays(seed: int) -> None:
    """Two racks on one table: the kernel's arrays of the old sets are made once and shared
    (dp._old_set_arrays), each position's answers those of arrays made afresh, and a table
    with a set not keepable (engine.solver.fates: a freed joker's) gets arrays of its own."""
    from dataclasses import replace

    kind = CLASSES["mid-game"]
    rules = get_rules("goliath_modern", edition=kind.edition, **FREE)
    position = deal(kind, seed)
    table = Position(position.table, [], rules.box, RuleView.of(rules))
    numbered = [t for t in position.rack if not t.is_joker]
    fewer = [t for t in position.rack if t.is_joker] + numbered[len(numbered) // 2:]  # the same jokers
    racks = [table.with_rack(position.rack), table.with_rack(fewer)]
    first, second = (dp._Walks(p, Objective.TILES) for p in racks)
    assert first.set_start is second.set_start and first.old is second.old
    shared = [_criteria(dp.solve_after_opening(p, o), o) for p in racks for o in Objective]
    dp._old_set_arrays.cache_clear()
    assert shared == [_criteria(dp.solve_after_opening(p, o), o) for p in racks for o in Objective]
    changed = racks[0]
    changed.sets = [replace(changed.sets[0], keepable=False), *changed.sets[1:]]
    assert len(dp._Walks(changed, Objective.TILES).old) == len(first.old) - 1
