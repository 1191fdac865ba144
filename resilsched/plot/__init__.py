"""Pictures of schedules: Gantt charts of every family, and the segment table behind them.

docs/plots.md. ``resilsched plot`` (`resilsched.commands.plot`) and the results' ``.plot()``
draw through this package; it sits on top, beside the command line, and reads schedules only
after the family's validator passed on them (`resilsched.plot.result.checked_schedule`).

- `resilsched.plot.segments`: the segment table, the one source of the drawing and of
  ``--csv``;
- `resilsched.plot.attempts` (rigid, moldable), `coschedule`, `worksharing`, `malleable`,
  `desktop`: each family's picture;
- `resilsched.plot.axes`, `colours`, `draw`: the shared parts (figures, time axis in a
  readable unit, one colour per job, one collection per kind of segment);
- `resilsched.plot.result`: validation, pictures of results, figures, files.

matplotlib (extra ``resilsched[plot]``) is imported only when something is drawn; importing
this package costs nothing. Importing ``resilsched`` imports it to give `Solution.plot` and
`HeuristicResult.plot` their drawer (`resilsched.solution.set_plotter`): the result types sit
below this package and never import it.
"""

from __future__ import annotations

from typing import Any

from resilsched.solution import set_plotter

__all__ = ["plot_result"]


def plot_result(result: Any, ax: Any = None, *, instance: Any, scenario: Any = None) -> Any:
    """Draw `result` computed on `instance` (and `scenario`) on `ax`; returns the axes
    (`resilsched.plot.result.plot_result`)."""
    from resilsched.plot.result import plot_result as draw

    return draw(result, ax, instance=instance, scenario=scenario)


set_plotter(plot_result)
