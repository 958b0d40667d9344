"""The move-hint solver: the best legal play for a rack, with the whole new table.

    >>> from rummi.engine.notation import parse_sets, parse_tiles
    >>> hint = solve(parse_sets("r5 r6 r7"), parse_tiles("r8 J"), opened=True)
    >>> hint.tiles_played, hint.is_draw
    (2, False)
    >>> can_open(parse_tiles("k10 b10 r10 o2")).value_played
    30

The solver is exact, by the fastest of three methods that models the position: a search over
the rack's sets for an opening (:mod:`engine.solver.opening`), a compiled dynamic programme over
the numbers after it (:mod:`engine.solver.dp`), or one integer program that HiGHS proves
optimal (:mod:`engine.solver.turn`) for the rest. What "legal" means comes from the rule preset
(:mod:`rummi.engine.rules`); docs/solver.md lists how each rule is modelled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rummi.engine.editions import Edition
from rummi.engine.errors import RummiError
from rummi.engine.joker_fate import JokerRules, read_joker_fates
from rummi.engine.melds import classify
from rummi.engine.notation import format_sets, format_tiles, sets_to_json, tile_to_json
from rummi.engine.referee.judge import judge_turn
from rummi.engine.rules import Rules, get_rules
from rummi.engine.solver import dp, fates, locked, opening, specials
from rummi.engine.solver.explain import explain
from rummi.engine.solver.position import Position, RuleView
from rummi.engine.solver.turn import Objective, TurnAnswer, solve_turn
from rummi.engine.tiles import Tile, sort_tiles

__all__ = ["Hint", "Objective", "can_open", "solve"]


@dataclass(frozen=True)
class Hint:
    """The solver's answer.

    ``value_played`` counts numbered tiles at face value and a joker at the preset's joker
    penalty (what it would cost left on the rack). ``opening_value`` is the opening's worth by
    the opening rule (a joker counts as the tile it stands for); 0 after the opening.
    """

    play: list[Tile]
    table: list[list[Tile]]
    tiles_played: int
    value_played: int
    explanation: list[str]
    is_draw: bool
    reason: str
    opening_value: int = 0
    objective: str = "tiles"
    #: per set of ``table``: an old set left exactly as it was
    untouched: list[bool] = field(default_factory=list)
    #: False where the search was cut short (its time budget, a size budget): the play is
    #: legal but maybe not the best, or a draw that is not proven to be the only answer
    proven: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "draw": self.is_draw,
            "reason": self.reason,
            "play": [tile_to_json(t) for t in self.play],
            "table": sets_to_json(self.table),
            "tiles_played": self.tiles_played,
            "value_played": self.value_played,
            "opening_value": self.opening_value,
            "objective": self.objective,
            "proven_optimal": self.proven,
            "explanation": list(self.explanation),
        }

    def __str__(self) -> str:
        proven = "" if self.proven else " (not proven optimal)"
        if self.is_draw:
            return f"draw: {self.reason}{proven}"
        count = f"{self.tiles_played} tile{'s' if self.tiles_played != 1 else ''}"
        lines = [f"play {format_tiles(self.play)} ({count}, {self.value_played} points){proven}"]
        lines += [f"  {line}" for line in self.explanation]
        lines.append(f"table: {format_sets(self.table)}")
        return "\n".join(lines)


def _objective(objective: Objective | str) -> Objective:
    if isinstance(objective, Objective):
        return objective
    try:
        return Objective(str(objective).strip().lower())
    except ValueError:
        raise RummiError(f"unknown objective {objective!r}: use 'tiles' or 'value'") from None


def _edition_of(edition: Edition | str | None, rules: Any) -> Edition | str | None:
    """The edition asked for, else the preset's (a name or ``None`` for the default preset)."""
    if edition is not None:
        return edition
    if rules is None or isinstance(rules, str):
        from rummi.engine.rules import get_rules

        return get_rules(rules).edition
    return getattr(rules, "edition", None)


