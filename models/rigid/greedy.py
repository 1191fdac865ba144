"""An upper bound for the exact models: greedy list schedules of the attempt chains (spec 002 §4).

The best of a few R-LIST-0-style schedules gives CP-SAT its horizon and its solution hint, and
the refutation search its first incumbent. Integer arithmetic on a `ScaledScenario`.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

from resilsched.models.rigid.scaling import ScaledScenario
from resilsched.options import Deadline


def list_schedule(data: ScaledScenario, key: Sequence[Any]) -> list[list[int]]:
    """Greedy list scheduling of the attempt chains (R-LIST-0 style, spec 002 §4).

    At every event (time 0 and each attempt end) the ready jobs, in increasing `key`, start
    their next attempt when it fits in the free processors. Returns the start times per job.
    O(E n) for E events.
    """
    n = data.n
    starts: list[list[int]] = [[] for _ in range(n)]
    running: list[tuple[int, int]] = []  # heap of (end, job)
    busy = [False] * n
    order = sorted(range(n), key=lambda j: (key[j], j))
    free, now, left = data.P, 0, sum(data.m)
    narrowest = min(data.p, default=0)
    while left:
        while running and running[0][0] <= now:
            _, j = heapq.heappop(running)
            busy[j] = False
            free += data.p[j]
        for j in order if free >= narrowest else ():
            if not busy[j] and data.p[j] <= free and len(starts[j]) < data.m[j]:
                starts[j].append(now)
                busy[j] = True
                heapq.heappush(running, (now + data.t[j], j))
                free -= data.p[j]
                left -= 1
                if free < narrowest:
                    break
        if left:
            now = running[0][0]
    return starts


def makespan_of(data: ScaledScenario, starts: Sequence[Sequence[int]]) -> int:
    """End of the last attempt of a schedule given by its start times."""
    return max(s[-1] + data.t[j] for j, s in enumerate(starts))


def greedy_upper_bound(data: ScaledScenario, deadline: Deadline | None = None
                       ) -> tuple[int, list[list[int]]]:
    """Best of a few greedy list schedules: (makespan, starts) in scaled units.

    Priorities tried: longest remaining chain m_j t_j, LPT (t_j), largest area, widest p_j;
    after `deadline` no further one (the first is always built).
    """
    keys = [
        [-(data.m[j] * data.t[j]) for j in range(data.n)],
        [-data.t[j] for j in range(data.n)],
        [-(data.m[j] * data.t[j] * data.p[j]) for j in range(data.n)],
        [-data.p[j] for j in range(data.n)],
    ]
    best: tuple[int, list[list[int]]] | None = None
    for key in keys:
        if best is not None and deadline is not None and deadline.expired():
            break
        starts = list_schedule(data, key)
        mk = makespan_of(data, starts)
        if best is None or mk < best[0]:
            best = (mk, starts)
    assert best is not None
    return best
