"""Proposition 1, Proposition 2's bounds table and the K_min / K_upper forms of §5.2 (spec 003
§2.8, §3.3), each computed and printed beside the paper's statement (issue 27, §3).

- Prop. 1: E(sl, n, Sigma) <= (1 - (sl kappa (n!)^(1/n) / n)^g) sl for *any* schedule of a
  slice on g workers (each running all n chunks), under assumption (8). Checked with the exact
  evaluator (`instances.worksharing.evaluate`, linear risk) on the six group charts and on
  random full execution charts (every row a random permutation), at slices where (8) holds.
- Prop. 2: K / (g! (n/g)^(g+1)) of the five regimens within the printed bounds, on the 4043
  (g, n) instances of Table 4 (exact integer K).
- K forms: K_min = (n/g)(n!)^(g/n) (AM-GM) against the printed Stirling form
  (e/g)(n/g)^(g+1) and the corrected (n/g)(n/e)^g; K_upper = g!(n/g)^(g+1) against its Stirling
  form (e sqrt(2 pi) / sqrt(g))(n/e)^(g+1); and K_min <= K_snake <= K_upper on the grid.
"""

from __future__ import annotations

import math

import numpy as np

from resilsched.bounds.worksharing import prop1_bound
from resilsched.heuristics.worksharing.charts import CHARTS, expand_chart, k_min, k_upper
from resilsched.instances.worksharing.evaluate import PieceSchedule, expected_work
from resilsched.instances.worksharing.risk import LinearRisk
from resilsched.reproduce.worksharing.table4 import table4_grid, table4_k_values

#: Prop. 2 as printed: regimen -> (lower, upper) of K / (g! (n/g)^(g+1)) as functions of (g, n)
PROP2 = {
    "cyclic": (lambda g, n: 1 / n, lambda g, n: 1.0, "1/n", "1"),
    "reverse": (lambda g, n: 1 / (2 * g), lambda g, n: (n + g) / 2, "1/(2g)", "(n+g)/2"),
    "mirror": (lambda g, n: 1 / n, lambda g, n: 1.0, "1/n", "1"),
    "snake": (lambda g, n: g / n ** 2, lambda g, n: 1.0, "g/n^2", "1"),
    "fat-snake": (lambda g, n: 1 / ((g - 1) * n), lambda g, n: float(g), "1/((g-1)n)", "g"),
}
#: relative tolerance of the comparisons (K_upper is a float)
REL = 1e-9


def _log_ratio(k: int, g: int, n: int) -> float:
    """log(K / K_upper) for an exact integer K."""
    return math.log(k) - math.log(k_upper(n, g))


