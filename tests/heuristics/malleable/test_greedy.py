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


def _reserve_loop(start, v0, cap, pool, est, rpos, res, above):
    """The heap loop where position rpos may also take `res` reserved processors for its count
    above `above` (A-14 'faulty_only'), one candidate count at a time (the oracle)."""
    k, val = list(start), list(v0)
    alive = set(range(len(k)))
    while alive:
        top = min(alive, key=lambda i: (-val[i], i))
        nxt = None
        kk = k[top] + 2
        while kk <= cap[top]:
            need = kk - k[top]
            if top == rpos:
                need -= min(res, max(0, kk - max(k[top], above)))
            if need > pool:
                break
            v = float(est(np.array([top]), np.array([kk]))[0])
            if v < val[top]:
                nxt = (kk, v, need)
                break
            kk += 2
        if nxt is None:
            break
        if top == rpos:
            res -= (nxt[0] - k[top]) - nxt[2]
        pool -= nxt[2]
        k[top], val[top] = nxt[0], nxt[1]
    return k, val, pool


def test_reserved_processors_go_to_one_position_only():
    """`allocate(reserve=...)`: the reserve serves only its position, above `above`, first."""
    rng = np.random.default_rng(5)
    for trial in range(200):
        n = int(rng.integers(1, 7))
        pool, res = int(rng.integers(0, 30)), 2 * int(rng.integers(0, 10))
        start = 2 * rng.integers(1, 4, n)
        cap = start + 2 * rng.integers(0, 20, n)
        tab = np.sort(rng.integers(1, 30, (n, 100)).astype(float), axis=1)[:, ::-1]
        tab += rng.integers(0, 3, (n, 100))
        def est(pos, k, tab=tab):
            return tab[pos, k]
        v0 = tab[np.arange(n), start]
        rpos = int(rng.integers(0, n))
        above = int(start[rpos]) + 2 * int(rng.integers(0, 3))
        want = _reserve_loop(start.tolist(), v0.tolist(), cap.tolist(), pool, est, rpos, res,
                             above)
        got = allocate(start, v0, cap, pool, est, reserve=(rpos, res, above))
        assert got[0].tolist() == want[0] and got[2] == want[2], trial
        assert got[1].tolist() == want[1], trial
        if res == 0:
            assert got[0].tolist() == allocate_loop(start, v0, cap, pool, est)[0].tolist()


def test_the_cut_keeps_the_steps_past_an_earlier_cut():
    """Staircase estimates (long plateaus): a round's cut used to drop the steps after it, so
    the next cut passed them and took a later step of their chain without paying for them (the
    counts grew by 100 on a pool of 72; ENDGREEDY-IG then asked for more processors than p,
    Fig. 1.5 n = 100 repetition 19)."""
    rng = np.random.default_rng(5)
    for trial in range(1300):
        n = int(rng.integers(2, 12))
        pool = int(rng.integers(10, 200))
        start = 2 * rng.integers(1, 3, n)
        cap = start + 2 * rng.integers(0, 150, n)
        tab = np.empty((n, 400))
        for r in range(n):  # decreasing staircase with plateaus of random length
            lens = rng.integers(1, 40, 60)
            tab[r] = np.resize(np.repeat(np.sort(rng.uniform(1, 100, 60))[::-1], lens), 400)
        def est(pos, k, tab=tab):
            return tab[pos, k]
        v0 = tab[np.arange(n), start] + rng.uniform(0, 5, n)
        want = allocate_loop(start, v0, cap, pool, est)
        got = allocate(start, v0, cap, pool, est, budget=0)
        assert int(got[0].sum() - start.sum()) == pool - got[2], trial
        assert np.array_equal(got[0], want[0]) and got[2] == want[2], trial


def test_a_pool_that_never_binds_needs_only_the_chains_above_the_stop():
    """A pool beyond every reach (idle processors on the largest platforms, p = 10^7): the cut
    finishes the chain of the highest open end first, whose terminal value then cuts the others,
    so it evaluates a fraction of the counts up to the caps; the same answer as the heap loop."""
    rng = np.random.default_rng(13)
    cells = spans = 0
    for trial in range(150):
        n = int(rng.integers(2, 25))
        start = 2 * rng.integers(1, 3, n)
        cap = start + 2 * rng.integers(50, 600, n)
        pool = 4 * int(cap.sum())
        ks = np.arange(cap.max() + 2)
        a, b = rng.uniform(1e2, 1e4, n), rng.uniform(0.1, 1, n)  # a/k + b k: a valley at 10-300
        tab = (a[:, None] / np.maximum(ks, 1) + b[:, None] * ks
               + rng.uniform(0, 0.5, (n, ks.size)))
        seen = [0]

        def est(pos, k, tab=tab, seen=seen):
            seen[0] += len(pos)
            return tab[pos, k]

        v0 = tab[np.arange(n), start]
        want = allocate_loop(start, v0, cap, pool, est)
        seen[0] = 0
        got = allocate(start, v0, cap, pool, est, budget=0)
        assert np.array_equal(got[0], want[0]) and got[2] == want[2], trial
        assert np.array_equal(got[1], want[1]), trial
        cells += seen[0]
        spans += int(((cap - start) // 2).sum())
    assert cells < 0.4 * spans, (cells, spans)  # 0.28 (every open chain widened: 0.61)
