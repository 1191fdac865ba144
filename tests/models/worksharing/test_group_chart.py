"""The exact minimum-K group chart (spec 003 §2.8, §4.1; issue 15) against brute force.

Oracles: `optimal_chart_bruteforce` (every partition of the steps into columns), the paper's
Table 3 optimum (g = 4, n = 20: K = 23780 = ceil(K_min)), and for g = 2 the rearrangement
inequality (pairing s with n + 1 - s minimises the sum of products).
"""

from __future__ import annotations

import math

import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.worksharing.charts import (
    is_valid_chart,
    k_constant,
    k_min,
    optimal_chart_bruteforce,
)
from resilsched.models.worksharing.group_chart import optimal_group_chart
from resilsched.reproduce.worksharing.table4 import TABLE4_CHARTS
from resilsched.reproduce.worksharing.table4_exact import table4_exact_statistics


@pytest.mark.parametrize("g,m", [(1, 3), (2, 1), (2, 2), (2, 3), (2, 5), (3, 2), (3, 3),
                                 (4, 2), (4, 3)])
def test_exact_chart_equals_brute_force(g, m):
    k, chart, proven = optimal_group_chart(g, m)
    assert proven and is_valid_chart(chart) and chart.shape == (g, m)
    assert k == k_constant(chart) == optimal_chart_bruteforce(g, m)[0]


def test_table3_optimum():
    k, _, proven = optimal_group_chart(4, 5)
    assert proven and k == 23780 == math.ceil(k_min(20, 4))


@pytest.mark.parametrize("m", [4, 9, 15])
def test_two_rows_pair_opposite_steps(m):
    n = 2 * m
    k, _, proven = optimal_group_chart(2, m)
    assert proven and k == sum(s * (n + 1 - s) for s in range(1, m + 1))


@pytest.mark.parametrize("g,m", [(3, 10), (4, 6), (4, 7)])
def test_optimum_between_kmin_and_every_heuristic(g, m):
    k, chart, proven = optimal_group_chart(g, m)
    assert proven and is_valid_chart(chart)
    assert k >= math.ceil(k_min(g * m, g) - 1e-9)
    assert all(k <= k_constant(f(g, m)) for f in TABLE4_CHARTS.values())


@pytest.mark.parametrize("g,m", [(5, 2), (4, 8), (2, 16), (0, 3), (2, True), (2, 2.0)])
def test_sizes_beyond_the_exact_range_are_refused(g, m):
    with pytest.raises(InvalidInstance):
        optimal_group_chart(g, m)


def test_table4_exact_columns_on_a_small_grid():
    grid = [(2, 8), (3, 9), (4, 12)]
    stats = table4_exact_statistics(grid)
    for name in (*TABLE4_CHARTS, "best-of"):
        assert stats[name]["min"] >= 1.0 and stats[name]["count"] == 3
    assert stats["best-of"]["max"] <= min(stats[name]["max"] for name in TABLE4_CHARTS)
    assert stats["K_opt vs K_min"]["min"] >= 1.0 - 1e-12
