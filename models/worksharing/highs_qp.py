"""HiGHS QP certificate for one worker under linear risk (spec 003 §2.3, §7).

For a fixed number m of chunks the clipped problem, with the horizon constraint
sum(w) + m eps <= X, is the concave QP

    max sum_i w_i (1 - kappa (w_1 + ... + w_i + i eps))   s.t.  w >= 0,  sum w <= min(W, X - m eps)

(Hessian -kappa (J + I)); HiGHS's QP solver returns its global optimum. The optimum over at most
n chunks is the best over m = 1..n (chunks ending after X contribute nothing and can be dropped).
HiGHS shares the process with OR-Tools thanks to the version pin of docs/decisions.md T7.
"""

from __future__ import annotations

import numpy as np

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
    h = highspy.Highs()
    h.silent()
    h.setOptionValue("primal_feasibility_tolerance", 1e-10)
    h.setOptionValue("dual_feasibility_tolerance", 1e-10)
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
    starts, idx, val = [0], [], []
    for c in range(m):
        for r in range(c, m):
            idx.append(r)
            val.append(2 * kappa if r == c else kappa)
        starts.append(len(idx))
    hess.start_ = np.array(starts, dtype=np.int32)
    hess.index_ = np.array(idx, dtype=np.int32)
    hess.value_ = np.array(val)
    h.passModel(model)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS QP: {h.modelStatusToString(h.getModelStatus())}")
    w = np.maximum(np.array(h.getSolution().col_value), 0.0)
    return -h.getInfo().objective_function_value, w


def qp_certificate(W: float, X: float, eps: float, n: int) -> tuple[float, int, np.ndarray]:
    """Certified global optimum over at most n chunks: max over m <= n of `qp_fixed_m`.

    Returns (E*, m*, w*). Chunk counts with m eps > X are infeasible and skipped.
    """
    best = (0.0, 0, np.zeros(0))
    for m in range(1, n + 1):
        r = qp_fixed_m(W, X, eps, m)
        if r is None:
            break
        if r[0] > best[0]:
            best = (r[0], m, r[1])
    return best


def qp_certificate_batch(problems: list[Problem]) -> list[tuple[float, int, np.ndarray]]:
    """`qp_certificate` of several one-worker problems (W, X, eps, n)."""
    return [qp_certificate(*problem) for problem in problems]
