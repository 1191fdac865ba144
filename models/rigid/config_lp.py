"""The configuration LP of a rigid scenario and its exact integer certificates [OURS] (decision R5).

A *configuration* is a set K of jobs that fit together, sum_{j in K} p_j <= P. With
w_j = m_j t_j the time job j runs, the LP

    min sum_K y_K  s.t.  sum_{K ni j} y_K >= w_j,  y >= 0

is a lower bound on the makespan: cut any schedule at its events; between two events the running
attempts form a configuration (capacity, Eq. 2 of spec 002 §1.3) holding each job at most once
(its attempts are chained, Eq. 3), and job j runs w_j in total. It dominates L(f) and the clique
chains (a configuration holds at most one job of a conflict clique).

Solved by column generation (HiGHS LP through `resilsched.solvers`, knapsack pricing). The
bound does not trust floating point: for ANY pi >= 0, pi / z(pi) with z(pi) = max_K
sum_{j in K} pi_j is dual feasible, so C >= sum_j w_j pi_j / z(pi); it is evaluated with pi
rounded down to integers (x 2^20) and an exact integer knapsack (`ConfigurationLP.certificate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from resilsched.deadline import Deadline
from resilsched.models.rigid.scaling import ScaledScenario
from resilsched.solvers import new_highs, run_highs, set_time_limit

#: Column-generation rounds at most (each: one LP re-solve and one knapsack).
MAX_ROUNDS = 500
#: Largest knapsack n (P + 1) attempted: its choice table takes that many bytes, and about a
#: second on a loaded machine (docs/performance.md).
MAX_KNAPSACK_CELLS = 50_000_000


def knapsack_seconds(n: int, P: int) -> float:
    """A generous estimate of one `knapsack_max` on n items and capacity P: 20 us per item
    (the Python loop) plus 5e7 cells per second (numpy), both measured on a loaded 2-core
    machine (400,000 cells/s at P = 4, 8e7-2e8 for P >= 1e5)."""
    return 2e-5 * n + n * (P + 1) / 5e7


def affordable(n: int, P: int, deadline: Deadline | None, knapsacks: int = 1) -> bool:
    """Whether `knapsacks` knapsacks on n items and capacity P fit in memory and before
    `deadline` (always, without a deadline, below `MAX_KNAPSACK_CELLS`)."""
    if n * (P + 1) > MAX_KNAPSACK_CELLS:
        return False
    return deadline is None or deadline.remaining() > knapsacks * knapsack_seconds(n, P)


def knapsack_max(weights: Sequence[int], values: Sequence[Any], capacity: int
                 ) -> tuple[Any, list[int]]:
    """max sum_{j in K} values_j s.t. sum_{j in K} weights_j <= capacity, and K.

    0/1 dynamic programme over the capacity, O(n capacity) with numpy. Exact (int64) for
    integer values (the caller keeps them below 2^62 / n), float otherwise.

    >>> knapsack_max([2, 3, 4], [3, 4, 6], 5)
    (7, [0, 1])
    """
    is_int = all(isinstance(v, (int, np.integer)) for v in values)
    best = np.zeros(capacity + 1, dtype=np.int64 if is_int else float)
    # one row per item over the capacities c >= w it can take: row[c - w] = taken at c
    takes: list[np.ndarray | None] = []
    for w, v in zip(weights, values, strict=True):
        w = int(w)
        if v <= 0 or w > capacity:
            takes.append(None)
            continue
        cand = best[: capacity + 1 - w] + v
        takes.append(cand > best[w:])
        np.maximum(best[w:], cand, out=best[w:])
    chosen, c = [], capacity
    for j in range(len(takes) - 1, -1, -1):
        row = takes[j]
        if row is not None and c >= int(weights[j]) and row[c - int(weights[j])]:
            chosen.append(j)
            c -= int(weights[j])
    value = best[capacity]
    return (int(value) if is_int else float(value)), sorted(chosen)


def knapsack_table(weights: Sequence[int], values: Sequence[int], capacity: int) -> np.ndarray:
    """best[c] = max sum_{j in K} values_j s.t. sum_{j in K} weights_j <= c, for c = 0..capacity
    (int64; the same dynamic programme as `knapsack_max`, every capacity at once).

    >>> knapsack_table([2, 3, 4], [3, 4, 6], 5).tolist()
    [0, 0, 3, 4, 6, 7]
    """
    best = np.zeros(capacity + 1, dtype=np.int64)
    for w, v in zip(weights, values, strict=True):
        w = int(w)
        if v > 0 and w <= capacity:
            best[w:] = np.maximum(best[w:], best[: capacity + 1 - w] + int(v))
    return best


class ConfigurationLP:
    """The configuration LP for a fixed (p, P), re-solvable for any work vector w.

    ``duals(w)`` solves the LP of the module docstring by column generation and returns its
    duals pi >= 0. The columns and the HiGHS basis are kept between calls, so re-solving for a
    nearby w (the remaining work of a search node, `resilsched.models.rigid.refute`) is cheap.
    ``certificate(pi)`` turns any pi into an exact integer cut.
    """

    def __init__(self, p: Sequence[int], P: int, max_rounds: int = MAX_ROUNDS) -> None:
        import highspy
        self.p, self.P, self.max_rounds = list(p), P, max_rounds
        n = len(self.p)
        h = new_highs()
        h.addRows(n, np.zeros(n), np.full(n, highspy.kHighsInf), 0,
                  np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self.highs = h
        self.cells = 0  # knapsack cells computed so far: the work done, clock-free
        self.seen: set[tuple[int, ...]] = set()
        for j in range(n):
            self._add([j])

    def _add(self, config: list[int]) -> None:
        import highspy
        self.seen.add(tuple(config))
        self.highs.addCol(1.0, 0.0, highspy.kHighsInf, len(config),
                          np.array(config, np.int32), np.ones(len(config)))

    def duals(self, w: Sequence[float], deadline: Deadline | None = None) -> np.ndarray:
        """Duals pi (floats, >= 0) of the LP with work vector `w`: optimal unless `deadline`
        expired first (any pi >= 0 still gives a valid certificate)."""
        import highspy
        h = self.highs
        for j, wj in enumerate(w):
            h.changeRowBounds(j, float(wj), highspy.kHighsInf)
        pi = np.zeros(len(self.p))
        for _ in range(self.max_rounds):
            if deadline is not None:
                set_time_limit(h, deadline.remaining())
            run_highs(h)
            pi = np.maximum(0.0, np.array(h.getSolution().row_dual))
            if len(pi) != len(self.p):  # stopped before any solution: pi = 0 is valid
                return np.zeros(len(self.p))
            # a knapsack for the pricing, one for the certificate that follows
            if not affordable(len(self.p), self.P, deadline, 2):
                break
            z, config = knapsack_max(self.p, list(pi), self.P)
            self.cells += len(self.p) * (self.P + 1)
            if z <= 1 + 1e-9 or tuple(config) in self.seen:
                break
            self._add(config)
        return pi

    def certificate(self, pi: Sequence[float]) -> tuple[list[int], int]:
        """(pi_int, z): pi rounded down to integers (x 2^20) and z = max_K sum_{j in K} pi_int_j
        (exact knapsack). sum_j pi_int_j x_j <= z holds at every instant of every schedule,
        x_j = 1 while job j runs; so remaining work d needs time >= sum pi_int d / z."""
        ints = [int(np.floor(x * 2**20)) for x in pi]
        z, _ = knapsack_max(self.p, ints, self.P)
        self.cells += len(self.p) * (self.P + 1)
        return ints, int(z)


def configuration_lp_bound(data: ScaledScenario, max_rounds: int = MAX_ROUNDS,
                           deadline: Deadline | None = None) -> int:
    """ceil(sum_j w_j pi_j / z(pi)) for the configuration-LP duals pi (module docstring).

    Valid whatever pi the column generation reached before `deadline`. 0 (a trivial bound)
    when not even the certificate's knapsack is `affordable`.
    """
    if data.n == 0 or not affordable(data.n, data.P, deadline, 2):
        return 0
    w = data.work()
    lp = ConfigurationLP(data.p, data.P, max_rounds)
    ints, z_int = lp.certificate(lp.duals(w, deadline))
    if z_int <= 0:
        return 0
    num = sum(wj * pj for wj, pj in zip(w, ints, strict=True))
    return -(-num // z_int)
