"""Heuristics of the desktop family (spec 004 §3): GreedySlack and DAslack, each with the local
policies LPT, SPT, FFD, FFI and DPslack, with or without the slack rule (the 20 variants of
§3.4), and the runtime executor of §1.5.

The two registered heuristics take the local policy as their priority rule and the rule from the
instance (``"slack_rule"``), which ``slack="on"|"off"`` overrides, and ``fill="interval"|"job"``
chooses how FFD and FFI fill (Algorithm 3 bin by bin, or the prose's job by job, D-24); the run
is then executed on the trace disturbed by `scenario` (a `Disturbance`; None: the predicted
trace) and the result carries the disturbed makespan and the stability sigma = makespan / lambda
beside the horizon.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Literal

from resilsched.heuristics.desktop import executor
from resilsched.heuristics.desktop.policies import (
    GLOBAL,
    LOCAL,
    da_slack,
    greedy_slack,
    local_policy,
)
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance, Disturbance
from resilsched.solution import HeuristicResult

LOCAL_POLICIES = tuple(LOCAL)

Slack = Literal["instance", "on", "off"]
Fill = Literal["interval", "job"]


def rule_of(instance: DesktopInstance, slack: str) -> bool:
    return instance.slack_rule if slack == "instance" else slack == "on"


def build(instance: DesktopInstance, global_policy: str, local: str, slack: bool,
          fill: str = "interval") -> tuple[DesktopSchedule, float]:
    """One of the 20 variants: (allocation, build time in seconds, spec 4.4); `fill` is the
    reading of FFD and FFI (``interval``: Algorithm 3; ``job``: the prose, decision D-24)."""
    policy = local_policy(local, fill)
    t0 = time.perf_counter()
    sched = GLOBAL[global_policy](instance, policy, slack)
    if fill != "interval":
        sched = replace(sched, info={**sched.info, "fill": fill})
    return sched, time.perf_counter() - t0


def _result(instance: DesktopInstance, global_policy: str, scenario: Disturbance | None,
            priority: str | None, slack: str, fill: str) -> HeuristicResult:
    local = priority or "LPT"
    sched, seconds = build(instance, global_policy, local, rule_of(instance, slack), fill)
    return executed(instance, sched, seconds, scenario, global_policy, local)


def executed(instance: DesktopInstance, sched: DesktopSchedule, seconds: float,
             scenario: Disturbance | None, name: str, priority: str | None) -> HeuristicResult:
    """The result of allocation `sched`: run on the trace disturbed by `scenario` (None: the
    predicted one), with its makespan and stability beside the horizon."""
    run = executor.run(instance, sched, scenario)
    which = "disturbed" if scenario is not None else "nominal"
    sched = replace(sched, info={**sched.info, f"{which}_makespan": run.makespan,
                                 "stability": round(run.stability, 6)})
    extra = {
        "variant": sched.policy,
        "H": sched.H,
        "disturbed_makespan" if scenario is not None else "nominal_makespan": run.makespan,
        "stability": run.stability,
        "build_time": round(seconds, 6),
        "assumption_h1": instance.assumption_h1,  # 2 p_max <= a_min: Proposition 1 applies
    }
    return HeuristicResult(sched.horizon, name, priority, sched, extra)


def greedy_slack_heuristic(instance: DesktopInstance, scenario: Disturbance | None = None,
                           priority: str | None = None, *, seed: int = 0,
                           slack: Slack = "instance", fill: Fill = "interval") -> HeuristicResult:
    """GreedySlack (Algorithm 5) with the local policy `priority` (default LPT); `fill` reads
    FFD/FFI bin by bin (``interval``, Algorithm 3) or job by job (``job``, the prose, D-24)."""
    return _result(instance, "GreedySlack", scenario, priority, slack, fill)


def da_slack_heuristic(instance: DesktopInstance, scenario: Disturbance | None = None,
                       priority: str | None = None, *, seed: int = 0,
                       slack: Slack = "instance", fill: Fill = "interval") -> HeuristicResult:
    """DAslack (Algorithm 6, branch fixed) with the local policy `priority` (default LPT);
    `fill` as for `greedy_slack_heuristic`."""
    return _result(instance, "DAslack", scenario, priority, slack, fill)


def size_fit_construction(instance: DesktopInstance, scenario: Disturbance | None = None
                          ) -> HeuristicResult:
    """SizeFit (`sizefit`, decision D-27) bisected between LB_cap and the best of GreedySlack
    and DAslack with LPT (its upper end), under the instance's rule; the better of the two
    when SizeFit does not beat it."""
    from resilsched.bounds.desktop import lower_bound
    from resilsched.errors import HeuristicRefusal
    from resilsched.heuristics.desktop.sizefit import NAME, size_fit_search

    slack = instance.slack_rule
    t0 = time.perf_counter()
    best = None
    for g in ("GreedySlack", "DAslack"):
        try:
            sched, _ = build(instance, g, "LPT", slack)
        except HeuristicRefusal:
            continue
        if best is None or sched.horizon < best.horizon:
            best = sched
    top = best.horizon + 1 if best is not None else int(instance.flat["e"].max()) + 1
    found = size_fit_search(instance, slack, lower_bound(instance, None, slack) - 1, top)
    if found is not None and (best is None or found.horizon < best.horizon):
        best = found
    if best is None:
        raise HeuristicRefusal(NAME, "no allocation found (LPT refuses and no SizeFit probe "
                                     "placed every job)")
    return executed(instance, best, time.perf_counter() - t0, scenario, NAME, None)


__all__ = ["LOCAL_POLICIES", "DesktopSchedule", "build", "da_slack", "da_slack_heuristic",
           "executed", "greedy_slack", "greedy_slack_heuristic", "rule_of",
           "size_fit_construction"]
