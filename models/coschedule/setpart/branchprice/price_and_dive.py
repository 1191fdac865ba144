"""Price-and-dive: an upper bound for branch-and-price over packs (spec 001 §2.3, decision C22).

A heuristic, never a proof. Starting from the master's columns, repeat: solve the master LP by
column generation over the tasks still uncovered (the rows of covered tasks are freed and
their duals set to -inf, so no priced pack holds them; columns holding one are off), then fix
the packs the LP takes at 1 (or, when none, the pack of largest LP value) and remove their
tasks. The fixed packs partition the tasks (singletons keep every residual LP feasible). With
few, large packs (p-in-p) the LP optimum is fractional over many overlapping packs and a MIP over
the root columns finds poor partitions; diving re-prices after every decision.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from resilsched.deadline import Deadline

#: column-generation rounds per residual LP (a heuristic: it may stop before convergence)
DIVE_ROUNDS = 60


def price_and_dive(master, pricer: Callable, n: int, deadline: Deadline, batch: int,
                   rank: int = 0) -> list[tuple[int, ...]] | None:
    """Packs partitioning the n tasks (None when the deadline stopped the dive).

    `master` is the branch-and-price master (`solve._BPMaster`: artificial columns
    first, then packs in ``members``); `pricer(pi, mu, branches, count)` a pricing function
    (`pricing_oracle.PackOracle.price` or the pool's). `rank` > 0 fixes, at the first decision, the
    pack of that rank by LP value instead of the largest (another dive from the same root).
    The master's row bounds are restored on return; the caller resets the column bounds.
    """
    import highspy
    removed = np.zeros(n, dtype=bool)
    fixed: list[tuple[int, ...]] = []
    h = master.h
    try:
        while not removed.all():
            if deadline.expired():
                return None
            for r in np.nonzero(removed)[0]:
                h.changeRowBounds(int(r), -highspy.kHighsInf, highspy.kHighsInf)
            for _ in range(DIVE_ROUNDS):
                mem = master.members
                master.set_allowed(~((mem >= 0) & removed[np.maximum(mem, 0)]).any(axis=1))
                pi, x, _ = master.solve(deadline.remaining())
                if deadline.expired():
                    return None
                pi = np.where(removed, -np.inf, np.where(np.isfinite(pi), pi, 0.0))
                res = pricer(pi, 0.0, [], batch)
                if not res.packs or master.add(res.packs, res.costs) == 0:
                    break
            z = x[n:]
            take = np.nonzero(z > 1 - 1e-6)[0]
            if len(take) == 0:
                order = np.argsort(-z, kind="stable")
                take = order[min(rank, int((z > 1e-6).sum()) - 1):][:1]
                rank = 0
            for c in take:
                pack = tuple(int(v) for v in master.members[c] if v >= 0)
                if removed[list(pack)].any():
                    continue
                fixed.append(pack)
                removed[list(pack)] = True
    finally:
        for r in np.nonzero(removed)[0]:
            h.changeRowBounds(int(r), 1.0, 1.0)
    return fixed
