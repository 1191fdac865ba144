"""FFD and FFI read job by job, the prose of spec 004 §3.2.3 (decision D-24, ``fill=job``).

The paper's prose: "jobs are considered in non-increasing order and each one is allocated to the
first interval for which the slack rule is respected". Here each job (non-increasing p for FFD,
non-decreasing for FFI; ties as in D-4) goes to the first bin of the view's order where
t_ij <= longestJob(i, k), and the allocation is INVALID (None) when a job fits no bin. The
pseudocode (Algorithm 3, `binpack`, the default ``fill=interval``) fills bin after bin instead;
the two differ because a job put in interval k changes longestJob of k-2..k+2 on its machine
(the slack rule couples neighbouring intervals), so a bin visited early can lose room to a later
one.

Implementation: every bin of the view keeps cap(i, k), the number of sorted job positions whose
duration on machine i is <= longestJob(i, k) (a prefix, since each row of t_ij is sorted); the
job at position r fits (i, k) iff r < cap(i, k). A segment tree over the bins in visiting order
(`FitIndex` of the rigid family, on -cap) finds the first bin with cap > r in O(log K); a
placement recomputes the caps of k-2..k+2.
O((n + K) log K). `reference.binpack_by_job_literal` is the line-by-line oracle.
"""

from __future__ import annotations

import numpy as np

from resilsched.heuristics.desktop.state import State, View
from resilsched.heuristics.rigid.fitindex import FitIndex


def _initial_caps(view: View, sorted_durations: np.ndarray, slack: bool) -> list[int]:
    """cap(i, k) of every bin in visiting order, the view empty."""
    off, _, avail, _ = view.flat()
    lj = avail.copy()
    if slack:
        owner = np.repeat(np.arange(len(off) - 1), np.diff(off))
        pos = np.arange(len(avail)) - off[owner]
        lj = avail // 2
        for back in (1, 2):
            prev = np.roll(avail, back)
            lj = np.where(pos >= back, np.minimum(lj, prev), lj)
    oi, ok = view.order_arrays()
    flat = off[oi] + ok
    caps = np.empty(len(oi), dtype=np.int64)
    for i in np.unique(oi).tolist():
        sel = oi == i
        caps[sel] = np.searchsorted(sorted_durations[i], lj[flat[sel]], side="right")
    return caps.tolist()


def first_fit_by_job(view: View, sorted_durations: np.ndarray, slack: bool,
                     decreasing: bool) -> State | None:
    """FFD (``decreasing``) or FFI, job by job (module docstring); `sorted_durations` is t_ij
    with the jobs in sorted order (m, n), every row non-decreasing."""
    state = State(view, slack)
    order = view.order
    n = sorted_durations.shape[1]
    # leftmost bin with cap > r = leftmost with -cap <= -(r + 1); 0 (cap 0, padding) never fits
    index = FitIndex([-c for c in _initial_caps(view, sorted_durations, slack)], never=0)
    where = {ik: b for b, ik in enumerate(order)}
    rows = [sorted_durations[i] for i in range(sorted_durations.shape[0])]
    for r in (range(n - 1, -1, -1) if decreasing else range(n)):
        b = index.first_fitting(-(r + 1))
        if b < 0:
            return None  # job r fits no bin
        i, k = order[b]
        state.place(i, k, r, int(rows[i][r]))
        for kk in range(k - 2, k + 3):
            b = where.get((i, kk))
            if b is not None:
                lj = state.longest_job(i, kk)
                cap = int(np.searchsorted(rows[i], lj, side="right")) if lj >= 1 else 0
                index.set(b, -cap)
    return state


def ffd_by_job(view: View, sorted_durations: np.ndarray, slack: bool) -> State | None:
    """First Fit Decreasing, job by job (the prose of §3.2.3)."""
    return first_fit_by_job(view, sorted_durations, slack, True)


def ffi_by_job(view: View, sorted_durations: np.ndarray, slack: bool) -> State | None:
    """First Fit Increasing, job by job."""
    return first_fit_by_job(view, sorted_durations, slack, False)