def solve(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    *,
    opened: bool,
    edition: Edition | str | None = None,
    rules: Any = None,
    objective: Objective | str = Objective.TILES,
    compiled: bool = True,
) -> Hint:
    """The best legal play, or a draw with the reason.

    ``rules``: a preset name, an :class:`engine.rules.Rules`, or ``None`` for the default preset.
    ``edition`` defaults to the preset's edition. ``compiled=False`` leaves out the compiled
    dynamic programme (same answers, by the other routes): for a caller whose numba kernel is
    still compiling, so that a hint never waits for the compiler.
    """
    goal = _objective(objective)
    view = RuleView.of(rules)
    pos = Position(table, rack, _edition_of(edition, rules), view)
    if not pos.rack_in:
        return _draw("the rack is empty", goal, pos)
    if specials.applies(pos):
        # the search judges every play it answers (and finds the play without special jokers
        # itself, with the special sets left out, where the fast methods apply)
        judge = (lambda a: _legal(pos, a, opened, rules)) if _judgeable(rules) else (lambda a: True)

        def rest(sub: Position, o: bool, floor: dp.Floor | None) -> TurnAnswer | None:
            # with a floor the walks prune on it and prove at once that nothing beats it; where
            # the preset's joker rules keep them out, they prove it with the table jokers free
            # (every legal play is among those), before the exact methods are asked
            if floor is not None and compiled and o:
                if dp.applies(sub, o):
                    answer = dp.solve_after_opening(sub, goal, floor=floor)
                    if answer is not None:
                        return answer
                elif sub.table_jokers and dp.applies(relaxed := fates.jokers_free(sub), o):
                    dp.solve_after_opening(relaxed, goal, floor=floor)  # raises dp.BelowFloor
            return _best(sub, o, goal, rules, compiled)[0]

        answer = specials.solve(pos, opened, goal, None, rest, judge, compiled=compiled)
        searched = answer is None or answer.proven  # False: the search for a play was cut short
        judged = answer is not None and answer.tiles > 0 and _judgeable(rules)
        if answer is None or answer.tiles == 0:
            answer, judged = _best(pos, opened, goal, rules, compiled)
            if not searched and answer is not None:
                answer = replace(answer, proven=False)
    else:
        searched = True
        answer, judged = _best(pos, opened, goal, rules, compiled)
    if not judged:
        answer = _judged(pos, answer, opened, goal, rules)
    if not searched and (answer is None or answer.tiles == 0):
        # the search that found nothing was cut short: say so, not that nothing fits
        reason = "no play found, but the search was cut short: not proven that none exists"
        return replace(_draw(reason, goal, pos), proven=False)
    if answer is None:
        return _draw(_why_no_opening(pos, goal), goal, pos)
    if answer.tiles == 0:
        reason = "no rack tile fits on the table, even after rearranging it"
        if not opened:
            reason = _why_no_opening(pos, goal)
        return _draw(reason, goal, pos)
    return _hint(pos, answer, goal, opened)


def _best(
    pos: Position, opened: bool, goal: Objective, rules: Any, compiled: bool = True
) -> tuple[TurnAnswer | None, bool]:
    """The fastest exact method that models this position: the opening search, the dynamic
    programme after the opening, or the integer program for everything else.

    Also whether the answer was already judged legal by the referee's whole judge (only a
    proof that nothing fits needs none). Where the preset's joker
    rules keep the dynamic programme out, it still answers the same position with the table
    jokers free: every legal play is among those, so when the referee accepts its best play
    that play is the best legal one (the packed objective, tie-breaks included, can only be
    lower under more rules). Otherwise each table joker's fates are solved one by one
    (:mod:`engine.solver.fates`, the same argument with tighter relaxations), and where that
    proves nothing the integer program, which encodes the rules, answers. Locked joker sets
    (Pagat's Sabra) keep the programme out too: :mod:`engine.solver.locked` walks each choice
    of their growths with the programme solving the rest.

    With Expert's coloured jokers on the table the fates come first, without the free-joker
    play as their bound (:func:`fates.first`): a coloured joker set free multiplies the walk's
    states, one kept or replaced does not, so every fate walked costs less than that one walk.
    """
    if opening.applies(pos, opened):
        return opening.search(pos, goal), False
    if compiled and dp.applies(pos, opened):
        answer = dp.solve_after_opening(pos, goal)
        if answer is not None:
            return answer, False
    if compiled and _judgeable(rules) and locked.applies(pos, opened):
        # each locked set's growth chosen, the rest walked; judged once more by ``_judged``
        answer = locked.solve(pos, goal, _joker_judge(pos, rules))
        if answer is not None:
            return answer, False
    relaxed = _jokers_free(pos)
    # what the fast routes learnt for the integer program: a legal play it need only beat,
    # and the free-joker play, which no legal play beats (both cut its search, see turn.py)
    floor: TurnAnswer | None = None
    ceiling: TurnAnswer | None = None
    if compiled and relaxed is not None and _judgeable(rules) and dp.applies(relaxed, opened):
        fates_tried = fates.first(pos, opened)
        if fates_tried:
            # coloured jokers: the fates' walks cost less than the one with every joker free
            found = fates.search(pos, goal, _joker_judge(pos, rules))
            if found.best is not None:
                return found.best, False
            floor = found.accepted
        answer = dp.solve_after_opening(relaxed, goal)
        if answer is not None and answer.tiles == 0:
            return answer, True  # nothing fits even with free jokers
        # The search asks the joker question alone of each candidate; the play it settles on
        # is then judged once more by the whole referee (``_judged``), so a defect in how the
        # programme lays a play out is caught, not shown.
        judge = _joker_judge(pos, rules)
        if answer is not None and judge(answer):
            return answer, False
        ceiling = answer
        if answer is not None and not fates_tried and fates.applies(pos, opened):
            found = fates.search(pos, goal, judge, upper=answer)
            if found.best is not None:
                return found.best, False
            floor = found.accepted
    return _beyond_the_fast_routes(pos, opened, goal, floor, ceiling), False


