"""LP dive over the explicit pool: an upper bound for ``setpart-cg`` (spec 001 §2.3, decision C26).

A heuristic, never a proof. From the root master (task rows, pack-count cut, subset-row cuts)
repeat: solve the master LP by column generation over the pool, pricing only the packs disjoint
from the packs fixed so far (their tasks' duals are set to -inf, so such packs get rc = +inf),
then fix at 1 every pack the LP takes at (nearly) 1 or, when none, the pack of largest LP value.
The rows of the fixed tasks force every other column holding one of them to 0, so the residual
LP stays a set-partitioning LP over the free tasks (singletons keep it feasible), with the cuts
still valid. The fixed packs partition the tasks. At n = 150, k = 3 the root LP takes only a few
packs at 1 (5 of 50) and the rest at values 0.05-0.4: a MIP over the root columns found poor
partitions in its time share, the dive re-prices after every decision.
"""

from __future__ import annotations

import numpy as np

from resilsched.deadline import Deadline
from resilsched.models.coschedule.setpart.master import Master
from resilsched.models.coschedule.setpart.pool import PackPool

#: column-generation rounds per residual LP (a heuristic: it may stop before convergence)
DIVE_ROUNDS = 30
#: an LP value at least this large counts as taken (fixed without a choice)
TAKEN = 1 - 1e-6


def lp_dive(pool: PackPool, template: Master, deadline: Deadline,
            settings: dict | None = None, rank: int = 0) -> list[tuple[int, ...]] | None:
    """Packs partitioning the tasks, or None when the deadline stopped the dive.

    `template` is the root master after column generation; the dive works on a copy (same
    rows and cuts, same columns) and leaves `template` untouched. `pool` may be a subset of
    the pool the cuts were built on (`PackPool.subset`): the dive prices only its packs.
    `rank` > 0 fixes, at the first choice, the pack of that rank by LP value instead of the
    largest (another dive).
    """
    n = template.n
    mst = Master(n, template.min_packs, template.cuts, settings)
    mst.add(list(template.cols), list(template.costs))
    hits = _cut_hits(pool, template)
    removed = np.zeros(n, dtype=bool)
    fixed: list[tuple[int, ...]] = []
    batch = max(n, 50)
    while not removed.all():
        x = None
        for _ in range(DIVE_ROUNDS):
            if deadline.expired():
                return None
            pi, mu, sigma = mst.solve_lp(deadline.remaining())
            if not mst.lp_optimal():
                return None
            x = np.asarray(mst.h.getSolution().col_value)
            pi = np.where(removed, -np.inf, np.where(np.isfinite(pi), pi, 0.0))
            rcs = pool.reduced_costs(pi, mu)
            sigma = np.where(np.isfinite(sigma), sigma, 0.0)
            for s, (rows, cut) in hits.items():
                rcs[s] -= np.bincount(rows, weights=sigma[cut], minlength=len(rcs[s]))
            negative = sum(int((r < -1e-9).sum()) for r in rcs.values())
            if negative == 0:
                break
            packs, costs = pool.cheapest(rcs, min(batch, negative))
            if mst.add(packs, costs) == 0:
                break
            x = None
        if x is None:  # the last round added columns: solve once more
            mst.solve_lp(deadline.remaining())
            if not mst.lp_optimal():
                return None
            x = np.asarray(mst.h.getSolution().col_value)
        free = np.array([not removed[list(b)].any() for b in mst.cols])
        z = np.where(free, x, 0.0)
        take = list(np.nonzero(z >= TAKEN)[0])
        if not take:
            order = np.argsort(-z, kind="stable")
            take = [int(order[min(rank, max(0, int((z > 1e-9).sum()) - 1))])]
            rank = 0
        for c in take:
            pack = mst.cols[c]
            if removed[list(pack)].any():
                continue
            fixed.append(pack)
            removed[list(pack)] = True
            mst.h.changeColBounds(int(c), 1.0, 1.0)
    return fixed


def _cut_hits(pool: PackPool, master: Master) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """By pack size: (pool row, cut index) for every subset-row cut touching a pool pack (the
    cuts' own index refers to the full pool, `pool` may be a subset of it)."""
    out = {}
    for s, arr in pool.packs.items():
        rows, cut = [], []
        if master.cuts is not None and s >= 2:
            for r, pack in enumerate(arr.tolist()):
                for q in master.cuts.cuts_of(pack):
                    rows.append(r)
                    cut.append(q)
        out[s] = (np.array(rows, dtype=np.int64), np.array(cut, dtype=np.int64))
    return out
