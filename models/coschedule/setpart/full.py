"""``setpart-full``: the integer set-partitioning program over every pack at once, one HiGHS MIP
(spec 001 §2.3).

The model of `resilsched.models.coschedule.setpart` with all the packs of the explicit pool
(`pool`) as columns of one master (`master.mip_over_pool`), seeded with the fallback's
incumbent; the MIP (built and solved) runs in a forked child killed when the time limit is
spent (`hardlimit`, decision C16), and a killed MIP answers ``feasible`` with the fallback's
packs and bound (`answer`).
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import numpy as np

from resilsched.heuristics.coschedule import make_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.answer import best_bound, fallback, finish, makespan_unit
from resilsched.models.coschedule.hardlimit import PhaseTimeout, run_limited
from resilsched.models.coschedule.options import SetpartOptions
from resilsched.models.coschedule.setpart.master import Master, mip_over_pool
from resilsched.models.coschedule.setpart.pool import build_pool, check_pool_size
from resilsched.solution import Solution

__all__ = ["solve_setpart_full"]


def solve_setpart_full(instance: CoscheduleInstance, scenario=None, *,
                       time_limit: float | None = None, hint: Any = None,
                       **options: Any) -> Solution:
    """Integer set partitioning over every pack (explicit pool, one HiGHS MIP, seeded with
    PACK-APPROX or the `hint`, `answer.fallback`). Options: `SetpartOptions`."""
    opts = SetpartOptions.of(time_limit, options)
    inst = instance
    check_pool_size(inst, opts.max_pool)
    unit = makespan_unit(inst)
    best, lb = fallback(inst, hint)
    info: dict[str, Any] = {"heuristic_ub": best.makespan}
    proven = False
    try:
        opts.say("building the pool of packs")
        pool = build_pool(inst, opts.deadline, opts.max_pool)
        info["columns"] = pool.size
        opts.say("set-partitioning MIP over every pack")
        budget = opts.deadline.remaining()
        end = time.monotonic() + budget
        every = {s: np.ones(len(c), bool) for s, c in pool.costs.items()}
        res, _ = run_limited(partial(mip_over_pool, Master(inst.n), pool, every, best,
                                     opts.highs_settings(), end, 0.0), budget)
        if res.packs is not None:
            found = make_packs(inst, res.packs)
            if found.makespan <= best.makespan:
                best = found
        proven = res.optimal
        lb = best_bound(lb, min(res.bound, float(best.makespan)))
    except PhaseTimeout:
        opts.say("time limit: answering with the best packs and bound known")
    return finish(inst, opts, "setpart-full", "highs", best, lb, proven, info, unit)
