"""What every rigid heuristic does around its policy (spec 002 §2): read the scenario, build the
priority queue, run the event engine, report the result.

`prepare` is the one place where a heuristic's arguments meet the instance: a `Scenario` is
trusted (checked by the family's scenario hook), anything else goes through that hook.
`finish` turns an engine run into the `HeuristicResult`: objective = makespan T_ALG(f) (Eq. 1),
schedule = every attempt (or only the makespan, on the fast path ``record=False``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from resilsched.bounds.rigid import scenario_of
from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import Policy, run_engine
from resilsched.heuristics.rigid.priorities import (
    PriorityQueue,
    check_priority,
    key_name,
    key_queue,
    make_queue,
)
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.schedule import Schedule
from resilsched.solution import HeuristicResult

#: LJF's secondary rule (spec 002 §3, A16): any rule but LJF itself.
Secondary = Literal["LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random"]

#: Most attempts sum_j (f_j + 1) one simulation runs (about 10 us each; beyond, it would not
#: finish in reasonable time nor fit in memory with ``record=True``).
MAX_ATTEMPTS = 10**7


@dataclass
class Run:
    """One heuristic run being set up: the instance, f, the canonical priority, its queue."""

    instance: RigidInstance
    failures: tuple[int, ...]
    priority: str
    queue: PriorityQueue
    exact: bool


def prepare(instance: RigidInstance, scenario: Scenario | Sequence[int] | None,
            priority: str | None, seed: int, redraw_on_failure: bool,
            ljf_secondary: str) -> Run:
    """The scenario (default: the instance's stored one, else failure-free), the priority
    (default LPT; a rule name or a key function ``key(instance, j)``, smallest first) and the
    initial queue Q of a run."""
    sc = scenario_of(instance, scenario)
    if sc.attempts > MAX_ATTEMPTS:
        raise InvalidInstance("failures", f"{sc.attempts} attempts in all: a simulation takes "
                                          f"at most {MAX_ATTEMPTS}")
    f = sc.failures
    if callable(priority):
        rule, queue = key_name(priority), key_queue(instance, priority)
    else:
        rule = check_priority("LPT" if priority is None else priority)
        queue = make_queue(instance.p, instance.t, rule, P=instance.P, seed=seed,
                           redraw_on_failure=redraw_on_failure, ljf_secondary=ljf_secondary)
    exact = all(isinstance(x, (int, Fraction)) for x in instance.t)
    return Run(instance, f, rule, queue, exact)


def changed(**values: Any) -> dict[str, Any]:
    """The parameters given a value other than their default (False, "LPT" or "fresh")."""
    return {k: v for k, v in values.items() if v not in (False, "LPT", "fresh")}


def finish(name: str, run: Run, policy: Policy, record: bool, options: dict[str, Any],
           shelves: bool = False) -> HeuristicResult:
    """Simulate `policy` and report: ``extra`` holds the attempt and pass counts, the
    non-default parameters and, for shelf heuristics, the shelves (``start``, ``end``,
    ``jobs``). With ``record=False`` only the makespan (the fast path of experiments)."""
    t = run.instance.t
    res = run_engine(run.instance.P, run.failures, lambda j, p: t[j], policy, record=record,
                     exact=run.exact)
    if not record:
        return HeuristicResult(objective=res.makespan, heuristic=name, priority=run.priority)
    extra: dict[str, Any] = {"attempts": res.attempt_count, "passes": res.events}
    if options:
        extra["options"] = options
    if shelves:
        extra["shelves"] = [{"start": s, "end": e, "jobs": list(m)}
                            for s, e, m in policy.shelves]  # type: ignore[attr-defined]
    return HeuristicResult(objective=res.makespan, heuristic=name, priority=run.priority,
                           schedule=Schedule(res.attempts, res.makespan), extra=extra)
