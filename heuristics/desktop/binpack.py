"""FFD and FFI local policies (spec 004 §3.2.3-3.2.4, Algorithm 3, A-3, A-25).

Both visit the bins (intervals) in the view's order and fill each before moving on:

- FFD: jobs by non-increasing p; a bin takes, again and again, the first job of the remaining
  list with t_ij <= longestJob(i, k) (A-3: "<=" and argument k; the list is a snapshot, A-25).
  Implemented as "take the largest remaining job that fits" with a bisection on machine i's
  sorted durations and a union-find over removed positions, which gives the same jobs since the
  threshold only decreases inside a bin. O(K log n + n).
- FFI: jobs by non-decreasing p; a bin takes the smallest remaining jobs while they fit and stops
  at the first that does not (all later ones are larger and the threshold only decreases).
  O(n + K).

Ties (A-24): the non-increasing order is the reverse of the non-decreasing one
(`DesktopInstance.order`), so among jobs of equal p the larger index comes first. The
allocation is INVALID (None) when jobs remain after the last bin.
"""

from __future__ import annotations

import numpy as np

from resilsched.heuristics.desktop.state import State, View


def ffi(view: View, sorted_durations: np.ndarray, slack: bool) -> State | None:
    """First Fit Increasing over the bins of `view` (sorted_durations: (m, n) ascending)."""
    state = State(view, slack)
    n = sorted_durations.shape[1]
    nxt = 0
    for i, k in view.order:
        if nxt == n:
            break
        row = sorted_durations[i]
        t = int(row[nxt])
        prev, d, w = state.bin_terms(i, k)
        lj = min(prev, d // 2, d - w) if slack else d
        if t > lj:
            continue
        first, total, longest = nxt, 0, 0
        while t <= lj:
            total += t
            longest = t  # non-decreasing order: the last one is the longest
            d -= t
            nxt += 1
            if nxt == n:
                break
            t = int(row[nxt])
            if slack:
                w = max(w, longest)
                lj = min(prev, d // 2, d - w)
            else:
                lj = d
        state.fill(i, k, list(range(first, nxt)), total, longest)
    return state if nxt == n else None


def ffd(view: View, sorted_durations: np.ndarray, slack: bool) -> State | None:
    """First Fit Decreasing over the bins of `view` (sorted_durations: (m, n) ascending)."""
    state = State(view, slack)
    n = sorted_durations.shape[1]
    parent = list(range(n + 1))  # parent[r + 1]: largest alive position <= r is find(r + 1) - 1
    left = n

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for i, k in view.order:
        if left == 0:
            break
        row = sorted_durations[i]
        prev, d, w = state.bin_terms(i, k)
        lj = min(prev, d // 2, d - w) if slack else d
        placed: list[int] = []
        total = longest = 0
        while lj >= 1:
            r = find(int(row.searchsorted(lj, side="right")))
            if r == 0:
                break
            pos = r - 1
            t = int(row[pos])
            placed.append(pos)
            total += t
            longest = max(longest, t)
            parent[r] = r - 1
            left -= 1
            if left == 0:
                break
            d -= t
            if slack:
                w = max(w, t)
                lj = min(prev, d // 2, d - w)
            else:
                lj = d
        state.fill(i, k, placed, total, longest)
    return state if left == 0 else None
