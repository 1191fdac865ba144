"""SizeFit: a construction for the desktop family that gives large jobs to large intervals
(issue 23, decision D-27). Not a heuristic of the paper: a schedule for the portfolio and the
models' incumbent.

Under the slack rule every used interval loses its longest job M as slack (S + M <= a). The 20
variants fill small intervals first (DAslack, "easier to fill small ones first") or by end date
(GreedySlack), so a short interval takes the longest job that fits it and wastes most of itself.
LB_slack's LP (`bounds.desktop_slack`) does the opposite: few intervals hold the longest jobs,
the many short ones hold short jobs with little slack. SizeFit follows it. For a horizon lambda:

1. the windows w_ik = min(a_ik, lambda - q_ik) of the intervals with q_ik < lambda (DAslack's
   cut, spec F3: a rule-abiding allocation in them has H(pi) <= lambda);
2. the intervals in non-increasing w_ik (ties by machine, then k); each in turn takes, again and
   again, the longest remaining job that fits, by the exact insertion test of Algorithm 1
   (longestJob, spec F1: the rule at k, k-1 and k-2; without the rule the room a - S);
3. valid when every job is placed.

`size_fit_search` bisects lambda between a lower bound and a valid horizon (validity need not
be monotone in lambda; the search keeps the best valid allocation it met) and returns the
allocation with its H(pi), checked by the caller's validator.
"""

from __future__ import annotations

import time

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance
from resilsched.validation.desktop import allocation_horizon

NAME = "SizeFit"
#: seconds per interval and job of one probe before the first is timed (measured 8-40 us
#: per item at 500 hosts x 10,000 jobs on the loaded 2-core machine)
PROBE_ITEM = 4e-5


def size_fit(instance: DesktopInstance, lam: int, slack: bool
             ) -> dict[tuple[int, int], tuple[int, ...]] | None:
    """SizeFit's allocation {(machine, k from 1): jobs} at horizon `lam`, or None when some job
    is left (module docstring)."""
    flat = instance.flat
    off, q, a = flat["off"], flat["q"], flat["a"]
    window = np.minimum(a, lam - q)
    rows = np.flatnonzero(window > 0)
    if rows.size == 0:
        return None
    owner = np.searchsorted(off, rows, side="right") - 1
    kk = rows - off[owner]
    bins = np.lexsort((kk, owner, -window[rows]))
    T = instance.sorted_durations  # row i non-decreasing in sorted position
    order = instance.order
    avail = {int(i): np.maximum(window[off[i]:off[i + 1]], 0).tolist()
             for i in np.unique(owner).tolist()}
    S = {i: [0] * len(av) for i, av in avail.items()}
    M = {i: [0] * len(av) for i, av in avail.items()}
    parent = list(range(instance.n))  # union-find: the largest remaining position <= x

    def find(x: int) -> int:
        root = x
        while root >= 0 and parent[root] != root:
            root = parent[root]
        while x >= 0 and parent[x] != x:
            parent[x], x = root, parent[x]
        return root

    left = instance.n
    alloc: dict[tuple[int, int], list[int]] = {}
    for b in bins.tolist():
        i, k = int(owner[b]), int(kk[b])
        av, Si, Mi, Ti = avail[i], S[i], M[i], T[i]
        while left:
            d = av[k] - Si[k]
            if slack:
                w = max(Mi[k:k + 3])
                room = min(d // 2, d - w)
                if k >= 1:
                    room = min(room, av[k - 1] - Si[k - 1])
                if k >= 2:
                    room = min(room, av[k - 2] - Si[k - 2])
            else:
                room = d
            if room <= 0:
                break
            r = find(int(np.searchsorted(Ti, room, side="right")) - 1)
            if r < 0:
                break
            t = int(Ti[r])
            Si[k] += t
            Mi[k] = max(Mi[k], t)
            parent[r] = r - 1
            left -= 1
            alloc.setdefault((i, k + 1), []).append(int(order[r]))
        if not left:
            break
    if left:
        return None
    return {ik: tuple(jobs) for ik, jobs in sorted(alloc.items())}


def size_fit_search(instance: DesktopInstance, slack: bool, lo: int, hi: int,
                    deadline: Deadline | None = None) -> DesktopSchedule | None:
    """The best SizeFit allocation of a bisection over lambda in (lo, hi] (`lo` a lower bound,
    `hi` a horizon to beat or reach); None when no probe was valid. With a `deadline` a probe
    starts only when the last one's time (at first `PROBE_ITEM` per interval and job) still
    fits."""
    best: DesktopSchedule | None = None
    last = PROBE_ITEM * (instance.K + instance.n)
    while hi - lo > 1 and (deadline is None or deadline.remaining() > last):
        mid = (lo + hi) // 2
        t0 = time.perf_counter()
        alloc = size_fit(instance, mid, slack)
        last = time.perf_counter() - t0
        if alloc is None:
            lo = mid
            continue
        H = allocation_horizon(instance, alloc, slack)
        hi = min(mid, H)
        if best is None or H < best.horizon:
            best = DesktopSchedule(alloc, H, H, slack, NAME, {})
    return best