def _beyond_the_fast_routes(
    pos: Position, opened: bool, goal: Objective, floor: TurnAnswer | None, ceiling: TurnAnswer | None
) -> TurnAnswer | None:
    """The integer program's answer, told what the fast routes proved: ``floor``, a play the
    referee's joker question accepted (legal: only a better play is asked for, and when there
    is none it is the answer), and ``ceiling``, the play with every table joker free, which
    bounds every legal play. The cuts are what makes HiGHS quick where the routes gave up:
    measured on the benchmark's slowest seeds (docs/solver.md), XP 90 + 24 seed 4 1.6 s ->
    0.5 s, the late game's seed 4 0.35 s -> 0.15 s (there it proves at once that nothing
    beats the floor)."""
    if floor is None and ceiling is None:
        return solve_turn(pos, opened, goal)
    below = None if floor is None else fates.score(floor, goal)
    above = None if ceiling is None else fates.score(ceiling, goal)
    better = solve_turn(pos, opened, goal, floor=below, ceiling=above)
    return floor if better is None else better


def _jokers_free(pos: Position) -> Position | None:
    """The same position under rules that let table jokers go anywhere (a relaxation), or
    ``None`` when the position has no table joker to relax, or has loose table tiles (a part of
    a Twist turn, engine.solver.specials: the referee could not judge it alone)."""
    if not pos.table_jokers or any(not s.keepable for s in pos.sets):
        return None
    return fates.jokers_free(pos)  # a copy with other rules: reading the turn again cost 0.3 ms


def _judged(
    pos: Position, answer: TurnAnswer | None, opened: bool, goal: Objective, rules: Any
) -> TurnAnswer | None:
    """The answer, once the referee has judged it legal (the same rules, one definition).

    Every method encodes the preset's rules, and the joker rules by the definition of
    :mod:`rummi.engine.joker_fate` that the referee judges with; this is the proof, hint by
    hint. Should a fast method's play ever be judged illegal, the integer program answers
    instead; should that too be judged illegal, it is a defect, raised rather than shown.
    """
    if answer is None or answer.tiles == 0 or not _judgeable(rules) or not _jokers_ruled(pos):
        return answer
    if _legal(pos, answer, opened, rules):
        return answer
    exact = solve_turn(pos, opened, goal)
    if exact is None or exact.tiles == 0 or _legal(pos, exact, opened, rules):
        return exact  # the integer program's answer, or its proof that nothing can be played
    raise RummiError(
        "internal error: the solver's best play is judged illegal by the referee; please report "
        f"this position (table {format_sets(pos.table_sets_in)}, rack {format_tiles(pos.rack_in)})"
    )


