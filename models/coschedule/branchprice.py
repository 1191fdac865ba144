"""Branch-and-price over packs priced by Algorithm 1 (spec 001 §2.3, model ``setpart-bp``).

The set-partitioning model of `resilsched.models.coschedule.setpart` solved by branch-and-price:

- master LP: rows sum_{B ni i} z_B = 1, columns = packs generated so far, plus one artificial
  column per row of cost M > any co-schedule (so every node LP is feasible; a node whose
  converged LP still uses an artificial column is infeasible);
- pricing: reduced costs c_B - sum_{i in B} pi_i over the explicit pool of all packs
  (`build_pool`, costs by vectorised Algorithm 1), restricted to the packs the node allows; the
  Lagrangian bound sum pi + n min(0, min rc) is valid at every pricing round;
- branching (Ryan-Foster): for the pair (i, j) whose LP co-occurrence sum_{B ni i,j} z_B is
  closest to 1/2, one child forces i and j into the same pack (packs holding exactly one of
  them are forbidden), the other separates them (packs holding both are forbidden);
- search: best bound first; a node is pruned when its bound reaches UB (UB - 1 + eps when all
  times are integers, since the optimum is then an integer); UB from PACK-APPROX, from integral
  node LPs and from a short MIP over the root columns.

Exact: the root bound plus the branching partition the feasible co-schedules; the search ends
with status ``optimal`` only when every node was pruned or closed. A time limit gives
``feasible`` with the smallest open-node bound.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time

import highspy
import numpy as np

from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.setpart import (
    PackPool,
    _cost_of,
    _finish,
    _heuristic_packs,
    add_pack_columns,
    build_pool,
    partition_master,
    quiet_stdout,
)

TOL = 1e-9


class _BPMaster:
    """Master LP with artificial columns; columns addressed by their members (padded -1)."""

    def __init__(self, n: int, k: int, big_m: float):
        self.n, self.k = n, k
        self.h = partition_master(n)
        self.h.addCols(n, np.full(n, big_m), np.zeros(n), np.full(n, highspy.kHighsInf), n,
                       np.arange(n, dtype=np.int32), np.arange(n, dtype=np.int32), np.ones(n))
        self.members = np.full((0, k), -1, dtype=np.int32)
        self.costs = np.zeros(0)
        self.index: set[tuple[int, ...]] = set()

    def add(self, packs: list[tuple[int, ...]], costs: list[float]) -> int:
        new = add_pack_columns(self.h, packs, costs, self.index)
        if not new:
            return 0
        rows = np.full((len(new), self.k), -1, dtype=np.int32)
        for r, (b, _) in enumerate(new):
            rows[r, :len(b)] = b
        self.members = np.vstack([self.members, rows])
        self.costs = np.concatenate([self.costs, [c for _, c in new]])
        return len(new)

    def set_allowed(self, allowed: np.ndarray) -> None:
        m = len(allowed)
        if m == 0:
            return
        ub = np.where(allowed, highspy.kHighsInf, 0.0)
        self.h.changeColsBounds(m, np.arange(self.n, self.n + m, dtype=np.int32),
                                np.zeros(m), ub)

    def solve(self) -> tuple[np.ndarray, np.ndarray, float]:
        self.h.run()
        sol = self.h.getSolution()
        x = np.array(sol.col_value)
        return np.array(sol.row_dual), x, self.h.getInfo().objective_function_value


def _allowed(members: np.ndarray, branches: list[tuple[int, int, bool]]) -> np.ndarray:
    ok = np.ones(len(members), dtype=bool)
    for i, j, together in branches:
        hi = (members == i).any(axis=1)
        hj = (members == j).any(axis=1)
        ok &= (hi == hj) if together else ~(hi & hj)
    return ok


def solve_setpart_bp(inst: CoscheduleInstance, scenario=None,
                     time_limit: float | None = None, pool: PackPool | None = None):
    """Branch-and-price (module docstring). Returns a `Solution` (``payload["packs"]``)."""
    t0 = time.perf_counter()
    deadline = math.inf if time_limit is None else t0 + time_limit
    n, k = inst.n, inst.k
    pool = build_pool(inst) if pool is None else pool
    sizes = sorted(pool.packs)
    padded = {s: np.hstack([pool.packs[s], np.full((len(pool.packs[s]), k - s), -1, np.int32)])
              for s in sizes}
    big_m = float(sum(inst.t(i, inst.pmin[i]) for i in range(n))) + 1.0
    master = _BPMaster(n, k, big_m)
    master.add([(i,) for i in range(n)], [float(inst.t(i, inst.p)) for i in range(n)])
    best_packs, ub = _heuristic_packs(inst)
    master.add(best_packs, [_cost_of(inst, [b]) for b in best_packs])
    integral = inst.integral
    batch = max(2 * n, 50)
    stats = {"nodes": 0, "lp_solves": 0}

    def prune_level(u: float) -> float:
        # a node is useless once its bound reaches this value
        return u - 1 + 1e-6 if integral else u - 1e-9 * max(1.0, abs(u))

    def process(branches):
        """CG at a node: (bound, x, converged, infeasible)."""
        pool_ok = {s: _allowed(padded[s], branches) for s in sizes}
        while True:
            master.set_allowed(_allowed(master.members, branches))
            pi, x, obj = master.solve()
            stats["lp_solves"] += 1
            rcs = []
            for s in sizes:
                rc = pool.costs[s] - pi[pool.packs[s]].sum(axis=1)
                rc[~pool_ok[s]] = np.inf
                rcs.append(rc)
            flat = np.concatenate(rcs)
            min_rc = float(flat.min()) if len(flat) else 0.0
            lag = float(pi.sum()) + n * min(0.0, min_rc)
            if lag >= prune_level(ub):
                return lag, x, False, False
            if min_rc >= -TOL * max(1.0, abs(obj)) or time.perf_counter() > deadline:
                conv = min_rc >= -TOL * max(1.0, abs(obj))
                infeasible = conv and x[:n].max() > 1e-7
                return (obj if conv else lag), x, conv, infeasible
            new_p, new_c = pool.cheapest(dict(zip(sizes, rcs, strict=True)),
                                         min(batch, int((flat < -TOL).sum())))
            if master.add(new_p, new_c) == 0:
                return obj, x, True, x[:n].max() > 1e-7

    counter = itertools.count()
    heap: list = []
    root_bound, x, conv, infeasible = process([])
    stats["nodes"] = 1
    root_lb = root_bound if conv else -math.inf
    # a short MIP over the root columns for a good incumbent
    if conv and time.perf_counter() < deadline:
        ub, best_packs = _root_mip(inst, master, ub, best_packs,
                                   min(10.0, 0.25 * (deadline - time.perf_counter())))
    heapq.heappush(heap, (root_bound, next(counter), [], x, conv, infeasible))
    while heap:
        bound, _, branches, x, conv, infeasible = heapq.heappop(heap)
        if bound >= prune_level(ub) or infeasible:
            continue
        if not conv:
            if time.perf_counter() > deadline:
                heapq.heappush(heap, (bound, next(counter), branches, x, conv, infeasible))
                break
            bound, x, conv, infeasible = process(branches)
            heapq.heappush(heap, (bound, next(counter), branches, x, conv, infeasible))
            continue
        zc = x[n:]
        frac = (zc > 1e-6) & (zc < 1 - 1e-6)
        if not frac.any():
            chosen = [tuple(int(v) for v in row if v >= 0)
                      for row in master.members[np.nonzero(zc > 0.5)[0]]]
            val = _cost_of(inst, chosen)
            if val < ub:
                ub, best_packs = val, chosen
            continue
        if time.perf_counter() > deadline:
            heapq.heappush(heap, (bound, next(counter), branches, x, conv, infeasible))
            break
        i, j = _ryan_foster_pair(master.members, zc, n)
        for together in (True, False):
            child = branches + [(i, j, together)]
            cb, cx, cconv, cinf = process(child)
            stats["nodes"] += 1
            if not cinf and cb < prune_level(ub):
                heapq.heappush(heap, (cb, next(counter), child, cx, cconv, cinf))
    extra = {"pool": pool.size, "columns_generated": len(master.costs), "lp_bound": root_lb,
             **stats}
    if not heap:
        return _finish(inst, "setpart-bp", best_packs, None, True, t0, extra)
    open_bound = min(min(h[0] for h in heap), ub)
    return _finish(inst, "setpart-bp", best_packs, max(open_bound, root_lb), False, t0, extra)


def _ryan_foster_pair(members: np.ndarray, z: np.ndarray, n: int) -> tuple[int, int]:
    """The pair (i, j) whose co-occurrence sum_{B ni i,j} z_B is closest to 1/2."""
    together = np.zeros((n, n))
    for c in np.nonzero(z > 1e-9)[0]:
        b = [int(v) for v in members[c] if v >= 0]
        for a in range(len(b)):
            for d in range(a + 1, len(b)):
                together[b[a], b[d]] += z[c]
    score = np.abs(together - 0.5)
    score[together < 1e-6] = np.inf
    score[together > 1 - 1e-6] = np.inf
    flat = int(np.argmin(score))
    return flat // n, flat % n


def _root_mip(inst, master: _BPMaster, ub: float, best_packs, budget: float):
    """MIP over the root's columns (a heuristic: any solution is feasible)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("time_limit", float(max(1e-3, budget)))
    n = inst.n
    ones = np.ones(n)
    h.addRows(n, ones, ones, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    mem = master.members
    starts, idx = [], []
    for row in mem:
        starts.append(len(idx))
        idx.extend(int(v) for v in row if v >= 0)
    m = len(mem)
    h.addCols(m, master.costs, np.zeros(m), np.ones(m), len(idx), np.array(starts, np.int32),
              np.array(idx, np.int32), np.ones(len(idx)))
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * m))
    with quiet_stdout():
        h.run()
    if h.getInfo().primal_solution_status == 0:
        return ub, best_packs
    x = h.getSolution().col_value
    chosen = [tuple(int(v) for v in mem[c] if v >= 0) for c in range(m) if x[c] > 0.5]
    val = _cost_of(inst, chosen)
    return (val, chosen) if val < ub else (ub, best_packs)
