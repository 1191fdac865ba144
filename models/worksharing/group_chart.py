"""The minimum-K group chart, exact (spec 003 §2.8, §4.1; issue 15, decision W-C1).

A group chart C_hat (g x m, m = n/g) holds the steps 1..n, each once; its constant is
K = sum_j prod_r C_hat[r][j]. Permuting the entries of a column changes neither K nor the
schedule's value (the chunks of a group are interchangeable), so a chart is a partition of
{1..n} into m blocks of g steps, and the minimum-K chart solves the set-partitioning problem

    min sum_B prod(B) z_B   s.t.  sum_{B ni s} z_B = 1  for every step s,   z_B in {0, 1}

over the C(n, g) blocks B of g steps (20,475 columns at g = 4, n = 28). Method:

1. upper bound UB: the best of the six heuristic charts of §3.3 (exact integer K);
2. the LP relaxation (HiGHS's interior point method, all blocks at once) gives duals pi;
   every block has reduced cost rc_B = prod(B) - pi(B) >= min_rc (~0), and a chart x costs
   sum pi + sum_{B in x} rc_B;
3. K is an integer, so a better chart costs <= UB - 1 and uses only blocks with
   rc_B <= UB - 1 - sum pi - (m - 1) min_rc (the reduced-cost closure); the cheapest cover
   of {1..n} by those blocks (`cheapest_cover` of `models.coschedule.setpart.branchprice.
   exact_cover`, an exact depth-first search) is the optimum, and when there is none the
   heuristic chart is optimal.

Exact: K is recomputed with Python integers, and float tolerances (HiGHS's duals) are absorbed
by the integrality margin of 1. Sizes: g <= 4 and n <= 30 (the issue's range), larger inputs
are refused with `InvalidInstance`; the AM-GM bound K_min = m (n!)^(g/n) of §2.8 is a lower
bound, never above the optimum (tests).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance
from resilsched.heuristics.worksharing.charts import (
    chart_cyclic,
    chart_fat_snake,
    chart_greedy,
    chart_mirror,
    chart_reverse,
    chart_snake,
    k_constant,
)
from resilsched.models.coschedule.setpart.branchprice.exact_cover import cheapest_cover
from resilsched.numeric import strict_int
from resilsched.solution import Status
from resilsched.solvers import new_highs, run_highs

#: largest group size and chunk count solved exactly
MAX_G = 4
MAX_N = 30

HEURISTIC_CHARTS = (chart_cyclic, chart_reverse, chart_mirror, chart_snake, chart_fat_snake,
                    chart_greedy)


def _check(g: int, m: int) -> None:
    for name, value in (("g", g), ("m", m)):
        strict_int(value, name, 1)
    if g > MAX_G or g * m > MAX_N:
        raise InvalidInstance("g", f"g={g}, n={g * m}: the exact chart needs g <= {MAX_G} "
                              f"and n = g m <= {MAX_N}")


def _lp_duals(n: int, blocks: list[tuple[int, ...]], costs: np.ndarray) -> np.ndarray:
    """Duals of the set-partitioning LP over every block (steps 0-based)."""
    import highspy
    h = new_highs({"solver": "ipm"})  # dual simplex: 24 s at g = 4, n = 28 (degenerate); IPM 1 s
    ones = np.ones(n)
    h.addRows(n, ones, ones, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    g = len(blocks[0])
    m = len(blocks)
    starts = np.arange(0, m * g, g, dtype=np.int32)
    index = np.array(blocks, dtype=np.int32).ravel()
    h.addCols(m, costs, np.zeros(m), np.full(m, highspy.kHighsInf), len(index), starts, index,
              np.ones(len(index)))
    if run_highs(h).status is not Status.OPTIMAL:
        return np.zeros(n)
    return np.array(h.getSolution().row_dual)


def optimal_group_chart(g: int, m: int, time_limit: float | None = None
                        ) -> tuple[int, np.ndarray, bool]:
    """(K, chart, proven): the minimum-K g x m group chart (module docstring).

    `proven` is False only when `time_limit` (seconds) stopped the search; the chart is then
    the best found (at worst the best heuristic chart).
    """
    _check(g, m)
    deadline = Deadline(time_limit)
    n = g * m
    best_k, best = min(((k_constant(c), c) for c in (f(g, m) for f in HEURISTIC_CHARTS)),
                       key=lambda kc: kc[0])
    if g == 1 or m == 1:
        return best_k, best, True  # a single row or a single column: every chart is equal
    blocks = list(itertools.combinations(range(n), g))
    costs = np.array([math.prod(s + 1 for s in b) for b in blocks], dtype=float)
    pi = _lp_duals(n, blocks, costs)
    rcs = costs - pi[np.array(blocks)].sum(axis=1)
    neg = -min(0.0, float(rcs.min()))
    total = best_k - 1 - float(pi.sum())  # a better chart has sum rc <= total
    margin = 1e-6 * max(1.0, float(best_k))
    keep = np.nonzero(rcs <= total + (m - 1) * neg + margin)[0]
    listed = [blocks[c] for c in keep]
    chosen, done = cheapest_cover(n, listed, rcs[keep].tolist(), total + m * neg + margin,
                                  deadline)
    if chosen is not None:
        cols = [sorted(s + 1 for s in listed[c]) for c in chosen]
        chart = np.array(cols, dtype=np.int64).T
        k = k_constant(chart)
        if k < best_k:
            best_k, best = k, chart
    return best_k, best, done


__all__ = ["MAX_G", "MAX_N", "optimal_group_chart"]
