"""MT-ALLOTMENT for independent identical chains (spec 000 §3.7), used by BATCH-LIST (§3.4).

The pending jobs J_k each form a chain of g identical sub-jobs; find per-attempt allocations
minimising L(p) = max(max_j sum_m t_j(p_{j,m}), sum_{j,m} a_j(p_{j,m}) / P) within
(1 + eps)(1 + eps2).

`MTAllotment.feasible(X)` is the dual-approximation DP: quantum Z = eps X / g, grid
K = floor(X/Z) + g; h_j[k] = min{a_j(p) : p on the time-Pareto front, t_j(p) <= k Z} (times
rounded up to quanta; areas within a relative 1e-9 are ties, which go to the larger p, as
[R] intends: `AREA_TIE_RTOL`); H_j = g-fold min-plus convolution of h_j (every attempt uses
>= 1 quantum); X is accepted at the smallest k >= 1 with
area_slack sum_j H_j[k] / P < k Z (strict), returning min(kZ, X) and the allocation found by
backtracking. The outer search (`MTAllotment.solve`) starts from the all-sequential X0 (doubled
until feasible, spec §3.7 step 6 edge case) and bisects until Xmax / Xmin <= 1 + eps2. With
``area_slack = 1`` the result satisfies L(p) <= (1 + eps)(1 + eps2) min_p L (proof: an
infeasible X is < min_p L, and a feasible call at X returns an allocation with
L <= kZ <= X (1 + eps)). ``area_slack = 1.1`` is [R]'s undocumented factor (spec §7 item 12).
Cost: O(m K S log g) per DP call for chains of length g = 2^L (repeated squaring of
non-increasing step functions with S <= K/2 steps, `_min_plus_square`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched import engine
from resilsched.errors import InvalidInstance


@dataclass
class _Front:
    """A job's time-Pareto front with suffix minima of the area (t strictly decreasing)."""

    p: np.ndarray
    t: np.ndarray
    neg_t: np.ndarray
    sufmin: np.ndarray
    sufarg: np.ndarray


#: relative tolerance under which two areas of a front are a tie (spec 000 §3.7 step 3):
#: roofline's p (w / p) equals w for every p <= pbar but jitters by an ulp in floats
AREA_TIE_RTOL = 1e-9


def _front(instance, j: int, rtol: float = AREA_TIE_RTOL) -> _Front:
    """Job j's time-Pareto front; for every suffix (the p with t_j(p) <= a threshold) the
    point of smallest area, ties within a relative `rtol` going to the larger p.

    [R] keeps the larger p among equal areas (§3.7 step 3), but equal areas in exact
    arithmetic differ by float noise, which then picks an arbitrary p (roofline: any p <= pbar).
    Here a point wins a suffix only when its area is below (1 + rtol) times the suffix minimum
    and no larger p is: scanning the front from the largest p, it is the first point whose area
    reaches the running minimum's tolerance band (docs/decisions.md M23). The chosen areas
    stay non-increasing as the suffix grows (the band's bound does), as `_min_plus_square`
    needs.
    """
    ps = instance.fronts[j]
    t = instance.T[j, ps - 1]
    a = t * ps
    rev = a[::-1]
    run = np.minimum.accumulate(rev)  # run[q]: least area among the q + 1 largest p
    # first rev position k with run[k] <= (1 + rtol) run[q]: the largest p within the band
    first = np.searchsorted(-run, -run * (1.0 + rtol), side="left")
    sufarg = (rev.size - 1 - first)[::-1]
    return _Front(ps, t, -t, a[sufarg], sufarg)


@dataclass
class Allotment:
    """Result of MT-ALLOTMENT: allocations (rows = jobs, g columns in DP order) and L values."""

    alloc: np.ndarray
    L: float
    X: float
    calls: int


