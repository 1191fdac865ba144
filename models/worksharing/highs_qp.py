"""HiGHS QP certificate for one worker under linear risk (spec 003 §2.3, §7).

For a fixed number m of chunks the clipped problem, with the horizon constraint
sum(w) + m eps <= X, is the concave QP

    max sum_i w_i (1 - kappa (w_1 + ... + w_i + i eps))   s.t.  w >= 0,  sum w <= min(W, X - m eps)

(Hessian -kappa (J + I)); HiGHS's QP solver (through `resilsched.solvers`) returns its global
optimum. The optimum over at most n chunks is the best over m = 1..n (chunks ending after X
contribute nothing and can be dropped).
HiGHS shares the process with OR-Tools thanks to the version pin of docs/decisions.md T7.
`qp_scan` runs the chunk counts in increasing order within a `Budget` (one solve of m chunks
spends 2000 + m^3/10 units, about its cost) and says how far it got.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from resilsched.heuristics.worksharing.budget import Budget
from resilsched.solution import Status
from resilsched.solvers import new_highs, run_highs

Problem = tuple[float, float, float, int]  # (W, X, eps, n)


def qp_fixed_m(W: float, X: float, eps: float, m: int) -> tuple[float, np.ndarray] | None:
    """Global optimum of the concave QP with exactly m (possibly empty) chunks (HiGHS QP).

    Returns (E, w) or None when the horizon constraint m eps <= X is infeasible.
    """
    import highspy

    kappa = 1.0 / X
    cap = min(W, X - m * eps)
    if cap < 0:
        return None
    h = new_highs({"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    model = highspy.HighsModel()
    lp = model.lp_
    lp.num_col_ = m
    lp.num_row_ = 1
    lp.col_cost_ = np.array([-(1.0 - kappa * eps * (i + 1)) for i in range(m)])
    lp.col_lower_ = np.zeros(m)
    lp.col_upper_ = np.full(m, highspy.kHighsInf)
    lp.row_lower_ = np.array([-highspy.kHighsInf])
    lp.row_upper_ = np.array([cap])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.arange(m + 1, dtype=np.int32)
    lp.a_matrix_.index_ = np.zeros(m, dtype=np.int32)
    lp.a_matrix_.value_ = np.ones(m)
    lp.sense_ = highspy.ObjSense.kMinimize
    # Hessian kappa (J + I), lower triangle, column-wise
    hess = model.hessian_
    hess.dim_ = m
    hess.format_ = highspy.HessianFormat.kTriangular
    lengths = np.arange(m, 0, -1)  # column c holds rows c..m-1
    hess.start_ = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    cols = np.repeat(np.arange(m), lengths)
    rows = np.arange(lengths.sum()) - np.repeat(hess.start_[:-1], lengths) + cols
    hess.index_ = rows.astype(np.int32)
    hess.value_ = np.where(rows == cols, 2 * kappa, kappa).astype(float)
    h.passModel(model)
    run = run_highs(h)
    if run.status is not Status.OPTIMAL:
        raise RuntimeError(f"HiGHS QP: {run.solver_status}")
    w = np.maximum(np.array(h.getSolution().col_value), 0.0)
    return -h.getInfo().objective_function_value, w


@dataclass(frozen=True)
class QPScan:
    """The best QP optimum over m = 1..`covered` chunks: value, its m and chunk sizes.

    `complete`: every chunk count up to the requested n was solved, or skipped because the
    horizon constraint m eps <= X makes it infeasible; `exhausted`: a count was infeasible, so
    are all larger ones (the optimum over any number of chunks is then known).
    """

    value: float
    m: int
    w: np.ndarray
    covered: int
    complete: bool
    exhausted: bool


def qp_scan(W: float, X: float, eps: float, n: int, budget: Budget | None = None) -> QPScan:
    """Max over m = 1..n of `qp_fixed_m`, in increasing m, until `budget` runs out."""
    best = (0.0, 0, np.zeros(0))
    covered, complete, exhausted = 0, True, False
    for m in range(1, n + 1):
        if budget is not None and m > 1 and budget.expired():
            complete = False
            break
        r = qp_fixed_m(W, X, eps, m)
        if budget is not None:
            budget.spend(2000 + m ** 3 / 10)
        if r is None:
            exhausted = True
            break
        covered = m
        if r[0] > best[0]:
            best = (r[0], m, r[1])
    return QPScan(best[0], best[1], best[2], covered, complete, exhausted)


def qp_certificate(W: float, X: float, eps: float, n: int) -> tuple[float, int, np.ndarray]:
    """Certified global optimum over at most n chunks: max over m <= n of `qp_fixed_m`.

    Returns (E*, m*, w*). Chunk counts with m eps > X are infeasible and skipped.
    """
    scan = qp_scan(W, X, eps, n)
    return scan.value, scan.m, scan.w


def qp_certificate_batch(problems: list[Problem]) -> list[tuple[float, int, np.ndarray]]:
    """`qp_certificate` of several one-worker problems (W, X, eps, n)."""
    return [qp_certificate(*problem) for problem in problems]
