"""The pair-greedy of Algorithm 1 with estimates that change with the count (spec 001 §3.1-3.5).

Every allocation step of the malleable heuristics (the initial allocation, ENDLOCAL, ENDGREEDY,
ITERATEDGREEDY, SAF's first phase) is the loop::

    k_i = start_i; value_i = est_i(start_i); H = max-heap on (value_i, -i)
    while pool >= 2 and H:
        l = H.top()
        k' = improvable(l, k_l, est_l, pool)      # 'lookahead' or 'strict_step' (A-11)
        if k' is None: stop (A-12 'stop') or drop l and go on ('skip')
        pool -= k' - k_l; k_l = k'; value_l = est_l(k'); H.update(l)

with ``improvable`` the smallest even k' in (k, min(cap_l, k + pool)] with est(k') < est(k)
('lookahead') or k + 2 if it is below the cap and strictly better ('strict_step'). Ties between
applications go to the lowest position (the order of the arrays given).

`allocate` runs exactly this loop, organised so that a call costs what its steps read
(decision MA-6):

- the heap is built lazily: the first top is an argmax, the others come from one sort of the
  start values, merged with a small heap of the applications already served; most calls of the
  simulator stop at their first top (the longest application cannot improve);
- an application's estimates are evaluated once per call and cached: the first few counts one
  at a time (`Estimator.one`, plain floats), then the rest of its reach at once: by
  `Estimator.scan` where it exists (the first count below the value, skipping blocks of counts
  a lower bound proves above it, `Tables.first_below`), else by `Estimator.range`;
- a call that has taken `BUDGET` steps finishes with the vectorised cut of the record chains
  (`cut.cut`, decision MA-18), with the default rules.

The straightforward loop is kept as `allocate_loop` (the oracle of the tests).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Protocol

import numpy as np

from resilsched.heuristics.malleable.cut import cut

#: (positions, counts) -> estimates, vectorised
VectorEstimator = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: counts of an application evaluated one at a time before switching to ranges
SCALAR = 6
#: most counts evaluated in one range
CHUNK = 1024
#: steps of the heap loop before a call finishes with the vectorised cut (`cut.cut`)
BUDGET = 32


class Estimator(Protocol):
    """Estimates of the application at a position on even counts."""

    def one(self, pos: int, k: int) -> float:
        """The estimate on k processors."""

    def range(self, pos: int, lo: int, hi: int) -> np.ndarray:
        """The estimates on lo, lo + 2, ..., hi processors."""


class _Vectorised:
    """An `Estimator` over a plain vectorised function (pos, k) -> values."""

    def __init__(self, est: VectorEstimator) -> None:
        self.est = est

    def one(self, pos: int, k: int) -> float:
        return float(self.est(np.array([pos]), np.array([k]))[0])

    def range(self, pos: int, lo: int, hi: int) -> np.ndarray:
        ks = np.arange(lo, hi + 1, 2)
        return np.asarray(self.est(np.full(ks.size, pos), ks), dtype=float)

    def vec(self, pos: np.ndarray, k: np.ndarray) -> np.ndarray:
        return np.asarray(self.est(pos, k), dtype=float)


def allocate(start, value0, cap, pool: int, est: Estimator | VectorEstimator, *,
             rule: str = "lookahead", on_stuck: str = "stop",
             budget: int = BUDGET,
             reserve: tuple[int, int, int] | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Final counts, their estimates and the pool left by the greedy loop of the module doc.

    `start` (even counts), `value0` (estimates at the start, which may differ from
    ``est(start)``: stale t^U, A-10) and `cap` (largest count allowed, e.g. j_max) are per
    application; `pool` counts the processors beyond the starts. `est` is an `Estimator` or a
    vectorised function of (positions, counts). With the default rules, after `budget` steps
    the call finishes with `cut.cut` (when `est` has a vectorised ``vec(positions, counts)``).

    `reserve` = (position, count, above): `count` more processors that only that position may
    take, for the part of its count above `above`, before the pool's (A-14 'faulty_only',
    decision MA-9); the pool left is returned without them.
    """
    k = np.array(start, dtype=np.int64)
    val = np.array(value0, dtype=float)
    cap = np.asarray(cap, dtype=np.int64)
    n = k.size
    rpos, res, above = reserve if reserve else (-1, 0, 0)
    if n == 0 or (pool < 2 and res < 2):
        return k, val, pool
    if not hasattr(est, "one"):
        est = _Vectorised(est)
    strict = rule == "strict_step"
    if strict or on_stuck != "stop" or not hasattr(est, "vec") or res:
        budget = -1  # the loop runs to the end
    first = int(np.argmax(val))
    order, ovals = [first], [float(val[first])]  # start order (value desc, position asc)
    sorted_all = n == 1           # order is built lazily: most calls stop at their first top
    ptr = 0                       # applications order[:ptr] have been served
    served: list[tuple[float, int]] = []  # heap of (-value, position) of served applications
    now: dict[int, tuple[int, float]] = {}  # position -> (count, value) once served
    cache: dict[int, list] = {}
    while pool >= 2 or res >= 2:
        if budget == 0:
            return _finish(k, val, cap, pool, est, now)
        budget -= 1
        if ptr == len(order) and not sorted_all:
            o = np.lexsort((np.arange(n), -val))
            order, ovals, sorted_all = o.tolist(), val[o].tolist(), True
        if ptr < len(order):
            s, vs = order[ptr], ovals[ptr]
            fresh = not served or -served[0][0] < vs or (-served[0][0] == vs
                                                          and served[0][1] > s)
        elif served:
            fresh = False
        else:
            break
        if fresh:
            top, vl, kl = s, vs, int(k[s])
        else:
            top = served[0][1]
            kl, vl = now[top]
        avail = pool + res if top == rpos and kl + pool >= above else pool
        reach = min(int(cap[top]), kl + avail)
        nxt = _improvable(est, cache, top, kl, vl, reach, strict)
        if nxt is None:
            if on_stuck == "stop":
                break
            if fresh:
                ptr += 1
            else:
                heapq.heappop(served)
            continue
        kn, vn = nxt
        if top == rpos:  # the reserve first, for the part above `above`
            use = min(res, max(0, kn - max(kl, above)))
            res -= use
            pool += use
        pool -= kn - kl
        now[top] = nxt
        if fresh:
            ptr += 1
            heapq.heappush(served, (-vn, top))
        else:
            heapq.heapreplace(served, (-vn, top))
    _apply(k, val, now)
    return k, val, pool