@dataclass
class MTAllotment:
    """MT-ALLOTMENT solver for one instance (fronts cached across calls, §3.7).

    The fronts of all jobs are stored once as flat arrays keyed by ``j * B - log t`` (increasing
    inside a job's segment since t decreases on the front), so that "first front point of job j
    with t <= kZ" is one vectorised `numpy.searchsorted` for all pending jobs and thresholds
    (``log`` resolution ~1e-11 relative, far below the quantum Z).
    """

    instance: Any
    eps: float = 0.3
    eps2: float = 0.03
    area_slack: float = 1.0
    fronts: dict[int, _Front] = field(default_factory=dict)
    _flat: tuple | None = None

    def front(self, j: int) -> _Front:
        if j not in self.fronts:
            self.fronts[j] = _front(self.instance, j)
        return self.fronts[j]

    def flat(self) -> tuple:
        """(key, offsets, p, sufmin, global sufarg, B, lo, hi) over all jobs' fronts."""
        if self._flat is None:
            n = self.instance.n
            frs = [self.front(j) for j in range(n)]
            logs = [np.log(fr.t) for fr in frs]
            lo = min(float(-lg.max()) for lg in logs) - 1.0
            hi = max(float(-lg.min()) for lg in logs) + 1.0
            B = 2.0 * (hi - lo) + 4.0
            sizes = np.array([fr.t.size for fr in frs])
            off = np.concatenate([[0], np.cumsum(sizes)])
            key = np.concatenate([j * B - logs[j] for j in range(n)])
            p = np.concatenate([fr.p for fr in frs])
            sufmin = np.concatenate([fr.sufmin for fr in frs])
            sufarg = np.concatenate([fr.sufarg + off[j] for j, fr in enumerate(frs)])
            self._flat = (key, off, p, sufmin, sufarg, B, lo, hi)
        return self._flat

    def feasible(self, jobs: Sequence[int], g: int, X: float) -> tuple[float, tuple] | None:
        """One DP call (§3.7 steps 2-5); None when X is rejected, else (min(kZ, X), state)."""
        key, off, _, sufmin, _, B, lo, hi = self.flat()
        rows = np.asarray(jobs, dtype=np.int64)
        Z = self.eps * X / g
        K = int(math.floor(X / Z)) + g
        thr = np.arange(K + 1) * Z
        m = rows.size
        q = rows[:, None] * B + np.clip(-np.log(thr[1:]), lo, hi)[None, :]
        idx = np.searchsorted(key, q.ravel(), side="left").reshape(m, K)
        end = off[rows + 1][:, None]
        ok = idx < end
        h = np.full((m, K + 1), np.inf)
        first = np.zeros((m, K + 1), dtype=np.int64)
        first[:, 1:] = np.minimum(idx, end - 1)
        h[:, 1:][ok] = sufmin[idx[ok]]
        H = h
        args = []
        if g > 1:
            if g & (g - 1) == 0:
                # g = 2^L (BATCH's chains): repeated squaring, H^(2s) = H^(s) (+) H^(s),
                # O(K^2 log g) per job (spec §3.7 step 4); args[i] splits a 2^(i+1) chain
                for _ in range(g.bit_length() - 1):
                    H, arg = _min_plus_square(H)
                    args.append(arg)
            else:
                D = _toeplitz(K)
                hpad = np.concatenate([h, np.full((m, 1), np.inf)], axis=1)
                hD = hpad[:, D]  # hD[:, l, k] = h[:, k - l] (inf when k - l < 1)
                for _ in range(g - 1):
                    cand = H[:, :, None] + hD
                    arg = cand.argmin(axis=1)
                    H = np.take_along_axis(cand, arg[:, None, :], axis=1)[:, 0, :]
                    args.append(arg)
        total = self.area_slack * H.sum(axis=0) / self.instance.P
        ks = np.nonzero(total[1:] < thr[1:])[0]
        if ks.size == 0:
            return None
        k = int(ks[0]) + 1
        return min(k * Z, X), (k, first, args)

    def backtrack(self, g: int, state: tuple) -> np.ndarray:
        """Per-attempt allocations of the accepted DP call (vectorised over jobs)."""
        _, _, p, _, sufarg, *_ = self.flat()
        k, first, args = state
        m = first.shape[0]
        r = np.arange(m)
        if g > 1 and g & (g - 1) == 0:
            budgets = np.full((m, 1), k, dtype=np.int64)
            for arg in reversed(args):  # split every 2s-chain budget into two s-chains
                left = np.take_along_axis(arg, budgets, axis=1)
                budgets = np.concatenate([left, budgets - left], axis=1)
            return p[sufarg[first[r[:, None], budgets]]]
        alloc = np.empty((m, g), dtype=np.int64)
        budget = np.full(m, k, dtype=np.int64)
        for level in range(g - 1, 0, -1):
            l_ = args[level - 1][r, budget]
            alloc[:, level] = p[sufarg[first[r, budget - l_]]]
            budget = l_
        alloc[:, 0] = p[sufarg[first[r, budget]]]
        return alloc

    def solve(self, jobs: Sequence[int], g: int, use_c: bool | None = None) -> Allotment:
        """The outer search of §3.7 step 6 (bisection until Xmax / Xmin <= 1 + eps2).

        For g = 2^L the compiled core runs the search (``csrc/core/moldable_batch.c``, the
        same floats); ``use_c=False`` or no core: `search` in Python and numpy.
        """
        jobs = list(jobs)
        if g < 1:
            raise InvalidInstance("g", f"{g} must be >= 1")
        w = self.instance.w[jobs]
        X = max(g * float(w.max()), g * float(w.sum()) / self.instance.P)
        lib = engine.module() if use_c is not False and g & (g - 1) == 0 else None
        if lib is not None:
            key, off, p, sufmin, sufarg, B, lo, hi = self.flat()
            best = np.empty((len(jobs), g), dtype=np.int64)
            xmax, calls = lib.mt_solve(key, off, p, sufmin, sufarg, B, lo, hi,
                                       np.asarray(jobs, dtype=np.int64), g, self.eps, self.eps2,
                                       self.area_slack, self.instance.P, X, best)
        else:
            best, xmax, calls = self.search(jobs, g, X)
        T = self.instance.T
        rows = np.asarray(jobs)[:, None]
        t = T[rows, best - 1]
        Lval = max(float(t.sum(axis=1).max()), float((t * best).sum()) / self.instance.P)
        return Allotment(best, Lval, xmax, calls)

    def search(self, jobs: list[int], g: int, X: float) -> tuple[np.ndarray, float, int]:
        """Doubling from X, then bisection; (allocations, Xmax, DP calls)."""
        calls = 1
        res = self.feasible(jobs, g, X)
        while res is None:
            X *= 2.0
            calls += 1
            res = self.feasible(jobs, g, X)
        xmax, state = res
        xmin = 0.0
        while xmin == 0.0 or xmax / xmin > 1.0 + self.eps2:
            xmed = (xmin + xmax) / 2.0
            calls += 1
            r = self.feasible(jobs, g, xmed)
            if r is None:
                xmin = xmed
            else:
                xmax, state = r
        return self.backtrack(g, state), xmax, calls


