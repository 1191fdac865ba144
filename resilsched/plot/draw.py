"""Draw a `Picture` on matplotlib axes: one collection per kind of segment, whatever their number.

Rectangles of one kind go into one `PolyCollection` (one drawing call), and their hatch, when
the kind has one, into one compound path over them all (matplotlib hatches each polygon of a
collection on its own, about 3 ms each: 4,500 hatched unavailabilities took 15 s, one compound
path takes a few milliseconds), so tens of thousands of segments draw in a second or two; jobs
are named inside their rectangles only up to `LABEL_LIMIT` (beyond that the colours and the
CSV say which is which). The legend sits outside the plotting area, so it never hides a
segment.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.plot.axes import lane_axis, time_axis, time_unit
from resilsched.plot.colours import PALETTE, STYLE, job_colours, position_colours
from resilsched.plot.picture import SPAN_LIMIT, Picture
from resilsched.plot.segments import KINDS

#: jobs (attempts) named inside their rectangles up to this many
LABEL_LIMIT = 60


def _rectangles(x0: np.ndarray, x1: np.ndarray, y0: np.ndarray, h: np.ndarray) -> np.ndarray:
    """(N, 4, 2) vertices of the rectangles [x0, x1) x [y0, y0 + h)."""
    y1 = y0 + h
    return np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1),
                     np.stack([x0, y1], 1)], axis=1)


def _hatch_over(ax: Any, verts: np.ndarray, hatch: str, colour: str, zorder: float) -> None:
    """One compound path over every rectangle of `verts`, hatched, not filled."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    n = len(verts)
    closed = np.concatenate([verts, verts[:, :1]], axis=1).reshape(-1, 2)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], n)
    # add_artist, not add_patch: the limits are set by the axes code, and add_patch would walk
    # every segment of the path to update them (seconds for thousands of rectangles)
    ax.add_artist(PathPatch(Path(closed, codes), facecolor="none", edgecolor=colour,
                            hatch=hatch, linewidth=0, zorder=zorder, transform=ax.transData))


def _line_width(count: int) -> float:
    return 0.6 if count < 500 else 0.25 if count < 5000 else 0.0


def draw_segments(ax: Any, pic: Picture) -> list[Any]:
    """Add the segments to `ax`, one collection per kind; returns the legend handles."""
    from matplotlib.collections import PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    seg = pic.segments
    if not len(seg):
        return []
    kinds, ids = seg.column("kind"), seg.column("id")
    x0, x1 = seg.column("start"), seg.column("end")
    y0, h = seg.column("y"), seg.column("height")
    handles = []
    for kind in KINDS:
        mask = kinds == kind
        if not mask.any():
            continue
        face, hatch, edge, label = STYLE[kind]
        if kind == "failure":
            ax.scatter(x0[mask], y0[mask] + h[mask] / 2, marker="x", s=36, color=face,
                       linewidths=1.6, zorder=5)
            handles.append(Line2D([], [], marker="x", color=face, linestyle="", label=label,
                                  markersize=7, markeredgewidth=1.6))
            continue
        if face is None:
            colours = (job_colours(ids[mask]) if pic.colour_by == "id" else
                       position_colours(np.asarray(pic.colour_values)[mask], pic.colour_total))
        else:
            colours = face
        verts = _rectangles(x0[mask], x1[mask], y0[mask], h[mask])
        zorder = 2 if kind in ("unavailable", "slack") else 3
        ax.add_collection(PolyCollection(verts, facecolors=colours, edgecolors=edge,
                                         linewidths=_line_width(int(mask.sum())),
                                         zorder=zorder))
        if hatch:
            _hatch_over(ax, verts, hatch, edge, zorder + 0.1)
        if face is None and pic.colour_by == "position":
            handles += [Patch(facecolor=position_colours([x], 1.0)[0], edgecolor=edge,
                              hatch=hatch, label=f"{label.split(' (')[0]}: {where}")
                        for x, where in ((0.0, "start of the workload"),
                                         (1.0, "end of the workload"))]
            continue
        label = label.replace("per job", f"per {pic.item_name}")
        handles.append(Patch(facecolor=face if face is not None else PALETTE[0],
                             edgecolor=edge, hatch=hatch, label=label))
    _job_labels(ax, pic)
    return handles


