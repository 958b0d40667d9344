"""One upper bound for a whole family of the Twist search's rests, from one exact walk.

The Twist search (:mod:`engine.solver.specials`) lays out the rest of the turn once per choice
of special sets, hundreds per hint on a mid-game table, and most of them only to prove that
the rest cannot beat the best play found: the bound it had (every rack tile some plain set
could hold) rarely tells one rest from another. Rests whose special sets take the same
rack tiles form a *family* (the search groups them by one table tile taken too,
``specials.FAMILY_DEPTH``): they have the same rack and differ only in which table tiles the
special sets took (and which they left loose), a few tiles of a 40-tile table. One walk of
the dynamic programme over the family's rack and the table tiles that every rest of it must
place, with the tiles only some of them must place as *spares* (placed or not, at no gain),
bounds every rest of the family: each rest's play is a play of that relaxed position. Its old
sets are the table's sets every rest may keep (the *core*: the search passes every set without
a special joker); a rest keeps one only where its tiles are still there, and the walk keeps it
only where its tiles, the fewest any rest places or spares, are there, so the bound holds for
the old sets kept too. A few dozen families hold the hundreds of rests of a mid-game hint.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from rummi.engine.solver import dp
from rummi.engine.solver.position import Position
from rummi.engine.solver.turn import Objective
from rummi.engine.tiles import Tile

Score = tuple[int, int, int]  # (primary, secondary, old sets kept), as engine.solver.dp.Floor


class FamilyBound:
    """The best score any rest of one family can reach."""

    def __init__(
        self,
        pos: Position,
        rack: Sequence[Tile],
        tables: tuple[Sequence[int], Sequence[int]],
        core: Sequence[Sequence[Tile]],
        objective: Objective,
        relaxed: Position | None = None,
    ) -> None:
        """``pos``: the whole turn (edition, rules); ``rack``: the family's rack; ``tables``:
        the fewest and the most numbered table tiles of each kind (by the relaxed position's
        index, :meth:`Position.index`) that a rest of the family must place (a rest has no
        table joker); ``core``: the old sets any rest of the family may keep whole (every other
        set it cannot keep). ``relaxed``: ``Position(core, rack, ...)`` where the caller has it
        (the Twist search reads a core's sets once for its families), never changed here."""
        if relaxed is None:
            relaxed = Position(core, rack, pos.edition, pos.rules)
        relaxed = copy.copy(relaxed)  # its table counts are set below
        fewest, most = tables
        relaxed.table_count = list(fewest)
        self._spares = [high - low for low, high in zip(fewest, most)]
        self._relaxed = relaxed
        self._objective = objective
        self._best: Score | None = None  # the relaxed position's best, once walked
        self._below: Score | None = None  # a floor no rest scores more than
        self._unknown = False  # the walks outgrew their budget: no bound

    def at_most(self, floor: Score) -> Score | None:
        """An upper bound on the score of every rest of the family, its core sets counted as
        the only old sets, walked with the ``floor`` the caller needs (the walks prune on it;
        where no rest scores more, the bound is the floor itself), or ``None`` where none is
        known. Each family is walked once, or again only for a higher floor than one it
        reached (it still falls short: floors only rise)."""
        if self._unknown:
            return None
        if self._best is not None:
            return self._best
        if self._below is not None and floor >= self._below:
            return self._below
        try:
            self._best = dp.best_with_spares(self._relaxed, self._objective, self._spares, floor)
        except dp.BelowFloor:
            self._below = floor
            return floor
        if self._best is None:
            self._unknown = True
        return self._best
