"""Shared cases of the rigid heuristic tests: small random instances, the heuristics by name
(through the registry, as a user of the toolkit looks them up) and log-reading helpers.

Every schedule made by these tests goes through `resilsched.validation.validate_rigid_schedule`.
The invariant checks re-derive the rules of each heuristic from the attempt log alone (which
jobs were queued, which processors were free), so they do not trust the simulator's own state.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.families.rigid import FAMILY
from resilsched.heuristics.rigid.priorities import priority_keys
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.registry import heuristic
from resilsched.schedule import Schedule
from resilsched.solution import HeuristicResult

#: The registered heuristics, by name.
HEURISTICS = tuple(FAMILY.heuristics)


def simulate(instance: RigidInstance, scenario: Any, name: str, priority: str = "LPT",
             **params: Any) -> HeuristicResult:
    """Run the heuristic registered as `name` (case-insensitive) with its full schedule."""
    return heuristic(FAMILY, name).run(instance, scenario, priority, **params)


def makespan(instance: RigidInstance, scenario: Any, name: str, priority: str = "LPT",
             **params: Any) -> Any:
    """The same heuristic's fast path (``record=False``): the makespan only."""
    return simulate(instance, scenario, name, priority, record=False, **params).objective


RESERVATION_OPTIONS = [
    {},
    {"classic_easy": True},
    {"reservations": "persistent"},
    {"classic_easy": True, "reservations": "persistent"},
]


def random_case(rng: np.random.Generator, *, fractions: bool = False, n_max: int = 8,
                P_max: int = 8, f_max: int = 3):
    """A small random instance (exact times) and scenario."""
    P = int(rng.integers(1, P_max + 1))
    n = int(rng.integers(1, n_max + 1))
    jobs = []
    for _ in range(n):
        p = int(rng.integers(1, P + 1))
        t = int(rng.integers(1, 7))
        if fractions:
            t = Fraction(t, int(rng.integers(1, 4)))
        jobs.append((p, t))
    f = tuple(int(x) for x in rng.integers(0, f_max + 1, size=n))
    return RigidInstance.build(P, jobs), Scenario(f)


CASES = [random_case(np.random.default_rng(s), fractions=s % 2 == 1) for s in range(24)]


def static_order(instance: RigidInstance, priority: str) -> list[int]:
    keys = priority_keys(instance.p, instance.t, priority, P=instance.P)
    return sorted(range(instance.n), key=keys.__getitem__)


def event_times(schedule: Schedule) -> list:
    return sorted({0} | {a.end for a in schedule.attempts})


def state_after_pass(instance: RigidInstance, schedule: Schedule, e):
    """(free processors, queued jobs) right after the pass at time e, from the log alone."""
    running = [a for a in schedule.attempts if a.start <= e < a.end]
    free = instance.P - sum(a.p for a in running)
    busy = {a.job for a in running}
    finished = {a.job for a in schedule.attempts if not a.failed and a.end <= e}
    queued = [j for j in range(instance.n) if j not in busy and j not in finished]
    return free, queued
