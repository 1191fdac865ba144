"""Shared helpers of the rigid exact-model tests: tiny random scenarios, schedules from JSON."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.schedule import Attempt, Schedule
from resilsched.solution import Solution


def random_tiny(rng: np.random.Generator, max_attempts: int = 8
                ) -> tuple[RigidInstance, Scenario]:
    """n <= 5 jobs, P in 1..6, t in 1..6, f in 0..2, at most `max_attempts` attempts."""
    P = int(rng.integers(1, 7))
    n = int(rng.integers(1, 6))
    jobs = [(int(rng.integers(1, P + 1)), int(rng.integers(1, 7))) for _ in range(n)]
    f = [int(rng.integers(0, 3)) for _ in range(n)]
    while sum(f) + n > max_attempts:
        j = int(np.argmax(f))
        if f[j] == 0:
            break
        f[j] -= 1
    return RigidInstance.build(P, jobs), Scenario(tuple(f))


def random_scenario(rng: np.random.Generator, P: tuple[int, int], n: tuple[int, int],
                    t_max: int) -> tuple[RigidInstance, Scenario]:
    """P in [P[0], P[1]), n in [n[0], n[1]) jobs, p in 1..P, t in 1..t_max, f in 0..2."""
    procs = int(rng.integers(*P))
    count = int(rng.integers(*n))
    jobs = [(int(rng.integers(1, procs + 1)), int(rng.integers(1, t_max + 1)))
            for _ in range(count)]
    f = [int(rng.integers(0, 3)) for _ in range(count)]
    return RigidInstance.build(procs, jobs), Scenario(tuple(f))


def schedule_from_payload(sol: Solution) -> Schedule:
    """Rebuild the `Schedule` from a solution payload (what a user of the JSON would do: the
    exact value where there is one, else the number)."""
    d = sol.to_dict()["solution"]
    atts = tuple(
        Attempt(a["job"], a["k"], _num(a, "start"), _num(a, "end"), a["p"], a["failed"])
        for a in d["attempts"]
    )
    return Schedule(atts, _num(d, "makespan"))


def _num(d, name):
    return Fraction(d[f"{name}_exact"]) if f"{name}_exact" in d else d[name]
