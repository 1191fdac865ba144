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
2. the intervals in non-increasing w_ik (``order="length"``) or w_ik / b_i (``"work"``, the
   reference work the window holds); ties by machine, then k; each in turn takes, again and
   again, the longest remaining job that fits, by the exact insertion test of Algorithm 1
   (longestJob, spec F1: the rule at k, k-1 and k-2; without the rule the room a - S);
3. with ``pair=True``, once the room left for jobs no longer than the interval's longest,
   R = d(k) - max(M(k), M(k+1), M(k+2)), is under twice the longest job that fits, the best
   pair of remaining jobs, each no longer than min(R, M(k)), whose sum is at most R, when it
   beats that single job (such jobs change no M, so the rule holds where it held);
4. valid when every job is placed.

`size_fit_search` bisects lambda between a lower bound and a valid horizon for each variant of
`VARIANTS` (order, pair) in turn, the next one below the best horizon so far (validity need
not be monotone in lambda; the search keeps the best valid allocation it met), and returns the
allocation with its H(pi), checked by the caller's validator (D-27, D-28).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance
from resilsched.validation.desktop import allocation_horizon

NAME = "SizeFit"
#: window orders of `size_fit`
ORDERS = ("length", "work")
#: (order, pair) tried by `size_fit_search`, in turn (D-28: on the paper preset "work" gave
#: 0.14 % less than "length", the D-27 construction, and its pairs 0.08 % less again at about
#: four times the time of a probe)
VARIANTS = (("length", False), ("work", False), ("work", True))
#: a probe with pairs against one without, before the first is timed
PAIR_FACTOR = 6
#: a pair is sought once the room for jobs no longer than the window's longest is under this
#: many times the longest job that fits
PAIR_START = 2
#: candidates for the longer job of a pair, at most
PAIR_STEPS = 400
#: seconds per interval and job of one probe before the first is timed (measured 8-40 us
#: per item at 500 hosts x 10,000 jobs on the loaded 2-core machine)
PROBE_ITEM = 4e-5


