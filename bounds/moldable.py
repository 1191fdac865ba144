"""Lower bounds and ratio constants of the moldable family (spec 000 §2, §3.1, §4).

- `L` (Eq. 8): L(J, f, p) = max(t_max, A / P) for given per-attempt allocations; every schedule
  using them has makespan >= L (Eq. 9).
- `L_prime` (§2.2): the allocation-free normaliser of the experiments,
  max(max_j (f_j+1) t_min,j, sum_j (f_j+1) a_min,j / P), exact min over p = 1..P (§7 item 10);
  exact (int/Fraction) on exact data, see `exact_extremes`.
- `L_star` (§2.3): min over allocations of L, by the integer program of §2.3 solved with
  HiGHS through the solver runner (`resilsched.solvers`; scipy's bundled HiGHS as an optional
  cross-check), or, for one attempt per job, by the exact threshold search of §3.7 (`L_star_g1`).
  L' <= L* <= T_OPT.
- `lemma1_bound` (Lemma 1) and `r_alpha_beta` (Eq. 10, Lemma 2), `certified_ratio`,
  `theorem_ratio` (Thms 1-6, 8) and `lpa_guarantee` (the registered guarantee of LPA-LIST).

>>> from resilsched.instances.moldable import MoldableInstance, Roofline
>>> inst = MoldableInstance(4, (Roofline(6, 2), Roofline(5, 4)))
>>> L_prime(inst)  # max(max(3, 5/4), (6 + 5) / 4)
3
>>> L_prime(inst, inst.scenario([0, 2]))  # max(3, 3 * 5/4, (6 + 15) / 4)
Fraction(21, 4)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.solution import Status
from resilsched.solvers import new_highs, run_highs


# ---------------------------------------------------------------------------------------------
# Eq. 10 and Lemma 1
# ---------------------------------------------------------------------------------------------
def r_alpha_beta(alpha: Any, beta: Any, P: int) -> Any:
    """r(alpha, beta) of Eq. 10: 2 alpha if alpha >= beta, else P/(P-1) alpha + (P-2)/(P-1) beta.

    Vectorised over numpy arrays. For P = 1 (Eq. 10 undefined, spec §7 item 2) the only
    allocation is p = 1 and LIST is optimal per attempt chain: returns max(alpha, beta).
    """
    if P < 1:
        raise InvalidInstance("P", f"{P} must be >= 1")
    if P == 1:
        return np.maximum(alpha, beta)
    return np.where(alpha >= beta, 2 * alpha, P / (P - 1) * alpha + (P - 2) / (P - 1) * beta) \
        if isinstance(alpha, np.ndarray) or isinstance(beta, np.ndarray) else (
            2 * alpha if alpha >= beta else P / (P - 1) * alpha + (P - 2) / (P - 1) * beta)


def lemma1_bound(A: float, t_max: float, p_min: int, P: int) -> float:
    """Lemma 1: T_LIST <= 2A/P if p_min >= P/2, else (A + (P - 2 p_min) t_max) / (P - p_min)."""
    if 2 * p_min >= P:
        return 2 * A / P
    return A / (P - p_min) + (P - 2 * p_min) * t_max / (P - p_min)


# ---------------------------------------------------------------------------------------------
# L (Eq. 8) and L' (§2.2)
# ---------------------------------------------------------------------------------------------
def chain_time_and_area(instance, allocations: Sequence[Sequence[int]]) -> tuple[float, float]:
    """(t_max, A) of Eqs. 6-7 for per-job attempt allocations ``allocations[j] = [p^(1), ...]``."""
    T = instance.T
    tmax, area = 0.0, 0.0
    for j, ps in enumerate(allocations):
        ps = np.asarray(ps, dtype=np.int64)
        t = T[j, ps - 1]
        tmax = max(tmax, float(t.sum()))
        area += float((t * ps).sum())
    return tmax, area


def L(instance, allocations: Sequence[Sequence[int]]) -> float:
    """L(J, f, p) = max(t_max, A/P) (Eq. 8) for explicit per-attempt allocations."""
    tmax, area = chain_time_and_area(instance, allocations)
    return max(tmax, area / instance.P)


def L_fixed(instance, scenario, p: Sequence[int]) -> float:
    """Eq. 8 when job j uses p_j for all its f_j + 1 attempts (LPA, MINTIME, MINAREA)."""
    m = np.asarray(scenario.failures, dtype=float) + 1.0
    p = np.asarray(p, dtype=np.int64)
    t = instance.T[np.arange(instance.n), p - 1]
    return float(max((m * t).max(), (m * t * p).sum() / instance.P))


def extremes(instance) -> tuple[np.ndarray, np.ndarray]:
    """(t_min, a_min) per job, exact minima over p = 1..P (spec §1.1)."""
    T = instance.T
    tmin = T.min(axis=1)
    amin = (T * np.arange(1, instance.P + 1)).min(axis=1)
    return tmin, amin


#: most exact evaluations of t_j(p) `exact_extremes` spends (about 0.5 s of Fraction arithmetic)
EXACT_EVALUATIONS = 10_000
#: float times within this relative distance of a job's float minimum are candidates for its
#: exact minimum (float errors on these positive sums are a few ulps, far below it)
EXTREME_RTOL = 1e-9
_EXACT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def exact_extremes(instance) -> tuple[list[Any], list[Any]] | None:
    """(t_min, a_min) per job in exact arithmetic, or None.

    The exact minima are among the p whose float time (area) is within `EXTREME_RTOL` of the
    float minimum; only those are evaluated exactly. None when some of them is a float (float
    parameters, irrational powers) or when they number more than `EXACT_EVALUATIONS` (e.g.
    roofline jobs on a platform much wider than pbar); computed once per instance.
    """
    if instance in _EXACT:
        return _EXACT[instance]
    out = None
    # float parameters give float times: no exact extremes (checked on p = 1 first, O(n))
    if all(isinstance(instance.time(j, 1), (int, Fraction)) for j in range(instance.n)):
        T = instance.T
        A = T * np.arange(1, instance.P + 1)
        # candidates of every job at once (one pass over the n x P table, not n passes)
        near_t = np.nonzero(T <= T.min(axis=1, keepdims=True) * (1 + EXTREME_RTOL))
        near_a = np.nonzero(A <= A.min(axis=1, keepdims=True) * (1 + EXTREME_RTOL))
        if near_t[0].size + near_a[0].size <= EXACT_EVALUATIONS:
            tmin: list[Any] = [None] * instance.n
            amin: list[Any] = [None] * instance.n
            for j, p in zip(*(x.tolist() for x in near_t), strict=True):
                t = instance.time(j, p + 1)
                tmin[j] = t if tmin[j] is None else min(tmin[j], t)
            for j, p in zip(*(x.tolist() for x in near_a), strict=True):
                a = (p + 1) * instance.time(j, p + 1)
                amin[j] = a if amin[j] is None else min(amin[j], a)
            if all(isinstance(x, (int, Fraction)) for x in tmin + amin):
                out = (tmin, amin)
    _EXACT[instance] = out
    return out


def _exact_number(x: Fraction) -> int | Fraction:
    return int(x) if x.denominator == 1 else x


def L_prime(instance, scenario=None) -> Any:
    """L'(J, f) = max(max_j (f_j+1) t_min,j, sum_j (f_j+1) a_min,j / P) (§2.2).

    ``scenario=None``: the instance's stored scenario (failure-free without one). Exact
    (int/Fraction) when `exact_extremes` has the extremes, else computed on the float table.
    """
    scenario = instance.scenario() if scenario is None else scenario
    ex = exact_extremes(instance)
    if ex is not None:
        m = [f + 1 for f in scenario.failures]
        chain = max(mj * t for mj, t in zip(m, ex[0], strict=True))
        area = Fraction(sum(mj * a for mj, a in zip(m, ex[1], strict=True)), instance.P)
        return _exact_number(Fraction(max(chain, area)))
    tmin, amin = extremes(instance)
    m = np.asarray(scenario.failures, dtype=float) + 1.0
    return float(max((m * tmin).max(), (m * amin).sum() / instance.P))


def L_prime_batch(tmin: np.ndarray, amin: np.ndarray, failures: np.ndarray, P: int) -> float:
    """`L_prime` from precomputed extremes (vectorised experiments)."""
    m = failures + 1.0
    return float(max((m * tmin).max(), (m * amin).sum() / P))


# ---------------------------------------------------------------------------------------------
# L* (§2.3)
# ---------------------------------------------------------------------------------------------
def L_star_g1(instance, jobs: Sequence[int] | None = None) -> tuple[float, np.ndarray]:
    """Exact min_p max(max_j t_j(p_j), sum_j a_j(p_j)/P) with one attempt per job (§3.7).

    Threshold search: S(T) = sum_j min{a_j(p) : t_j(p) <= T} / P is non-increasing in T; over
    the sorted candidate thresholds (all t_j(p) on the Pareto fronts, T >= max_j t_min,j) the
    optimum is max(T, S(T)) at the crossing. Returns (L*, allocation).
    """
    idx = list(range(instance.n)) if jobs is None else list(jobs)
    P = instance.P
    fr_t, fr_a, fr_p = [], [], []
    for j in idx:
        ps = instance.fronts[j]
        t = instance.T[j, ps - 1]
        a = t * ps
        # on the front t decreases with p; area for "t <= T" is a suffix min in p order
        fr_t.append(t)
        fr_a.append(np.minimum.accumulate(a[::-1])[::-1])
        fr_p.append(ps)
    lo_T = max(float(t[-1]) for t in fr_t)
    cands = np.unique(np.concatenate([t[t >= lo_T] for t in fr_t]))

    def S(T: float) -> tuple[float, list[int]]:
        tot, alloc = 0.0, []
        for t, a, ps in zip(fr_t, fr_a, fr_p, strict=True):
            # first index with t <= T (t is decreasing)
            k = int(np.searchsorted(-t, -T, side="left"))
            tot += float(a[k])
            # choose the smallest-area p among indices >= k
            sub = a[k]
            kk = k + int(np.nonzero((t[k:] * ps[k:]) == sub)[0][0])
            alloc.append(int(ps[kk]))
        return tot / P, alloc

    lo, hi = 0, len(cands) - 1
    # smallest index with S(T) <= T
    while lo < hi:
        mid = (lo + hi) // 2
        if S(float(cands[mid]))[0] <= float(cands[mid]):
            hi = mid
        else:
            lo = mid + 1
    best = None
    for k in (lo - 1, lo):
        if 0 <= k < len(cands):
            s, alloc = S(float(cands[k]))
            val = max(float(cands[k]), s)
            if best is None or val < best[0]:
                best = (val, alloc)
    assert best is not None
    return best[0], np.array(best[1], dtype=np.int64)


def L_star_milp(instance, chains: Sequence[int], time_limit: float = 60.0,
                jobs: Sequence[int] | None = None,
                backend: str = "auto") -> tuple[float, float, bool, list[list[int]]]:
    """min_p L(J, f, p) by the integer program of §2.3, solved with HiGHS.

    Variables y_{j,p} >= 0 integer (p on the time-Pareto front), sum_p y_{j,p} = m_j (chain
    length, f_j + 1 or g), L >= sum_p y_{j,p} t_j(p), P L >= sum y_{j,p} a_j(p); minimise L.
    ``backend``: ``"scipy"`` (`scipy.optimize.milp`, which bundles its own HiGHS),
    ``"highspy"``, or ``"auto"`` (= highspy, the declared dependency; the scipy backend is an
    optional independent cross-check used by the tests when scipy is installed).
    Returns (objective, dual bound <= objective, proven optimal, allocation multisets).
    """
    idx = list(range(instance.n)) if jobs is None else list(jobs)
    cols: list[tuple[int, int, float]] = []  # (row r, p, t_j(p))
    for r, j in enumerate(idx):
        for p in instance.fronts[j]:
            cols.append((r, int(p), float(instance.T[j, p - 1])))
    if backend == "auto":
        backend = "highspy"  # the declared dependency; scipy is an optional cross-check
    solve = _milp_highspy if backend == "highspy" else _milp_scipy
    obj, bound, optimal, x = solve(instance.P, [int(c) for c in chains], cols, len(idx),
                                   float(time_limit))
    allocs: list[list[int]] = [[] for _ in idx]
    if x is not None:
        for c, (r, p, _) in enumerate(cols, start=1):
            allocs[r] += [p] * int(round(x[c]))
    return obj, bound, optimal, [sorted(a, reverse=True) for a in allocs]


def _milp_highspy(P, chains, cols, m, time_limit):
    import highspy

    h = new_highs({"mip_rel_gap": 1e-9}, seconds=time_limit)
    inf = highspy.kHighsInf
    nv = 1 + len(cols)
    lower = np.zeros(nv)
    upper = np.array([inf] + [float(chains[r]) for r, _, _ in cols])
    cost = np.zeros(nv)
    cost[0] = 1.0
    h.addVars(nv, lower, upper)
    h.changeColsCost(nv, np.arange(nv, dtype=np.int32), cost)
    h.changeColsIntegrality(len(cols), np.arange(1, nv, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * len(cols)))
    by_row: list[list[int]] = [[] for _ in range(m)]
    for c, (r, _, _) in enumerate(cols, start=1):
        by_row[r].append(c)
    for r in range(m):
        ids = np.array(by_row[r], dtype=np.int32)
        h.addRow(float(chains[r]), float(chains[r]), ids.size, ids, np.ones(ids.size))
        ids2 = np.array([0] + by_row[r], dtype=np.int32)
        vals = np.array([-1.0] + [cols[c - 1][2] for c in by_row[r]])
        h.addRow(-inf, 0.0, ids2.size, ids2, vals)
    ids = np.arange(nv, dtype=np.int32)
    vals = np.array([-float(P)] + [t * p for _, p, t in cols])
    h.addRow(-inf, 0.0, nv, ids, vals)
    run = run_highs(h)
    bound = 0.0 if run.bound is None else run.bound  # makespans are >= 0
    x = np.array(h.getSolution().col_value)
    if x.size != nv or run.objective is None:
        return float("inf"), bound, False, None
    return run.objective, min(run.objective, bound), run.status is Status.OPTIMAL, x


def _milp_scipy(P, chains, cols, m, time_limit):
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import lil_matrix

    nv = 1 + len(cols)
    A = lil_matrix((2 * m + 1, nv))
    lo = np.empty(2 * m + 1)
    hi = np.empty(2 * m + 1)
    for c, (r, p, t) in enumerate(cols, start=1):
        A[r, c] = 1.0
        A[m + r, c] = t
        A[2 * m, c] = t * p
    for r in range(m):
        lo[r] = hi[r] = float(chains[r])
        A[m + r, 0] = -1.0
        lo[m + r], hi[m + r] = -np.inf, 0.0
    A[2 * m, 0] = -float(P)
    lo[2 * m], hi[2 * m] = -np.inf, 0.0
    cost = np.zeros(nv)
    cost[0] = 1.0
    integrality = np.ones(nv)
    integrality[0] = 0
    ub = np.array([np.inf] + [float(chains[r]) for r, _, _ in cols])
    res = milp(cost, constraints=LinearConstraint(A.tocsr(), lo, hi), integrality=integrality,
               bounds=Bounds(np.zeros(nv), ub),
               options={"time_limit": time_limit, "mip_rel_gap": 1e-9, "disp": False})
    optimal = res.status == 0
    dual = float(getattr(res, "mip_dual_bound", 0.0) or 0.0)
    if res.x is None:
        return float("inf"), dual, False, None
    obj = float(res.fun)
    return obj, min(obj, dual), optimal, res.x


#: largest integer program `L_star` builds (columns = sum_j |front_j|); beyond it, L'
MAX_MILP_COLUMNS = 200_000


def L_star(instance, scenario=None, time_limit: float = 10.0) -> Any:
    """A valid lower bound on T_OPT from L*(J, f) (§2.3): L* itself when it is proven.

    Exact threshold search (`L_star_g1`) when f = 0, else the HiGHS integer program, whose dual
    bound is used (it equals L* up to HiGHS's tolerances when solved, and stays a bound when
    the time limit stops it). Never below `L_prime` (L' <= L*, returned as is when the program
    would exceed `MAX_MILP_COLUMNS` columns). ``scenario=None``: the instance's stored scenario.
    """
    scenario = instance.scenario() if scenario is None else scenario
    lprime = L_prime(instance, scenario)
    if not any(scenario.failures):
        value = L_star_g1(instance)[0]
    elif sum(len(front) for front in instance.fronts) > MAX_MILP_COLUMNS:
        return lprime
    else:
        value = L_star_milp(instance, [f + 1 for f in scenario.failures], time_limit)[1]
    return value if value > lprime else lprime


# ---------------------------------------------------------------------------------------------
# Ratio constants (spec §4)
# ---------------------------------------------------------------------------------------------
def theorem_ratio(model: str, P: int, eps: float = 0.3, fmax: int = 0) -> float:
    """Proven worst-case ratio constants (spec §4, §8 "bounds/").

    roofline 2 (Thm 1), communication 3 (Thm 2), amdahl 4 (Thm 3), mix 6 (Thm 4), power
    2 P^(1/4) ([I] Lemma 2 at p = P^delta, Thm 5), monotonic r(floor sqrt P, P / floor sqrt P)
    (Thm 6), batch 2 (1 + eps) ceil(log2(fmax + 2)) (Thm 8).
    """
    table = {"roofline": 2.0, "communication": 3.0, "amdahl": 4.0, "mix": 6.0}
    if model in table:
        return table[model]
    if model == "power":
        return 2.0 * P**0.25
    if model in ("monotonic", "table"):
        s = math.isqrt(P)
        return float(r_alpha_beta(float(s), P / s, P))
    if model == "batch":
        return 2.0 * (1.0 + eps) * math.ceil(math.log2(fmax + 2))
    raise InvalidInstance("model", f"{model!r} has no theorem constant")


def lpa_guarantee(instance, priority: str | None = None) -> float | None:
    """The proven ratio of LPA-LIST and LPA-PROOF on `instance` (any priority), or None.

    Thms 1-4 (2, 3, 4, 6) when every job follows the same one of the roofline, communication,
    Amdahl and mix models (decision M6); None otherwise (the other constants, Thms 5-6, are
    not registered as guarantees).

    >>> from resilsched.instances.moldable import MoldableInstance, Amdahl, Roofline
    >>> lpa_guarantee(MoldableInstance(4, (Amdahl(5, 0.2), Amdahl(3, 0.5))))
    4.0
    >>> lpa_guarantee(MoldableInstance(4, (Amdahl(5, 0.2), Roofline(3, 2)))) is None
    True
    """
    models = {job.model for job in instance.jobs}
    if len(models) != 1:
        return None
    model = models.pop()
    if model not in ("roofline", "communication", "amdahl", "mix"):
        return None
    return theorem_ratio(model, instance.P)


def certified_ratio(instance, scenario, allocations: Sequence[Sequence[int]]) -> float:
    """r(alpha_g, beta_g) with alpha_g = A/A', beta_g = t_max/t'_max (Lemma 2 with L', §3.1).

    LIST with these allocations satisfies T <= r(alpha_g, beta_g) L'(J, f).
    """
    tmin, amin = extremes(instance)
    m = np.asarray(scenario.failures, dtype=float) + 1.0
    tmax, area = chain_time_and_area(instance, allocations)
    alpha = area / float((m * amin).sum())
    beta = tmax / float((m * tmin).max())
    return float(r_alpha_beta(alpha, beta, instance.P))


def batch_count_distribution(q: Sequence[float], bmax: int) -> np.ndarray:
    """Lemma 6: Q_b = R_b - R_(b-1), R_b = prod_j (1 - q_j^(2^b - 1)), for b = 1..bmax."""
    q = np.asarray(q, dtype=float)
    R = [float(np.prod(1.0 - q ** (2**b - 1))) if b > 0 else 0.0 for b in range(bmax + 1)]
    return np.array([R[b] - R[b - 1] for b in range(1, bmax + 1)])
