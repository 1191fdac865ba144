"""The pair-greedy of Algorithm 1 with estimates that change with the count (spec 001 §3.1-3.5).

Every allocation step of the malleable heuristics (the initial allocation, ENDLOCAL, ENDGREEDY,
ITERATEDGREEDY) is the loop::

    k_i = start_i; value_i = est_i(start_i); H = max-heap on (value_i, -i)
    while pool >= 2 and H:
        l = H.top()
        k' = improvable(l, k_l, est_l, pool)      # 'lookahead' or 'strict_step' (A-11)
        if k' is None: stop (A-12 'stop') or drop l and go on ('skip')
        pool -= k' - k_l; k_l = k'; value_l = est_l(k'); H.update(l)

with ``improvable`` the smallest even k' in (k, min(cap_l, k + pool)] with est(k') < est(k)
('lookahead') or k + 2 if it is below the cap and strictly better ('strict_step'). Ties between
applications go to the lowest position (the order of the arrays given).

`allocate` computes the same result without the heap: an application walks along its chain of
records (each count whose estimate is strictly below every earlier one, or the run of strict
decreases for 'strict_step'), and since the popped values never increase the loop takes the
steps of all chains in decreasing (value, -position) order. Sorting the steps and cutting at the
first one that does not fit in the pool gives the final counts. Estimates are evaluated, all at
once, on a window of counts per application that doubles until the cut is known not to depend on
the counts beyond it. The straightforward heap loop is kept as `allocate_loop` (used for
``on_stuck='skip'`` and as the oracle of the tests).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

#: (positions, counts) -> estimates, vectorised
Estimator = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: applications whose first counts `_lazy` evaluates together before its first step
PREFETCH = 12


def allocate(start: np.ndarray, value0: np.ndarray, cap: np.ndarray, pool: int,
             est: Estimator, *, rule: str = "lookahead", on_stuck: str = "stop",
             window: np.ndarray | None = None,
             budget: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """Final counts, their estimates and the pool left by the greedy loop of the module doc.

    With a `budget`, the loop itself runs first (`_lazy`: only the popped application's
    estimates are evaluated, which is cheapest when few steps are taken) for at most that many
    steps, and the cut of the module docstring finishes from where it stopped. ``on_stuck =
    'skip'`` always runs the loop.

    `start` (even counts), `value0` (estimates at the start, which may differ from
    ``est(start)``: stale t^U, A-10) and `cap` (largest count allowed, e.g. j_max) are per
    application; `pool` counts the processors beyond the starts; `window` is a first guess of the
    number of pairs worth evaluating per application (a good guess saves work, any guess gives
    the same result).
    """
    start = np.array(start, dtype=np.int64)
    value0 = np.array(value0, dtype=float)
    cap = np.asarray(cap, dtype=np.int64)
    n = len(start)
    if n == 0 or pool < 2:
        return start, value0, pool
    if budget or on_stuck == "skip":
        done, start, value0, pool = _lazy(start, value0, cap, pool, est, rule, on_stuck,
                                          budget if on_stuck == "stop" else None)
        if done:
            return start, value0, pool
    reach = np.maximum(np.minimum(np.asarray(cap, dtype=np.int64), start + pool), start)
    span = (reach - start) // 2  # pairs an application could take at most
    w = np.full(n, 4, dtype=np.int64) if window is None else np.asarray(window, dtype=np.int64)
    w = np.minimum(np.clip(w, 1, None), span)
    cells = _Cells(n, start, est)
    while True:
        cells.extend(w)
        groups = [_records(g, w, value0, span, cells, rule) for g in _classes(w)]
        final, vals, left, grow, stalled = _cut(groups, start, pool, n)
        if final is not None:
            return final, vals, left
        w[grow] = np.minimum(span[grow], 2 * w[grow] + 2)
        if stalled is not None:
            r, best = stalled
            w[r] = cells.scan(r, int(w[r]), int(span[r]), best, rule)


class _Cells:
    """Estimates evaluated so far: column c >= 1 of row r is est(r, start_r + 2c)."""

    def __init__(self, n: int, start: np.ndarray, est: Estimator) -> None:
        self.start, self.est = start, est
        self.done = np.zeros(n, dtype=np.int64)  # columns 1..done[r] are known
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []

    def _add(self, r: np.ndarray, c: np.ndarray) -> np.ndarray:
        v = self.est(r, self.start[r] + 2 * c)
        self.rows.append(r)
        self.cols.append(c)
        self.vals.append(v)
        return v

    def extend(self, w: np.ndarray) -> None:
        """Evaluate the columns up to w[r] not known yet."""
        more = np.clip(w - self.done, 0, None)
        if more.any():
            r = np.repeat(np.arange(w.size), more)
            offset = np.arange(r.size) - np.repeat(np.cumsum(more) - more, more)
            self._add(r, self.done[r] + 1 + offset)
            self.done = np.maximum(self.done, w)
        if len(self.rows) > 1:
            self.rows = [np.concatenate(self.rows)]
            self.cols = [np.concatenate(self.cols)]
            self.vals = [np.concatenate(self.vals)]

    def scan(self, r: int, w: int, top: int, best: float, rule: str) -> int:
        """A window for row r reaching its next record after column w (a value below `best`,
        or the next column for 'strict_step'), or its whole span `top` if there is none."""
        if rule == "strict_step":
            return min(top, w + 1)
        lo, size = max(w, int(self.done[r])) + 1, max(8, w)
        while lo <= top:
            hi = min(top, lo + size - 1)
            cols = np.arange(lo, hi + 1)
            vals = self._add(np.full(cols.size, r), cols)
            self.done[r] = hi
            if (vals < best).any():
                return hi
            lo, size = hi + 1, 2 * size
        return top


def _classes(w: np.ndarray) -> list[np.ndarray]:
    """Rows grouped by window size class (powers of two), so each group's grid is at most about
    twice the cells it needs."""
    cls = np.frexp(w.astype(float) + 1.0)[1]
    order = np.argsort(cls, kind="stable")
    cuts = np.flatnonzero(np.diff(cls[order])) + 1
    return [np.sort(g) for g in np.split(order, cuts)]


def _records(rows: np.ndarray, w: np.ndarray, value0: np.ndarray, span: np.ndarray,
             cells: _Cells, rule: str):
    """The chain records of `rows` on their windows: (row, col, value, cost, boundary, last,
    stalled) with the cost of the step from each record to the next (inf after the last, 0 on a
    boundary, i.e. when the window ends before the reach) and, for a boundary, whether columns
    after its record were seen without improvement."""
    wr = w[rows]
    width = int(wr.max()) + 1
    grid = np.full((rows.size, width), np.inf)
    grid[:, 0] = value0[rows]
    if width > 1:
        local = np.full(w.size, -1, dtype=np.int64)
        local[rows] = np.arange(rows.size)
        r, c, v = cells.rows[0], cells.cols[0], cells.vals[0]
        keep = (local[r] >= 0) & (c <= w[r])
        grid[local[r[keep]], c[keep]] = v[keep]
    rec = np.zeros(grid.shape, dtype=bool)
    rec[:, 0] = True
    if rule == "lookahead":
        rec[:, 1:] = grid[:, 1:] < np.minimum.accumulate(grid, axis=1)[:, :-1]
    else:
        rec[:, 1:] = np.logical_and.accumulate(grid[:, 1:] < grid[:, :-1], axis=1)
    flat = np.flatnonzero(rec)
    r_loc, r_col = np.divmod(flat, width)
    last = np.ones(flat.size, dtype=bool)
    last[:-1] = r_loc[1:] != r_loc[:-1]
    cost = np.empty(flat.size)
    cost[:-1] = 2.0 * (r_col[1:] - r_col[:-1])
    lasts = np.flatnonzero(last)
    end = wr[r_loc[lasts]]
    truncated = end < span[rows[r_loc[lasts]]]
    if rule == "strict_step":
        truncated &= r_col[lasts] == end
    cost[lasts] = np.inf
    boundary = np.zeros(flat.size, dtype=bool)
    boundary[lasts[truncated]] = True
    cost[boundary] = 0.0
    stalled = np.zeros(flat.size, dtype=bool)
    stalled[lasts] = r_col[lasts] < end
    return rows[r_loc], r_col, grid.reshape(-1)[flat], cost, boundary, last, stalled


def _cut(groups, start: np.ndarray, pool: int, n: int):
    """Take the chain steps in decreasing (value, -row) order until one does not fit.

    Returns (final counts, values, pool left, None, None) when every step before the cut is
    known. Otherwise unknown steps (boundaries) are taken as free to see which rows would be
    reached: those whose chain still improves at the end of their window grow (`grow`), and the
    first reached one that stalls (seen columns after its last record, none better) is scanned
    for its next record (`stalled` = (row, value of its last record)).
    """
    row = np.concatenate([g[0] for g in groups])
    col = np.concatenate([g[1] for g in groups])
    val = np.concatenate([g[2] for g in groups])
    cost = np.concatenate([g[3] for g in groups])
    boundary = np.concatenate([g[4] for g in groups])
    last = np.concatenate([g[5] for g in groups])
    stall = np.concatenate([g[6] for g in groups])
    order = np.lexsort((row, -val))
    c = np.cumsum(np.where(boundary, np.inf, cost)[order])
    fail = np.flatnonzero(c > pool)
    cut = int(fail[0]) if fail.size else order.size
    if cut < order.size and boundary[order[cut]]:
        opt = np.cumsum(cost[order])
        fail = np.flatnonzero(opt > pool)
        reach = int(fail[0]) if fail.size else order.size
        seen = order[cut:reach][boundary[order[cut:reach]]]
        first_stall = np.flatnonzero(stall[seen])
        stalled = None
        if first_stall.size:
            b = seen[first_stall[0]]
            stalled = (int(row[b]), float(val[b]))
            seen = seen[:first_stall[0]]
        return None, None, None, np.unique(row[seen]), stalled
    steps = np.bincount(row[order[:cut]], minlength=n)
    # records of a row are consecutive and in chain order: its final one is first + steps
    first = np.flatnonzero(np.r_[True, last[:-1]])
    pick = first[np.argsort(row[first], kind="stable")] + steps
    used = int(c[cut - 1]) if cut else 0
    return start + 2 * col[pick], val[pick], pool - used, None, None


def _lazy(start: np.ndarray, value: np.ndarray, cap: np.ndarray, pool: int, est: Estimator,
          rule: str, on_stuck: str, budget: int | None):
    """The heap loop on cached estimates: (finished, counts, values, pool left).

    A popped application's counts beyond its own are evaluated in chunks (8 pairs, then all up
    to its reach) and cached. Stops unfinished after `budget` steps (None: no limit).
    """
    k, val = start, value
    heap = [(-v, i) for i, v in enumerate(val.tolist())]
    heapq.heapify(heap)
    cache: dict[int, tuple[int, np.ndarray]] = {}  # row -> (count of vals[0], vals)
    # the first chunk of the PREFETCH longest applications, in one evaluation
    top = [i for _, i in heapq.nsmallest(PREFETCH, heap)]
    reach0 = np.minimum(cap[top], k[top] + pool)
    span = np.clip((reach0 - k[top]) // 2, 0, 8)
    if span.sum():
        rows = np.repeat(top, span)
        cols = k[rows] + 2 + 2 * (np.arange(rows.size) - np.repeat(np.cumsum(span) - span, span))
        vals = est(rows, cols)
        for r, part, c0 in zip(top, np.split(vals, np.cumsum(span)[:-1]), (k[top] + 2).tolist(),
                               strict=True):
            if part.size:
                cache[r] = (c0, part)
    steps = 0
    while pool >= 2 and heap:
        if budget is not None and steps >= budget:
            return False, k, val, pool
        top = heap[0][1]
        kl, vl = int(k[top]), float(val[top])
        reach = min(int(cap[top]), kl + pool)
        nxt = None
        lo = kl + 2
        while lo <= reach:
            base, vals = cache.get(top, (lo, None))
            end = base + 2 * (0 if vals is None else vals.size) - 2  # last cached count
            if end < lo:  # evaluate more: 8 pairs first, then the rest of the reach
                hi = min(reach, lo + 14) if vals is None else reach
                cols = np.arange(lo, hi + 1, 2)
                new = est(np.full(cols.size, top), cols)
                vals = new if vals is None else np.concatenate([vals, new])
                cache[top] = (base, vals)
                end = base + 2 * vals.size - 2
            seg = vals[(lo - base) // 2:(min(end, reach) - base) // 2 + 1]
            if rule == "strict_step":
                if seg[0] < vl:
                    nxt = (lo, float(seg[0]))
                break
            hit = np.flatnonzero(seg < vl)
            if hit.size:
                nxt = (lo + 2 * int(hit[0]), float(seg[hit[0]]))
                break
            lo = min(end, reach) + 2
        if nxt is None:
            if on_stuck == "stop":
                return True, k, val, pool
            heapq.heappop(heap)
            continue
        pool -= nxt[0] - kl
        k[top], val[top] = nxt
        heapq.heapreplace(heap, (-nxt[1], top))
        steps += 1
    return True, k, val, pool


def allocate_loop(start, value0, cap, pool: int, est: Estimator, *, rule: str = "lookahead",
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
