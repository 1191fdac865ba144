"""The vectorised cut of the pair-greedy loop (spec 001 §3.2-3.7, decision MA-6 (b)).

`greedy.allocate` runs the heap loop step by step, which is cheapest when a call takes few steps.
Long calls (the initial allocation, ITERATEDGREEDY after a failure: hundreds of steps) finish
here, from the state the loop reached, with the same result ('lookahead' rule, 'stop' on stuck):

- an application's steps follow its chain of *records*: from count k with value v the loop moves
  to the smallest count k' > k with est(k') < v, i.e. the next count whose estimate is below
  every earlier one (the start value included);
- the values the loop pops never increase, so it takes the steps of every chain in decreasing
  (value before the step, -position) order, and stops at the first step that does not fit in
  the pool or at the first application whose chain has no further record within its reach
  min(cap, k + pool) (its *terminal*; a step beyond the reach does not fit either).

Estimates are evaluated all at once on a window of counts per application (`WINDOW` pairs).
An application whose window ends before its reach has an *open* end: its next steps are
unknown. The steps are sorted, the cut is found with the open ends taken as free, and every open
end before that cut is widened (its window doubles) until no open end precedes the cut. While
nothing binds (no terminal known, the pool not reached: idle processors on a large platform),
only the chain of the first open end in that order is evaluated, to its end: the loop stops at
the first terminal, so a chain whose open end lies below that terminal's value needs no more
counts (MA-18).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: pairs evaluated per application in the first round
WINDOW = 4
#: pairs evaluated at least when an open end is widened
WIDEN = 16
#: estimates evaluated at most per call of `est` (bounds the temporaries to tens of MB)
CELLS = 1 << 18


def cut(k: np.ndarray, val: np.ndarray, cap: np.ndarray, pool: int,
        est: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray, int]:
    """Final counts, estimates and pool of the greedy loop from counts `k` with values `val`
    (see module doc); `est(positions, counts)` evaluates estimates, vectorised."""
    k = np.array(k, dtype=np.int64)
    val = np.array(val, dtype=float)
    n = k.size
    span = np.maximum((np.minimum(np.asarray(cap, dtype=np.int64), k + pool) - k) // 2, 0)
    done = np.zeros(n, dtype=np.int64)    # pairs evaluated per application
    fval = val.copy()                     # value of the last record (the open end / terminal)
    fcol = np.zeros(n, dtype=np.int64)    # its column (pairs above k)
    # steps found so far: position, column reached, value reached, value before, cost
    none, empty = np.zeros(0, dtype=np.int64), np.zeros(0)
    steps: list[tuple[np.ndarray, ...]] = [(none, none, empty, empty, empty)]
    rows = np.arange(n)
    width = np.minimum(span, WINDOW)
    while True:
        _evaluate(rows, width[rows], k, done, fval, fcol, est, steps)
        s_pos, s_col, s_val, s_from, s_cost = (np.concatenate(x) for x in zip(*steps, strict=True))
        is_open = done < span
        # entries: every step, then every application's end (open: free, terminal: never fits)
        e_pos = np.concatenate([s_pos, np.arange(n)])
        e_from = np.concatenate([s_from, fval])
        e_cost = np.concatenate([s_cost, np.where(is_open, 0.0, np.inf)])
        order = np.lexsort((e_pos, -e_from))
        total = np.cumsum(e_cost[order])
        over = np.flatnonzero(total > pool)
        stop = int(over[0]) if over.size else order.size
        ends = order[:stop]
        ends = ends[ends >= s_pos.size] - s_pos.size
        rows = ends[is_open[ends]]
        if rows.size == 0:
            break
        # every step stays: dropping those after the cut would let the next cut pass them
        # (their costs gone) and take a later step of a chain without them (issue 27)
        steps = [(s_pos, s_col, s_val, s_from, s_cost)]
        width = np.zeros(n, dtype=np.int64)
        if over.size:
            width[rows] = np.minimum(span[rows] - done[rows], np.maximum(2 * done[rows], WIDEN))
        else:  # nothing binds yet (no terminal known, the pool not reached): the first open
            rows = rows[:1]  # end's chain is evaluated to its end; its terminal cuts the rest
            width[rows] = span[rows] - done[rows]
    taken = order[:stop]
    taken = taken[taken < s_pos.size]
    left = pool - int(s_cost[taken].sum())
    if taken.size:  # a chain's steps reach increasing columns: its last taken one is the max
        last = taken[np.lexsort((s_col[taken], s_pos[taken]))]
        pos = s_pos[last]
        pick = last[np.r_[pos[1:] != pos[:-1], True]]
        k[s_pos[pick]] += 2 * s_col[pick]
        val[s_pos[pick]] = s_val[pick]
    return k, val, left


def _evaluate(rows: np.ndarray, width: np.ndarray, k: np.ndarray, done: np.ndarray,
              fval: np.ndarray, fcol: np.ndarray, est, steps: list) -> None:
    """Evaluate `width` more columns of each of `rows` and append their chain steps to
    `steps`, in slices of at most about `CELLS` estimates (a row's records carry over from one
    slice to the next through `fval` / `fcol`); advances `done`."""
    rows, left = rows[width > 0], width[width > 0]
    while rows.size:
        part = np.minimum(left, max(1, CELLS // rows.size))
        steps.append(_records(rows, part, k, done, fval, fcol, est))
        done[rows] += part
        left = left - part
        rows, left = rows[left > 0], left[left > 0]


def _records(rows: np.ndarray, width: np.ndarray, k: np.ndarray, done: np.ndarray,
             fval: np.ndarray, fcol: np.ndarray, est) -> tuple[np.ndarray, ...]:
    """Evaluate columns done+1 .. done+width of `rows` and return their chain steps; updates
    `fval` / `fcol` (the last record of each row) in place."""
    w = int(width.max()) if width.size else 0
    grid = np.full((rows.size, w + 1), np.inf)
    grid[:, 0] = fval[rows]
    r_idx = np.repeat(np.arange(rows.size), width)
    c_off = np.arange(r_idx.size) - np.repeat(np.cumsum(width) - width, width) + 1
    cols = done[rows][r_idx] + c_off                   # pairs above k
    pos = rows[r_idx]
    grid[r_idx, c_off] = est(pos, k[pos] + 2 * cols)
    best = np.minimum.accumulate(grid, axis=1)
    rec = grid[:, 1:] < best[:, :-1]
    rr, cc = np.nonzero(rec)                           # row-major: a row's records in order
    col = done[rows][rr] + cc + 1
    prev = np.empty_like(col)
    if rr.size:
        first = np.r_[True, rr[1:] != rr[:-1]]
        prev[first] = fcol[rows[rr[first]]]
        prev[~first] = col[np.flatnonzero(~first) - 1]
    s_pos = rows[rr]
    s_val = grid[rr, cc + 1]
    s_from = best[rr, cc]
    s_cost = 2.0 * (col - prev)
    if rr.size:
        tail = np.r_[rr[1:] != rr[:-1], True]
        fval[s_pos[tail]] = s_val[tail]
        fcol[s_pos[tail]] = col[tail]
    return s_pos, col, s_val, s_from, s_cost
