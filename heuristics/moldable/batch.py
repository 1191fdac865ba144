"""BATCH-LIST and MT-ALLOTMENT (spec 000 §3.4, §3.7).

MT-ALLOTMENT for independent identical chains (§3.7): the pending jobs J_k each form a chain
of g identical sub-jobs; find per-attempt allocations minimising
L(p) = max(max_j sum_m t_j(p_{j,m}), sum_{j,m} a_j(p_{j,m}) / P) within (1 + eps)(1 + eps2).

`feasible(X)` is the dual-approximation DP: quantum Z = eps X / g, grid K = floor(X/Z) + g;
h_j[k] = min{a_j(p) : p on the time-Pareto front, t_j(p) <= k Z} (times rounded up to quanta;
ties in area go to the larger p, as [R]); H_j = g-fold min-plus convolution of h_j (every attempt
uses >= 1 quantum); X is accepted at the smallest k >= 1 with area_slack sum_j H_j[k] / P < k Z
(strict), returning min(kZ, X) and the allocation found by backtracking. The outer search starts
from the all-sequential X0 (doubled until feasible, spec §3.7 step 6 edge case) and bisects
until Xmax / Xmin <= 1 + eps2. With ``area_slack = 1`` the result satisfies
L(p) <= (1 + eps)(1 + eps2) min_p L (proof: an infeasible X is < min_p L, and a feasible call at
X returns an allocation with L <= kZ <= X (1 + eps)). ``area_slack = 1.1`` is [R]'s undocumented
factor (spec §7 item 12), default on for the reproduction.

BATCH-LIST (§3.4): batch k gives every pending job g_k = 2^(k-1) attempts with the
MT-ALLOTMENT allocations (executed in ``attempt_order``, default ``desc_p``: fastest first),
runs LIST with that cap (``g1_exact=True`` replaces the g = 1 DP by the exact threshold search
`resilsched.bounds.moldable.L_star_g1`, no slack: the variant of spec §6.3's "no slack" row),
and starts batch k+1 only after every attempt of batch k has ended
(barrier). Failures are counted globally: attempt i of job j overall fails iff i <= f_j. Job j
completes in batch ceil(log2(f_j + 2)) (Lemma 5).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import run_engine
from resilsched.heuristics.moldable import _kernel
from resilsched.heuristics.moldable.listsched import ListPolicy, check_priority, priority_key
from resilsched.schedule import Attempt

ATTEMPT_ORDERS = ("desc_p", "asc_p", "dp_order", "first_only")


@dataclass
class _Front:
    """A job's time-Pareto front with suffix minima of the area (t strictly decreasing)."""

    p: np.ndarray
    t: np.ndarray
    neg_t: np.ndarray
    sufmin: np.ndarray
    sufarg: np.ndarray


def _front(instance, j: int) -> _Front:
    ps = instance.fronts[j]
    t = instance.T[j, ps - 1]
    a = t * ps
    rev = a[::-1]
    run = np.minimum.accumulate(rev)
    new = np.empty(rev.size, dtype=bool)
    new[0] = True
    new[1:] = rev[1:] < run[:-1]
    arg_rev = np.maximum.accumulate(np.where(new, np.arange(rev.size), 0))
    sufmin = run[::-1]
    sufarg = (rev.size - 1 - arg_rev)[::-1]
    return _Front(ps, t, -t, sufmin, sufarg)


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
            D = _toeplitz(K)
            if g & (g - 1) == 0:
                # g = 2^L (BATCH's chains): repeated squaring, H^(2s) = H^(s) (+) H^(s),
                # O(K^2 log g) per job (spec §3.7 step 4); args[i] splits a 2^(i+1) chain
                for _ in range(g.bit_length() - 1):
                    Hpad = np.concatenate([H, np.full((m, 1), np.inf)], axis=1)
                    cand = H[:, :, None] + Hpad[:, D]
                    arg = cand.argmin(axis=1)
                    H = np.take_along_axis(cand, arg[:, None, :], axis=1)[:, 0, :]
                    args.append(arg)
            else:
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

    def solve(self, jobs: Sequence[int], g: int) -> Allotment:
        """The outer search of §3.7 step 6 (bisection until Xmax / Xmin <= 1 + eps2)."""
        jobs = list(jobs)
        if g < 1:
            raise InvalidInstance("g", f"{g} must be >= 1")
        w = self.instance.w[jobs]
        X = max(g * float(w.max()), g * float(w.sum()) / self.instance.P)
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
        best = self.backtrack(g, state)
        T = self.instance.T
        rows = np.asarray(jobs)[:, None]
        t = T[rows, best - 1]
        Lval = max(float(t.sum(axis=1).max()), float((t * best).sum()) / self.instance.P)
        return Allotment(best, Lval, xmax, calls)


_TOEPLITZ: dict[int, np.ndarray] = {}


def _toeplitz(K: int) -> np.ndarray:
    """D[l, k] = k - l for 1 <= l and 1 <= k - l, else K + 1 (the inf column of the padding)."""
    if K not in _TOEPLITZ:
        ll, kk = np.meshgrid(np.arange(K + 1), np.arange(K + 1), indexing="ij")
        D = kk - ll
        D[(ll < 1) | (D < 1)] = K + 1
        _TOEPLITZ[K] = D
    return _TOEPLITZ[K]


