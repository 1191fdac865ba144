"""The picture of a desktop-grid allocation: per machine, its plan and its run (spec 004 §1.4-1.5).

Each machine has two rows:

- ``plan``: the predicted trace, its availabilities [e(k-1), s(k)) and unavailabilities
  [s(k), e(k)) (and [0, e(0)) before it becomes usable), the jobs of each interval pi_i(k) laid
  end to end from e(k-1) in allocation order, and the slack, the rest of each availability;
- ``run``: what the runtime executor does on the scenario's trace (the disturbed one when a
  disturbance is given, else the predicted one): the machine's FIFO queue run without
  look-ahead, each job restarted from scratch when an unavailability cuts it (the work lost is
  hatched), with the merged unavailabilities of that trace.

The run is replayed here job by job and its completion times are checked against the family's
executor (`resilsched.heuristics.desktop.executor.execute`), so the picture cannot drift from
the simulation. Vertical lines: the horizon lambda, the run's makespan and the lower bound.
Only what happens before the last of them (plus 2 %) is drawn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.errors import InvalidSchedule
from resilsched.plot.picture import Line, Picture, bound_line
from resilsched.plot.segments import SegmentTable

#: each machine is one lane: its plan row on top, its run row below
PLAN_Y, RUN_Y, ROW_H = 0.06, 0.52, 0.42
#: machines whose two rows are named separately up to this many
NAMED_ROWS = 12


def unwrap(payload: Any, instance: Any) -> Any:
    """The `DesktopSchedule` of a result (heuristics and exact models return it alike)."""
    if not hasattr(payload, "intervals") or not hasattr(payload, "horizon"):
        raise InvalidSchedule(f"{type(payload).__name__} holds no allocation to draw")
    return payload


def _run_machine(e0: int, durations: list[int], starts: list[int], ends: list[int]
                 ) -> list[list[tuple[int, int]]]:
    """Per job of the queue, its attempts [start, end) (the last one completes): the
    executor's rules, one job after the other."""
    t, ptr = e0, 0
    out = []
    for dur in durations:
        attempts = []
        if ptr < len(starts) and starts[ptr] <= t:  # unavailable when the job could start
            t = ends[ptr]
            ptr += 1
        while ptr < len(starts) and starts[ptr] < t + dur:  # cut: lost, restart after it
            attempts.append((t, starts[ptr]))
            t = ends[ptr]
            ptr += 1
        attempts.append((t, t + dur))
        t += dur
        out.append(attempts)
    return out


def picture(instance: Any, schedule: Any, scenario: Any, table: SegmentTable,
            bound: tuple[str, Any] | None, until: float | None = None) -> Picture:
    """Machines x time, two rows per machine (plan and run), drawn up to `until` (default: 2 %
    past the horizon and the run's makespan)."""
    from resilsched.heuristics.desktop.executor import execute, machine_queues
    from resilsched.instances.desktop.disturbance import periods_matrix, unavailability_periods

    T = instance.durations
    queues: list[list[int]] = [[] for _ in range(instance.m)]
    for (i, _k), jobs in sorted(schedule.intervals.items()):
        queues[i].extend(jobs)
    starts, ends = periods_matrix(instance, scenario)
    e0 = np.array([mach.e0 for mach in instance.machines], dtype=np.int64)
    done = execute(e0, machine_queues(instance, schedule), starts, ends)
    runs = {}
    for i, mach in enumerate(instance.machines):
        periods = unavailability_periods(instance, scenario, i)
        runs[i] = (periods, _run_machine(mach.e0, [int(T[i, j]) for j in queues[i]],
                                         [s for s, _ in periods], [e for _, e in periods]))
        got = [a[-1][1] for a in runs[i][1]]
        if got != done[i, :len(got)].tolist():
            raise InvalidSchedule(f"machine {i}: the replayed run ends its jobs at {got[:5]}, "
                                  f"the executor at {done[i, :5].tolist()}")
    makespan = int(done.max()) if done.size else 0
    limit = until if until is not None else 1.02 * max(makespan, int(schedule.horizon), 1)
    for i, mach in enumerate(instance.machines):
        _plan_rows(table, instance, schedule, i, mach, limit)
        periods, attempts = runs[i]
        for k, (s, e) in enumerate([(0, mach.e0)] + periods if mach.e0 > 0 else periods):
            if s < limit:
                table.add("machine", i, "unavailable", s, min(e, limit), i, i + RUN_Y, ROW_H,
                          group=k, layer="run")
        for j, tries in zip(queues[i], attempts, strict=True):
            for r, (s, e) in enumerate(tries, start=1):
                kind = "compute" if r == len(tries) else "failed"
                table.add("job", j, kind, s, e, i, i + RUN_Y, ROW_H, attempt=r, layer="run")
    what = "disturbed" if scenario is not None else "predicted"
    lines = [Line(float(schedule.horizon), f"horizon lambda = {schedule.horizon} s",
                  "dashdot", "#1f78b4"),
             Line(float(makespan), f"makespan of the run = {makespan} s"),
             *bound_line("horizon", bound)]
    if instance.m <= NAMED_ROWS:
        ticks = [(i + y + ROW_H / 2, f"m{i} {row}") for i in range(instance.m)
                 for y, row in ((PLAN_Y, "plan"), (RUN_Y, "run"))]
    else:
        ticks = [(i + 0.5, f"m{i}") for i in range(instance.m)]
    lost = int(table.where(kind="failed").sum())
    notes = [f"rows per machine: plan (predicted trace), run ({what} trace)",
             f"{instance.n} jobs on {instance.m} machines, {lost} restarts in the run",
             f"slack rule {'on' if schedule.slack_rule else 'off'}"]
    return Picture(table, instance.m, "machines", "s", "", lane_ticks=ticks, lines=lines,
                   notes=notes)


def _plan_rows(table: SegmentTable, instance: Any, schedule: Any, i: int, mach: Any,
               limit: float) -> None:
    """The plan row of machine i: predicted unavailabilities, the jobs of each interval from
    its start, the slack after them."""
    T = instance.durations
    y = i + PLAN_Y
    if mach.e0 > 0:
        table.add("machine", i, "unavailable", 0, min(mach.e0, limit), i, y, ROW_H, group=0,
                  layer="plan")
    for k in range(1, mach.K + 1):
        begin, stop = mach.e[k - 1], mach.s[k - 1]
        if begin >= limit:
            break
        t = begin
        for j in schedule.intervals.get((i, k), ()):
            dur = int(T[i, j])
            table.add("job", j, "compute", t, t + dur, i, y, ROW_H, group=k, layer="plan")
            t += dur
        if t < stop:
            table.add("machine", i, "slack", t, min(stop, limit), i, y, ROW_H, group=k,
                      layer="plan")
        if stop < limit:
            table.add("machine", i, "unavailable", stop, min(mach.e[k], limit), i, y, ROW_H,
                      group=k, layer="plan")
