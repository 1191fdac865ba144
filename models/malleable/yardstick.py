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

Every phase fits the time limit (decision MA-22): a run that cannot finish is refused before
anything starts (MA-19); the fluid bound is computed first, when its cost estimate fits
`BOUND_SHARE` of the time (else the cheaper bound max_i t_{i,p}, which it refines); the
heuristic runs go cheapest first, each in a forked child killed when the time left, minus what
the output needs, is spent (`models.coschedule.hardlimit`). When none finishes the answer is
``no_solution`` with the bound. With ``deterministic=True`` every run goes to its end, in
process, whatever the time limit (the same answer on every machine; their work is bounded by
MA-19 and MA-20).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from resilsched.bounds.malleable import fluid_bound
from resilsched.instances.malleable.traces import check_drawable
from resilsched.models.coschedule.hardlimit import GRACE, GRACE_SHARE, PhaseTimeout, run_limited
from resilsched.models.malleable.faultfree import MAX_N, MAX_P, solve_faultfree
from resilsched.options import SolveOptions
from resilsched.params import MAX_SEED
from resilsched.solution import Solution, Status

#: share of the time for the fluid bound, and its cost per even count of an explicit table
#: (the hull is a Python loop: 1-2 us per point measured on a loaded machine)
BOUND_SHARE = 0.25
HULL_SECONDS_PER_POINT = 4e-6
#: time kept for the output: a share of the limit and a cost per application (the payload's
#: phases are converted to JSON and printed)
OUTPUT_SHARE = 0.1
OUTPUT_SECONDS_PER_APP = 2e-5


@dataclass(frozen=True)
class YardstickOptions(SolveOptions):
    """The options of ``yardstick``: `seed` is the heuristics' seed, from which their runs
    draw the trace of an instance with failures that stores none (any seed a heuristic takes,
    so that a campaign gives the yardstick the seed of the heuristics it is compared with)."""

    seed: int = field(default=0, metadata={
        "low": 0, "high": MAX_SEED,
        "help": "seed of the heuristics' runs: the trace drawn when the instance stores none"})


def solve_yardstick(instance, scenario=None, *, time_limit=None, **options) -> Solution:
    """The yardstick of the module docstring."""
    opts = YardstickOptions.of(time_limit, options)
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
        runs = [ff_noredist, ff_endlocal, ff_endgreedy]
        what = "best fault-free heuristic"
    else:
        if scenario is None and instance.failures is None:
            check_drawable(instance)  # a run that cannot finish is refused up front (MA-19)
        runs = [noredist, endlocal_saf, endlocal_ig, endgreedy_saf, endgreedy_ig]
        what = "best realized makespan of the failure-aware heuristics on the trace"
    reserve = OUTPUT_SHARE * (opts.time_limit or 0.0) + OUTPUT_SECONDS_PER_APP * instance.n
    bound, bound_name = _bound(instance, opts)
    opts.say(f"yardstick: {what}")
    best, cut = None, False
    limited = opts.time_limit is not None and not opts.deterministic
    for h in runs:
        left = opts.deadline.remaining() - reserve
        if limited and left <= 0:
            cut = True
            break
        try:
            res = _run(h, instance, scenario, opts, left)
        except PhaseTimeout:
            cut = True
            break
        if best is None or res.objective < best.objective:
            best = res
    info = {"reference": what, "bound": bound_name, **({"timed_out": True} if cut else {})}
    if best is None:
        return Solution(None, bound, Status.NO_SOLUTION, "yardstick", "heuristics+fluid",
                        time.perf_counter() - t0, info=info)
    return Solution(best.objective, min(bound, best.objective), Status.FEASIBLE, "yardstick",
                    "heuristics+fluid", time.perf_counter() - t0, payload=best.schedule,
                    info={**info, "incumbent": best.heuristic})


def _run(h, instance, scenario, opts: SolveOptions, left: float):
    """One heuristic run; in a forked child killed after `left` seconds (its grace included)
    when the call has a time limit and is not deterministic."""
    def call():
        return h(instance, scenario, seed=opts.seed)

    if opts.time_limit is None or opts.deterministic:
        return call()
    return run_limited(call, max(0.0, (left - GRACE) / (1.0 + GRACE_SHARE)))


def _bound(instance, opts: SolveOptions) -> tuple[float, str]:
    """The fluid bound when its cost estimate fits `BOUND_SHARE` of the time left, else
    max_i t_{i,p} (every application needs at least its time on all processors)."""
    points = 0 if instance.synthetic_ab is not None else instance.n * instance.p_even // 2
    if opts.time_limit is None or points * HULL_SECONDS_PER_POINT <= \
            BOUND_SHARE * opts.deadline.remaining():
        opts.say("yardstick: fluid bound")
        return fluid_bound(instance), "fluid"
    longest = max(instance.time(i, instance.p_even) for i in range(instance.n))
    return float(longest), "max_i t_{i,p} (no time for the fluid bound)"

