"""The picture of a malleable run: per application, its processor count over time (spec 001
§1.4-1.6, §3.3).

Each application is a lane; within it a bar as high as its processor count (the largest count
of the run fills the lane) over each stretch of time, so the bars trace a step plot of the
count. The stretches of a phase (`RunPayload.phases`) are shaded by what the application does:

- after a failure: ``downtime`` (D), then ``recovery`` (R = C_{i,k}) on the same count;
- after a redistribution from j to k processors: ``redistribution`` (RC^{j->k}), then the
  ``checkpoint`` C_{i,k} taken on the new count (none without failures); an application struck
  at that very event first goes through downtime and recovery on its old count;
- from its restart t_lastR: ``compute`` and, with failures, a ``checkpoint`` at the end of
  every period tau_{i,k}; the work done since the last checkpoint when a failure strikes is
  ``failed`` (lost), and the strike is a red cross (a ``failure`` row).

Heuristics and the ``yardstick`` on failures return runs; ``faultfree-optimal`` returns a plan
(initial counts, the counts changed at each end, and the phases they make), drawn from its
phases after the validator checked them like those of any run. ``static-optimal`` returns an
allocation with expected times, which is not a schedule: it is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.plot.picture import Line, NothingToDraw, Picture, bound_line
from resilsched.plot.segments import SegmentTable

#: platforms of at most this many processors draw counts on the scale of p
SCALE_ON_P = 64


@dataclass(frozen=True)
class PlanRun:
    """The phases of a fault-free plan, read by the validator like a simulated run."""

    heuristic: str
    makespan: float
    finish: tuple[float, ...]
    phases: tuple[tuple, ...]
    fault_free: bool = True
    released: tuple[float, ...] = ()
    trace: tuple = ()
    counts: dict[str, int] = field(default_factory=lambda: {"failures": 0})
    options: dict[str, Any] = field(default_factory=dict)


def unwrap(payload: Any, instance: Any) -> Any:
    """A run as it is; a fault-free plan as the run its phases make (read by the validator
    like any run)."""
    if hasattr(payload, "moves") and hasattr(payload, "phases"):  # a plan
        if not payload.phases:
            raise NothingToDraw("the plan is empty (the model ran out of time before it "
                                "matched the heuristics)")
        finish = tuple(float(x) for x in payload.finish)
        return PlanRun("plan", max(finish), finish, tuple(payload.phases), released=finish)
    if hasattr(payload, "phases"):
        return payload
    if hasattr(payload, "sigma"):
        raise InvalidInstance("--method", "static-optimal returns an allocation with expected "
                                          "times, not a schedule: there is nothing to draw "
                                          "(draw --method yardstick or faultfree-optimal)")
    raise InvalidSchedule(f"{type(payload).__name__} holds no run to draw")


class _Costs:
    """The instance's D, C_{i,k}, tau_{i,k} and RC^{j->k} as floats."""

    def __init__(self, instance: Any, fault_free: bool) -> None:
        from resilsched.instances.malleable.formulas import Formulas

        inst = instance.replace(mtbf=None, failures=None) if fault_free else instance
        self.F = Formulas(inst)
        self.D = 0.0 if fault_free else float(instance.downtime)

    def c(self, i: int, k: int) -> float:
        return 0.0 if self.F.ff else float(self.F.ckpt(np.array([i]), np.array([k]))[0])

    def tau(self, i: int, k: int) -> float:
        return float(self.F.tau(np.array([i]), np.array([k]))[0])

    def rc(self, i: int, j: int, k: int) -> float:
        return float(self.F.rc(np.array([i]), np.array([j]), np.array([k]))[0])


class _Lane:
    """The rows of one application: bars as high as the count (`top` fills the lane)."""

    def __init__(self, table: SegmentTable, i: int, top: int) -> None:
        self.table, self.i, self.top = table, i, top
        self.phase = 1

    def add(self, kind: str, start: float, end: float, count: int) -> None:
        h = 0.8 * count / self.top
        self.table.add("application", self.i, kind, start, end, self.i, self.i + 0.9 - h, h,
                       attempt=self.phase, processors=count)


