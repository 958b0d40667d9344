"""A small integer-program builder on top of :func:`scipy.optimize.milp` (HiGHS).

Why not cvxpy or PuLP: their model-building layers cost tens of milliseconds per solve, which is
most of the time a hint takes. Here a model is plain Python lists turned into one sparse matrix,
and HiGHS does the rest.

Expressions are ``dict[int, float]`` (variable index -> coefficient); a constant is never part of
an expression, it goes to the bounds of the constraint instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

Expr = dict[int, float]


def add_into(target: Expr, source: Expr, scale: float = 1.0) -> Expr:
    """``target += scale * source``, in place; returns ``target``."""
    for var, coef in source.items():
        target[var] = target.get(var, 0.0) + scale * coef
    return target


@dataclass
class Model:
    """Integer variables, linear constraints and one objective to maximise."""

    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)
    _rows: list[int] = field(default_factory=list)
    _cols: list[int] = field(default_factory=list)
    _vals: list[float] = field(default_factory=list)
    _row_lo: list[float] = field(default_factory=list)
    _row_hi: list[float] = field(default_factory=list)
    #: seconds HiGHS may take; past it the best play found is returned, not proven optimal
    time_limit: float = 30.0
    #: after :meth:`solve`: whether HiGHS proved the answer optimal
    proven: bool = True

    def var(self, upper: float, lower: float = 0.0) -> int:
        """A new integer variable in ``[lower, upper]``; returns its index."""
        self.lower.append(lower)
        self.upper.append(upper)
        self.objective.append(0.0)
        return len(self.lower) - 1

    def constrain(self, expr: Expr, lo: float = -math.inf, hi: float = math.inf) -> None:
        """``lo <= expr <= hi``. An empty expression is checked at once (0 must fit)."""
        terms = [(v, c) for v, c in expr.items() if c != 0.0]
        if not terms:
            if lo > 1e-9 or hi < -1e-9:
                # an impossible constant row: make it an explicit infeasible row
                row = len(self._row_lo)
                self._row_lo.append(lo)
                self._row_hi.append(hi)
                self._rows.append(row)
                self._cols.append(self.var(0.0))
                self._vals.append(1.0)
            return
        row = len(self._row_lo)
        self._row_lo.append(lo)
        self._row_hi.append(hi)
        for var, coef in terms:
            self._rows.append(row)
            self._cols.append(var)
            self._vals.append(coef)

    def equal(self, expr: Expr, value: float) -> None:
        self.constrain(expr, value, value)

    def maximise(self, expr: Expr, weight: float = 1.0) -> None:
        for var, coef in expr.items():
            self.objective[var] += weight * coef

    def solve(self) -> np.ndarray | None:
        """The optimal values (rounded to integers), or ``None`` when infeasible.

        ``mip_rel_gap=0``: the objective packs several criteria into one number, so HiGHS's
        default 0.01 % gap could silently lose a tie-break; the answer must be proven optimal.
        """
        n = len(self.lower)
        if n == 0:
            return np.zeros(0)
        c = -np.asarray(self.objective)
        constraints = []
        if self._row_lo:
            matrix = csr_array(
                (self._vals, (self._rows, self._cols)), shape=(len(self._row_lo), n)
            )
            constraints.append(LinearConstraint(matrix, self._row_lo, self._row_hi))
        result = milp(
            c,
            constraints=constraints,
            integrality=np.ones(n),
            bounds=Bounds(self.lower, self.upper),
            options={"mip_rel_gap": 0.0, "presolve": True, "time_limit": self.time_limit},
        )
        self.proven = result.status == 0
        if result.x is None:
            return None
        return np.rint(result.x).astype(np.int64)
