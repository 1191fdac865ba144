"""Figures and axes: the time axis in a readable unit, lanes, no global matplotlib state.

The command line draws on a `matplotlib.figure.Figure` with the Agg canvas (no pyplot, no
backend change); the library's ``.plot(ax=None)`` opens a pyplot figure, as matplotlib users
expect in a notebook. Times stay in seconds in the data (so the CSV is what is drawn); long
horizons are labelled in hours or days by the tick formatter, with the unit in the axis label.
"""

from __future__ import annotations

from typing import Any

#: (unit name, seconds per unit, shown from this horizon on), largest first
TIME_UNITS = (("days", 86400.0, 3 * 86400.0), ("h", 3600.0, 3 * 3600.0), ("s", 1.0, 0.0))

MATPLOTLIB_MISSING = ("drawing needs matplotlib: pip install 'resilsched[plot]' "
                      "(or pip install matplotlib)")


class MatplotlibMissing(ImportError):
    """matplotlib is not installed; the message says how to install it."""


def require_matplotlib() -> None:
    """Raise `MatplotlibMissing` (one line) when matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MatplotlibMissing(MATPLOTLIB_MISSING) from None


def figure(width: float, height: float) -> Any:
    """A constrained-layout figure on the Agg canvas (no pyplot)."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def new_axes(height: float = 4.5) -> Any:
    """Axes of a new pyplot figure (the library's ``.plot()`` without `ax`)."""
    require_matplotlib()
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(10.0, height), layout="constrained")
    return ax


def time_unit(horizon: float, unit: str) -> tuple[str, float]:
    """(label unit, factor): seconds beyond 3 h are shown in hours, beyond 3 days in days;
    other units (work units) as they are."""
    if unit != "s":
        return unit, 1.0
    for name, factor, start in TIME_UNITS:
        if horizon >= start:
            return name, factor
    return "s", 1.0


def time_axis(ax: Any, horizon: float, unit: str, label: bool = True) -> None:
    """Label the x axis ``time (<unit>)`` with round ticks in that unit, from 0 to a little
    past `horizon` (no offset, no scientific notation)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    name, factor = time_unit(horizon, unit)
    top = horizon * 1.02 if horizon > 0 else 1.0
    ax.set_xlim(0.0, top)
    values = MaxNLocator(nbins=10, steps=[1, 2, 2.5, 5, 10]).tick_values(0.0, top / factor)
    ax.set_xticks([v * factor for v in values if 0 <= v * factor <= top])
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x / factor:.6g}"))
    if label:
        ax.set_xlabel(f"time ({name})")


def lane_axis(ax: Any, lanes: float, label: str, ticks: list[tuple[float, str]] | None,
              downwards: bool, max_named: int = 40) -> None:
    """The y axis from 0 to `lanes`: named lanes read downwards from the top (lane 0 first),
    processors upwards from the bottom; named ticks when there are at most `max_named`, else
    evenly thinned ones."""
    from matplotlib.ticker import MaxNLocator

    ax.set_ylim((lanes, 0.0) if downwards else (0.0, lanes))
    ax.set_ylabel(label)
    if ticks is None:
        ax.yaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
        return
    step = max(1, -(-len(ticks) // max_named))
    shown = ticks[::step]
    ax.set_yticks([y for y, _ in shown], [text for _, text in shown])
    ax.tick_params(axis="y", length=0)
