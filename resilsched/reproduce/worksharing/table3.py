"""Tables 1 and 3 of the paper (spec 003 §3.2-§3.3): the group charts of g = 4, n = 20 with
their performance constants K, the listed "optimal" chart against the exact minimum-K chart
(`resilsched.models.worksharing.group_chart`) and ceil(K_min), and the reverse chart of
g = 4, n = 12 expanded to per-worker chunk orders (Table 1).
"""

from __future__ import annotations

import math

import numpy as np

from resilsched.heuristics.worksharing.charts import CHARTS, chart_positions, k_constant, k_min

#: Table 3's K per chart, as printed
PAPER_T3 = {"cyclic": 34104, "reverse": 24396, "mirror": 27284, "snake": 25784,
            "fat-snake": 24276, "greedy": 24390, "optimal": 23780}
#: Table 3 (g): the chart the paper lists as optimal
OPTIMAL_T3 = ((1, 2, 3, 4, 5), (13, 10, 6, 9, 7), (18, 15, 14, 11, 8), (20, 16, 19, 12, 17))
#: Table 1: step at which worker i (row) runs chunk j (column), reverse chart, g = 4, n = 12
PAPER_T1 = ((1, 6, 9, 12, 2, 5, 8, 11, 3, 4, 7, 10),
            (12, 1, 6, 9, 11, 2, 5, 8, 10, 3, 4, 7),
            (9, 12, 1, 6, 8, 11, 2, 5, 7, 10, 3, 4),
            (6, 9, 12, 1, 5, 8, 11, 2, 4, 7, 10, 3))


def table3_lines(g: int = 4, m: int = 5) -> list[str]:
    """Table 3 beside the paper: every chart row by row, K ours / paper / gap."""
    from resilsched.models.worksharing.group_chart import optimal_group_chart

    n = g * m
    lines = [f"Table 3 (g = {g}, n = {n}): K of each group chart, ours beside the paper's"]
    charts = {name: f(g, m) for name, f in CHARTS.items()}
    listed = np.array(OPTIMAL_T3, dtype=np.int64)
    charts["optimal"] = listed
    equal = 0
    for name, chart in charts.items():
        k = k_constant(chart)
        equal += k == PAPER_T3[name]
        rows = " / ".join(" ".join(f"{x:2d}" for x in row) for row in chart.tolist())
        lines.append(f"  {name:9s} K {k:6d}  paper {PAPER_T3[name]:6d}  gap "
                     f"{k - PAPER_T3[name]:+d}   chart {rows}")
    k_opt, _, proven = optimal_group_chart(g, m)
    kmin = k_min(n, g)
    lines.append(f"  {equal} of {len(charts)} K values equal the paper's; the listed optimal "
                 f"chart is a valid chart with K = {k_constant(listed)}; the exact minimum-K "
                 f"chart has K = {k_opt} ({'proven' if proven else 'NOT proven'}); "
                 f"K_min = {kmin:.2f}, ceil {math.ceil(kmin)}")
    return lines


def table1_lines() -> list[str]:
    """Table 1: the reverse chart of g = 4, n = 12 expanded (§3.2), against the paper."""
    steps = chart_positions(CHARTS["reverse"](4, 3), 12).T
    same = int(np.sum(steps == np.array(PAPER_T1)))
    lines = ["Table 1 (reverse chart, g = 4, n = 12): step at which worker P_i runs chunk j"]
    for i, (row, paper) in enumerate(zip(steps.tolist(), PAPER_T1, strict=True)):
        lines.append(f"  P_{i + 1}: {' '.join(f'{x:2d}' for x in row)}"
                     + ("" if tuple(row) == paper else
                        f"   paper {' '.join(f'{x:2d}' for x in paper)}"))
    lines.append(f"  {same} of {steps.size} entries equal the paper's")
    return lines
