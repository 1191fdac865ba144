"""The experiments' fast path of the moldable heuristics (spec 000 §5): one job set, many scenarios.

`Simulator` computes what does not depend on the scenario once per job set (the allocations of
the fixed-allocation heuristics, BATCH-LIST's first-batch allotment and its later allotments per
pending set) and runs each scenario through the compiled LIST kernel
(`resilsched.heuristics.moldable._kernel`) without an attempt log. It returns the same
makespans as the registered heuristics (tested bit for bit):

- ``makespan(failures, allocation_rule, priority)`` for LIST with a fixed allocation, the rule
  being the allocation function itself (`lpa`, `lpa_proof`, `mintime`, `minarea`, or any
  ``instance -> p_j array``): the same as `lpa_list`, `lpa_proof_list`, ...;
- ``makespans(F, rule, priority)``: `makespan` for every row of a failure matrix F, in one call
  of the compiled core (`resilsched.engine`; the Python loop without it);
- ``batch_makespan(failures, priority)``: the same as `batch_list` with the options given to
  the constructor.

>>> from resilsched.instances.moldable import MoldableInstance, Roofline
>>> from resilsched.heuristics.moldable.allocation import lpa
>>> inst = MoldableInstance(4, (Roofline(8, 2), Roofline(8, 2), Roofline(4, 4)))
>>> sim = Simulator(inst)
>>> sim.makespan([1, 0, 0], lpa, "LPT"), sim.batch_makespan([1, 0, 0], "LPT")
(9.0, 9.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from resilsched.heuristics.moldable._kernel import list_run, list_runs
from resilsched.heuristics.moldable.batch import BatchPlanner
from resilsched.heuristics.moldable.listsched import check_priority

#: an allocation rule: instance -> processors p_j of every job (int64 array, 1 <= p_j <= P)
AllocationRule = Callable[[Any], np.ndarray]


class Simulator:
    """Fast path for one job set (see the module docstring).

    Parameters
    ----------
    instance : the job set.
    batch_options : keyword arguments of `BatchPlanner` (eps, eps2, area_slack, attempt_order,
        g1_exact), trusted as given (the reproduction checks its options).
    """

    def __init__(self, instance, **batch_options: Any):
        self.instance = instance
        self._batch_options = batch_options
        self._planner: BatchPlanner | None = None
        self._alloc: dict[AllocationRule, np.ndarray] = {}
        self._inputs: dict[tuple[AllocationRule, str], tuple] = {}

    def planner(self) -> BatchPlanner:
        """BATCH-LIST's planner for this job set (allotments cached across scenarios)."""
        if self._planner is None:
            self._planner = BatchPlanner(self.instance, **self._batch_options)
        return self._planner

    def alloc(self, rule: AllocationRule) -> np.ndarray:
        """``rule(instance)``, computed once per rule."""
        if rule not in self._alloc:
            self._alloc[rule] = np.asarray(rule(self.instance), dtype=np.int64)
        return self._alloc[rule]

    def _kernel_inputs(self, rule: AllocationRule, priority: str) -> tuple:
        """Kernel inputs of a fixed allocation, built once per (rule, priority)."""
        k = (rule, priority)
        if k not in self._inputs:
            p = self.alloc(rule)
            n = self.instance.n
            t = self.instance.T[np.arange(n), p - 1]
            key = t if priority == "LPT" else (p.astype(float) if priority == "HPA" else p * t)
            order = np.lexsort((np.arange(n), -key)).astype(np.int64)  # (-key, j): no shifting
            self._inputs[k] = (np.ascontiguousarray(t[:, None]), np.ascontiguousarray(p[:, None]),
                               np.ascontiguousarray(key[:, None]), np.zeros(n, dtype=np.int64),
                               order)
        return self._inputs[k]

    def makespan(self, failures: Sequence[int], rule: AllocationRule, priority: str = "LPT",
                 use_c: bool | None = None) -> float:
        """Makespan of LIST with the allocation ``rule(instance)`` on one scenario."""
        priority = check_priority(priority)
        t, p, key, cap, order = self._kernel_inputs(rule, priority)
        f = np.asarray(failures, dtype=np.int64)
        return list_run(self.instance.P, t, p, key, f, cap, order, use_c)[0]

    def makespans(self, F: np.ndarray, rule: AllocationRule, priority: str = "LPT",
                  use_c: bool | None = None) -> np.ndarray:
        """`makespan` of every scenario (row) of the failure matrix ``F`` (S x n), batched."""
        priority = check_priority(priority)
        t, p, key, cap, order = self._kernel_inputs(rule, priority)
        return list_runs(self.instance.P, t, p, key, F, cap, order, use_c)

    def batch_makespan(self, failures: Sequence[int], priority: str = "LPT",
                       use_c: bool | None = None) -> float:
        """Makespan of BATCH-LIST on one scenario."""
        return self.planner().makespan(failures, check_priority(priority), use_c)[0]
