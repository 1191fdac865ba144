"""Interval views and the allocation state the local policies fill (spec 004 §3.0-3.1, §3.3).

A *view* is what a global policy hands to a local one: per machine i the intervals
k = 1..K'_i (stored at index k-1, the original numbering kept) with their start in the view's
coordinates, their (possibly cut) length and q_i(k) = e_i(k-1) + u_i(k):

- `greedy_view` (GreedySlack, Algorithm 5, A-7, A-8): every unavailability advanced to the start
  of its interval: availability k starts at q_i(k) with its length a_i(k); the last interval of
  each machine is dropped (K'_i = K_i - 1); bins are visited by the original e_i(k), ties (i, k).
- `cut_view` (DAslack, Algorithm 6, A-5, A-27): intervals with e_i(k) < lambda are kept whole,
  the first one with e_i(k) >= lambda is the last (K'_i), cut to
  a' = max(0, lambda - u_i(k) - e_i(k-1)) when e_i(k) > lambda; starts are the nominal e_i(k-1);
  bins are visited by non-decreasing a', ties (i, k).

`State` holds pi (job positions in the sorted order of `DesktopInstance.order`), S_i(k), M_i(k)
and d_i(k) = a_i(k) - S_i(k), with the conventions d(k <= 0) = +inf and M(k > K') = 0, and
`longest_job` is Algorithm 1 with the minus sign restored (A-1, A-2):
min(d(k-2), d(k-1), d(k)/2, d(k) - max(M(k), M(k+1), M(k+2))); t fits iff t <= longest_job,
which is exact (F1). Without the slack rule it is the remaining capacity a - S (§3.4).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance

INF = 1 << 62


@dataclass
class View:
    """Intervals handed to a local policy: per machine, index k-1 holds interval k."""

    kind: str  # "GreedySlack" or "DAslack"
    start: list[list[int]]
    avail: list[list[int]]
    q: list[list[int]]
    order: list[tuple[int, int]]  # bins in visiting order: (machine, index k-1)
    lam: int | None = None


def greedy_view(instance: DesktopInstance) -> View:
    """GreedySlack's shifted intervals and bin order (Algorithm 5)."""
    start, avail, ends = [], [], []
    for mach in instance.machines:
        K = mach.K - 1
        start.append(list(mach.q[:K]))
        avail.append(list(mach.a[:K]))
        ends.extend(mach.e[1:K + 1])
    sizes = [len(a) for a in avail]
    owner = np.repeat(np.arange(len(avail)), sizes)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    perm = np.argsort(np.asarray(ends, dtype=np.int64), kind="stable")  # ties: (i, k)
    own = owner[perm]
    order = list(zip(own.tolist(), (perm - first[own]).tolist(), strict=True))
    return View("GreedySlack", start, avail, start, order)


class CutData:
    """What `cut_view` needs of an instance, computed once per DAslack call."""

    def __init__(self, instance: DesktopInstance):
        self.ends = [list(mach.e[1:]) for mach in instance.machines]
        self.e = [list(mach.e) for mach in instance.machines]
        self.a = [list(mach.a) for mach in instance.machines]
        self.u = [list(mach.u) for mach in instance.machines]
        self.q = [list(mach.q) for mach in instance.machines]


def cut_view(data: CutData, lam: int, need_order: bool = True) -> View:
    """DAslack's intervals cut at horizon `lam` and its bin order (Algorithm 6, fixed)."""
    start, avail, q = [], [], []
    lens: list[int] = []
    owner: list[int] = []
    for i, ends in enumerate(data.ends):
        K = min(bisect_left(ends, lam) + 1, len(ends))  # first k with e(k) >= lam, else K_i
        a = data.a[i][:K]
        last = K - 1
        if data.e[i][K] > lam:
            a[last] = max(0, lam - data.u[i][last] - data.e[i][last])
        start.append(data.e[i][:K])
        avail.append(a)
        q.append(data.q[i][:K])
        if need_order:
            lens.extend(a)
            owner.extend([i] * K)
    order: list[tuple[int, int]] = []
    if need_order and lens:
        lens_arr = np.asarray(lens, dtype=np.int64)
        own = np.asarray(owner, dtype=np.int64)
        idx = np.arange(len(lens), dtype=np.int64)
        first = np.zeros(len(start) + 1, dtype=np.int64)
        first[1:] = np.cumsum([len(a) for a in avail])
        kk = idx - first[own]
        perm = np.lexsort((kk, own, lens_arr))
        perm = perm[lens_arr[perm] > 0]  # a bin of length 0 takes no job
        order = list(zip(own[perm].tolist(), kk[perm].tolist(), strict=True))
    return View("DAslack", start, avail, q, order, lam)


