"""``yardstick``: what a realized makespan is scored against (spec 001 §1.7, §5; decision MA-1).

The heuristics return realized makespans, on a failure trace or without failures. The
yardstick of an instance is:

- without failures (mtbf null): the fault-free optimum with redistribution at ends
  (``faultfree-optimal``, status ``optimal``) on tiny instances; above its size, the best
  fault-free heuristic with the fluid bound (status ``feasible``);
- with failures: no optimum over all policies on a trace is computed, so the result is
  ``feasible``, its incumbent the best realized makespan of the failure-aware heuristics on the
  trace (the case's, else drawn with the ``seed`` option, as the heuristics do) and its bound
  the fluid bound, which no run can beat (``bounds.malleable``).

The gap report therefore flags a heuristic only when it beats a proven optimum or the fluid
bound, never because a lucky trace let it beat the fault-free optimum (which failures can do:
a failure right after a checkpoint lets a run reallocate mid-way, decision MA-1).
"""

from __future__ import annotations

import time

from resilsched.bounds.malleable import fluid_bound
from resilsched.models.malleable.faultfree import MAX_N, MAX_P, solve_faultfree
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status


def solve_yardstick(instance, scenario=None, *, time_limit=None, **options) -> Solution:
    """The yardstick of the module docstring."""
    opts = SolveOptions.of(time_limit, options)
    t0 = time.perf_counter()
    from resilsched.heuristics.malleable import (
        endgreedy_ig,
        endgreedy_saf,
        endlocal_ig,
        endlocal_saf,
        ff_endgreedy,
        ff_endlocal,
        ff_noredist,
        noredist,
    )

    if instance.fault_free and instance.n <= MAX_N and instance.p <= MAX_P:
        limit = None if opts.time_limit is None else max(0.01, opts.deadline.remaining())
        sol = solve_faultfree(instance, scenario, time_limit=limit, progress=opts.progress)
        return Solution(sol.objective, sol.bound, sol.status, "yardstick", sol.solver,
                        time.perf_counter() - t0, payload=sol.payload,
                        info={**sol.info, "reference": "faultfree-optimal"})
    if instance.fault_free:
        runs = [ff_endgreedy, ff_endlocal, ff_noredist]
        what = "best fault-free heuristic"
    else:
        runs = [endlocal_saf, endlocal_ig, endgreedy_saf, endgreedy_ig, noredist]
        what = "best realized makespan of the failure-aware heuristics on the trace"
    opts.say(f"yardstick: {what}")
    best = None
    for h in runs:
        if best is not None and opts.deadline.expired():
            break
        res = h(instance, scenario, seed=opts.seed)
        if best is None or res.objective < best.objective:
            best = res
    bound = fluid_bound(instance)
    return Solution(best.objective, min(bound, best.objective), Status.FEASIBLE, "yardstick",
                    "heuristics+fluid", time.perf_counter() - t0, payload=best.schedule,
                    info={"reference": what, "incumbent": best.heuristic,
                          "bound": "fluid"})
