"""EFFICIENT-LIST: moldable jobs on few processors, the longest job first (one's own heuristic).

Built from public pieces: each job gets the fewest processors whose time is within `slack` of
its fastest time, and LIST (Algorithm 1 on the event engine) runs them with a priority key of
our own (docs/own-heuristic.md).
"""

import numpy as np

from resilsched import HeuristicResult
from resilsched.heuristics.moldable.listsched import run_list
from resilsched.schedule import Schedule


def longest(instance, j):
    """Priority key: the longest sequential time first (the smallest key goes first)."""
    return -instance.w[j]


def efficient_list(instance, scenario=None, priority=None, *, seed: int = 0,
                   slack: float = 1.5):
    """EFFICIENT-LIST: job j on the fewest processors p with t_j(p) <= slack x min t_j, then
    LIST, the longest sequential time first."""
    T = instance.T
    allocation = [int(np.argmax(T[j] <= slack * T[j].min())) + 1 for j in range(instance.n)]
    failures = (scenario or instance.scenario()).failures
    run = run_list(instance, failures, lambda j, k: allocation[j], longest)
    return HeuristicResult(run.makespan, "EFFICIENT-LIST", None,
                           Schedule(run.attempts, run.makespan), {"allocation": allocation})