def _job_labels(ax: Any, pic: Picture) -> None:
    """Name each job attempt in its largest rectangle, when there are few of them."""
    seg = pic.segments
    work = np.isin(seg.column("kind"), ["compute", "failed"])
    if not work.any():
        return
    ids, att = seg.column("id")[work], seg.column("attempt")[work]
    lanes, counts = seg.column("lane")[work], seg.column("processors")[work]
    chunks = seg.column("item")[work] == "chunk"  # a chunk number is per worker
    layers = seg.column("layer")[work]  # a desktop job is in its plan and in its run
    keys_of = list(zip(ids.tolist(), att.tolist(), np.where(chunks, lanes, -1).tolist(),
                       layers.tolist(), strict=True))
    keys = set(keys_of)
    if len(keys) > LABEL_LIMIT:
        return
    x0, x1 = seg.column("start")[work], seg.column("end")[work]
    y0, h = seg.column("y")[work], seg.column("height")[work]
    area = (x1 - x0) * h
    horizon = pic.horizon or 1.0
    best: dict[tuple[int, int, int, str], int] = {}
    for r, key in enumerate(keys_of):
        if key not in best or area[r] > area[best[key]]:
            best[key] = r
    for (job, *_), r in best.items():
        text = f"{counts[r]} procs" if pic.label_counts else f"{pic.item_prefix}{job}"
        if (x1[r] - x0[r]) < 0.013 * len(text) * horizon or h[r] < 0.03 * pic.lanes:
            continue  # the label would not fit
        ax.text((x0[r] + x1[r]) / 2, y0[r] + h[r] / 2, text, ha="center",
                va="center", fontsize=7, color="black", zorder=6, clip_on=True,
                bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "alpha": 0.6,
                      "linewidth": 0})


def _spans(ax: Any, pic: Picture) -> None:
    """Shade every other span lightly and name each at the top of the panel."""
    if not pic.spans or len(pic.spans) > SPAN_LIMIT:
        return
    for r, (start, end, label) in enumerate(pic.spans):
        if r % 2 == 0:
            ax.axvspan(start, end, color="#f0f0f0", zorder=0, linewidth=0)
        ax.text((start + end) / 2, 1.0, label, transform=ax.get_xaxis_transform(), ha="center",
                va="bottom", fontsize=7, color="#444444", clip_on=False)


def draw_picture(ax: Any, pic: Picture, horizon: float | None = None,
                 xlabel: bool = True) -> Any:
    """Draw `pic` on `ax` (segments, lines, the curve, axes, title, legend); returns `ax`.
    `horizon` (default the picture's own) fixes the time axis, shared by ``--compare``."""
    from matplotlib.lines import Line2D

    handles = draw_segments(ax, pic)
    _spans(ax, pic)
    horizon = pic.horizon if horizon is None else horizon
    name, factor = time_unit(horizon, pic.time_unit)
    for line in pic.lines:
        ax.axvline(line.x, color=line.colour, linestyle=line.style, linewidth=1.3, zorder=7)
        label = line.label + (f" = {line.x / factor:.4g} {name}" if factor != 1 else "")
        handles.append(Line2D([], [], color=line.colour, linestyle=line.style, linewidth=1.3,
                              label=label))
    time_axis(ax, horizon, pic.time_unit, xlabel)
    lane_axis(ax, pic.lanes, pic.lane_label, pic.lane_ticks, pic.downwards)
    if pic.curve is not None:
        function, label = pic.curve
        times = np.linspace(*ax.get_xlim(), 400)
        twin = ax.twinx()
        (curve,) = twin.plot(times, function(times), color="#d95f02", linewidth=1.6,
                             label=label)
        twin.set_ylim(0.0, 1.0)
        twin.set_ylabel("probability of interruption by time t")
        handles.append(curve)
    for note in pic.notes:
        handles.append(Line2D([], [], linestyle="", label=note))
    ax.set_title(pic.title, fontsize=10, loc="left",
                 pad=14 if 0 < len(pic.spans) <= SPAN_LIMIT else 6)
    ax.grid(axis="x", alpha=0.25, zorder=0)
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0 if pic.curve is None
                                                                     else 1.08, 1.0),
                  fontsize=8, frameon=False, borderaxespad=0.3)
    return ax
