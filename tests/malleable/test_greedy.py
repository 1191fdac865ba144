"""The lazy pair-greedy equals the plain heap loop (heuristics/malleable/greedy.py)."""

from __future__ import annotations

import numpy as np
import pytest

from resilsched.heuristics.malleable.greedy import allocate, allocate_loop


@pytest.mark.parametrize("rule", ["lookahead", "strict_step"])
@pytest.mark.parametrize("on_stuck", ["stop", "skip"])
def test_allocate_equals_the_heap_loop(rule, on_stuck):
    rng = np.random.default_rng(7)
    for trial in range(400):
        n = int(rng.integers(1, 7))
        pool = int(rng.integers(0, 40))
        start = 2 * rng.integers(1, 4, n)
        cap = start + 2 * rng.integers(0, 15, n)
        tab = rng.integers(1, 12, (n, 80)).astype(float)
        if trial % 2:  # mostly decreasing with wiggles and ties
            tab = np.sort(tab, axis=1)[:, ::-1] + rng.integers(0, 3, (n, 80))
        def est(pos, k, tab=tab):
            return tab[pos, k]
        v0 = tab[np.arange(n), start] if trial % 3 else rng.integers(1, 12, n).astype(float)
        want = allocate_loop(start, v0, cap, pool, est, rule=rule, on_stuck=on_stuck)
        got = allocate(start, v0, cap, pool, est, rule=rule, on_stuck=on_stuck)
        assert np.array_equal(got[0], want[0]) and got[2] == want[2], trial
        assert np.array_equal(got[1], want[1])


@pytest.mark.parametrize("budget", [0, 1, 3])
def test_the_vectorised_cut_equals_the_heap_loop(budget):
    """`allocate` finishing with `cut.cut` after `budget` steps (windows of 4 pairs, widened)."""
    rng = np.random.default_rng(11 + budget)
    for trial in range(400):
        n = int(rng.integers(1, 9))
        pool = int(rng.integers(0, 120))
        start = 2 * rng.integers(1, 4, n)
        cap = start + 2 * rng.integers(0, 40, n)
        tab = rng.integers(1, 30, (n, 200)).astype(float)
        if trial % 2:  # mostly decreasing with wiggles and ties
            tab = np.sort(tab, axis=1)[:, ::-1] + rng.integers(0, 3, (n, 200))
        def est(pos, k, tab=tab):
            return tab[pos, k]
        v0 = tab[np.arange(n), start] if trial % 3 else rng.integers(1, 30, n).astype(float)
        want = allocate_loop(start, v0, cap, pool, est)
        got = allocate(start, v0, cap, pool, est, budget=budget)
        assert np.array_equal(got[0], want[0]) and got[2] == want[2], trial
        assert np.array_equal(got[1], want[1]), trial
