"""The exact horizon model of the desktop family as a MILP solved by HiGHS (spec 004 §7.1): the
cross-check of `resilsched.models.desktop.cpsat`, the same model E1-E6 (linear, no big-M).

Variables in one vector: x_jik (binary, admissible pairs), y_ik (binary), S_ik in [0, a_ik],
M_ik in [0, a_ik / 2] (slack rule only), lambda in [LB, UB]. The same phases and guards as the
CP-SAT model (bounds, incumbent, size guard, search within the time left, validation);
``mip_rel_gap = 0``. HiGHS's lambda is rounded to the integer it stands for and the dual bound
rounded up after a 1e-6 tolerance (all data are integers, so the optimum is an integer).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from resilsched.models.desktop.common import (
    HorizonData,
    HorizonOptions,
    solve_with,
)
from resilsched.solution import Solution, Status
from resilsched.solvers import highs_options, run_highs, set_time_limit

if TYPE_CHECKING:
    import highspy

METHOD = "milp"


class _Rows:
    """Sparse rows lower <= sum coef * var <= upper, collected for one addRows call."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.starts: list[int] = []
        self.index: list[int] = []
        self.value: list[float] = []

    def add(self, terms: list[tuple[int, float]], lower: float, upper: float) -> None:
        self.starts.append(len(self.index))
        for var, coef in terms:
            self.index.append(var)
            self.value.append(coef)
        self.lower.append(lower)
        self.upper.append(upper)


def build(data: HorizonData, lb: int, ub: int) -> tuple[highspy.Highs, dict, int]:
    """The MILP in a `highspy.Highs` object; returns it, the x columns and lambda's column."""
    import highspy
    inf = highspy.kHighsInf
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    cols_lo: list[float] = []
    cols_hi: list[float] = []
    integer: list[int] = []

    def col(lo: float, hi: float, is_int: bool = False) -> int:
        cols_lo.append(lo)
        cols_hi.append(hi)
        if is_int:
            integer.append(len(cols_lo) - 1)
        return len(cols_lo) - 1

    lam = col(lb, ub)
    x = {p: col(0, 1, True) for p in data.pairs}
    rows = _Rows()
    by_job: dict[int, list[int]] = {}
    terms: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (j, i, k), c in x.items():
        by_job.setdefault(j, []).append(c)
        terms.setdefault((i, k), []).append((j, c))
    for j in range(data.instance.n):
        rows.add([(c, 1.0) for c in by_job.get(j, [])], 1, 1)  # (E1)
    S, M = {}, {}
    for i, a in enumerate(data.a):
        for k, ak in enumerate(a):
            S[i, k] = col(0, ak)
            y = col(0, 1, True)
            tv = terms.get((i, k), [])
            rows.add([(S[i, k], 1.0)] + [(c, -float(data.t(i, j))) for j, c in tv], 0, 0)  # E2
            for _, c in tv:
                rows.add([(c, 1.0), (y, -1.0)], -inf, 0)  # (E5)
            e6 = [(lam, 1.0), (y, -float(data.q[i][k])), (S[i, k], -1.0)]
            if data.slack:
                M[i, k] = col(0, ak / 2)
                for j, c in tv:
                    rows.add([(M[i, k], 1.0), (c, -float(data.t(i, j)))], 0, inf)  # (E3)
                e6.append((M[i, k], -1.0))
            rows.add(e6, 0, inf)  # (E6)
    if data.slack:
        for i, a in enumerate(data.a):
            for k, ak in enumerate(a):
                for kk in (k, k + 1, k + 2):
                    if kk < len(a):
                        rows.add([(S[i, k], 1.0), (M[i, kk], 1.0)], -inf, ak)  # (E4)
    n = len(cols_lo)
    cost = np.zeros(n)
    cost[lam] = 1.0
    h.addVars(n, np.asarray(cols_lo), np.asarray(cols_hi))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
    if integer:
        h.changeColsIntegrality(len(integer), np.asarray(integer, dtype=np.int32),
                                np.full(len(integer), highspy.HighsVarType.kInteger))
    h.addRows(len(rows.lower), np.asarray(rows.lower), np.asarray(rows.upper),
              len(rows.index), np.asarray(rows.starts, dtype=np.int32),
              np.asarray(rows.index, dtype=np.int32), np.asarray(rows.value))
    return h, x, lam


def solve(instance, scenario: Any = None, *, time_limit: float | None = None,
          **options: Any) -> Solution:
    """Minimum horizon under the instance's rule (HiGHS MILP; spec 7.1)."""
    return solve_with(instance, time_limit, options, METHOD, "highs", "MILP", _search)


def _search(data: HorizonData, lb: int, ub: int, best: Any, opts: HorizonOptions,
            info: dict) -> tuple[Status, dict | None, int | None]:
    h, x, lam = build(data, min(lb, ub), ub)
    for name, value in highs_options(opts, mip_rel_gap=0.0, mip_abs_gap=1e-6).items():
        h.setOptionValue(name, value)
    set_time_limit(h, max(0.01, opts.deadline.remaining()))
    opts.say("search (HiGHS)")
    run = run_highs(h)
    info["highs_status"] = run.solver_status
    chosen = None
    if run.objective is not None:  # a feasible point
        values = h.getSolution().col_value
        chosen = {}
        for (j, i, k), c in x.items():
            if values[c] > 0.5:
                chosen.setdefault((i, k), []).append(j)
    bound = None if run.bound is None else math.ceil(run.bound - 1e-6)
    return run.status, chosen, bound