def _gap(lane: _Lane, costs: _Costs, prev: tuple | None, ph: tuple) -> None:
    """The stretch [start, restart) of phase `ph` after `prev`, split by what it is; the last
    piece runs to the restart."""
    i, start, restart, k, *_ = ph
    if prev is None or restart <= start:
        return
    j = prev[3]
    if prev[6] == "failure":
        pieces = [("downtime", costs.D, k), ("recovery", 0.0, k)]
    else:
        struck = prev[1] == prev[5] and prev[2] > prev[1]  # hit at the event that moved it
        pieces = [("downtime", costs.D, j), ("recovery", costs.c(i, j), j)] if struck else []
        pieces += [("redistribution", costs.rc(i, j, k), k)]
        if not costs.F.ff:
            pieces.append(("checkpoint", 0.0, k))
    t = start
    for r, (kind, length, count) in enumerate(pieces):
        end = restart if r == len(pieces) - 1 else min(restart, t + length)
        if end > t:
            lane.add(kind, t, end, count)
            t = end


def _work(lane: _Lane, costs: _Costs, ph: tuple) -> None:
    """The stretch [restart, end): compute, a checkpoint ending each period, the lost work."""
    i, _, restart, k, _, end, kind, _ = ph
    if end <= restart:
        return
    c, tau = costs.c(i, k), costs.tau(i, k)
    t = restart
    if c > 0 and np.isfinite(tau):
        while t + tau <= end + 1e-12 * max(1.0, end):
            lane.add("compute", t, t + tau - c, k)
            lane.add("checkpoint", t + tau - c, t + tau, k)
            t += tau
    if end > t:
        if kind == "failure":
            lane.add("failed", t, end, k)
        elif c > 0 and end - t > tau - c:
            lane.add("compute", t, t + tau - c, k)
            lane.add("checkpoint", t + tau - c, end, k)
        else:
            lane.add("compute", t, end, k)


def picture(instance: Any, run: Any, scenario: Any, table: SegmentTable,
            bound: tuple[str, Any] | None, until: float | None = None) -> Picture:
    """Applications x time: bars as high as the processor count, shaded by phase."""
    costs = _Costs(instance, bool(run.fault_free))
    # bars scaled on p for small platforms (the same scale in both panels of --compare), on
    # the largest count held otherwise (a few hundred of thousands of processors)
    top = instance.p if instance.p <= SCALE_ON_P else max((ph[3] for ph in run.phases),
                                                          default=2)
    by_app: dict[int, list[tuple]] = {}
    for ph in run.phases:
        by_app.setdefault(int(ph[0]), []).append(ph)
    for i, phases in sorted(by_app.items()):
        lane = _Lane(table, i, top)
        prev = None
        for r, ph in enumerate(phases, start=1):  # in the run's order, as the validator reads
            lane.phase = r
            _gap(lane, costs, prev, ph)
            _work(lane, costs, ph)
            if ph[6] == "failure":
                table.add("application", i, "failure", ph[5], ph[5], i, i + 0.1, 0.8,
                          attempt=r, processors=ph[3])
            prev = ph
    makespan = float(run.makespan)
    lines = [Line(makespan, f"makespan {makespan:.6g} s"), *bound_line("makespan", bound)]
    ticks = [(i + 0.75, f"T{i}") for i in range(instance.n)]  # beside the bars' baseline
    struck = sum(ph[6] == "failure" for ph in run.phases)
    notes = [f"bar height: processors held (lane full = {top}"
             + (")" if top == instance.p else f" of p = {instance.p})"),
             "fault-free run" if run.fault_free
             else f"{struck} of the trace's failures struck an application"]
    return Picture(table, instance.n, "applications", "s", "", lane_ticks=ticks, lines=lines,
                   item_name="application", item_prefix="T", label_counts=True, notes=notes)
