"""Table 4's absolute columns against the exact minimum-K chart (spec 003 §4.1; issue 15).

The paper's absolute ratio is K^H / K_min with K_min = (n/g)(n!)^(g/n), the AM-GM bound of
§2.8, which no chart need reach. On the sub-grid g <= 4, n <= 30 (g | n, n >= 2g: 29
instances) the minimum-K chart is computed exactly
(`resilsched.models.worksharing.group_chart.optimal_group_chart`), and each chart is scored by
K^H / K_opt; the row ``K_opt`` shows how far the optimum itself sits above K_min.
"""

from __future__ import annotations

import csv
import math

import numpy as np

from resilsched.heuristics.worksharing.charts import k_constant, k_min
from resilsched.models.worksharing.group_chart import MAX_G, MAX_N, optimal_group_chart
from resilsched.reproduce.worksharing.table4 import TABLE4_CHARTS


def table4_exact_grid() -> list[tuple[int, int]]:
    """The (g, n) pairs of Table 4 with an exact optimum: g in [2, 4], n in [2g, 30], g | n."""
    return [(g, n) for g in range(2, MAX_G + 1) for n in range(2 * g, MAX_N + 1, g)]


def table4_exact_statistics(grid: list[tuple[int, int]] | None = None,
                            time_limit: float = 60.0) -> dict[str, dict[str, float]]:
    """Per chart (and best-of, and the optimum itself against K_min): min, max, avg and stdev
    of K^H / K_opt, and the % of instances where H is optimal. Raises `RuntimeError` when an
    optimum is not proven within `time_limit` seconds (it takes ~1 s at g = 4, n = 28)."""
    grid = table4_exact_grid() if grid is None else grid
    opt = []
    for g, n in grid:
        k, _, proven = optimal_group_chart(g, n // g, time_limit=time_limit)
        if not proven:
            raise RuntimeError(f"minimum-K chart for g={g}, n={n} not proven in {time_limit} s")
        opt.append(k)
    series = {name: [k_constant(chart(g, n // g)) for g, n in grid]
              for name, chart in TABLE4_CHARTS.items()}
    series["best-of"] = [min(ks) for ks in zip(*series.values(), strict=True)]
    stats: dict[str, dict[str, float]] = {}
    for name, ks in series.items():
        ratio = np.array([k / o for k, o in zip(ks, opt, strict=True)])
        stats[name] = _summary(ratio, 100.0 * np.mean([k == o for k, o in
                                                       zip(ks, opt, strict=True)]))
    ratio = np.array([math.exp(math.log(o) - math.log(k_min(n, g)))
                      for o, (g, n) in zip(opt, grid, strict=True)])
    stats["K_opt vs K_min"] = _summary(ratio, 100.0 * np.mean(
        [o == math.ceil(k_min(n, g) - 1e-9) for o, (g, n) in zip(opt, grid, strict=True)]))
    return stats


def _summary(ratio: np.ndarray, optimal: float) -> dict[str, float]:
    return {"min": float(ratio.min()), "max": float(ratio.max()), "avg": float(ratio.mean()),
            "std": float(ratio.std()), "optimal": float(optimal), "count": len(ratio)}


def write_table4_exact(path, stats: dict[str, dict[str, float]]) -> list[str]:
    """Write the CSV and return the printed lines (chart, min, max, avg, std, optimal %)."""
    keys = ["min", "max", "avg", "std", "optimal"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["chart", *[f"vs_opt_{k}" for k in keys]])
        for name, s in stats.items():
            w.writerow([name, *[round(s[k], 4) for k in keys]])
    count = next(iter(stats.values()))["count"]
    lines = [f"Absolute vs the exact minimum-K chart (g <= {MAX_G}, n <= {MAX_N}: {count} "
             "instances; K^H / K_opt, % optimal)",
             f"{'chart':15s} " + " ".join(f"{k:>8s}" for k in keys)]
    for name, s in stats.items():
        lines.append(f"{name:15s} " + " ".join(f"{s[k]:8.3f}" if k != "optimal" else
                                               f"{s[k]:8.2f}" for k in keys))
    return lines


__all__ = ["table4_exact_grid", "table4_exact_statistics", "write_table4_exact"]
