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

import resilsched.heuristics.desktop._ckernel as _ckernel
from resilsched.heuristics.desktop.state import State, View, flat_view, state_from_arrays

KINDS = _ckernel.BIN_KINDS


def bin_policy_c(kind: str, view: View, sorted_durations: np.ndarray,
                 slack: bool) -> State | None | bool:
    """FFI, FFD or DPslack through the C kernel (`_ckernel.bin_run`): the same State, None when
    INVALID, False when the kernel is unavailable or a DP bin is too large for its buffer."""
    dll = _ckernel.lib()
    if dll is None:
        return False
    m, n = sorted_durations.shape
    off, _, avail, _ = flat_view(view)
    S = np.zeros(int(off[-1]), dtype=np.int64)
    M = np.zeros_like(S)
    oi, ok = view.order_arrays()
    work = np.zeros(4 * n + 1, dtype=np.int64)
    rows = np.empty(_ckernel.DP_WORDS if kind == "DPslack" else 1, dtype=np.uint64)
    out = np.zeros((4, max(n, 1)), dtype=np.int64)
    T = np.ascontiguousarray(sorted_durations, dtype=np.int64)
    done = dll.bin_run(KINDS[kind], m, off, avail, T, n, oi, ok, len(oi), int(slack), S, M, work,
                       rows, len(rows), *(out[x] for x in range(4)))
    if done < 0:
        return False
    if done < n:
        return None
    return state_from_arrays(view, slack, off, S, M, out[0, :n], out[1, :n], out[2, :n])


def ffi(view: View, sorted_durations: np.ndarray, slack: bool) -> State | None:
    """First Fit Increasing over the bins of `view` (sorted_durations: (m, n) ascending)."""
    done = bin_policy_c("FFI", view, sorted_durations, slack)
    if done is not False:
        return done
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
    done = bin_policy_c("FFD", view, sorted_durations, slack)
    if done is not False:
        return done
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