def order_attempts(alloc: np.ndarray, attempt_order: str) -> np.ndarray:
    """Execution order of each job's DP multiset inside a batch (spec §3.7, §7 item 13)."""
    if attempt_order == "desc_p":
        return -np.sort(-alloc, axis=1)
    if attempt_order == "asc_p":
        return np.sort(alloc, axis=1)
    if attempt_order == "dp_order":
        return alloc
    if attempt_order == "first_only":
        return np.repeat(alloc[:, :1], alloc.shape[1], axis=1)
    raise InvalidInstance("attempt_order",
                          f"{attempt_order!r} is not one of {', '.join(ATTEMPT_ORDERS)}")


class BatchPlanner:
    """BATCH-LIST for one job set: caches MT-ALLOTMENT per (pending set, g) across scenarios."""

    def __init__(self, instance, eps: float = 0.3, eps2: float = 0.03, area_slack: float = 1.1,
                 attempt_order: str = "desc_p", g1_exact: bool = False):
        self.instance = instance
        self.mt = MTAllotment(instance, eps, eps2, area_slack)
        self.g1_exact = g1_exact
        self.attempt_order = attempt_order
        order_attempts(np.ones((1, 1), dtype=np.int64), attempt_order)  # validate early
        self.cache: dict[tuple[int, bytes], np.ndarray] = {}

    def allocation(self, jobs: np.ndarray, g: int) -> np.ndarray:
        key = (g, np.asarray(jobs, dtype=np.int64).tobytes())
        if key not in self.cache:
            if g == 1 and self.g1_exact:
                # exact min_p L for one attempt per job (§3.7 "faster exact alternative")
                from resilsched.bounds.moldable import L_star_g1

                self.cache[key] = L_star_g1(self.instance, jobs.tolist())[1][:, None]
            else:
                self.cache[key] = order_attempts(self.mt.solve(jobs.tolist(), g).alloc,
                                                 self.attempt_order)
        return self.cache[key]

    def makespan(self, failures: Sequence[int], priority: str = "LPT",
                 use_c: bool | None = None) -> tuple[float, int]:
        """Fast path: (makespan, number of batches)."""
        priority = check_priority(priority)
        inst = self.instance
        n = inst.n
        left = np.asarray(failures, dtype=np.int64).copy()
        pending = np.arange(n, dtype=np.int64)
        clock = 0.0
        k = 0
        while pending.size:
            k += 1
            g = 2 ** (k - 1)
            a = self.allocation(pending, g)
            dur = np.ones((n, g))
            alloc = np.ones((n, g), dtype=np.int64)
            dur[pending] = inst.T[pending[:, None], a - 1]
            alloc[pending] = a
            key = dur if priority == "LPT" else (alloc.astype(float) if priority == "HPA"
                                                  else alloc * dur)
            cap = np.zeros(n, dtype=np.int64)
            cap[pending] = g
            ms, done = _kernel.list_run(inst.P, dur, alloc, key, left, cap, pending, use_c)
            clock += ms
            left[pending] -= done[pending]
            pending = pending[left[pending] >= 0]
        return clock, k

    def simulate(self, failures: Sequence[int],
                 priority: str = "LPT") -> tuple[float, list[Attempt], list[int]]:
        """Engine path: (makespan, attempt log with global numbering, batch of each job)."""
        priority = check_priority(priority)
        inst = self.instance
        n = inst.n
        left = list(failures)
        count = [0] * n
        batch_of = [0] * n
        pending = np.arange(n, dtype=np.int64)
        clock = 0.0
        log: list[Attempt] = []
        k = 0
        while pending.size:
            k += 1
            g = 2 ** (k - 1)
            a = self.allocation(pending, g)
            m = pending.size
            # local job r = pending[r]; the engine sees it finish after min(left + 1, g) attempts
            sub_fail = [min(left[int(j)], g - 1) for j in pending]
            T = inst.T

            def duration(r: int, p: int, _pend=pending, T=T) -> float:
                return float(T[_pend[r], p - 1])

            def alloc(r: int, kk: int, _a=a) -> int:
                return int(_a[r, kk - 1])

            def key(r: int, kk: int, _a=a, _pend=pending, T=T) -> float:
                p = int(_a[r, kk - 1])
                return priority_key(priority, float(T[_pend[r], p - 1]), p)

            policy = ListPolicy(alloc, key, list(range(m)), [g] * m)
            res = run_engine(inst.P, sub_fail, duration, policy, record=True, exact=False)
            assert res.attempts is not None
            for att in res.attempts:
                j = int(pending[att.job])
                count[j] += 1
                failed = count[j] <= failures[j]
                log.append(Attempt(j, count[j], clock + att.start, clock + att.end, att.p, failed))
            clock = clock + res.makespan
            nxt = []
            for j in pending.tolist():
                ran = min(left[j] + 1, g)
                left[j] -= ran
                if left[j] >= 0:
                    nxt.append(j)
                else:
                    batch_of[j] = k
            pending = np.array(sorted(nxt), dtype=np.int64)
        return clock, log, batch_of
