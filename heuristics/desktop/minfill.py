"""MinFill: SizeFit's intervals filled to the least room left (issue 23, decision D-32).

SizeFit (`heuristics.desktop.sizefit`) fills each window w_ik = min(a_ik, lambda - q_ik), in
non-increasing reference work w / b, with the longest remaining job that passes the exact
insertion test, again and again; at the paper preset its used intervals keep a median 92 s of
room under their slack (D-31). MinFill visits the same windows in the same order; in each:

1. the head: the longest remaining job that passes the insertion test (SizeFit's first job);
2. while the room R = d(k) - max(M(k), M(k+1), M(k+2)) for jobs no longer than the head is
   above `TAIL` times the head, the longest remaining job no longer than min(R, head);
3. the rest of R by an exact subset sum over the remaining jobs no longer than min(R, head)
   (a bitset per distinct duration, longest first, stopping once R is reached; the backtrack
   takes as few of the shorter durations as it can); a room over `MAX_BITS` seconds is
   filled longest first instead.

Jobs no longer than M(k) change no M, so the rule holds at k, k-1 and k-2 wherever the head's
insertion test held (spec F1); without the rule R = d(k) and the head is any job that fits.
Valid when every job is placed. `min_fill_search` bisects lambda like SizeFit's search.
"""

from __future__ import annotations

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.heuristics.desktop.sizefit import Windows, bisect
from resilsched.instances.desktop import DesktopInstance

NAME = "MinFill"
#: the greedy part of a window stops when its room is at most this many heads
TAIL = 12
#: the subset sum runs only on a room of at most this many seconds (bits of its rows); a
#: larger one is filled longest first (the paper preset's rooms stay under 12 x 3,600 s)
MAX_BITS = 1 << 16
#: seconds per interval and job of one probe before the first is timed
PROBE_ITEM = 1e-4


def _subset(values: np.ndarray, counts: np.ndarray, cap: int) -> tuple[int, list[int]]:
    """The largest sum <= `cap` of at most counts[g] copies of values[g] (values decreasing)
    and the copies taken per value, as few of the later (shorter) values as possible."""
    mask = (1 << (cap + 1)) - 1
    reach = 1
    before: list[int] = []
    top = 1 << cap
    for t, c in zip(values.tolist(), counts.tolist(), strict=True):
        before.append(reach)
        for _ in range(min(c, cap // t)):
            nxt = (reach | (reach << t)) & mask
            if nxt == reach:
                break
            reach = nxt
        if reach & top:
            break
    best = reach.bit_length() - 1
    take = [0] * len(values)
    s = best
    for g in range(len(before) - 1, -1, -1):
        t, c = int(values[g]), int(counts[g])
        x = 0
        while not (before[g] >> (s - x * t)) & 1:
            x += 1
            if x > c or s - x * t < 0:  # pragma: no cover - the table says s is reachable
                raise AssertionError("subset backtrack")
        take[g] = x
        s -= x * t
    return best, take


def min_fill(instance: DesktopInstance, lam: int,
             slack: bool) -> dict[tuple[int, int], tuple[int, ...]] | None:
    """MinFill's allocation {(machine, k from 1): jobs} at horizon `lam`, or None when some
    job is left (module docstring)."""
    w = Windows(instance, lam, "work")
    if w.empty:
        return None
    find = w.find
    alive = np.ones(instance.n, dtype=bool)

    def place(i: int, k: int, r: int, t: int) -> None:
        w.place(i, k, r, t)
        alive[r] = False

    left = instance.n
    for bn in w.bins.tolist():
        i, k = int(w.owner[bn]), int(w.kk[bn])
        av, Si, Mi, Ti = w.avail[i], w.S[i], w.M[i], w.T[i]
        d = av[k]
        room = w.room(i, k, slack)  # S = 0 here: each window is visited once
        if room <= 0:
            continue
        r = find(int(np.searchsorted(Ti, room, side="right")) - 1)
        if r < 0:
            continue
        head = int(Ti[r])
        place(i, k, r, head)
        left -= 1
        cap_t = head if slack else d  # jobs after the head: no longer than it
        while left:
            rest = av[k] - Si[k] - (max(Mi[k:k + 3]) if slack else 0)
            lim = min(rest, cap_t)
            if lim <= 0:
                break
            if rest > TAIL * head or rest > MAX_BITS:
                r = find(int(np.searchsorted(Ti, lim, side="right")) - 1)
                if r < 0:
                    break
                place(i, k, r, int(Ti[r]))
                left -= 1
                continue
            top = int(np.searchsorted(Ti, lim, side="right"))
            pos = np.flatnonzero(alive[:top])
            if pos.size == 0:
                break
            vals, first, counts = np.unique(Ti[pos], return_index=True, return_counts=True)
            vals, first, counts = vals[::-1], first[::-1], counts[::-1]
            _, take = _subset(vals, counts, rest)
            for g, x in enumerate(take):
                if x:
                    group = pos[first[g]:first[g] + counts[g]]
                    for p in group[::-1][:x].tolist():  # the largest positions of the value
                        place(i, k, p, int(vals[g]))
                        left -= 1
            break
        if not left:
            break
    return w.result(left)


def min_fill_search(instance: DesktopInstance, slack: bool, lo: int, hi: int,
                    deadline: Deadline | None = None) -> DesktopSchedule | None:
    """The best MinFill allocation of a bisection over lambda in (lo, hi] (`lo` a lower bound,
    `hi` a horizon to beat or reach); None when no probe was valid. With a `deadline` a probe
    starts only when the last one's time (at first `PROBE_ITEM` per interval and job) fits."""
    return bisect(instance, slack, lo, hi, lambda lam: min_fill(instance, lam, slack),
                  deadline, PROBE_ITEM * (instance.K + instance.n), None, NAME, {})[0]
