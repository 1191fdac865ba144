"""Set-partitioning models over packs priced by Algorithm 1 (spec 001 §2.3, stronger exact model).

Every pack B (|B| <= k, sum pmin_i <= p) is a column with cost c_B = Algorithm 1's optimal pack
cost (`pack_costs_vectorized`). A co-schedule is a partition of the tasks into packs::

    min sum_B c_B z_B   s.t.  sum_{B ni i} z_B = 1  for every task i,   z_B in {0, 1}

Its LP relaxation is much tighter than the LP of (1.12). Two models, both with highspy directly
(HiGHS, ``mip_rel_gap = 0``, one thread):

``setpart-full``
    the integer program over all packs at once.

``setpart-cg``
    column generation + reduced-cost column closure ("price and branch"):

    1. restricted master LP over singletons and the PACK-APPROX packs; duals pi_i;
    2. pricing: reduced costs rc_B = c_B - sum_{i in B} pi_i of every pack, computed in one numpy
       pass over the pool of packs (all k-subsets, costs from Algorithm 1); the most negative
       columns enter; stop when min rc >= -tol. The Lagrangian bound
       LB = sum pi + n min(0, min rc) is valid at every iteration;
    3. an upper bound UB: PACK-APPROX, then a short HiGHS MIP over the generated columns
       (<= 10 s), then a local search that re-partitions the union of two packs optimally
       (`improve_by_pairs`);
    4. closure: any partition x with cost(x) = sum pi + sum_{B in x} rc_B < UB uses only packs
       with rc_B < UB - sum pi - (n-1) min(0, min rc). The integer program over those packs (and
       the generated ones), seeded with the UB solution, is therefore exact; for integral times
       the target is UB - 1.
    Optimality is proved by the closed integer program (or by UB = ceil(LB) for integral times).

A time limit yields ``feasible`` with the best bound known (LB, or min(UB, closure MIP bound)).
The pool is explicit, so memory grows like C(n, k): up to ``MAX_POOL`` columns.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
import time
from dataclasses import dataclass

import highspy
import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.common import make_payload
from resilsched.models.coschedule.onepack import pack_costs_vectorized
from resilsched.solution import Solution, Status

MAX_POOL = 12_000_000
CHUNK = 400_000
#: seconds (at most) of the upper-bound phase of ``setpart-cg``: MIP over generated columns,
#: then the pair local search; the MIP also gets at most 15 % of the time left.
UB_MIP_BUDGET = 10.0
LNS_BUDGET = 5.0


@dataclass
class PackPool:
    """All feasible packs grouped by size: ``packs[s]`` is (m_s, s) int32, ``costs[s]`` (m_s,)."""

    n: int
    packs: dict[int, np.ndarray]
    costs: dict[int, np.ndarray]

    @property
    def size(self) -> int:
        return sum(len(c) for c in self.costs.values())

    def reduced_costs(self, pi: np.ndarray) -> dict[int, np.ndarray]:
        return {s: self.costs[s] - pi[self.packs[s]].sum(axis=1) for s in self.packs}


def pool_size(n: int, k: int) -> int:
    return sum(math.comb(n, s) for s in range(1, k + 1))


def build_pool(inst: CoscheduleInstance, max_pool: int = MAX_POOL) -> PackPool:
    """Every pack of size 1..k with sum pmin <= p, costed by vectorised Algorithm 1."""
    n, k = inst.n, inst.k
    if pool_size(n, k) > max_pool:
        raise InvalidInstance("tasks", f"n={n}, k={k} gives {pool_size(n, k)} packs "
                              f"> {max_pool} (too many columns for the explicit pool)")
    mat = inst.matrix()
    pmin = np.asarray(inst.pmin, dtype=np.int64)
    packs, costs = {}, {}
    for s in range(1, k + 1):
        cnt = math.comb(n, s)
        arr = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), s)),
                          dtype=np.int32, count=cnt * s).reshape(cnt, s)
        arr = arr[pmin[arr].sum(axis=1) <= inst.p]
        cs = np.empty(len(arr))
        for a in range(0, len(arr), CHUNK):
            cs[a:a + CHUNK] = pack_costs_vectorized(mat, pmin, inst.p, arr[a:a + CHUNK])[0]
        packs[s], costs[s] = arr, cs
    return PackPool(n, packs, costs)


@contextlib.contextmanager
def quiet_stdout():
    """Silence C-level writes to file descriptor 1 (HiGHS 1.12 prints debug lines from its MIP
    solution transformer even with ``output_flag`` off, which would corrupt ``--json`` output)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def partition_master(n: int) -> highspy.Highs:
    """A silent single-thread HiGHS model with n rows fixed to 1: each task in exactly one pack."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    ones = np.ones(n)
    h.addRows(n, ones, ones, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    return h


def add_pack_columns(h: highspy.Highs, packs: list[tuple[int, ...]], costs: list[float],
                     index: set[tuple[int, ...]]) -> list[tuple[tuple[int, ...], float]]:
    """Add the packs not yet in `index` as columns (cost c, x >= 0, a 1 in each member's row).

    Records them in `index` and returns the new (pack, cost) pairs in column order.
    """
    new = [(b, c) for b, c in zip(packs, costs, strict=True) if b not in index]
    if not new:
        return new
    starts, idx = [], []
    for b, _ in new:
        starts.append(len(idx))
        idx.extend(b)
    m = len(new)
    h.addCols(m, np.array([c for _, c in new]), np.zeros(m), np.full(m, highspy.kHighsInf),
              len(idx), np.array(starts, np.int32), np.array(idx, np.int32), np.ones(len(idx)))
    index.update(b for b, _ in new)
    return new


class _Master:
    """Set-partitioning master in highspy: rows = tasks (= 1), columns = packs."""

    def __init__(self, n: int):
        self.n = n
        self.h = partition_master(n)
        self.h.setOptionValue("mip_rel_gap", 0.0)
        self.h.setOptionValue("mip_abs_gap", 1e-6)
        self.cols: list[tuple[int, ...]] = []
        self.index: set[tuple[int, ...]] = set()
        self.costs: list[float] = []

    def add(self, packs: list[tuple[int, ...]], costs: list[float]) -> int:
        new = add_pack_columns(self.h, packs, costs, self.index)
        for b, c in new:
            self.cols.append(b)
            self.costs.append(c)
        return len(new)

    def solve_lp(self) -> np.ndarray:
        ncol = len(self.cols)
        self.h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                                     np.array([highspy.HighsVarType.kContinuous] * ncol))
        self.h.run()
        return np.array(self.h.getSolution().row_dual)


    def solve_mip(self, time_limit: float | None, incumbent: list[tuple[int, ...]] | None = None
                  ) -> tuple[list[tuple[int, ...]] | None, float, bool]:
        """(chosen packs or None, dual bound, proven optimal); `incumbent` seeds HiGHS."""
        ncol = len(self.cols)
        self.h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                                     np.array([highspy.HighsVarType.kInteger] * ncol))
        self.h.changeColsBounds(ncol, np.arange(ncol, dtype=np.int32), np.zeros(ncol),
                                np.ones(ncol))
        self.h.setOptionValue("time_limit", float(max(1e-3, time_limit))
                              if time_limit is not None else highspy.kHighsInf)
        if incumbent is not None and all(b in self.index for b in incumbent):
            chosen = set(incumbent)
            sol = highspy.HighsSolution()
            sol.col_value = [1.0 if b in chosen else 0.0 for b in self.cols]
            sol.value_valid = True
            self.h.setSolution(sol)
        with quiet_stdout():
            self.h.run()
        status = self.h.getModelStatus()
        info = self.h.getInfo()
        optimal = status == highspy.HighsModelStatus.kOptimal
        bound = info.mip_dual_bound if np.isfinite(info.mip_dual_bound) else -math.inf
        if info.primal_solution_status == 0:  # no feasible point
            return None, bound, False
        x = self.h.getSolution().col_value
        chosen = [self.cols[c] for c in range(ncol) if x[c] > 0.5]
        return chosen, bound, optimal


def _deadline_left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.perf_counter()


def _finish(inst: CoscheduleInstance, method: str, packs, bound, optimal: bool, t0: float,
            extra: dict) -> Solution:
    wall = time.perf_counter() - t0
    if packs is None:
        return Solution(None, bound, Status.NO_SOLUTION, method, "highs", wall, payload=extra)
    payload = make_payload(inst, packs)
    obj = sum((d["time"] for d in payload["packs"]), 0)
    payload.update(extra)
    if optimal:
        bound = obj
    elif bound is not None and inst.integral and math.isfinite(bound):
        bound = max(bound, math.ceil(bound - 1e-6))
    return Solution(obj, bound, Status.OPTIMAL if optimal else Status.FEASIBLE, method, "highs",
                    wall, payload=payload)


def solve_setpart_full(inst: CoscheduleInstance, scenario=None,
                       time_limit: float | None = None) -> Solution:
    """Integer set partitioning over every pack (explicit pool, one HiGHS MIP)."""
    t0 = time.perf_counter()
    pool = build_pool(inst)
    master = _Master(inst.n)
    for s in pool.packs:
        master.add([tuple(int(x) for x in row) for row in pool.packs[s]], list(pool.costs[s]))
    left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
    packs, bound, optimal = master.solve_mip(left)
    return _finish(inst, "setpart-full", packs, bound, optimal, t0, {"columns": pool.size})


def _heuristic_packs(inst: CoscheduleInstance) -> tuple[list[tuple[int, ...]], float]:
    from resilsched.heuristics.coschedule import pack_approx

    res = pack_approx(inst)
    packs = [tuple(sorted(b)) for b in res.packs]
    cost = sum(float(make_payload(inst, [b])["packs"][0]["time"]) for b in packs)
    return packs, cost


def column_generation(inst: CoscheduleInstance, pool: PackPool, master: _Master,
                      deadline: float | None, batch: int | None = None,
                      tol: float = 1e-9) -> tuple[np.ndarray, float, float, bool]:
    """Run pricing rounds until no pack has negative reduced cost (or time runs out).

    Returns (pi, sum pi, min reduced cost, converged).
    """
    n = inst.n
    batch = batch or max(2 * n, 50)
    scale = max(1.0, float(np.max(pool.costs[1])))
    while True:
        pi = master.solve_lp()
        rcs = pool.reduced_costs(pi)
        flat = np.concatenate([rcs[s] for s in sorted(rcs)])
        min_rc = float(flat.min())
        if min_rc >= -tol * scale:
            return pi, float(pi.sum()), min_rc, True
        left = _deadline_left(deadline)
        if left is not None and left <= 0:
            return pi, float(pi.sum()), min_rc, False
        m = min(batch, int((flat < -tol * scale).sum()))
        pick = np.argpartition(flat, m - 1)[:m]
        offsets = np.cumsum([0] + [len(rcs[s]) for s in sorted(rcs)])
        sizes = sorted(rcs)
        new_packs, new_costs = [], []
        for g in pick:
            a = int(np.searchsorted(offsets, g, side="right")) - 1
            s, r = sizes[a], int(g - offsets[a])
            new_packs.append(tuple(int(x) for x in pool.packs[s][r]))
            new_costs.append(float(pool.costs[s][r]))
        if master.add(new_packs, new_costs) == 0:
            return pi, float(pi.sum()), min_rc, True


def improve_by_pairs(inst: CoscheduleInstance, packs: list[tuple[int, ...]],
                     deadline: float | None, budget: float = 5.0) -> list[tuple[int, ...]]:
    """Local search: re-partition the union of two packs optimally (subset DP over <= 2k tasks)
    while some pair of packs improves, within `budget` seconds. Never worsens the solution."""
    mat = inst.matrix()
    pmin = np.asarray(inst.pmin)
    cache: dict[tuple[int, ...], float] = {}

    def cost(b: tuple[int, ...]) -> float:
        c = cache.get(b)
        if c is None:
            c = float(pack_costs_vectorized(mat, pmin, inst.p, np.array([b]))[0][0])
            cache[b] = c
        return c

    def best_split(tasks: list[int]) -> tuple[float, list[tuple[int, ...]]]:
        m = len(tasks)
        f = {0: (0.0, [])}
        for mask in range(1, 1 << m):
            low = (mask & -mask).bit_length() - 1
            rest = [q for q in range(m) if (mask >> q) & 1 and q != low]
            best = (math.inf, [])
            for r in range(min(inst.k, len(rest) + 1)):
                for combo in itertools.combinations(rest, r):
                    bm = 1 << low
                    for q in combo:
                        bm |= 1 << q
                    blk = tuple(sorted(tasks[q] for q in (low, *combo)))
                    v = cost(blk) + f[mask ^ bm][0]
                    if v < best[0]:
                        best = (v, [blk] + f[mask ^ bm][1])
            f[mask] = best
        return f[(1 << m) - 1]

    stop = time.perf_counter() + budget
    if deadline is not None:
        stop = min(stop, deadline)
    packs = [tuple(sorted(b)) for b in packs]
    improved = True
    while improved and time.perf_counter() < stop:
        improved = False
        for x, y in itertools.combinations(range(len(packs)), 2):
            if time.perf_counter() > stop:
                break
            if x >= len(packs) or y >= len(packs):
                continue
            old = cost(packs[x]) + cost(packs[y])
            val, blocks = best_split(list(packs[x] + packs[y]))
            if val < old - 1e-9 * max(1.0, old):
                packs = [b for q, b in enumerate(packs) if q not in (x, y)] + blocks
                improved = True
    return packs


def solve_setpart_cg(inst: CoscheduleInstance, scenario=None,
                     time_limit: float | None = None) -> Solution:
    """Column generation + reduced-cost closure (module docstring); exact when it says optimal."""
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    n = inst.n
    pool = build_pool(inst)
    master = _Master(n)
    master.add([(i,) for i in range(n)], [float(inst.t(i, inst.p)) for i in range(n)])
    h_packs, ub = _heuristic_packs(inst)
    master.add(h_packs, [float(pool_cost(inst, b)) for b in h_packs])
    best_packs: list[tuple[int, ...]] = h_packs
    pi, sum_pi, min_rc, converged = column_generation(inst, pool, master, deadline)
    lb = sum_pi + n * min(0.0, min_rc)
    extra = {"columns_generated": len(master.cols), "pool": pool.size, "lp_bound": lb}
    integral = inst.integral

    def proven(ub_value: float) -> bool:
        if integral:
            return ub_value <= math.ceil(lb - 1e-6) + 1e-9
        return ub_value - lb <= 1e-9 * max(1.0, abs(ub_value))

    # UB: a short MIP over the generated columns, then pairwise re-partitioning
    left = _deadline_left(deadline)
    if not proven(ub) and (left is None or left > 0):
        budget = UB_MIP_BUDGET if left is None else max(1e-3, min(UB_MIP_BUDGET, 0.15 * left))
        packs, _, _ = master.solve_mip(budget, incumbent=best_packs)
        if packs is not None and _cost_of(inst, packs) < ub:
            ub, best_packs = _cost_of(inst, packs), packs
        packs = improve_by_pairs(inst, best_packs, deadline, budget=LNS_BUDGET)
        if _cost_of(inst, packs) < ub:
            ub, best_packs = _cost_of(inst, packs), packs
            master.add(packs, [pool_cost(inst, b) for b in packs])
    extra["heuristic_ub"] = ub
    if proven(ub):
        return _finish(inst, "setpart-cg", best_packs, lb, True, t0, extra)
    if not converged:
        return _finish(inst, "setpart-cg", best_packs, lb, False, t0, extra)
    # closure: every pack that can appear in a partition cheaper than UB (or UB - 1)
    target = ub - 1 if integral else ub
    thr = target - sum_pi - (n - 1) * min(0.0, min_rc) + 1e-7 * max(1.0, abs(ub))
    rcs = pool.reduced_costs(pi)
    add_p, add_c = [], []
    for s in rcs:
        for r in np.nonzero(rcs[s] <= thr)[0]:
            add_p.append(tuple(int(x) for x in pool.packs[s][r]))
            add_c.append(float(pool.costs[s][r]))
    master.add(add_p, add_c)
    extra["closure_columns"] = len(add_p)
    left = _deadline_left(deadline)
    packs, mbound, optimal = master.solve_mip(left, incumbent=best_packs)
    if packs is not None:
        val = _cost_of(inst, packs)
        if val < ub:
            ub, best_packs = val, packs
    if optimal:
        return _finish(inst, "setpart-cg", best_packs, None, True, t0, extra)
    bound = max(lb, min(ub, mbound))
    return _finish(inst, "setpart-cg", best_packs, bound, False, t0, extra)


def pool_cost(inst: CoscheduleInstance, pack: tuple[int, ...]) -> float:
    """Float Algorithm-1 cost of one pack (same numbers as the pool)."""
    mat = inst.matrix()
    return float(pack_costs_vectorized(mat, np.asarray(inst.pmin), inst.p,
                                       np.array([pack], dtype=np.int64))[0][0])


def _cost_of(inst: CoscheduleInstance, packs) -> float:
    return float(sum(d["time"] for d in make_payload(inst, packs)["packs"]))


def setpart_lp_bound(inst: CoscheduleInstance, scenario=None) -> float:
    """Lower bound: the set-partitioning LP value by column generation (ceil for integral times).

    sum pi + n min(0, min rc) is a valid Lagrangian bound at every iteration; at convergence it
    is the LP optimum.
    """
    pool = build_pool(inst)
    master = _Master(inst.n)
    master.add([(i,) for i in range(inst.n)], [float(inst.t(i, inst.p)) for i in range(inst.n)])
    _, sum_pi, min_rc, _ = column_generation(inst, pool, master, None)
    lb = sum_pi + inst.n * min(0.0, min_rc)
    lb -= 1e-9 * max(1.0, abs(lb))
    return math.ceil(lb) if inst.integral else lb