class State:
    """pi, S, M of a view being filled (spec 3.0); `slack` selects the rule."""

    def __init__(self, view: View, slack: bool):
        self.view = view
        self.slack = slack
        self.avail = view.avail
        self.S = [[0] * len(a) for a in view.avail]
        self.M = [[0] * len(a) for a in view.avail]
        self.jobs: dict[tuple[int, int], list[int]] = {}  # (i, index k-1) -> positions
        self.trace = None  # LPT/SPT: the run's placements (`resilsched...desktop.lpt.Trace`)

    def longest_job(self, i: int, k: int) -> int:
        """Algorithm 1 (integer form: t <= d/2 iff t <= floor(d/2)); a - S without the rule."""
        av, S = self.avail[i], self.S[i]
        d = av[k] - S[k]
        if not self.slack:
            return d
        M = self.M[i]
        K = len(av)
        w = M[k]
        if k + 1 < K:
            w = max(w, M[k + 1])
            if k + 2 < K:
                w = max(w, M[k + 2])
        lj = min(d // 2, d - w)
        if k >= 1:
            lj = min(lj, av[k - 1] - S[k - 1])
            if k >= 2:
                lj = min(lj, av[k - 2] - S[k - 2])
        return lj

    def bin_terms(self, i: int, k: int) -> tuple[int, int, int]:
        """(prev, d, w) of bin (i, k): longestJob = min(prev, d // 2, d - w) under the slack
        rule (prev = min(d(k-2), d(k-1)), w = max(M(k), M(k+1), M(k+2))), d without it. Inside
        one bin, adding a job of duration t gives d - t and max(w, t), prev unchanged."""
        av, S = self.avail[i], self.S[i]
        d = av[k] - S[k]
        if not self.slack:
            return d, d, 0
        M = self.M[i]
        w = max(M[k:k + 3])
        prev = d
        if k >= 1:
            prev = av[k - 1] - S[k - 1]
            if k >= 2:
                prev = min(prev, av[k - 2] - S[k - 2])
        return prev, d, w

    def fill(self, i: int, k: int, positions: list[int], total: int, longest: int) -> None:
        """Record the jobs a policy put in bin (i, k) (S += total, M = max(M, longest))."""
        if positions:
            js = self.jobs.get((i, k))
            if js is None:
                self.jobs[(i, k)] = positions
            else:
                js.extend(positions)
            self.S[i][k] += total
            if longest > self.M[i][k]:
                self.M[i][k] = longest

    def window(self, i: int, k: int) -> int:
        """max(M(k), M(k+1), M(k+2)) in the view (0 beyond K')."""
        M = self.M[i]
        return max(M[k:k + 3])

    def place(self, i: int, k: int, pos: int, t: int) -> None:
        js = self.jobs.get((i, k))
        if js is None:
            self.jobs[(i, k)] = [pos]
        else:
            js.append(pos)
        self.S[i][k] += t
        if t > self.M[i][k]:
            self.M[i][k] = t

    def horizon(self) -> int:
        """H(pi) (spec F2): max over used (i, k) of q(k) + S(k) + max(M(k), M(k+1), M(k+2))
        (q(k) + S(k) without the slack rule); 0 when nothing is placed."""
        best = 0
        q, S = self.view.q, self.S
        for i, k in self.jobs:
            h = q[i][k] + S[i][k] + (self.window(i, k) if self.slack else 0)
            best = max(best, h)
        return best

    def schedule(self, instance: DesktopInstance, horizon: int, policy: str,
                 info: dict | None = None) -> DesktopSchedule:
        """The allocation as a `DesktopSchedule` (job indices, intervals from 1)."""
        order = instance.order
        out = {(i, k + 1): tuple(int(order[p]) for p in js)
               for (i, k), js in sorted(self.jobs.items())}
        return DesktopSchedule(out, int(horizon), self.horizon(), self.slack, policy, info or {})


def flat_view(view: View) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(off, start, avail, q): the view as flat int64 arrays, machine i at off[i]:off[i+1]
    (the input of the C kernels)."""
    off = np.zeros(len(view.avail) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(a) for a in view.avail])
    flat = [np.fromiter((x for row in rows for x in row), dtype=np.int64, count=int(off[-1]))
            for rows in (view.start, view.avail, view.q)]
    return off, flat[0], flat[1], flat[2]


def state_from_arrays(view: View, slack: bool, off: np.ndarray, S: np.ndarray, M: np.ndarray,
                      pos: list[int], mach: list[int], idx: list[int]) -> State:
    """The `State` a C kernel filled: S, M per interval and the placements in order."""
    state = State(view, slack)
    jobs = state.jobs
    for p, i, k in zip(pos, mach, idx, strict=True):
        js = jobs.get((i, k))
        if js is None:
            jobs[(i, k)] = [p]
        else:
            js.append(p)
    Sl, Ml, bounds = S.tolist(), M.tolist(), off.tolist()
    for i in range(len(view.avail)):
        state.S[i] = Sl[bounds[i]:bounds[i + 1]]
        state.M[i] = Ml[bounds[i]:bounds[i + 1]]
    return state