def prop1_lines(g_max: int = 6, m_max: int = 6, random_charts: int = 300,
                seed: int = 27) -> list[str]:
    """Prop. 1 on every chart of g <= g_max, m <= m_max and `random_charts` random ones."""
    risk = LinearRisk(1.0)
    rng = np.random.default_rng(seed)
    worst, count = -math.inf, 0
    where = ""
    for g in range(1, g_max + 1):
        for m in range(1, m_max + 1):
            n = g * m
            sl = 0.9 * n / (n + 1)  # every chunk ends by sl (n + 1) / n < X: (8) holds
            orders = [expand_chart(f(g, m)) for f in CHARTS.values()]
            orders += [[rng.permutation(n) for _ in range(g)]
                       for _ in range(max(1, random_charts // (g_max * m_max)))]
            bound = prop1_bound(sl, n, g, 1.0)
            for seqs in orders:
                e = expected_work(PieceSchedule(sl, np.full(n, sl / n), tuple(seqs)), risk)
                count += 1
                if e - bound > worst:
                    worst, where = e - bound, f"g = {g}, n = {n}"
    stirling = math.exp(math.lgamma(21) / 20) / 20
    return ["Proposition 1: E(sl, n, Sigma) <= (1 - (sl kappa (n!)^(1/n)/n)^g) sl for any "
            "schedule",
            f"  {count} schedules (the six group charts and random full charts, g <= {g_max}, "
            f"n <= {g_max * m_max}, sl = 0.9 n/(n+1), exact evaluator): largest E - bound = "
            f"{worst:.3g} at {where} ({'no violation' if worst <= 1e-12 else 'VIOLATED'})",
            f"  the Stirling form (1 - (sl kappa/e)^g) sl is looser: (20!)^(1/20)/20 = "
            f"{stirling:.3f} > 1/e = {1 / math.e:.3f}"]


def prop2_lines(grid: list[tuple[int, int]] | None = None) -> list[str]:
    """Prop. 2's table with the ratios observed on `grid` (default: Table 4's 4043 instances)."""
    grid = table4_grid() if grid is None else grid
    K = table4_k_values(grid)
    lines = [f"Proposition 2: K / (g! (n/g)^(g+1)) within the printed bounds, {len(grid)} "
             "(g, n) instances of Table 4",
             f"  {'regimen':10s} {'lower':>11s} {'upper':>8s}  {'observed min':>12s} "
             f"{'observed max':>12s}  violations"]
    for name, (lo, hi, lo_text, hi_text) in PROP2.items():
        ratios, bad = [], 0
        for (g, n), k in zip(grid, K[name], strict=True):
            r = math.exp(_log_ratio(k, g, n))
            ratios.append(r)
            bad += not (lo(g, n) * (1 - REL) <= r <= hi(g, n) * (1 + REL))
        lines.append(f"  {name:10s} {lo_text:>11s} {hi_text:>8s}  {min(ratios):12.3f} "
                     f"{max(ratios):12.3f}  {bad}")
    return lines


def kforms_lines(grid: list[tuple[int, int]] | None = None) -> list[str]:
    """The K_min / K_upper forms after Prop. 2, computed on Table 3's instance and the grid."""
    grid = table4_grid() if grid is None else grid

    def printed(g: int, n: int) -> float:  # log of the paper's "K_min ~ (e/g)(n/g)^(g+1)"
        return 1 - math.log(g) + (g + 1) * math.log(n / g)

    def corrected(g: int, n: int) -> float:  # log of Stirling on (n!)^(g/n): (n/g)(n/e)^g
        return math.log(n / g) + g * (math.log(n) - 1)

    def upper_stirling(g: int, n: int) -> float:  # log of (e sqrt(2 pi)/sqrt(g)) (n/e)^(g+1)
        return 1 + 0.5 * math.log(2 * math.pi / g) + (g + 1) * (math.log(n) - 1)

    g0, n0 = 4, 20
    lines = ["K_min and K_upper (after Prop. 2)",
             f"  g = {g0}, n = {n0}: K_min = (n/g)(n!)^(g/n) = {k_min(n0, g0):.2f}; printed form "
             f"(e/g)(n/g)^(g+1) = {math.exp(printed(g0, n0)):.0f}; corrected (n/g)(n/e)^g = "
             f"{math.exp(corrected(g0, n0)):.0f}; K_upper = g!(n/g)^(g+1) = "
             f"{k_upper(n0, g0):.0f}, its Stirling form "
             f"{math.exp(upper_stirling(g0, n0)):.0f}"]
    logs = {"printed": [], "corrected": [], "upper": []}
    snake_bad = 0
    K = table4_k_values(grid)
    for (g, n), ks in zip(grid, K["snake"], strict=True):
        lk = math.log(k_min(n, g))
        logs["printed"].append(printed(g, n) - lk)
        logs["corrected"].append(corrected(g, n) - lk)
        logs["upper"].append(upper_stirling(g, n) - math.log(k_upper(n, g)))
        snake_bad += not (k_min(n, g) * (1 - REL) <= ks <= k_upper(n, g) * (1 + REL))

    def span(name: str) -> str:
        v = np.array(logs[name])
        return f"[{math.exp(v.min()):.3g}, {math.exp(v.max()):.3g}]"

    lines += [f"  on the {len(grid)} instances: printed form / K_min in {span('printed')} "
              "(wrong: an erratum, spec 003 §2.8); corrected form / K_min in "
              f"{span('corrected')} (it drops the factor (2 pi n)^(g/(2n))); Stirling form of "
              f"K_upper / K_upper in {span('upper')}",
              f"  K_min <= K_snake <= K_upper: {len(grid) - snake_bad} of {len(grid)} instances "
              f"({snake_bad} violations)"]
    return lines
