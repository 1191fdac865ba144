"""Branch-and-price over packs priced by Algorithm 1 (spec 001 §2.3, model ``setpart-bp``).

The set-partitioning model of `resilsched.models.coschedule.setpart` solved by branch-and-price:

- master LP: rows sum_{B ni i} z_B = 1, columns = packs generated so far, plus one artificial
  column per row of cost M > any co-schedule (so every node LP is feasible; a node whose
  converged LP still uses an artificial column is infeasible);
- pricing (``pricing`` option): reduced costs c_B - sum_{i in B} pi_i over the explicit pool
  of all packs (`build_pool`, costs by vectorised Algorithm 1), or by the threshold-knapsack
  oracle (`pricing_oracle.PackOracle`, decision C22) when the pool would be too large (p-in-p);
  restricted to the packs the node allows; the Lagrangian bound sum pi + n min(0, min rc) is
  valid at every pricing round;
- branching (Ryan-Foster): for the pair (i, j) whose LP co-occurrence sum_{B ni i,j} z_B is
  closest to 1/2, one child forces i and j into the same pack (packs holding exactly one of
  them are forbidden), the other separates them (packs holding both are forbidden);
- search: best bound first; a node is pruned when its bound reaches UB (UB - 1 + eps when all
  times are integers, since the optimum is then an integer); UB from PACK-APPROX, from
  price-and-dive runs at the root (`price_and_dive`), from integral node LPs and (pool pricing)
  from a short MIP over the root columns;
- with the oracle, the root is closed first by rounds of reduced-cost closures solved as exact
  covers (`exact_cover.close_by_cover`, in C when built: decision C24): proven optimal, or a bound
  sum pi + delta; the tree search follows only when a closure outgrows its limit of packs.

Exact: the root bound plus the branching partition the feasible co-schedules; the search ends
with status ``optimal`` only when every node was pruned or closed. A time limit gives
``feasible`` with the smallest open-node bound. Every phase runs under ``opts.deadline``
(decision C16): the pool is built in checked chunks, each node LP gets the time left, and the
root MIP runs in a forked child with a hard limit (`hardlimit`).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.coschedule import Packs, make_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.answer import best_bound, fallback, finish, makespan_unit
from resilsched.models.coschedule.hardlimit import PhaseTimeout, run_limited
from resilsched.models.coschedule.options import SetpartBPOptions
from resilsched.models.coschedule.setpart.branchprice.exact_cover import close_by_cover
from resilsched.models.coschedule.setpart.branchprice.price_and_dive import price_and_dive
from resilsched.models.coschedule.setpart.branchprice.pricing_oracle import (
    PackOracle,
    PricingResult,
)
from resilsched.models.coschedule.setpart.branchprice.task_moves import improve_packs
from resilsched.models.coschedule.setpart.master import (
    add_pack_columns,
    pack_columns,
    partition_master,
    singletons,
)
from resilsched.models.coschedule.setpart.pool import (
    PackPool,
    build_pool,
    check_pool_size,
    pool_size,
)
from resilsched.solution import Solution
from resilsched.solvers import new_highs, quiet_stdout, set_time_limit

TOL = 1e-9
#: ``pricing=auto`` prices over the explicit pool up to this many packs, with the oracle above
AUTO_POOL = 1_000_000
#: price-and-dive runs at the root (upper bounds; `price_and_dive`), and their share of the
#: time left
DIVES = 2
DIVE_SHARE = 0.1
#: the MIP over the root's columns gets min(ROOT_MIP_SECONDS, ROOT_MIP_SHARE * time left)
ROOT_MIP_SECONDS = 15.0
ROOT_MIP_SHARE = 0.25


class _BPMaster:
    """Master LP with artificial columns; columns addressed by their members (padded -1)."""

    def __init__(self, n: int, k: int, big_m: float, settings: dict[str, Any]):
        import highspy
        self.n, self.k = n, k
        self.h = partition_master(n, settings=settings)
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
        import highspy
        m = len(allowed)
        if m == 0:
            return
        ub = np.where(allowed, highspy.kHighsInf, 0.0)
        self.h.changeColsBounds(m, np.arange(self.n, self.n + m, dtype=np.int32),
                                np.zeros(m), ub)

    def solve(self, seconds: float) -> tuple[np.ndarray, np.ndarray, float]:
        set_time_limit(self.h, seconds)
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


def solve_setpart_bp(instance: CoscheduleInstance, scenario=None, *,
                     time_limit: float | None = None, hint: Any = None,
                     **options: Any) -> Solution:
    """Branch-and-price (module docstring). Options: `SetpartBPOptions` (``pricing``,
    ``max_pool`` and the common ones); `hint`: a co-schedule to start from
    (`answer.fallback`)."""
    opts = SetpartBPOptions.of(time_limit, options)
    inst = instance
    use_oracle = opts.pricing == "oracle" or (
        opts.pricing == "auto" and pool_size(inst.n, inst.k) > min(opts.max_pool, AUTO_POOL))
    if not use_oracle:
        check_pool_size(inst, opts.max_pool)
    unit = makespan_unit(inst)
    best, lb = fallback(inst, hint)
    stats: dict[str, Any] = {"nodes": 0, "lp_solves": 0, "heuristic_ub": best.makespan,
                             "pricing": "oracle" if use_oracle else "pool"}
    proven = False
    try:
        oracle = None
        if use_oracle:
            opts.say("pricing oracle: thresholds and processor counts")
            oracle = PackOracle(inst)
            pricer = oracle.price
        else:
            opts.say("building the pool of packs")
            pool = build_pool(inst, opts.deadline, opts.max_pool)
            stats["pool"] = pool.size
            pricer = pool_pricer(pool, inst.k)
        opts.say("branch-and-price")
        best, proven, lb = _branch_and_price(inst, opts, pricer, oracle, best, lb, unit,
                                              stats)
    except PhaseTimeout:
        opts.say("time limit: answering with the best packs and bound known")
    return finish(inst, opts, "setpart-bp", "highs", best, lb, proven, stats, unit)


def pool_pricer(pool: PackPool, k: int) -> Callable[..., PricingResult]:
    """Pricing over the explicit pool, restricted to the packs the branching allows: the same
    interface as `PackOracle.price` (exact)."""
    sizes = sorted(pool.packs)
    padded = {s: np.hstack([pool.packs[s], np.full((len(pool.packs[s]), k - s), -1, np.int32)])
              for s in sizes}
    allowed: dict[tuple, dict[int, np.ndarray]] = {}

    def price(pi: np.ndarray, mu: float = 0.0, branches: list | None = None,
              count: int = 50, tol: float = TOL) -> PricingResult:
        key = tuple(branches or ())
        if key not in allowed:
            allowed.clear()
            allowed[key] = {s: _allowed(padded[s], list(key)) for s in sizes}
        rcs = []
        for s in sizes:
            rc = pool.costs[s] - pi[pool.packs[s]].sum(axis=1) - mu
            rc[~allowed[key][s]] = np.inf
            rcs.append(rc)
        flat = np.concatenate(rcs)
        min_rc = min(0.0, float(flat.min())) if len(flat) else 0.0
        negative = int((flat < -tol).sum())
        if negative == 0:
            return PricingResult(min_rc, True, [], [])
        packs, costs = pool.cheapest(dict(zip(sizes, rcs, strict=True)), min(count, negative))
        return PricingResult(min_rc, True, packs, costs)

    return price


def _branch_and_price(inst: CoscheduleInstance, opts: SetpartBPOptions,
                      pricer: Callable[..., PricingResult], oracle: PackOracle | None,
                      best: Packs, lb: Any, unit, stats: dict) -> tuple[Packs, bool, Any]:
    """Best-first branch-and-price: (best packs, proven optimal, lower bound). With an
    `oracle`, the root's reduced-cost closure is tried first (`exact_cover`)."""
    import highspy
    deadline = opts.deadline
    n, k = inst.n, inst.k
    big_m = float(sum(inst.t(i, inst.pmin[i]) for i in range(n))) + 1.0
    master = _BPMaster(n, k, big_m, opts.highs_settings())
    master.add(*singletons(inst))
    master.add(*pack_columns(best))
    step = float(unit) if unit is not None else 0.0
    batch = max(2 * n, 50)
    ub = float(best.makespan)

    def prune_level(u: float) -> float:
        # a node is useless once its bound reaches this value (u - 1/D for exact data)
        return u - step + 1e-6 if step else u - 1e-9 * max(1.0, abs(u))

    last: dict[str, Any] = {}

    def process(branches):
        """CG at a node: (bound, x, converged, infeasible)."""
        while True:
            master.set_allowed(_allowed(master.members, branches))
            pi, x, obj = master.solve(deadline.remaining())
            stats["lp_solves"] += 1
            solved = master.h.getModelStatus() == highspy.HighsModelStatus.kOptimal
            pi = np.where(np.isfinite(pi), pi, 0.0)
            res = pricer(pi, 0.0, branches, batch)
            last.update(pi=pi, min_rc=res.min_rc, exact=res.exact)
            lag = float(pi.sum()) + n * res.min_rc
            lag = lag if math.isfinite(lag) else -math.inf
            if lag >= prune_level(ub):
                return lag, x, False, False
            if not solved or deadline.expired():
                return lag, x, False, False
            if res.exact and res.min_rc >= -TOL * max(1.0, abs(obj)):
                return obj, x, True, x[:n].max() > 1e-7
            if master.add(res.packs, res.costs) == 0:
                return (obj if res.exact else lag), x, True, x[:n].max() > 1e-7

    counter = itertools.count()
    heap: list = []
    root_bound, x, conv, infeasible = process([])
    stats["nodes"] = 1
    if conv:
        stats["lp_bound"] = root_bound
    # a valid bound even when the root did not converge (Lagrangian)
    lb = best_bound(lb, root_bound)
    if conv and not deadline.expired():
        best = _dives(inst, master, pricer, best, deadline, batch, stats, oracle)
        if oracle is None:  # with the oracle, the closure rounds below find better packs
            best = _root_mip(inst, master, best, min(ROOT_MIP_SECONDS,
                                                     ROOT_MIP_SHARE * deadline.remaining()))
        ub = float(best.makespan)
        if oracle is not None and last["exact"] and not deadline.expired():
            opts.say("reduced-cost closure at the root (exact cover)")
            root_pi, root_rc = last["pi"], last["min_rc"]
            best, closed, cover_lb, too_big = close_by_cover(inst, oracle, root_pi, root_rc,
                                                             best, step, deadline, stats)
            lb = best_bound(lb, cover_lb)
            if closed:
                return best, True, lb
            if not too_big:
                return best, False, lb
            ub = float(best.makespan)
    heapq.heappush(heap, (root_bound, next(counter), [], x, conv, infeasible))
    while heap:
        bound, _, branches, x, conv, infeasible = heapq.heappop(heap)
        if bound >= prune_level(ub) or infeasible:
            continue
        if deadline.expired():
            heapq.heappush(heap, (bound, next(counter), branches, x, conv, infeasible))
            break
        if not conv:
            bound, x, conv, infeasible = process(branches)
            heapq.heappush(heap, (bound, next(counter), branches, x, conv, infeasible))
            continue
        zc = x[n:]
        frac = (zc > 1e-6) & (zc < 1 - 1e-6)
        if not frac.any():
            chosen = [tuple(int(v) for v in row if v >= 0)
                      for row in master.members[np.nonzero(zc > 0.5)[0]]]
            found = make_packs(inst, chosen)
            if found.makespan < best.makespan:
                best, ub = found, float(found.makespan)
            continue
        i, j = _ryan_foster_pair(master.members, zc, n)
        for together in (True, False):
            child = branches + [(i, j, together)]
            cb, cx, cconv, cinf = process(child)
            stats["nodes"] += 1
            if not cinf and cb < prune_level(ub):
                heapq.heappush(heap, (cb, next(counter), child, cx, cconv, cinf))
    stats["columns_generated"] = len(master.costs)
    if not heap:
        return best, True, lb
    open_bound = min(min(h[0] for h in heap), ub)
    return best, False, best_bound(lb, open_bound)


