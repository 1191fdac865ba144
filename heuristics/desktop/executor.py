"""The runtime executor of a desktop-grid allocation (spec 004 §1.5, A-14 to A-16).

Each machine runs one FIFO queue, the jobs of pi_i(1), then pi_i(2), ... in allocation order
(the interval order is kept). It starts at e_i(0), is work-conserving and has no look-ahead: a
job starts as soon as the machine is free and not unavailable, even if a (disturbed)
unavailability will cut it. An unavailability that begins while a job runs loses the job's work;
the job restarts from scratch on the same machine when the unavailability ends. A job that ends
exactly when an unavailability starts is complete (closed-open intervals). The unavailabilities
are the disturbed ones, merged (`resilsched.instances.desktop.disturbance`); after the last one
the machine stays available.

`execute` runs many independent rows at once (numpy over rows: machines of one schedule, or one
machine under many disturbances in `resilsched.models.desktop.worst_case`), slot by slot: slot s
is the s-th job of every row's queue. The disturbed makespan is the largest completion time;
the stability of one run is sigma = makespan / lambda (spec 1.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import resilsched.heuristics.desktop._ckernel as _ckernel
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance, Disturbance
from resilsched.instances.desktop.disturbance import periods_matrix


def execute(e0: np.ndarray, queues: Sequence[Sequence[int]], starts: np.ndarray,
            ends: np.ndarray) -> np.ndarray:
    """Completion time of every job of every row: an (R, J) int64 array (0 past a queue's end).

    `e0[r]` is row r's start; `queues[r]` its job durations in FIFO order (or one (R, J) array
    when every row runs J jobs); `starts[r]`,
    `ends[r]` its sorted, merged unavailabilities, padded with periods at a far sentinel time
    (every period starts at or after e0[r]).
    """
    R = len(queues)
    if isinstance(queues, np.ndarray):
        Q = queues.astype(np.int64, copy=False)
        nj = np.full(R, Q.shape[1], dtype=np.int64)
    else:
        nj = np.fromiter((len(q) for q in queues), dtype=np.int64, count=R)
        Q = np.zeros((R, int(nj.max()) if R else 0), dtype=np.int64)
        for r, q in enumerate(queues):
            Q[r, :len(q)] = q
    J = Q.shape[1]
    out = np.zeros((R, J), dtype=np.int64)
    if J == 0:
        return out
    t = np.asarray(e0, dtype=np.int64).copy()
    ptr = np.zeros(R, dtype=np.int64)
    rows = np.arange(R)
    for s in range(J):
        idx = rows[nj > s]
        dur = Q[idx, s]
        tt = t[idx]
        pp = ptr[idx]
        inside = starts[idx, pp] <= tt  # the machine is unavailable when the job could start
        if inside.any():
            tt = np.where(inside, ends[idx, pp], tt)
            pp = pp + inside
        while True:
            hit = starts[idx, pp] < tt + dur  # cut before completing: restart after the period
            if not hit.any():
                break
            tt = np.where(hit, ends[idx, pp], tt)
            pp = pp + hit
        tt = tt + dur
        t[idx] = tt
        ptr[idx] = pp
        out[idx, s] = tt
    return out


def machine_queues(instance: DesktopInstance, schedule: DesktopSchedule) -> list[list[int]]:
    """Durations t_ij of each machine's FIFO queue (spec 1.5)."""
    queues: list[list[int]] = [[] for _ in range(instance.m)]
    for (i, _k), jobs in sorted(schedule.intervals.items()):
        queues[i].extend(instance.t(i, j) for j in jobs)
    return queues


@dataclass(frozen=True)
class Execution:
    """One run of an allocation on a (disturbed) trace."""

    makespan: int
    horizon: int
    machine_makespans: tuple[int, ...]

    @property
    def stability(self) -> float:
        """sigma = makespan / lambda (spec 1.4); <= 1 means stable."""
        return self.makespan / self.horizon if self.horizon else float("inf")


def run(instance: DesktopInstance, schedule: DesktopSchedule,
        disturbance: Disturbance | None = None,
        periods: tuple[np.ndarray, np.ndarray] | None = None) -> Execution:
    """Execute `schedule` on the trace disturbed by `disturbance` (None: the predicted trace).

    `periods` may hold the merged unavailabilities of that trace (`periods_matrix`), computed
    once and shared by every schedule run on it.
    """
    starts, ends = periods if periods is not None else periods_matrix(instance, disturbance)
    e0 = np.fromiter((mach.e0 for mach in instance.machines), dtype=np.int64,
                     count=instance.m)
    done = execute(e0, machine_queues(instance, schedule), starts, ends)
    per = done.max(axis=1) if done.shape[1] else np.zeros(instance.m, dtype=np.int64)
    return Execution(int(per.max()), schedule.horizon, tuple(int(x) for x in per))


@dataclass(frozen=True)
class StackedTraces:
    """Several disturbed traces of one instance stacked for `makespans`: row r * m + i is
    machine i on trace r (starts, ends padded at FAR; e0 repeated)."""

    count: int
    starts: np.ndarray
    ends: np.ndarray
    e0: np.ndarray


def stack_traces(instance: DesktopInstance,
                 traces: Sequence[tuple[np.ndarray, np.ndarray]]) -> StackedTraces:
    """Stack `periods_matrix` outputs once, for every schedule run on them."""
    R, m = len(traces), instance.m
    width = max((t[0].shape[1] for t in traces), default=1)
    starts = np.full((R * m, width), np.iinfo(np.int64).max // 4, dtype=np.int64)
    ends = starts.copy()
    for r, (s, e) in enumerate(traces):
        starts[r * m:(r + 1) * m, :s.shape[1]] = s
        ends[r * m:(r + 1) * m, :e.shape[1]] = e
    e0 = np.tile(np.fromiter((mach.e0 for mach in instance.machines), dtype=np.int64,
                             count=m), R)
    return StackedTraces(R, starts, ends, e0)


def makespans(instance: DesktopInstance, schedule: DesktopSchedule,
              traces: Sequence[tuple[np.ndarray, np.ndarray]] | StackedTraces) -> list[int]:
    """The disturbed makespan of `schedule` on each trace (`periods_matrix` outputs, or those
    stacked once by `stack_traces`), all traces in one `execute` call (rows = traces x
    machines); the same values as `run`."""
    stacked = traces if isinstance(traces, StackedTraces) else stack_traces(instance, traces)
    R, m = stacked.count, instance.m
    if R == 0:
        return []
    queues = machine_queues(instance, schedule)
    dll = _ckernel.lib()
    if dll is not None:  # the same loop in C (decision D-16)
        qoff = np.zeros(R * m + 1, dtype=np.int64)
        qoff[1:] = np.cumsum([len(q) for q in queues] * R)
        qdur = np.tile(np.fromiter((x for q in queues for x in q), dtype=np.int64,
                                   count=int(qoff[m])), R)
        per = np.zeros(R * m, dtype=np.int64)
        dll.exec_rows(R * m, stacked.e0, qoff, qdur, stacked.starts, stacked.ends,
                      stacked.starts.shape[1], per)
    else:
        done = execute(stacked.e0, queues * R, stacked.starts, stacked.ends)
        per = done.max(axis=1) if done.shape[1] else np.zeros(R * m, dtype=np.int64)
    return [int(x) for x in per.reshape(R, m).max(axis=1)]
