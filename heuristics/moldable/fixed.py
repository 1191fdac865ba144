"""The fixed-allocation LIST heuristics of the moldable family (spec 000 §3.1-§3.3, §3.5).

Each heuristic gives job j one processor count p_j for all its attempts and runs LIST
(Algorithm 1, `resilsched.heuristics.moldable.listsched`) on the shared event engine, which
records the attempt log:

- `lpa_list` (``LPA-LIST``): p_j from Algorithm 2 (`allocation.lpa`), §3.2;
- `lpa_proof_list` (``LPA-PROOF``): the explicit allocations of the proofs of Thms 1-6, §3.3;
- `mintime_list` (``MINTIME``) and `minarea_list` (``MINAREA``): argmin of t_j(p) / a_j(p), §3.5.

They share the contract of every registered heuristic (`resilsched.plugin`):
``fn(instance, scenario=None, priority=None, *, seed=0) -> HeuristicResult`` with the makespan
as objective, the attempt-level `Schedule` as schedule and ``extra = {"allocation": [p_j]}``.
``scenario=None`` is the instance's stored scenario (failure-free without one); a scenario is
trusted as given (the family's ``scenario`` hook checks it once, at the boundary). ``priority``
is LPT (default), HPA or LA (§3.6); ``seed`` is accepted for the contract (the heuristics are
deterministic).

>>> from resilsched.instances.moldable import MoldableInstance, Roofline
>>> from resilsched.instances.failures import Scenario
>>> inst = MoldableInstance(4, (Roofline(8, 2), Roofline(8, 2), Roofline(4, 4)))
>>> res = lpa_list(inst, Scenario((1, 0, 0)), "LPT")
>>> res.objective, res.extra["allocation"]
(9.0, [2, 2, 4])
"""

from __future__ import annotations

import numpy as np

from resilsched.heuristics.moldable.allocation import lpa, lpa_proof, minarea, mintime
from resilsched.heuristics.moldable.listsched import check_priority, label, run_list
from resilsched.schedule import Schedule
from resilsched.solution import HeuristicResult


def list_schedule(instance, scenario, priority: str | None, allocation: np.ndarray,
                  name: str) -> HeuristicResult:
    """LIST with job j on ``allocation[j]`` processors for every attempt (Algorithm 1).

    `name` is the heuristic's name in the result; `priority` is checked here (None = LPT).
    """
    priority = check_priority(priority)
    if scenario is None:
        scenario = instance.scenario()
    p = [int(x) for x in allocation]
    res = run_list(instance, scenario.failures, lambda j, k: p[j], priority)
    assert res.attempts is not None
    return HeuristicResult(res.makespan, name, label(priority),
                           Schedule(res.attempts, res.makespan),
                           {"allocation": p})


def lpa_list(instance, scenario=None, priority: str | None = None, *,
             seed: int = 0) -> HeuristicResult:
    """LPA-LIST: Local Processor Allocation (Algorithm 2) + LIST, spec 000 §3.2.

    p_j minimises r(a_j(p)/a_min,j, t_j(p)/t_min,j) of Eq. 10 (smallest p on ties); O(nP) for
    the allocation, O(A log A + A n) for LIST over A attempts. Guarantees of Thms 1-4 when all
    jobs follow one of the roofline, communication, Amdahl or mix models.
    """
    return list_schedule(instance, scenario, priority, lpa(instance), "LPA-LIST")


def lpa_proof_list(instance, scenario=None, priority: str | None = None, *,
                   seed: int = 0) -> HeuristicResult:
    """LPA-PROOF: the allocations of the proofs of Thms 1-6 + LIST, spec 000 §3.3."""
    return list_schedule(instance, scenario, priority, lpa_proof(instance), "LPA-PROOF")


def mintime_list(instance, scenario=None, priority: str | None = None, *,
                 seed: int = 0) -> HeuristicResult:
    """MINTIME: p_j = smallest argmin_p t_j(p) (SET) + LIST, spec 000 §3.5."""
    return list_schedule(instance, scenario, priority, mintime(instance), "MINTIME")


def minarea_list(instance, scenario=None, priority: str | None = None, *,
                 seed: int = 0) -> HeuristicResult:
    """MINAREA: p_j = smallest argmin_p p t_j(p) (within 1e-12, decision M3) + LIST, §3.5."""
    return list_schedule(instance, scenario, priority, minarea(instance), "MINAREA")
