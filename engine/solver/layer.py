"""One layer of sets in the integer program: runs as flows along the numbers, groups as patterns.

This is the compact model that makes the solver fast. Instead of one variable per possible set
(hundreds, most of them symmetric copies), a run is a *flow* through the numbers of its colour,
in the spirit of the dynamic programme of van Rijn, Takes and Vis ("The complexity of Rummikub
problems", 2015): at each number a run is 1, 2 or "3 or more" tiles long, it must continue while
shorter than 3 and may stop after. Every position is filled by a real tile or a joker. A group is
one variable per pattern: which colours are real tiles and which are jokers (standing for a
named colour, so a joker's meaning is always known).

``min_reals``: how many numbered tiles each set must hold (1 always, so a set is never jokers
only; 2 for a freed joker's new set under the "2 own tiles" rule). Runs count their real tiles
in the flow state only when enough jokers exist to break the rule.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from rummi.engine.solver.ilp import Expr, Model, add_into
from rummi.engine.solver.position import ANY, Position
from rummi.engine.tiles import Tile

State = tuple[int, int]  # (length capped at 3, real tiles capped at H)


@dataclass
class _Step:
    """What happens at one (colour, number): which runs continue with what, which start."""

    index: int
    moves: list[tuple[State | None, bool, Expr]] = field(default_factory=list)  # (from, real?, count)


class Layer:
    """Runs and groups over a supply of real tiles and jokers."""

    def __init__(
        self,
        model: Model,
        pos: Position,
        supply: list[int],
        joker_supply: dict[int, int],
        min_reals: int = 1,
        joker_colours: bool = True,
    ) -> None:
        self.model = model
        # a group's jokers need named colours only when some joker's meaning is asked for
        # (kept table jokers) or jokers are coloured; otherwise "k5 b5 + 1 joker" is one pattern
        self.joker_colours = joker_colours or ANY not in joker_supply
        self.pos = pos
        self.supply = supply
        self.joker_supply = {k: v for k, v in joker_supply.items() if v > 0}
        self.min_reals = min_reals
        size = pos.size
        self.real: list[Expr] = [{} for _ in range(size)]
        self.joker_at: list[Expr] = [{} for _ in range(size)]
        # the same jokers by the kind of set they stand in (a table joker keeps its place only
        # in a set of its old kind: engine.joker_fate)
        self.joker_in_run: list[Expr] = [{} for _ in range(size)]
        self.joker_in_group: list[Expr] = [{} for _ in range(size)]
        self.joker_by_key: dict[int, Expr] = {k: {} for k in self.joker_supply}
        self.points: Expr = {}
        self._steps: list[list[_Step]] = []
        self._groups: list[tuple[int, tuple[int, ...], tuple[int, ...], int]] = []  # (n, R, J, var)
        for c in range(len(pos.colours)):
            self._steps.append(self._runs(c))
        for offset in range(pos.span):
            self._group_patterns(offset)

    # --- model ---------------------------------------------------------------------------
    def slot_key(self, colour: int) -> int | None:
        """The joker kind that may stand for a tile of this colour here (``None``: no joker)."""
        if ANY in self.joker_supply:
            return ANY
        return colour if colour in self.joker_supply else None

    def _jokers_for(self, colour: int) -> int:
        key = self.slot_key(colour)
        return 0 if key is None else self.joker_supply[key]

    def _count(self, index: int, real: bool, expr: Expr, in_run: bool = True) -> None:
        pos = self.pos
        target = self.real[index] if real else self.joker_at[index]
        add_into(target, expr)
        add_into(self.points, expr, pos.number_of(index))
        if not real:
            add_into((self.joker_in_run if in_run else self.joker_in_group)[index], expr)
            key = self.slot_key(index // pos.span)
            add_into(self.joker_by_key[key], expr)  # type: ignore[index]

    def _runs(self, c: int) -> list[_Step]:
        pos, model = self.pos, self.model
        jokers = self._jokers_for(c)
        # a run with fewer than min_reals real tiles needs at least 4 - min_reals jokers
        cap = self.min_reals if jokers >= 4 - self.min_reals else 0
        steps: list[_Step] = []
        prev: dict[State, Expr] = {}
        for offset in range(pos.span):
            index = c * pos.span + offset
            kinds = ([True] if self.supply[index] > 0 else []) + ([False] if jokers > 0 else [])
            bound = self.supply[index] + jokers
            step = _Step(index)
            new: dict[State, Expr] = {}
            for state, count in prev.items():
                length, reals = state
                must_go_on = length < 3 or reals < cap
                if not kinds:
                    if must_go_on:
                        model.equal(count, 0)
                    continue
                if must_go_on and len(kinds) == 1:
                    moves = [(kinds[0], dict(count))]
                else:
                    moves = [(real, {model.var(bound): 1.0}) for real in kinds]
                    total: Expr = {}
                    for _, e in moves:
                        add_into(total, e)
                    add_into(total, count, -1.0)
                    if must_go_on:
                        model.equal(total, 0)
                    else:
                        model.constrain(total, hi=0)
                for real, expr in moves:
                    nxt = (min(length + 1, 3), min(reals + real, cap))
                    add_into(new.setdefault(nxt, {}), expr)
                    step.moves.append((state, real, expr))
                    self._count(index, real, expr)
            # a run needs two more numbers after it starts
            if offset <= pos.span - 3:
                for real in kinds:
                    expr = {model.var(bound): 1.0}
                    nxt = (1, min(int(real), cap))
                    add_into(new.setdefault(nxt, {}), expr)
                    step.moves.append((None, real, expr))
                    self._count(index, real, expr)
            steps.append(step)
            prev = new
        for (length, reals), count in prev.items():
            if length < 3 or reals < cap:
                model.equal(count, 0)
        return steps

    def _group_patterns(self, offset: int) -> None:
        pos = self.pos
        colours = range(len(pos.colours))
        real_ok = [c for c in colours if self.supply[c * pos.span + offset] > 0]
        joker_ok = [c for c in colours if self.slot_key(c) is not None]
        biggest = len(pos.colours)
        total_jokers = sum(self.joker_supply.values())
        for r in range(max(1, self.min_reals), biggest + 1):
            for reals in itertools.combinations(real_ok, r):
                free = [c for c in joker_ok if c not in reals]
                if not self.joker_colours:
                    # the jokers take the first free colours: any choice reads the same
                    for j in range(max(0, 3 - r), min(biggest - r, total_jokers) + 1):
                        self._add_group(offset, reals, tuple(free[:j]))
                    continue
                for j in range(max(0, 3 - r), min(biggest - r, total_jokers) + 1):
                    for jokered in itertools.combinations(free, j):
                        keys = [self.slot_key(c) for c in jokered]
                        supply = self.joker_supply
                        if any(keys.count(k) > supply[k] for k in set(keys)):  # type: ignore[index]
                            continue
                        self._add_group(offset, reals, jokered)

    def _add_group(self, offset: int, reals: tuple[int, ...], jokered: tuple[int, ...]) -> None:
        pos = self.pos
        bound = min(self.supply[c * pos.span + offset] for c in reals)
        var = self.model.var(bound)
        e = {var: 1.0}
        for c in reals:
            self._count(c * pos.span + offset, True, e, in_run=False)
        for c in jokered:
            self._count(c * pos.span + offset, False, e, in_run=False)
        self._groups.append((offset, reals, jokered, var))

    # --- reading a solution -----------------------------------------------------------------
    def sets(self, x: np.ndarray) -> list[list[Tile]]:
        """The runs and groups a solution lays out in this layer."""
        pos = self.pos
        out: list[list[Tile]] = []
        for c, steps in enumerate(self._steps):
            out.extend(self._read_runs(c, steps, x))
        for offset, reals, jokered, var in self._groups:
            for _ in range(int(x[var])):
                members: list[tuple[int, Tile]] = [(c, pos.tile(c * pos.span + offset)) for c in reals]
                members += [(c, pos.joker_tile[self.slot_key(c)]) for c in jokered]  # type: ignore[index]
                out.append([t for _, t in sorted(members, key=lambda m: m[0])])
        return out

    def _read_runs(self, c: int, steps: list[_Step], x: np.ndarray) -> list[list[Tile]]:
        pos = self.pos
        key = self.slot_key(c)
        open_runs: list[tuple[State, list[Tile]]] = []
        done: list[list[Tile]] = []
        for step in steps:
            tile = pos.tile(step.index)
            by_state: dict[State, list[list[Tile]]] = {}
            for state, tiles in open_runs:
                by_state.setdefault(state, []).append(tiles)
            nxt: list[tuple[State, list[Tile]]] = []
            cap = self._cap(c)
            for state, real, expr in step.moves:
                count = int(round(sum(coef * x[v] for v, coef in expr.items())))
                for _ in range(count):
                    if state is None:
                        tiles: list[Tile] = []
                        length, reals = 0, 0
                    else:
                        tiles = by_state[state].pop()
                        length, reals = state
                    tiles.append(tile if real else pos.joker_tile[key])  # type: ignore[index]
                    nxt.append(((min(length + 1, 3), min(reals + int(real), cap)), tiles))
            for leftover in by_state.values():
                done.extend(leftover)
            open_runs = nxt
        done.extend(t for _, t in open_runs)
        return [self._jokers_high(run) for run in done]

    def _jokers_high(self, run: list[Tile]) -> list[Tile]:
        """Show a run's leading jokers at its top end when they fit there (same set, easier read)."""
        lead = 0
        while lead < len(run) and run[lead].is_joker:
            lead += 1
        tail = 0
        while tail < len(run) and run[-1 - tail].is_joker:
            tail += 1
        if 0 < lead < len(run):
            top = run[-1 - tail].number + tail + lead  # type: ignore[operator]
            if top <= self.pos.numbers[-1]:
                return run[lead:] + run[:lead]
        return run

    def _cap(self, c: int) -> int:
        jokers = self._jokers_for(c)
        return self.min_reals if jokers >= 4 - self.min_reals else 0
