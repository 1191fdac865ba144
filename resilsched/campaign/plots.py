"""The PNG figures of a campaign report (docs/campaigns.md, "Reports").

matplotlib (extra ``resilsched[plot]``) is imported only in this module, and only through its
object interface (`matplotlib.figure.Figure` with the Agg canvas): drawing a report changes no
global backend.

- `boxplot`: the distribution of a metric per algorithm setting, one horizontal box each (the
  labels spell the algorithm, its priority rule and parameters out), sorted best first, with the
  bound (ratio 1) or the optimum (gap 0) marked.
- `sweep`: the mean of a metric against a swept parameter, one line per algorithm setting, with
  its 95 % confidence band (`resilsched.campaign.metrics.mean_ci`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: one line of a sweep plot: its label and (x, mean, CI half-width) points in x order
Line = tuple[str, Sequence[tuple[float, float, float]]]


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _horizontal(labels: list[str]) -> dict[str, Any]:
    """Keywords of a horizontal, labelled box plot for the installed matplotlib (3.8 - 3.11+)."""
    import matplotlib

    version = tuple(int(x) for x in matplotlib.__version__.split(".")[:2])
    out: dict[str, Any] = {"tick_labels" if version >= (3, 9) else "labels": labels}
    out.update({"orientation": "horizontal"} if version >= (3, 10) else {"vert": False})
    return out


def boxplot(boxes: Sequence[tuple[str, Sequence[float]]], xlabel: str, title: str,
            reference: tuple[float, str] | None, path: Path) -> Path:
    """Horizontal box plot, one box per (label, values), the first box at the top."""
    height = 1.6 + 0.38 * len(boxes)
    longest = max(len(label) for label, _ in boxes)
    fig = _figure(min(14.0, 6.0 + 0.07 * longest), height)
    ax = fig.add_subplot()
    labels = [label for label, _ in boxes][::-1]
    data = [list(values) for _, values in boxes][::-1]
    ax.boxplot(data, **_horizontal(labels), whis=(5, 95), showmeans=True,
               flierprops={"markersize": 3, "alpha": 0.5},
               meanprops={"marker": "D", "markersize": 4, "markerfacecolor": "white",
                          "markeredgecolor": "black"})
    if reference is not None:
        ax.axvline(reference[0], color="grey", linestyle="--", linewidth=1,
                   label=reference[1])
        ax.legend(loc="best", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(f"{title}\nbox: quartiles and median, whiskers: 5th-95th percentiles, "
                 "diamond: mean", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=110)
    return path


def sweep(lines: Sequence[Line], xlabel: str, ylabel: str, title: str, path: Path,
          reference: tuple[float, str] | None = None) -> Path:
    """Mean of a metric against a parameter, one line (with its 95 % band) per setting.

    Numeric parameters are placed at their values; booleans and strings at evenly spaced
    positions labelled with the values.
    """
    fig = _figure(8.5, 5.0)
    ax = fig.add_subplot()
    xs = sorted({p[0] for _, pts in lines for p in pts}, key=_order)
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    where = {x: (x if numeric else i) for i, x in enumerate(xs)}
    for label, pts in lines:
        pts = sorted(pts, key=lambda p: _order(p[0]))
        pos = [where[p[0]] for p in pts]
        means = [p[1] for p in pts]
        (line,) = ax.plot(pos, means, marker="o", markersize=4, label=label)
        ax.fill_between(pos, [m - h for _, m, h in pts], [m + h for _, m, h in pts],
                        color=line.get_color(), alpha=0.15, linewidth=0)
    if reference is not None:
        ax.axhline(reference[0], color="grey", linestyle="--", linewidth=1, label=reference[1])
    if not numeric or len(xs) <= 12:
        ax.set_xticks([where[x] for x in xs], [str(x) for x in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.savefig(path, dpi=110)
    return path


def _order(x: Any) -> tuple[int, Any]:
    """Sort key putting numbers (bools included) before strings."""
    return (0, float(x)) if isinstance(x, (int, float)) else (1, str(x))
