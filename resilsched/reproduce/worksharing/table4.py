"""Experiment N: numerical comparison of the six group charts (spec 003 §4.1, Table 4).

Instances: g in [2, 100], n in [2g, 1000] with g | n: 4043 (g, n) pairs ([ERRATUM] not 4032).
Per instance and chart H: relative = K^H / min_H' K^H', absolute = K^H / K_min with
K_min = (n/g)(n!)^(g/n); success = H attains the minimum K (ties count for every tied chart).
K values are exact integers. The charts are the six group charts of §3.3, as functions.
"""

from __future__ import annotations

import math

import numpy as np

from resilsched.heuristics.worksharing.charts import (
    chart_cyclic,
    chart_fat_snake,
    chart_greedy,
    chart_mirror,
    chart_reverse,
    chart_snake,
    k_constant,
    k_min,
)

#: the charts compared, in Table 4's order
TABLE4_CHARTS = {"cyclic": chart_cyclic, "reverse": chart_reverse, "mirror": chart_mirror,
                 "snake": chart_snake, "fat-snake": chart_fat_snake, "greedy": chart_greedy}


def table4_grid(g_max: int = 100, n_max: int = 1000) -> list[tuple[int, int]]:
    """The (g, n) pairs of Table 4: g in [2, g_max], n in [2g, n_max], g | n."""
    return [(g, n) for g in range(2, g_max + 1) for n in range(2 * g, n_max + 1, g)]


def table4_k_values(grid: list[tuple[int, int]] | None = None) -> dict[str, list[int]]:
    """Exact K of each chart on each instance of the grid."""
    grid = table4_grid() if grid is None else grid
    out: dict[str, list[int]] = {name: [] for name in TABLE4_CHARTS}
    for g, n in grid:
        m = n // g
        for name, chart in TABLE4_CHARTS.items():
            out[name].append(k_constant(chart(g, m)))
    return out


def _ratio(a: int, b: int) -> float:
    """a / b for huge integers, in floating point."""
    try:
        return a / b
    except OverflowError:
        return math.exp(math.log(a) - math.log(b))


def table4_statistics(grid: list[tuple[int, int]] | None = None) -> dict[str, dict[str, float]]:
    """Table 4: per chart (and best-of) relative/absolute min, max, avg, stdev and success %."""
    grid = table4_grid() if grid is None else grid
    K = table4_k_values(grid)
    best = [min(K[name][i] for name in TABLE4_CHARTS) for i in range(len(grid))]
    kmin_log = [math.log(n / g) + g / n * math.lgamma(n + 1) for g, n in grid]
    stats: dict[str, dict[str, float]] = {}
    series = dict(K)
    series["best-of"] = best
    for name, ks in series.items():
        rel = np.array([_ratio(k, b) for k, b in zip(ks, best, strict=True)])
        ab = np.array([math.exp(math.log(k) - lk) for k, lk in zip(ks, kmin_log, strict=True)])
        succ = 100.0 * np.mean([k == b for k, b in zip(ks, best, strict=True)])
        stats[name] = {"rel_min": rel.min(), "rel_max": rel.max(), "rel_avg": rel.mean(),
                       "rel_std": rel.std(), "abs_min": ab.min(), "abs_max": ab.max(),
                       "abs_avg": ab.mean(), "abs_std": ab.std(), "success": succ,
                       "count": len(grid)}
    return stats


__all__ = ["table4_grid", "table4_k_values", "table4_statistics", "k_min"]
