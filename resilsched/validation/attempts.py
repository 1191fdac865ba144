"""Attempt schedules of parallel jobs under silent errors (rigid and moldable families).

These checks share no code with the simulators or the solvers they verify. Every schedule a test
makes goes through one of them.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Any

from resilsched.errors import InvalidSchedule
from resilsched.numeric import time_eq, time_le, time_lt
from resilsched.schedule import Schedule


def validate_attempts(
    schedule: Schedule,
    P: int,
    failures: Sequence[int],
    duration: Callable[[int, int], Any],
    allowed_p: Callable[[int, int], bool],
) -> None:
    """Check an attempt schedule of n jobs on P processors under scenario f (spec 002 §2).

    Rules: job j has exactly f_j + 1 attempts numbered 1..f_j+1, the first f_j failed and the
    last successful; each attempt lasts ``duration(j, p)`` on ``p`` processors with
    ``allowed_p(j, p)``; attempts of one job are sequential (Eq. 3); at every instant the running
    attempts use at most P processors (Eq. 2); the makespan is the last successful end (Eq. 1).

    Raises `InvalidSchedule` naming the first broken rule.
    """
    n = len(failures)
    by_job: list[list] = [[] for _ in range(n)]
    for a in schedule.attempts:
        if not 0 <= a.job < n:
            raise InvalidSchedule(f"attempt of unknown job {a.job}")
        by_job[a.job].append(a)
    last_end = None
    for j, atts in enumerate(by_job):
        atts.sort(key=lambda a: a.k)
        if [a.k for a in atts] != list(range(1, failures[j] + 2)):
            raise InvalidSchedule(
                f"job {j}: attempts {[a.k for a in atts]} but f_{j}={failures[j]} "
                f"needs 1..{failures[j] + 1}"
            )
        for a in atts:
            if a.failed != (a.k <= failures[j]):
                raise InvalidSchedule(
                    f"job {j} attempt {a.k}: failed={a.failed} contradicts f_{j}={failures[j]}"
                )
            if not allowed_p(j, a.p):
                raise InvalidSchedule(
                    f"job {j} attempt {a.k}: p={a.p} is not an allowed allocation"
                )
            if time_lt(a.start, 0):
                raise InvalidSchedule(f"job {j} attempt {a.k}: starts at {a.start} < 0")
            if not time_eq(a.end - a.start, duration(j, a.p)):
                raise InvalidSchedule(
                    f"job {j} attempt {a.k}: lasts {a.end - a.start}, expected {duration(j, a.p)}"
                )
        for prev, nxt in zip(atts, atts[1:], strict=False):
            if time_lt(nxt.start, prev.end):
                raise InvalidSchedule(
                    f"job {j}: attempt {nxt.k} starts at {nxt.start} "
                    f"before attempt {prev.k} ends at {prev.end}"
                )
        end = atts[-1].end
        last_end = end if last_end is None or end > last_end else last_end
    if last_end is None or not time_eq(schedule.makespan, last_end):
        raise InvalidSchedule(f"makespan {schedule.makespan} != last successful end {last_end}")

    running: list[tuple[Any, int]] = []  # heap of (end, p)
    used = 0
    for a in sorted(schedule.attempts, key=lambda a: a.start):
        while running and time_le(running[0][0], a.start):
            used -= heapq.heappop(running)[1]
        used += a.p
        if used > P:
            raise InvalidSchedule(f"capacity: {used} processors in use at time {a.start} > P={P}")
        heapq.heappush(running, (a.end, a.p))


def validate_rigid_schedule(instance, scenario, schedule: Schedule) -> None:
    """`validate_attempts` for a `RigidInstance`: each attempt of job j uses p_j for t_j."""
    jobs = instance.jobs
    validate_attempts(
        schedule,
        instance.P,
        scenario.failures,
        duration=lambda j, p: jobs[j].t,
        allowed_p=lambda j, p: p == jobs[j].p,
    )
