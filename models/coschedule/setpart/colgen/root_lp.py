"""The root LP of ``setpart-cg``: column generation with subset-row cuts over the explicit pool
(spec 001 §2.3; decisions C10, C13), and the registered bound ``setpart-lp``.

Restricted master LP (`setpart.master.Master`) over a few packs, priced over the explicit pool
(`setpart.pool.PackPool`): with duals pi_i (task rows), mu >= 0 (pack-count cut) and
sigma_S <= 0 (subset-row cuts), the reduced cost of pack B is rc_B = c_B - sum_{i in B} pi_i
- mu - sum_{S : |B ∩ S| >= 2} sigma_S, one numpy pass over the pool. With the dual objective
D = sum pi + mu ceil(n/k) + sum sigma, LB = D + n min(0, min rc) is a valid lower bound for
*any* such duals (Lagrangian argument in `setpart.subset_rows`), so a round interrupted by the
deadline still gives a bound. `root_relaxation` alternates pricing and rounds of subset-row cuts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from resilsched.deadline import Deadline
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.setpart.master import Master, min_packs, singletons
from resilsched.models.coschedule.setpart.pool import PackPool, build_pool
from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts

#: at most this many separation rounds of subset-row cuts at the root of ``setpart-cg``
MAX_CUT_ROUNDS = 10


@dataclass
class Pricing:
    """State of converged (or stopped) column generation.

    `rcs` holds the reduced cost of every pool pack (by size), `dual` = sum pi + mu ceil(n/k) +
    sum sigma is the dual objective; `lb` = dual + n min(0, min_rc) is a valid lower bound
    whether or not pricing converged (-inf when the LP gave no usable duals). `pi`, `mu` and
    `sigma` are the duals behind `rcs` (task rows, pack-count row, subset-row cuts in the order
    of `SubsetRowCuts.triples`).
    """

    rcs: dict[int, np.ndarray]
    dual: float
    min_rc: float
    converged: bool
    n: int
    pi: np.ndarray | None = None
    mu: float = 0.0
    sigma: np.ndarray | None = None

    @property
    def lb(self) -> float:
        value = self.dual + self.n * min(0.0, self.min_rc)
        return value if math.isfinite(value) else -math.inf

    def closure_gap(self, target: float) -> float:
        """Every pack of a partition costing < `target` has rc_B < this value (module doc)."""
        return target - self.dual - (self.n - 1) * min(0.0, self.min_rc)


def column_generation(pool: PackPool, master: Master, deadline: Deadline,
                      batch: int | None = None, tol: float = 1e-9) -> Pricing:
    """Pricing rounds until no pack has a negative reduced cost, or the deadline."""
    n = pool.n
    batch = batch or max(2 * n, 50)
    scale = max(1.0, float(np.max(pool.costs[1])))
    while True:
        pi, mu, sigma = master.solve_lp(deadline.remaining())
        solved = master.lp_optimal() and np.all(np.isfinite(pi))
        pi = np.where(np.isfinite(pi), pi, 0.0)
        sigma = np.where(np.isfinite(sigma), sigma, 0.0)
        rcs = pool.reduced_costs(pi, mu)
        if master.cuts is not None:
            master.cuts.lower_reduced_costs(rcs, sigma)
        min_rc, negative = pool.negatives(rcs, -tol * scale)
        dual = float(pi.sum()) + mu * (master.min_packs or 0) + float(sigma.sum())
        state = Pricing(rcs, dual, min_rc, solved, n, pi, mu, sigma)
        if solved and min_rc >= -tol * scale:
            return state
        if deadline.expired() or not solved:
            state.converged = False
            return state
        new_packs, new_costs = pool.cheapest(rcs, min(batch, negative))
        if master.add(new_packs, new_costs) == 0:
            return state


def root_relaxation(pool: PackPool, master: Master, deadline: Deadline) -> Pricing:
    """Column generation, then rounds of subset-row cuts (`setpart.subset_rows`) and re-pricing,
    until no triple is violated, `MAX_CUT_ROUNDS` rounds, or the deadline."""
    cg = column_generation(pool, master, deadline)
    for _ in range(MAX_CUT_ROUNDS if master.cuts is not None else 0):
        if not cg.converged or deadline.expired():
            break
        new = master.cuts.separate(master.support())
        if not new:
            break
        for triple in new:
            master.add_cut(triple)
        cg = column_generation(pool, master, deadline)
    return cg


def setpart_lp_bound(inst: CoscheduleInstance, scenario=None) -> float | int:
    """Lower bound: the set-partitioning LP value by column generation (rounded up to an int
    for integral times).

    D + n min(0, min rc) (`Pricing.lb`) is a valid Lagrangian bound at every iteration; at
    convergence it is the LP optimum (with the pack-count cut and subset-row cuts).
    """
    deadline = Deadline(None)
    pool = build_pool(inst)
    master = Master(inst.n, min_packs(inst), SubsetRowCuts(inst.n, pool.packs))
    master.add(*singletons(inst))
    lb = root_relaxation(pool, master, deadline).lb
    lb -= 1e-9 * max(1.0, abs(lb))
    return math.ceil(lb) if inst.integral else lb
