"""The picture of a co-schedule: packs one after another on p processors (spec 001 §1.3).

Pack b starts when pack b - 1 ends and lasts max_{i in b} t_{i,sigma(i)}; its tasks run side by
side from its start, task i on a block of sigma(i) processors (the blocks stacked in the pack's
task order) for t_{i,sigma(i)} seconds. One rectangle per task (a row of the segment table, its
``group`` the pack number); the packs are shaded in turn and numbered when there are few.
"""

from __future__ import annotations

from typing import Any

from resilsched.errors import InvalidSchedule
from resilsched.plot.picture import Line, Picture, bound_line
from resilsched.plot.segments import SegmentTable


def unwrap(payload: Any, instance: Any) -> Any:
    """The `Packs` of a result (heuristics and exact models return them alike)."""
    if not hasattr(payload, "packs"):
        raise InvalidSchedule(f"{type(payload).__name__} holds no packs to draw")
    return payload


def picture(instance: Any, packs: Any, scenario: Any, table: SegmentTable,
            bound: tuple[str, Any] | None, until: float | None = None) -> Picture:
    """The processors x time picture of `packs` on ``instance.p`` processors."""
    start: Any = 0
    spans = []
    for number, pack in enumerate(packs.packs, start=1):
        lane = 0
        for i, sigma in zip(pack.tasks, pack.procs, strict=True):
            table.add("task", i, "compute", start, start + instance.t(i, sigma), lane, lane,
                      sigma, group=number, processors=sigma)
            lane += sigma
        spans.append((float(start), float(start + pack.time), f"pack {number}"))
        start = start + pack.time
    lines = [Line(float(start), f"makespan {float(start):.6g} s"),
             *bound_line("makespan", bound)]
    notes = [f"{instance.n} tasks in {len(packs.packs)} packs of at most k = {instance.k}"]
    return Picture(table, instance.p, f"processors (p = {instance.p})", "s", "",
                   downwards=False, lines=lines, item_name="task", item_prefix="T", notes=notes,
                   spans=spans)
