"""Colours and patterns of the pictures: one colour per job, one style per kind of segment.

Jobs (tasks, applications) cycle through 20 distinct colours, the ten strong ones of
matplotlib's ``tab20`` first, so that neighbouring ids never share a colour and a job keeps its
colour across its attempts and across the two panels of ``--compare``. Every other kind of
segment has a neutral colour and a hatch of its own, so it reads apart from the jobs in colour
and in black and white.
"""

from __future__ import annotations

import numpy as np

#: tab20, its ten strong colours first, then their light variants (RGB in [0, 1])
_TAB20 = ("1f77b4", "ff7f0e", "2ca02c", "d62728", "9467bd", "8c564b", "e377c2", "7f7f7f",
          "bcbd22", "17becf", "aec7e8", "ffbb78", "98df8a", "ff9896", "c5b0d5", "c49c94",
          "f7b6d2", "c7c7c7", "dbdb8d", "9edae5")
PALETTE = np.array([[int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)] + [1.0] for h in _TAB20])

#: per kind: (face colour or None for the job's colour, hatch, edge colour, legend label)
STYLE: dict[str, tuple[str | None, str | None, str, str]] = {
    "compute": (None, None, "white", "computation (one colour per job)"),
    "failed": (None, "////", "white", "failed attempt: work lost (hatched)"),
    "checkpoint": ("#222222", None, "#222222", "checkpoint"),
    "downtime": ("#bdbdbd", "xxxx", "#525252", "downtime after a failure"),
    "recovery": ("#e0e0e0", "\\\\\\\\", "#525252", "recovery"),
    "redistribution": ("#fff2ae", "----", "#8c6d00", "redistribution"),
    "overhead": ("#525252", None, "#525252", "chunk start-up cost (epsilon)"),
    "unavailable": ("#969696", "xx", "#525252", "machine unavailable"),
    "slack": ("#e5f5e0", None, "#31a354", "slack (unused availability)"),
    "failure": ("#e41a1c", None, "#e41a1c", "failure strikes"),
}


def job_colours(ids: np.ndarray) -> np.ndarray:
    """RGBA rows, one per id, cycling through `PALETTE`."""
    return PALETTE[np.asarray(ids, dtype=np.int64) % len(PALETTE)]


def position_colours(positions: np.ndarray, total: float) -> np.ndarray:
    """RGBA rows for positions in [0, total] of a workload (viridis): a piece of work keeps
    its colour on every worker that holds a copy of it."""
    from matplotlib import colormaps

    x = np.asarray(positions, dtype=float) / (total if total > 0 else 1.0)
    return colormaps["viridis"](np.clip(x, 0.0, 1.0))
