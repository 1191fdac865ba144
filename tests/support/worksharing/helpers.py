"""Shared helpers of the worksharing tests: the registered heuristics by name (the registry is
the one place that resolves names) and their plans."""

from __future__ import annotations

from resilsched.heuristics.worksharing.plan import Plan
from resilsched.registry import get_family

FAMILY = get_family("worksharing")
#: every registered heuristic name
HEURISTICS = tuple(FAMILY.heuristics)
GROUP_HEURISTICS = tuple(h for h in HEURISTICS if h.startswith(("greedy", "group-")))
BASELINES = tuple(h for h in HEURISTICS if h not in GROUP_HEURISTICS)


def run(name: str, inst, n: float | None = None, seed: int = 0):
    """The `HeuristicResult` of heuristic `name` (n = None: automatic chunk count)."""
    return FAMILY.heuristics[name].run(inst, seed=seed, n=0.0 if n is None else n)


def plan(name: str, inst, n: float | None = None, seed: int = 0) -> Plan:
    """The `Plan` (schedule and how it was built) of heuristic `name`."""
    return run(name, inst, n, seed).schedule