def _apply(k: np.ndarray, val: np.ndarray, now: dict[int, tuple[int, float]]) -> None:
    if now:
        pos = list(now)
        k[pos] = [c for c, _ in now.values()]
        val[pos] = [v for _, v in now.values()]


def _finish(k, val, cap, pool, est, now):
    """The rest of the loop by the vectorised cut, from the state the loop reached."""
    _apply(k, val, now)
    return cut(k, val, cap, pool, est.vec)


def _improvable(est: Estimator, cache: dict[int, list], pos: int, k: int, value: float,
                reach: int, strict: bool) -> tuple[int, float] | None:
    """The next count of `pos` (and its estimate) by ``improvable``, or None.

    ``cache[pos] = [lo, values]`` holds the estimates on lo, lo + 2, ... evaluated so far in
    this call (the counts of an application only grow within a call).
    """
    kk = k + 2
    if kk > reach:
        return None
    entry = cache.get(pos)
    if entry is None:
        entry = cache[pos] = [kk, []]
    lo, vals = entry
    i = (kk - lo) // 2
    last = (reach - lo) // 2
    while i <= last:
        if i < len(vals):
            v = vals[i]
            if v < value:
                return lo + 2 * i, v
            if strict:
                return None
            i += 1
        elif i < SCALAR or strict:
            vals.append(est.one(pos, lo + 2 * i))
        elif hasattr(est, "scan"):  # the rest at once, skipping blocks above `value`
            got = est.scan(pos, lo + 2 * i, lo + 2 * last, value)
            if got is not None:
                cache[pos] = [got[0] + 2, []]
            return got
        else:
            hi = min(last, i + CHUNK - 1)
            arr = est.range(pos, lo + 2 * i, lo + 2 * hi)
            vals.extend(arr.tolist())
            hit = int(np.argmax(arr < value))
            if arr[hit] < value:
                return lo + 2 * (i + hit), vals[i + hit]
            i = hi + 1
    return None


def allocate_loop(start, value0, cap, pool: int, est: VectorEstimator, *,
                  rule: str = "lookahead",
                  on_stuck: str = "stop") -> tuple[np.ndarray, np.ndarray, int]:
    """The heap loop of the module docstring, one estimate at a time (reference semantics)."""
    k = np.array(start, dtype=np.int64)
    val = np.array(value0, dtype=float)
    cap = np.asarray(cap, dtype=np.int64)
    heap = [(-float(v), i) for i, v in enumerate(val)]
    heapq.heapify(heap)
    one = np.empty(1, dtype=np.int64)
    while pool >= 2 and heap:
        _, l = heap[0]  # noqa: E741 (the spec's name)
        top = min(int(cap[l]), int(k[l]) + pool)
        nxt = None
        kk = int(k[l]) + 2
        while kk <= top:
            one[0] = l
            v = float(est(one, np.array([kk]))[0])
            if v < val[l]:
                nxt = (kk, v)
                break
            if rule == "strict_step":
                break
            kk += 2
        if nxt is None:
            if on_stuck == "stop":
                break
            heapq.heappop(heap)
            continue
        pool -= nxt[0] - int(k[l])
        k[l], val[l] = nxt
        heapq.heapreplace(heap, (-nxt[1], l))
    return k, val, pool
