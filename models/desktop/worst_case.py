"""The exact worst-case disturbance of an allocation, for tiny instances (spec 004 §1.4, §7.3).

C~max = the largest disturbed makespan over every admissible disturbance, with integer shifts
delta_i(k) in [-a_i(k), a_i(k+1)] (the last unavailability of a machine: [-a_i(K), 0], A-13),
the executor of spec 1.5 and merged overlapping unavailabilities; sigma = C~max / lambda. Times
are integer seconds (A-19), so the maximum over the integer box exists and is what is computed:
stability measured, not sampled.

Machines are independent (each runs its own queue against its own unavailabilities), so
C~max = max_i C~_i. For machine i the box over unavailabilities 1..k0 is enumerated exhaustively
(vectorised: one row per point), with the later unavailabilities left out, for k0 = 1, 2, ...:
once the worst completion C over that box is <= e_i(k0), the earliest start of unavailability
k0 + 1, no later unavailability can touch any run (they all start at or after C), so C is exact.
The box may not exceed ``max_points`` points (`InvalidInstance` otherwise: the instance is not
tiny).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop.executor import execute, machine_queues
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.disturbance import merge_periods

MAX_POINTS = 2_000_000


@dataclass(frozen=True)
class WorstCase:
    """C~max, sigma and, per machine, the worst completion and a shift vector reaching it."""

    makespan: int
    horizon: int
    machine_makespans: tuple[int, ...]
    deltas: tuple[tuple[int, ...], ...]  # per machine, shifts of unavailabilities 1..k0

    @property
    def stability(self) -> float:
        return self.makespan / self.horizon if self.horizon else float("inf")


def machine_worst(instance: DesktopInstance, i: int, durations: list[int],
                  max_points: int = MAX_POINTS) -> tuple[int, tuple[int, ...]]:
    """(worst completion of machine i's queue, a shift vector reaching it)."""
    mach = instance.machines[i]
    if not durations:
        return 0, ()
    e, s, a = mach.e, mach.s, mach.a
    Q = np.asarray([durations], dtype=np.int64)
    for k0 in range(1, mach.K + 1):
        ranges = [np.arange(-a[k], (a[k + 1] if k + 1 < mach.K else 0) + 1) for k in range(k0)]
        points = int(np.prod([len(r) for r in ranges], dtype=np.float64))
        if points > max_points:
            raise InvalidInstance("instance", f"machine {i}: {points} disturbances to enumerate "
                                              f"exceed {max_points} (the exact worst case is for "
                                              "tiny instances)")
        grid = np.stack([g.ravel() for g in np.meshgrid(*ranges, indexing="ij")], axis=1)
        starts = np.asarray(s[:k0], dtype=np.int64) + grid
        ends = np.asarray(e[1:k0 + 1], dtype=np.int64) + grid
        ms, me = merge_periods(starts, ends)
        done = execute(np.full(len(grid), mach.e0, dtype=np.int64),
                       np.repeat(Q, len(grid), axis=0), ms, me)
        last = done[:, -1]
        r = int(last.argmax())
        worst = int(last[r])
        if worst <= e[k0] or k0 == mach.K:
            return worst, tuple(int(x) for x in grid[r])
    raise AssertionError("unreachable")


def worst_disturbance(instance: DesktopInstance, schedule: DesktopSchedule,
                      max_points: int = MAX_POINTS) -> WorstCase:
    """C~max and sigma of `schedule` over all admissible integer disturbances."""
    per, deltas = [], []
    for i, q in enumerate(machine_queues(instance, schedule)):
        w, d = machine_worst(instance, i, q, max_points)
        per.append(w)
        deltas.append(d)
    return WorstCase(max(per), schedule.horizon, tuple(per), tuple(deltas))