def _dives(inst: CoscheduleInstance, master: _BPMaster, pricer: Callable[..., PricingResult],
           best: Packs, deadline, batch: int, stats: dict, oracle: PackOracle | None = None
           ) -> Packs:
    """Up to `DIVES` price-and-dive runs from the root (`price_and_dive`), within `DIVE_SHARE`
    of the time left; the better of their partitions and `best`. Their columns stay in the master
    (the root MIP that follows uses them). With the `oracle`, each dive's partition is first
    improved by local search (`task_moves`, decision C25)."""
    stop = Deadline(DIVE_SHARE * deadline.remaining())
    found = []
    for rank in range(DIVES):
        if stop.expired():
            break
        packs = price_and_dive(master, pricer, inst.n, stop, max(batch, 80), rank)
        if packs is None:
            break
        if oracle is not None:
            packs = improve_packs(oracle, packs, stop)
        cand = make_packs(inst, packs)
        found.append(float(cand.makespan))
        if cand.makespan < best.makespan:
            best = cand
    stats["dives"] = found
    return best


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


def _root_mip(inst: CoscheduleInstance, master: _BPMaster, best: Packs,
              budget: float) -> Packs:
    """MIP over the root's columns (a heuristic: any solution is feasible), in a forked child
    with a hard limit; returns the better of its packs and `best`."""
    import highspy
    def run() -> list[tuple[int, ...]] | None:
        h = new_highs({"threads": 1})
        set_time_limit(h, budget)
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
            return None
        x = h.getSolution().col_value
        return [tuple(int(v) for v in mem[c] if v >= 0) for c in range(m) if x[c] > 0.5]

    try:
        chosen = run_limited(run, budget)
    except PhaseTimeout:
        return best
    if chosen is None:
        return best
    found = make_packs(inst, chosen)
    return found if found.makespan < best.makespan else best
