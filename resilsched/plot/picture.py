"""What one panel shows: its segment table and everything around it (axes, lines, title).

A family's module (`resilsched.plot.attempts`, ...) turns a validated schedule into a
`Picture`; `resilsched.plot.draw` draws it. Nothing in a picture depends on matplotlib.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from resilsched.plot.segments import SegmentTable


class NothingToDraw(Exception):
    """A result without a schedule (an exact model that found none, a heuristic that returned
    none, an empty plan), or a family without a validator: nothing unchecked is drawn."""


#: time spans shaded and named up to this many
SPAN_LIMIT = 40


@dataclass(frozen=True)
class Line:
    """A vertical line across the panel at time `x` (makespan, bound, horizon)."""

    x: float
    label: str
    style: str = "solid"  # "solid", "dashed" or "dashdot"
    colour: str = "black"


@dataclass
class Picture:
    """One panel.

    Attributes
    ----------
    segments : the rectangles and markers (`SegmentTable`), the only data drawn.
    lanes : the panel's height in lanes (the y axis runs from 0 to `lanes`).
    lane_label : y axis label with its unit, e.g. ``"processors"``.
    time_unit : the unit of the times, ``"s"`` or ``"work units"``.
    title : the panel's title (algorithm, objective).
    lane_ticks : (y, label) of every lane to name, or None for automatic integer ticks.
    downwards : lane 0 at the top (named lanes) or at the bottom (processors).
    lines : the vertical lines.
    curve : (function of times, label) of a curve on a right-hand axis in [0, 1] (the risk),
        drawn over the whole time axis.
    item_name : what one colour stands for (``job``, ``task``, ``application``).
    item_prefix : the letter before an id in labels (``J`` for jobs, ``T`` for tasks).
    label_counts : label the rectangles with their processor counts instead of their ids.
    colour_by : ``"id"`` (a colour per job) or ``"position"`` (worksharing: a colour per
        position in the workload, `colour_values` and `colour_total` giving them).
    notes : extra legend lines (text only).
    spans : (start, end, label) of the time spans to shade in turn and name on top (the
        packs of a co-schedule), drawn when there are at most `SPAN_LIMIT`.
    """

    segments: SegmentTable
    lanes: float
    lane_label: str
    time_unit: str
    title: str
    lane_ticks: list[tuple[float, str]] | None = None
    downwards: bool = True
    lines: list[Line] = field(default_factory=list)
    curve: tuple[Any, str] | None = None
    item_name: str = "job"
    item_prefix: str = "J"
    label_counts: bool = False
    colour_by: str = "id"
    colour_values: Any = None
    colour_total: float = 1.0
    notes: list[str] = field(default_factory=list)
    spans: list[tuple[float, float, str]] = field(default_factory=list)

    @property
    def horizon(self) -> float:
        """The last time drawn (segment ends and lines)."""
        last = float(self.segments.column("end").max()) if len(self.segments) else 0.0
        return max([0.0, last, *(line.x for line in self.lines)])


def bound_line(objective: str, bound: tuple[str, Any] | None) -> list[Line]:
    """The dashed line of a lower bound ``(name, value)`` on the objective, if any."""
    if bound is None:
        return []
    name, value = bound
    return [Line(float(value), f"{objective} lower bound {name} = {float(value):.6g} s",
                 "dashed", "#555555")]