def _jokers_ruled(pos: Position) -> bool:
    """Whether a joker rule of the preset is at stake: a table joker under retrieval rules, a
    locked set, or a Twist special joker. Elsewhere the methods' answers need no judge (each is
    checked against independent references by benchmarks/solver_exactness.py), and the judge
    would cost more than the hint (10-20 ms on a 40-tile table)."""
    rules = pos.rules
    if pos.unplayable_rack or any(s.locked for s in pos.sets):
        return True
    if not pos.table_jokers:
        return False
    free = rules.free_by_rearranging and rules.freed_min_own_tiles == 0 and not rules.freed_in_new_set
    return not free or any(j.needs_all for j in pos.table_jokers)


def _judgeable(rules: Any) -> bool:
    return rules is None or isinstance(rules, (str, Rules))


def _legal(pos: Position, answer: TurnAnswer, opened: bool, rules: Any) -> bool:
    verdict = judge_turn(
        pos.table_sets_in, answer.table, opened=opened, rack=pos.rack_in, rules=rules, edition=pos.edition
    )
    return verdict.legal


def _joker_judge(pos: Position, rules: Any) -> Callable[[TurnAnswer], bool]:
    """The referee's joker question alone, for plays the dynamic programme built after the
    opening (the relaxed play and each fate's answer).

    Such a play keeps every table tile, plays rack tiles only and is laid out set by set, so of
    :func:`judge_turn`'s checks only two can fail: a set that is not valid (asked again here)
    and the joker rules, which are asked of :func:`read_joker_fates`, the very definition the
    referee judges with (:mod:`engine.referee.jokers`). Skipping the rest (reading the moves,
    the rack and the box's inventory) made the judge about three times cheaper: it was called
    once or twice per hint, as costly as the hint's walks.
    """
    preset = JokerRules.of(get_rules(rules))
    before = [tuple(s) for s in pos.table_sets_in]
    edition = pos.edition

    def legal(answer: TurnAnswer) -> bool:
        after = [tuple(s) for s in answer.table]
        if not all(classify(s, edition).valid for s in after):
            return False
        # in the edition, as the referee asks it: its whole judgement of the play the search
        # settles on then finds this reading remembered, not read twice
        return read_joker_fates(before, after, rules=preset, may_take=True, edition=edition).legal

    return legal


def can_open(
    rack: Sequence[Tile],
    *,
    edition: Edition | str | None = None,
    rules: Any = None,
    objective: Objective | str = Objective.TILES,
) -> Hint:
    """The best opening from this rack alone (empty table), or a draw saying why not."""
    return solve([], rack, opened=False, edition=edition, rules=rules, objective=objective)


def _hint(pos: Position, answer: TurnAnswer, goal: Objective, opened: bool) -> Hint:
    return Hint(
        play=sort_tiles(answer.played),
        table=answer.table,
        tiles_played=answer.tiles,
        value_played=answer.value,
        explanation=explain(pos, answer, opened),
        is_draw=False,
        reason="",
        opening_value=answer.opening_value,
        objective=goal.value,
        untouched=answer.untouched,
        proven=answer.proven,
    )


def _draw(reason: str, goal: Objective, pos: Position) -> Hint:
    return Hint(
        play=[],
        table=[list(s) for s in pos.table_sets_in],
        tiles_played=0,
        value_played=0,
        explanation=[],
        is_draw=True,
        reason=reason,
        objective=goal.value,
    )


def _why_no_opening(pos: Position, goal: Objective) -> str:
    need = pos.rules.threshold
    if opening.handles_jokers(pos):
        best = opening.search(pos, goal, with_threshold=False)
    else:
        best = solve_turn(pos, False, Objective.VALUE, with_threshold=False)
    if specials.applies(pos):  # Twist: sets with a special joker count too
        free = Position(pos.table_sets_in, pos.rack_in, pos.edition, replace(pos.rules, threshold=0))
        for c in specials.candidates(free, False):
            if best is None or c.opening_value > best.opening_value:
                best = TurnAnswer(list(c.rack), [list(c.tiles)], [False], len(c.rack), 0, c.opening_value)
    if best is None or best.tiles == 0:
        return "no set can be made from the rack alone, so there is no opening"
    return f"the best sets from the rack alone are worth {best.opening_value}, the opening needs {need}"