class Windows:
    """The state of one allocation at a horizon lambda (steps 1-2 of the module docstring,
    shared with `heuristics.desktop.minfill`): the windows in visiting order (`bins`, rows of
    `owner`, `kk`), each machine's windows `avail`, the work `S` and longest job `M` placed
    in each, the remaining jobs (`find`) and the allocation built (`place`)."""

    def __init__(self, instance: DesktopInstance, lam: int, key: str) -> None:
        flat = instance.flat
        off, q, a = flat["off"], flat["q"], flat["a"]
        window = np.minimum(a, lam - q)
        rows = np.flatnonzero(window > 0)
        self.empty = rows.size == 0
        owner = np.searchsorted(off, rows, side="right") - 1
        kk = rows - off[owner]
        if key == "length":
            order = -window[rows].astype(np.float64)
        elif key == "work":
            b = np.asarray([float(x) for x in instance.b])
            order = -window[rows] / b[owner]
        else:
            raise ValueError(f"order {key!r} must be one of {ORDERS}")
        self.owner, self.kk = owner, kk
        self.bins = np.lexsort((kk, owner, order))
        self.T = instance.sorted_durations  # row i non-decreasing in sorted position
        self.order = instance.order
        self.avail = {int(i): np.maximum(window[off[i]:off[i + 1]], 0).tolist()
                      for i in np.unique(owner).tolist()}
        self.S = {i: [0] * len(av) for i, av in self.avail.items()}
        self.M = {i: [0] * len(av) for i, av in self.avail.items()}
        self.parent = list(range(instance.n))  # union-find: the largest remaining position
        self.alloc: dict[tuple[int, int], list[int]] = {}

    def find(self, x: int) -> int:
        """The largest remaining sorted position <= x, or -1."""
        parent = self.parent
        root = x
        while root >= 0 and parent[root] != root:
            root = parent[root]
        while x >= 0 and parent[x] != x:
            parent[x], x = root, parent[x]
        return root

    def place(self, i: int, k: int, r: int, t: int) -> None:
        """Job at sorted position `r` (duration `t` on machine `i`) into window k of i."""
        self.S[i][k] += t
        self.M[i][k] = max(self.M[i][k], t)
        self.parent[r] = r - 1
        self.alloc.setdefault((i, k + 1), []).append(int(self.order[r]))

    def room(self, i: int, k: int, slack: bool) -> int:
        """The longest job window k of machine i takes by the exact insertion test (spec F1:
        the rule at k, k-1 and k-2; without the rule the room a - S)."""
        av, Si, Mi = self.avail[i], self.S[i], self.M[i]
        d = av[k] - Si[k]
        if not slack:
            return d
        room = min(d // 2, d - max(Mi[k:k + 3]))
        if k >= 1:
            room = min(room, av[k - 1] - Si[k - 1])
        if k >= 2:
            room = min(room, av[k - 2] - Si[k - 2])
        return room

    def result(self, left: int) -> dict[tuple[int, int], tuple[int, ...]] | None:
        """The allocation {(machine, k from 1): jobs}, or None when `left` jobs are left."""
        if left:
            return None
        return {ik: tuple(jobs) for ik, jobs in sorted(self.alloc.items())}


def _best_pair(T: np.ndarray, find: Any, cap: int, room: int) -> tuple[int, int] | None:
    """Two remaining sorted positions x > y with T[x], T[y] <= cap and the largest
    T[x] + T[y] <= room, x among the `PAIR_STEPS` longest candidates (None: no pair)."""
    x = find(int(np.searchsorted(T, cap, side="right")) - 1)
    best, pair = -1, None
    for _ in range(PAIR_STEPS):
        if x < 1 or 2 * int(T[x]) <= best:
            break
        t1 = int(T[x])
        y = find(min(x - 1, int(np.searchsorted(T, room - t1, side="right")) - 1))
        if y >= 0 and t1 + int(T[y]) > best:
            best, pair = t1 + int(T[y]), (x, y)
            if best == room:
                break
        x = find(x - 1)
    return pair


def size_fit(instance: DesktopInstance, lam: int, slack: bool, order: str = "length",
             pair: bool = False) -> dict[tuple[int, int], tuple[int, ...]] | None:
    """SizeFit's allocation {(machine, k from 1): jobs} at horizon `lam`, or None when some job
    is left; the windows in non-increasing length (`order` ``"length"``) or reference work
    w / b (``"work"``), with the best pairs at the end of a window when `pair` (module
    docstring)."""
    w = Windows(instance, lam, order)
    if w.empty:
        return None
    T, find, place, room_of = w.T, w.find, w.place, w.room
    left = instance.n
    for b in w.bins.tolist():
        i, k = int(w.owner[b]), int(w.kk[b])
        av, Si, Mi, Ti = w.avail[i], w.S[i], w.M[i], T[i]
        while left:
            room = room_of(i, k, slack)
            if room <= 0:
                break
            r = find(int(np.searchsorted(Ti, room, side="right")) - 1)
            if r < 0:
                break
            d = av[k] - Si[k]
            rest = d - max(Mi[k:k + 3]) if slack else d  # room for jobs <= M(k)
            if pair and Mi[k] > 0 and left >= 2 and rest < PAIR_START * int(Ti[r]):
                two = _best_pair(Ti, find, min(rest, Mi[k]) if slack else rest, rest)
                if two is not None and int(Ti[two[0]]) + int(Ti[two[1]]) > int(Ti[r]):
                    place(i, k, two[0], int(Ti[two[0]]))
                    place(i, k, two[1], int(Ti[two[1]]))
                    left -= 2
                    continue
            place(i, k, r, int(Ti[r]))
            left -= 1
        if not left:
            break
    return w.result(left)


def bisect(instance: DesktopInstance, slack: bool, lo: int, hi: int,
           probe: Callable[[int], dict[tuple[int, int], tuple[int, ...]] | None],
           deadline: Deadline | None, last: float, best: DesktopSchedule | None,
           policy: str, params: dict[str, Any]) -> tuple[DesktopSchedule | None, float]:
    """Bisect lambda in (lo, hi] with `probe(lambda)` (an allocation or None), keeping the
    valid allocation of least H(pi) that beats `best` (validity need not be monotone in
    lambda); a probe starts only when `last`, the previous probe's seconds, fits `deadline`.
    Returns the best schedule (`policy`, `params`) and the last probe's time."""
    low, high = lo, hi
    while high - low > 1 and (deadline is None or deadline.remaining() > last):
        mid = (low + high) // 2
        t0 = time.perf_counter()
        alloc = probe(mid)
        last = time.perf_counter() - t0
        if alloc is None:
            low = mid
            continue
        H = allocation_horizon(instance, alloc, slack)
        high = min(mid, H)
        if best is None or H < best.horizon:
            best = DesktopSchedule(alloc, H, H, slack, policy, params)
    return best, last


def size_fit_search(instance: DesktopInstance, slack: bool, lo: int, hi: int,
                    deadline: Deadline | None = None) -> DesktopSchedule | None:
    """The best SizeFit allocation of a bisection over lambda in (lo, hi] for each variant of
    `VARIANTS` (`lo` a lower bound, `hi` a horizon to beat or reach; each variant bisects below
    the best horizon so far); None when no probe was valid. With a `deadline` a probe starts
    only when the last one's time (at first `PROBE_ITEM` per interval and job, times
    `PAIR_FACTOR` for the first with pairs) still fits."""
    best: DesktopSchedule | None = None
    last = PROBE_ITEM * (instance.K + instance.n)
    paired = False
    for order, pair in VARIANTS:
        if pair and not paired:
            last, paired = last * PAIR_FACTOR, True
        high = hi if best is None else min(hi, best.horizon)
        best, last = bisect(instance, slack, lo, high,
                            lambda lam, o=order, p=pair: size_fit(instance, lam, slack, o, p),
                            deadline, last, best, NAME, {"order": order, "pairs": pair})
    return best
