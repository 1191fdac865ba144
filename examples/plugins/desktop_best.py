"""BEST-LOCAL: GreedySlack with every local policy, the smallest horizon (one's own heuristic).

Built from public pieces: GreedySlack (Algorithm 5) runs once per local policy (LPT, SPT, FFD,
FFI, DPslack) under the instance's slack rule, and the allocation of the smallest horizon is
kept (docs/own-heuristic.md).
"""

from resilsched import HeuristicResult, InvalidInstance
from resilsched.heuristics.desktop.policies import LOCAL, greedy_slack


def best_local(instance, scenario=None, priority=None, *, seed: int = 0):
    """BEST-LOCAL: the GreedySlack allocation of the smallest horizon over the five local
    policies."""
    schedules = []
    for local in LOCAL.values():
        try:
            schedules.append(greedy_slack(instance, local, instance.slack_rule))
        except InvalidInstance:  # this policy cannot place every job on the trace
            continue
    if not schedules:
        raise InvalidInstance("machines", "no local policy places every job")
    best = min(schedules, key=lambda s: s.horizon)
    return HeuristicResult(best.horizon, "BEST-LOCAL", None, best, {"variant": best.policy})