#: `_min_plus_square` builds the whole table in one numpy expression when its rows x (K + 1)^2
#: cells are at most TABLE_COST x (rows + step starts): a table cell costs ~30 ns (gather, add,
#: argmin), a row or a step start of the per-row loop ~6 us of Python and numpy calls (measured
#: on a loaded 2-core machine; docs/performance.md). A fixed 2^21 cells made BATCH-LIST at
#: lambda = 1e-6 spend 95 % of its time in tables of rows with a few steps each.
TABLE_COST = 200


def _min_plus_square(H: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row by row, S[k] = min_{1 <= l <= k-1} H[l] + H[k-l] and its first argmin l (0 when
    every term is inf), for non-increasing rows with H[0] = inf (the h_j of `feasible` and
    their self-convolutions are: a larger budget never costs more area).

    The same floats and the same l as the direct O(K^2) table (`cand.argmin`) of every (l, k),
    at a fraction of its cost and with O(K) memory: the first argmin l* is at most k/2 (its
    mirror k - l* gives the same sum, fl(a + b) = fl(b + a)), and it starts a step of H
    (on a run of equal H[l], H[k - l] and so the rounded sum do not decrease as l grows). So
    only the step starts l <= K/2 are tried, in increasing order, each against every k at once
    and kept where strictly better. O(K x steps) per row; the steps of a chain of c attempts
    grow about linearly in c (a few for the roofline's flat areas), at most K/2. Grids small
    against the loop's Python work (`TABLE_COST`) still use the table, vectorised over the rows.
    """
    m, width = H.shape
    K = width - 1
    half = K // 2
    starts = H[:, 1:half + 1] < H[:, :half]  # starts[r, l - 1]: a step of row r starts at l
    if m * width * width <= TABLE_COST * (m + int(np.count_nonzero(starts))):
        Hpad = np.concatenate([H, np.full((m, 1), np.inf)], axis=1)
        cand = H[:, :, None] + Hpad[:, _toeplitz(K)]
        arg = cand.argmin(axis=1)
        return np.take_along_axis(cand, arg[:, None, :], axis=1)[:, 0, :], arg
    best = np.full((m, width), np.inf)
    arg = np.zeros((m, width), dtype=np.int64)
    for r in range(m):
        row, b, a = H[r], best[r], arg[r]
        cand = np.empty(K)
        better = np.empty(K, dtype=bool)
        for l_ in (np.nonzero(starts[r])[0] + 1).tolist():
            size = K - l_  # k = l + 1 .. K
            c, up = cand[:size], better[:size]
            np.add(row[l_], row[1:size + 1], out=c)
            np.less(c, b[l_ + 1:], out=up)
            np.copyto(b[l_ + 1:], c, where=up)
            np.copyto(a[l_ + 1:], l_, where=up)
    return best, arg


_TOEPLITZ: dict[int, np.ndarray] = {}


def _toeplitz(K: int) -> np.ndarray:
    """D[l, k] = k - l for 1 <= l and 1 <= k - l, else K + 1 (the inf column of the padding)."""
    if K not in _TOEPLITZ:
        ll, kk = np.meshgrid(np.arange(K + 1), np.arange(K + 1), indexing="ij")
        D = kk - ll
        D[(ll < 1) | (D < 1)] = K + 1
        _TOEPLITZ[K] = D
    return _TOEPLITZ[K]
