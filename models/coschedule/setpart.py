"""Set-partitioning models over packs priced by Algorithm 1 (spec 001 §2.3, stronger exact model).

Every pack B (|B| <= k, sum pmin_i <= p) is a column with cost c_B = Algorithm 1's optimal pack
cost (`pack_costs_vectorized`). A co-schedule is a partition of the tasks into packs::

    min sum_B c_B z_B   s.t.  sum_{B ni i} z_B = 1  for every task i,   z_B in {0, 1}

Its LP relaxation is much tighter than the LP of (1.12). Two models, both with highspy directly
(HiGHS, ``mip_rel_gap = 0``, one thread):

``setpart-full``
    the integer program over all packs at once.

``setpart-cg``
    column generation + cuts + reduced-cost column closure ("price, cut and branch"):

    1. restricted master LP over singletons and the PACK-APPROX packs, plus the pack-count cut
       sum_B z_B >= ceil(n/k) (a partition into packs of at most k tasks has at least that many
       packs; without it the LP happily uses n/k fractional packs); duals pi_i and mu >= 0;
    2. pricing: reduced costs rc_B = c_B - sum_{i in B} pi_i - mu of every pack, computed in one
       numpy pass over the pool of packs (all k-subsets, costs from Algorithm 1); the most
       negative columns enter; stop when min rc >= -tol;
    3. cuts: rounds of subset-row cuts over triples of tasks (`subset_rows`; duals sigma_S <= 0,
       priced into rc_B) separated exactly and re-priced, until none is violated. With the dual
       objective D = sum pi + mu ceil(n/k) + sum sigma, LB = D + n min(0, min rc) is valid at
       every iteration (Lagrangian);
    4. closure: cost(x) >= D + sum_{B in x} rc_B for every partition x (`subset_rows` module
       doc), so a partition with cost(x) < T uses only packs with
       rc_B < T - D - (n-1) min(0, min rc) =: gap(T). With T = UB (UB - 1 for integral times),
       the integer program over those packs (with the cuts) is exact;
    5. two rounds: an early MIP over the ``FIRST_CLOSURE_COLUMNS * n`` packs of smallest rc,
       seeded with PACK-APPROX, stopped at a relative gap of ``EARLY_ROUND_GAP`` or after
       ``FIRST_ROUND_SHARE`` of the time left, only looks for a near-optimal UB (it never proves
       anything); the full closure over gap(UB), seeded with that UB, then proves optimality.
       A good UB first matters: the closure grows quickly with gap(UB).
A time limit yields ``feasible`` with the best bound known (LB, or min(UB, closure MIP bound)
when the interrupted round was the full closure). ``payload["closure_rounds"]`` lists the rounds.
The pool is explicit, so memory grows like C(n, k): up to ``MAX_POOL`` columns.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.common import make_payload
from resilsched.models.coschedule.onepack import pack_costs_vectorized
from resilsched.models.coschedule.subset_rows import SubsetRowCuts
from resilsched.solution import Solution, Status

MAX_POOL = 12_000_000
CHUNK = 400_000
#: the early MIP of ``setpart-cg`` holds the FIRST_CLOSURE_COLUMNS * n packs of smallest
#: reduced cost (step 5 of the module docstring); the full closure follows.
FIRST_CLOSURE_COLUMNS = 15
#: at most this many separation rounds of subset-row cuts at the root of ``setpart-cg``
MAX_CUT_ROUNDS = 10
#: share of the time left that an early (not yet closed) round may use
FIRST_ROUND_SHARE = 0.2
#: relative MIP gap at which an early round stops (it never proves anything)
EARLY_ROUND_GAP = 1e-4


@dataclass
class PackPool:
    """All feasible packs grouped by size: ``packs[s]`` is (m_s, s) int32, ``costs[s]`` (m_s,)."""

    n: int
    packs: dict[int, np.ndarray]
    costs: dict[int, np.ndarray]

    @property
    def size(self) -> int:
        return sum(len(c) for c in self.costs.values())

    def reduced_costs(self, pi: np.ndarray, mu: float = 0.0) -> dict[int, np.ndarray]:
        """rc_B = c_B - sum_{i in B} pi_i - mu (mu: dual of the pack-count row)."""
        return {s: self.costs[s] - pi[self.packs[s]].sum(axis=1) - mu for s in self.packs}

    def cheapest(self, rcs: dict[int, np.ndarray], count: int
                 ) -> tuple[list[tuple[int, ...]], list[float]]:
        """The `count` packs of smallest reduced cost (`rcs` by size, as `reduced_costs`) and
        their costs, the columns a pricing round adds."""
        sizes = sorted(rcs)
        flat = np.concatenate([rcs[s] for s in sizes])
        offsets = np.cumsum([0] + [len(rcs[s]) for s in sizes])
        packs, costs = [], []
        for g in np.argpartition(flat, count - 1)[:count]:
            a = int(np.searchsorted(offsets, g, side="right")) - 1
            s, r = sizes[a], int(g - offsets[a])
            packs.append(tuple(int(x) for x in self.packs[s][r]))
            costs.append(float(self.costs[s][r]))
        return packs, costs


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


def min_packs(inst: CoscheduleInstance) -> int:
    """ceil(n / k): every co-schedule has at least this many packs (at most k tasks each)."""
    return -(-inst.n // inst.k)


def partition_master(n: int, min_packs: int | None = None) -> highspy.Highs:
    """A silent single-thread HiGHS model with n rows fixed to 1: each task in exactly one pack.

    With `min_packs`, row n is the pack-count cut sum_B z_B >= min_packs (columns get a 1 there
    through `add_pack_columns(..., extra_rows=...)`).
    """
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    ones = np.ones(n)
    h.addRows(n, ones, ones, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    if min_packs is not None:
        h.addRow(float(min_packs), highspy.kHighsInf, 0, np.zeros(0, np.int32), np.zeros(0))
    return h


def add_pack_columns(h: highspy.Highs, packs: list[tuple[int, ...]], costs: list[float],
                     index: set[tuple[int, ...]],
                     extra_rows: Callable[[tuple[int, ...]], list[int]] | None = None
                     ) -> list[tuple[tuple[int, ...], float]]:
    """Add the packs not yet in `index` as columns (cost c, x >= 0, a 1 in each member's row and
    in each row of ``extra_rows(pack)`` if given).

    Records them in `index` and returns the new (pack, cost) pairs in column order.
    """
    new = [(b, c) for b, c in zip(packs, costs, strict=True) if b not in index]
    if not new:
        return new
    starts, idx = [], []
    for b, _ in new:
        starts.append(len(idx))
        idx.extend(b)
        if extra_rows is not None:
            idx.extend(extra_rows(b))
    m = len(new)
    h.addCols(m, np.array([c for _, c in new]), np.zeros(m), np.full(m, highspy.kHighsInf),
              len(idx), np.array(starts, np.int32), np.array(idx, np.int32), np.ones(len(idx)))
    index.update(b for b, _ in new)
    return new


class _Master:
    """Set-partitioning master in highspy. Rows: one per task (= 1), then (with `min_packs`) the
    pack-count cut sum_B z_B >= min_packs, then one subset-row cut per triple of `cuts` (<= 1).
    Columns: packs."""

    def __init__(self, n: int, min_packs: int | None = None, cuts: SubsetRowCuts | None = None):
        self.n = n
        self.min_packs = min_packs
        self.cuts = cuts
        self.h = partition_master(n, min_packs)
        self.h.setOptionValue("mip_rel_gap", 0.0)
        self.h.setOptionValue("mip_abs_gap", 1e-6)
        self.cols: list[tuple[int, ...]] = []
        self.index: set[tuple[int, ...]] = set()
        self.costs: list[float] = []
        self.count_rows = [] if min_packs is None else [n]
        self.first_cut_row = n + len(self.count_rows)
        for _ in range(len(cuts) if cuts is not None else 0):
            self.h.addRow(-highspy.kHighsInf, 1.0, 0, np.zeros(0, np.int32), np.zeros(0))

    def _extra_rows(self, pack: tuple[int, ...]) -> list[int]:
        cut_rows = [] if self.cuts is None else self.cuts.cuts_of(pack)
        return self.count_rows + [self.first_cut_row + q for q in cut_rows]

    def add(self, packs: list[tuple[int, ...]], costs: list[float]) -> int:
        new = add_pack_columns(self.h, packs, costs, self.index, extra_rows=self._extra_rows)
        for b, c in new:
            self.cols.append(b)
            self.costs.append(c)
        return len(new)

    def add_cut(self, triple: tuple[int, int, int]) -> None:
        """Register a subset-row cut and add its row over the current columns."""
        assert self.cuts is not None
        self.cuts.add(triple)
        tri = set(triple)
        hit = [c for c, b in enumerate(self.cols) if len(tri.intersection(b)) >= 2]
        self.h.addRow(-highspy.kHighsInf, 1.0, len(hit), np.array(hit, np.int32),
                      np.ones(len(hit)))

    def solve_lp(self) -> tuple[np.ndarray, float, np.ndarray]:
        """Duals of the master LP: pi per task row, mu >= 0 of the pack-count row, sigma <= 0
        per subset-row cut."""
        ncol = len(self.cols)
        self.h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                                     np.array([highspy.HighsVarType.kContinuous] * ncol))
        self.h.run()
        duals = np.array(self.h.getSolution().row_dual)
        n, c = self.n, self.first_cut_row
        mu = max(0.0, float(duals[n])) if self.count_rows else 0.0
        return duals[:n], mu, np.minimum(0.0, duals[c:])

    def support(self) -> list[tuple[tuple[int, ...], float]]:
        """(pack, value) of the columns positive in the last LP solution."""
        x = self.h.getSolution().col_value
        return [(b, x[c]) for c, b in enumerate(self.cols) if x[c] > 1e-6]

    def solve_mip(self, time_limit: float | None, incumbent: list[tuple[int, ...]] | None = None,
                  rel_gap: float = 0.0) -> tuple[list[tuple[int, ...]] | None, float, bool]:
        """(chosen packs or None, dual bound, proven optimal); `incumbent` seeds HiGHS.

        With ``rel_gap > 0`` HiGHS stops within that relative gap and the result is never
        reported as proven optimal.
        """
        self.h.setOptionValue("mip_rel_gap", float(rel_gap))
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
        optimal = status == highspy.HighsModelStatus.kOptimal and rel_gap == 0
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


@dataclass
class Pricing:
    """State of converged (or stopped) column generation.

    `rcs` holds the reduced cost of every pool pack (by size), `dual` = sum pi + mu ceil(n/k) +
    sum sigma is the dual objective; `lb` = dual + n min(0, min_rc) is a valid lower bound
    (Lagrangian, `subset_rows` module doc) whether or not pricing converged.
    """

    rcs: dict[int, np.ndarray]
    dual: float
    min_rc: float
    converged: bool
    n: int

    @property
    def lb(self) -> float:
        return self.dual + self.n * min(0.0, self.min_rc)

    def closure_gap(self, target: float) -> float:
        """Every pack of a partition costing < `target` has rc_B < this value (module doc)."""
        return target - self.dual - (self.n - 1) * min(0.0, self.min_rc)


def column_generation(inst: CoscheduleInstance, pool: PackPool, master: _Master,
                      deadline: float | None, batch: int | None = None,
                      tol: float = 1e-9) -> Pricing:
    """Run pricing rounds until no pack has negative reduced cost (or time runs out)."""
    n = inst.n
    batch = batch or max(2 * n, 50)
    scale = max(1.0, float(np.max(pool.costs[1])))
    sizes = sorted(pool.packs)
    while True:
        pi, mu, sigma = master.solve_lp()
        rcs = pool.reduced_costs(pi, mu)
        if master.cuts is not None:
            master.cuts.lower_reduced_costs(rcs, sigma)
        flat = np.concatenate([rcs[s] for s in sizes])
        min_rc = float(flat.min())
        dual = float(pi.sum()) + mu * (master.min_packs or 0) + float(sigma.sum())
        state = Pricing(rcs, dual, min_rc, True, n)
        if min_rc >= -tol * scale:
            return state
        left = _deadline_left(deadline)
        if left is not None and left <= 0:
            state.converged = False
            return state
        new_packs, new_costs = pool.cheapest(rcs, min(batch, int((flat < -tol * scale).sum())))
        if master.add(new_packs, new_costs) == 0:
            return state


def root_relaxation(inst: CoscheduleInstance, pool: PackPool, master: _Master,
                    deadline: float | None) -> Pricing:
    """Column generation, then rounds of subset-row cuts (`subset_rows`) and re-pricing, until
    no triple is violated, `MAX_CUT_ROUNDS` rounds, or the deadline."""
    cg = column_generation(inst, pool, master, deadline)
    for _ in range(MAX_CUT_ROUNDS if master.cuts is not None else 0):
        left = _deadline_left(deadline)
        if not cg.converged or (left is not None and left <= 0):
            break
        new = master.cuts.separate(master.support())
        if not new:
            break
        for triple in new:
            master.add_cut(triple)
        cg = column_generation(inst, pool, master, deadline)
    return cg


def solve_setpart_cg(inst: CoscheduleInstance, scenario=None,
                     time_limit: float | None = None) -> Solution:
    """Column generation + reduced-cost closure (module docstring); exact when it says optimal."""
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    n = inst.n
    pool = build_pool(inst)
    master = _Master(n, min_packs(inst), SubsetRowCuts(n, pool.packs))
    master.add([(i,) for i in range(n)], [float(inst.t(i, inst.p)) for i in range(n)])
    best_packs, ub = _heuristic_packs(inst)
    master.add(best_packs, [float(pool_cost(inst, b)) for b in best_packs])
    cg = root_relaxation(inst, pool, master, deadline)
    lb = cg.lb
    extra: dict = {"columns_generated": len(master.cols), "pool": pool.size, "lp_bound": lb,
                   "subset_row_cuts": len(master.cuts), "heuristic_ub": ub,
                   "closure_rounds": []}
    integral = inst.integral

    def gap_to_close(ub_value: float) -> float:
        # packs that can appear in a partition better than ub (by >= 1 for integral times)
        return cg.closure_gap(ub_value - 1 if integral else ub_value) + 1e-7 * max(1.0, ub_value)

    if not cg.converged or gap_to_close(ub) < 0:
        return _finish(inst, "setpart-cg", best_packs, lb, cg.converged, t0, extra)
    rcs = cg.rcs
    flat = np.sort(np.concatenate([rcs[s] for s in sorted(rcs)]))
    delta = float(flat[min(len(flat), FIRST_CLOSURE_COLUMNS * n) - 1])
    while True:
        full_closure = delta >= gap_to_close(ub)
        delta = min(delta, gap_to_close(ub))
        # a fresh MIP over the packs with rc <= delta, plus the incumbent's (always feasible)
        mip = _Master(n, master.min_packs, master.cuts)
        mip.add(best_packs, [pool_cost(inst, b) for b in best_packs])
        for s in sorted(rcs):
            rows = np.nonzero(rcs[s] <= delta)[0]
            mip.add([tuple(int(x) for x in pool.packs[s][r]) for r in rows],
                    [float(c) for c in pool.costs[s][rows]])
        left = _deadline_left(deadline)
        if left is not None and not full_closure:
            left *= FIRST_ROUND_SHARE  # an early round only looks for a good partition
        packs, mbound, optimal = mip.solve_mip(
            left, incumbent=best_packs, rel_gap=0.0 if full_closure else EARLY_ROUND_GAP)
        if packs is not None and _cost_of(inst, packs) < ub:
            ub, best_packs = _cost_of(inst, packs), packs
        extra["closure_rounds"].append({"delta": delta, "columns": len(mip.cols),
                                        "optimal": optimal, "ub": ub,
                                        "seconds": time.perf_counter() - t0})
        if optimal and gap_to_close(ub) <= delta:
            # every pack of a better partition has rc <= delta: all were in this MIP
            return _finish(inst, "setpart-cg", best_packs, None, True, t0, extra)
        if full_closure:  # time is up
            return _finish(inst, "setpart-cg", best_packs, max(lb, min(ub, mbound)), False, t0,
                           extra)
        delta = gap_to_close(ub)


def pool_cost(inst: CoscheduleInstance, pack: tuple[int, ...]) -> float:
    """Float Algorithm-1 cost of one pack (same numbers as the pool)."""
    mat = inst.matrix()
    return float(pack_costs_vectorized(mat, np.asarray(inst.pmin), inst.p,
                                       np.array([pack], dtype=np.int64))[0][0])


def _cost_of(inst: CoscheduleInstance, packs) -> float:
    return float(sum(d["time"] for d in make_payload(inst, packs)["packs"]))


def setpart_lp_bound(inst: CoscheduleInstance, scenario=None) -> float:
    """Lower bound: the set-partitioning LP value by column generation (ceil for integral times).

    D + n min(0, min rc) (`Pricing.lb`) is a valid Lagrangian bound at every iteration; at
    convergence it is the LP optimum (with the pack-count cut).
    """
    pool = build_pool(inst)
    master = _Master(inst.n, min_packs(inst), SubsetRowCuts(inst.n, pool.packs))
    master.add([(i,) for i in range(inst.n)], [float(inst.t(i, inst.p)) for i in range(inst.n)])
    lb = root_relaxation(inst, pool, master, None).lb
    lb -= 1e-9 * max(1.0, abs(lb))
    return math.ceil(lb) if inst.integral else lb
