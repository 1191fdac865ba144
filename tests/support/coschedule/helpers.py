"""Shared fixtures for the co-scheduling tests: seeded tiny instances and the oracle."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from resilsched.deadline import Deadline
from resilsched.instances.coschedule import CoscheduleInstance, random_instance
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.setpart.colgen.root_lp import root_relaxation
from resilsched.models.coschedule.setpart.master import Master, min_packs, singletons
from resilsched.models.coschedule.setpart.pool import build_pool
from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts


def tiny(seed: int, n: int, p: int, k: int, kind: str = "integer",
         pmin: bool = False) -> CoscheduleInstance:
    """A seeded random instance; with `pmin`, random minimum processor counts in 1..2."""
    inst = random_instance(np.random.default_rng(seed), n, p, k, kind=kind)
    if not pmin:
        return inst
    rng = np.random.default_rng(seed + 10_000)
    pm = tuple(int(x) for x in rng.integers(1, 3, size=n))
    return CoscheduleInstance(p=inst.p, k=inst.k, times=inst.times, pmin=pm)


def opt(inst: CoscheduleInstance):
    """The enumeration optimum (independent oracle: subset DP over partitions)."""
    return solve_enumeration(inst).objective


def optimal_pack_brute(inst: CoscheduleInstance, tasks, p: int | None = None
                       ) -> tuple[Any, tuple[int, ...]]:
    """Brute force over every allocation sigma(i) in [pmin_i, p] with sum <= p (oracle of
    Algorithm 1 and the DP)."""
    p = inst.p if p is None else p
    if not tasks:
        return 0, ()
    best: Any = float("inf")
    best_sigma: tuple[int, ...] = ()
    for sigma in itertools.product(*(range(inst.pmin[i], p + 1) for i in tasks)):
        if sum(sigma) <= p:
            v = max(inst.t(i, s) for i, s in zip(tasks, sigma, strict=True))
            if v < best:
                best, best_sigma = v, sigma
    return best, best_sigma


def root(inst: CoscheduleInstance) -> tuple:
    """(pack pool, cut master, converged root column generation) of `setpart-cg`."""
    pool = build_pool(inst)
    master = Master(inst.n, min_packs(inst), SubsetRowCuts(inst.n, pool.packs))
    master.add(*singletons(inst))
    return pool, master, root_relaxation(pool, master, Deadline(None))
