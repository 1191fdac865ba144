"""Moldable-job heuristics under silent errors (spec 000 §3): LPA-LIST, BATCH-LIST, baselines.

`simulate` runs one heuristic with one priority rule on one failure scenario through the shared
event engine and returns a `HeuristicResult` (objective = makespan, schedule = the attempt-level
`Schedule`, extra = allocation facts). `Simulator` is the experiments' fast path: allocations
are computed once per job set and each scenario runs the compiled LIST kernel; it returns the
same makespans (tested).

Heuristics: ``LPA-LIST`` (Algorithm 2 + LIST), ``LPA-PROOF`` (the proof allocations of §3.3 +
LIST), ``MINTIME`` and ``MINAREA`` (§3.5), ``BATCH-LIST`` (§3.4 with MT-ALLOTMENT, eps = 0.3,
eps2 = 0.03, area_slack = 1.1, attempt_order = desc_p).

>>> from resilsched.instances.moldable import MoldableInstance, Roofline
>>> from resilsched.instances.failures import Scenario
>>> inst = MoldableInstance(4, (Roofline(8, 2), Roofline(8, 2), Roofline(4, 4)))
>>> simulate(inst, Scenario((1, 0, 0)), "LPA-LIST", "LPT").objective
9.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.moldable.allocation import ALLOCATIONS, lpa, lpa_proof, minarea, mintime
from resilsched.heuristics.moldable.batch import BatchPlanner, MTAllotment
from resilsched.heuristics.moldable.listsched import (
    PRIORITIES,
    check_priority,
    run_list,
)
from resilsched.schedule import Schedule
from resilsched.solution import HeuristicResult

HEURISTICS = ("LPA-LIST", "BATCH-LIST", "MINTIME", "MINAREA", "LPA-PROOF")
_FIXED = {"LPA-LIST": "LPA", "LPA-PROOF": "LPA-PROOF", "MINTIME": "MINTIME", "MINAREA": "MINAREA"}
BATCH_OPTIONS = ("eps", "eps2", "area_slack", "attempt_order", "g1_exact")

__all__ = ["HEURISTICS", "PRIORITIES", "BatchPlanner", "MTAllotment", "Simulator", "allocation",
           "lpa", "lpa_proof", "minarea", "mintime", "simulate"]


def check_heuristic(name: str) -> str:
    for h in HEURISTICS:
        if isinstance(name, str) and name.upper() == h:
            return h
    raise InvalidInstance("heuristic", f"{name!r} is unknown (choose from {', '.join(HEURISTICS)})")


def allocation(instance, heuristic: str) -> np.ndarray:
    """The fixed allocation p_j of a LIST heuristic (LPA-LIST, LPA-PROOF, MINTIME, MINAREA)."""
    return ALLOCATIONS[_FIXED[check_heuristic(heuristic)]](instance)


def _check_scenario(instance, scenario) -> None:
    if len(scenario.failures) != instance.n:
        raise InvalidInstance("failures", f"has {len(scenario.failures)} entries but the "
                              f"instance has {instance.n} jobs")


def simulate(instance, scenario, heuristic: str, priority: str | None = "LPT",
             **options: Any) -> HeuristicResult:
    """Run `heuristic` with `priority` on `scenario` through the engine (attempt log recorded)."""
    heuristic = check_heuristic(heuristic)
    priority = check_priority(priority)
    _check_scenario(instance, scenario)
    f = list(scenario.failures)
    if heuristic == "BATCH-LIST":
        bad = set(options) - set(BATCH_OPTIONS)
        if bad:
            raise InvalidInstance("options", f"{sorted(bad)} are not options of BATCH-LIST")
        planner = BatchPlanner(instance, **options)
        ms, log, batch_of = planner.simulate(f, priority)
        sched = Schedule(tuple(log), ms)
        return HeuristicResult(ms, heuristic, priority, sched,
                               {"batches": max(batch_of), "batch_of_job": batch_of})
    if options:
        raise InvalidInstance("options", f"{sorted(options)} are not options of {heuristic}")
    p = allocation(instance, heuristic)
    res = run_list(instance, f, lambda j, k: int(p[j]), priority)
    assert res.attempts is not None
    sched = Schedule(res.attempts, res.makespan)
    return HeuristicResult(res.makespan, heuristic, priority, sched,
                           {"allocation": p.tolist()})


class Simulator:
    """Fast path for experiments: one job set, allocations cached, many scenarios (spec §5)."""

    def __init__(self, instance, **batch_options: Any):
        self.instance = instance
        self._alloc: dict[str, np.ndarray] = {}
        self._batch_options = batch_options
        self._planner: BatchPlanner | None = None
        self._fixed: dict[tuple[str, str], tuple] = {}

    def planner(self) -> BatchPlanner:
        if self._planner is None:
            self._planner = BatchPlanner(self.instance, **self._batch_options)
        return self._planner

    def alloc(self, heuristic: str) -> np.ndarray:
        heuristic = check_heuristic(heuristic)
        if heuristic not in self._alloc:
            self._alloc[heuristic] = allocation(self.instance, heuristic)
        return self._alloc[heuristic]

    def _inputs(self, heuristic: str, priority: str) -> tuple:
        """Kernel inputs of a fixed-allocation heuristic, built once per (heuristic, priority)."""
        k = (heuristic, priority)
        if k not in self._fixed:
            p = self.alloc(heuristic)
            n = self.instance.n
            t = self.instance.T[np.arange(n), p - 1]
            key = t if priority == "LPT" else (p.astype(float) if priority == "HPA" else p * t)
            order = np.lexsort((np.arange(n), -key)).astype(np.int64)  # (-key, j): no shifting
            self._fixed[k] = (np.ascontiguousarray(t[:, None]), np.ascontiguousarray(p[:, None]),
                              np.ascontiguousarray(key[:, None]), np.zeros(n, dtype=np.int64),
                              order)
        return self._fixed[k]

    def makespan(self, failures, heuristic: str, priority: str = "LPT",
                 use_c: bool | None = None) -> float:
        """Makespan of `heuristic` on one scenario (same value as `simulate`)."""
        from resilsched.heuristics.moldable import _kernel

        heuristic = check_heuristic(heuristic)
        priority = check_priority(priority)
        if heuristic == "BATCH-LIST":
            return self.planner().makespan(failures, priority, use_c)[0]
        t, p, key, cap, order = self._inputs(heuristic, priority)
        f = np.asarray(failures, dtype=np.int64)
        return _kernel.list_run(self.instance.P, t, p, key, f, cap, order, use_c)[0]
