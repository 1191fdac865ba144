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

import numpy as np

from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance

INF = 1 << 62


class View:
    """Intervals handed to a local policy: per machine, index k-1 holds interval k.

    A view is held either as lists (`start`, `avail`, `q`: one list per machine; `order`: the
    bins (machine, index k-1) in visiting order) or as flat int64 arrays (`flat()`: machine i
    at off[i]:off[i+1]; `order_arrays()`), the other form being built on first use: the C
    kernels read the arrays, the Python policies the lists.
    """

    def __init__(self, kind: str, start: list[list[int]] | None = None,
                 avail: list[list[int]] | None = None, q: list[list[int]] | None = None,
                 order: list[tuple[int, int]] | None = None, lam: int | None = None, *,
                 flat: tuple[np.ndarray, ...] | None = None,
                 order_arrays: tuple[np.ndarray, np.ndarray] | None = None):
        self.kind = kind  # "GreedySlack" or "DAslack"
        self.lam = lam
        self._lists = None if start is None else (start, avail, q)
        self._flat = flat
        self._order = order
        self._order_arrays = order_arrays

    def _list(self, x: int) -> list[list[int]]:
        if self._lists is None:
            off, *cols = self._flat
            bounds = off.tolist()
            self._lists = tuple([flat[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
                                for flat in (c.tolist() for c in cols))
        return self._lists[x]

    @property
    def start(self) -> list[list[int]]:
        return self._list(0)

    @property
    def avail(self) -> list[list[int]]:
        return self._list(1)

    @property
    def q(self) -> list[list[int]]:
        return self._list(2)

    @property
    def m(self) -> int:
        return len(self._flat[0]) - 1 if self._flat is not None else len(self._lists[1])

    @property
    def order(self) -> list[tuple[int, int]]:
        if self._order is None:
            oi, ok = self._order_arrays
            self._order = list(zip(oi.tolist(), ok.tolist(), strict=True))
        return self._order

    def order_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The bin order as two int64 arrays (machines, indices k-1)."""
        if self._order_arrays is None:
            arr = np.asarray(self._order, dtype=np.int64).reshape(-1, 2)
            self._order_arrays = (np.ascontiguousarray(arr[:, 0]),
                                  np.ascontiguousarray(arr[:, 1]))
        return self._order_arrays

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(off, start, avail, q) as flat int64 arrays, machine i at off[i]:off[i+1]."""
        if self._flat is None:
            start, avail, q = self._lists
            off = np.zeros(len(avail) + 1, dtype=np.int64)
            off[1:] = np.cumsum([len(a) for a in avail])
            n = int(off[-1])
            self._flat = (off, *(np.fromiter((x for row in rows for x in row), dtype=np.int64,
                                             count=n) for rows in (start, avail, q)))
        return self._flat


def greedy_view(instance: DesktopInstance) -> View:
    """GreedySlack's shifted intervals and bin order (Algorithm 5), as flat arrays: per machine
    availabilities k = 1..K_i - 1 at q(k) with length a(k); bins by e(k), ties (i, k)."""
    flat = instance.flat
    K = np.diff(flat["off"]) - 1
    off = np.zeros(instance.m + 1, dtype=np.int64)
    np.cumsum(K, out=off[1:])
    own = np.repeat(np.arange(instance.m, dtype=np.int64), K)
    kk = np.arange(int(off[-1]), dtype=np.int64) - np.repeat(off[:-1], K)
    idx = flat["off"][own] + kk
    start = flat["q"][idx]
    perm = np.argsort(flat["e"][idx], kind="stable")  # ties: (i, k)
    return View("GreedySlack", flat=(off, start, flat["a"][idx], start),
                order_arrays=(np.ascontiguousarray(own[perm]), np.ascontiguousarray(kk[perm])))


class CutData:
    """What `cut_view` needs of an instance, computed once per DAslack call: every interval
    k = 1..K_i of every machine as flat arrays (machine i at koff[i]:koff[i+1])."""

    def __init__(self, instance: DesktopInstance):
        flat = instance.flat
        self.m = instance.m
        self.koff = flat["off"]
        K = np.diff(self.koff)
        self.start, self.end, self.a = flat["e_prev"], flat["e"], flat["a"]
        self.u, self.q = flat["u"], flat["q"]
        self.span = int(self.end.max()) + 2 if len(self.end) else 2  # > every e(k) + 1
        owner = np.repeat(np.arange(self.m, dtype=np.int64), K)
        self.key = owner * self.span + self.end  # sorted: machines, then e(k)
        self.base = np.arange(self.m, dtype=np.int64) * self.span


def cached(instance: DesktopInstance, key: str, make):
    """`make(instance)`, computed once per instance and kept in its ``__dict__`` beside its
    cached properties (the instance is immutable; DAslack's 10 variants share the result)."""
    store = instance.__dict__
    name = f"_heuristics_{key}"
    if name not in store:
        store[name] = make(instance)
    return store[name]


def cut_view(data: CutData, lam: int, need_order: bool = True) -> View:
    """DAslack's intervals cut at horizon `lam` and its bin order (Algorithm 6, fixed), as flat
    arrays: per machine the intervals up to the first k with e(k) >= lam (K_i if none), the
    last one cut to max(0, lam - u(k) - e(k-1)) when e(k) > lam."""
    koff = data.koff
    first = np.searchsorted(data.key, data.base + min(max(lam, 0), data.span - 1), side="left")
    kept = np.minimum(first - koff[:-1] + 1, np.diff(koff))  # K'_i
    off = np.zeros(data.m + 1, dtype=np.int64)
    np.cumsum(kept, out=off[1:])
    total = int(off[-1])
    shift = np.repeat(koff[:-1] - off[:-1], kept)
    idx = np.arange(total, dtype=np.int64) + shift
    avail = data.a[idx]
    last = off[1:] - 1
    src = idx[last]
    cut = data.end[src] > lam
    avail[last[cut]] = np.maximum(0, lam - data.u[src[cut]] - data.start[src[cut]])
    order = None
    if need_order:
        own = np.repeat(np.arange(data.m, dtype=np.int64), kept)
        kk = np.arange(total, dtype=np.int64) - np.repeat(off[:-1], kept)
        perm = np.lexsort((kk, own, avail))
        perm = perm[avail[perm] > 0]  # a bin of length 0 takes no job
        order = (np.ascontiguousarray(own[perm]), np.ascontiguousarray(kk[perm]))
    return View("DAslack", lam=lam, flat=(off, data.start[idx], avail, data.q[idx]),
                order_arrays=order if need_order else (np.zeros(0, np.int64),) * 2)


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
    """(off, start, avail, q): the view as flat int64 arrays (the input of the C kernels)."""
    return view.flat()


class ArrayState(State):
    """The `State` a C kernel filled, kept as its arrays (S, M per flat interval; placements in
    order); `horizon()` is computed on the arrays, the lists (S, M, jobs) on first use."""

    def __init__(self, view: View, slack: bool, S: np.ndarray, M: np.ndarray,
                 placements: np.ndarray):
        self.view = view
        self.slack = slack
        self.trace = None
        self._S, self._M, self._placements = S, M, placements  # placements: (3, n) pos, i, k
        self._lists: tuple | None = None

    def _build(self) -> tuple:
        if self._lists is None:
            bounds = self.view.flat()[0].tolist()
            Sl, Ml = self._S.tolist(), self._M.tolist()
            S = [Sl[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
            M = [Ml[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
            jobs: dict[tuple[int, int], list[int]] = {}
            pos, mach, idx = self._placements.tolist()
            for p, i, k in zip(pos, mach, idx, strict=True):
                js = jobs.get((i, k))
                if js is None:
                    jobs[(i, k)] = [p]
                else:
                    js.append(p)
            self._lists = (S, M, jobs)
        return self._lists

    @property
    def avail(self) -> list[list[int]]:
        return self.view.avail

    @property
    def S(self) -> list[list[int]]:
        return self._build()[0]

    @property
    def M(self) -> list[list[int]]:
        return self._build()[1]

    @property
    def jobs(self) -> dict[tuple[int, int], list[int]]:
        return self._build()[2]

    def horizon(self) -> int:
        """H(pi) of `State.horizon` on the arrays (a used interval has S > 0: every t >= 1)."""
        off, _, _, q = self.view.flat()
        S, M = self._S, self._M
        used = S > 0
        if not used.any():
            return 0
        h = q + S
        if self.slack:
            ends = off[1:][off[1:] > off[:-1]] - 1  # last interval of each machine
            m1 = np.zeros_like(M)
            m1[:-1] = M[1:]
            m1[ends] = 0
            m2 = np.zeros_like(M)
            m2[:-2] = M[2:]
            m2[ends] = 0
            m2[ends[ends >= 1] - 1] = 0
            h = h + np.maximum(M, np.maximum(m1, m2))
        return int(h[used].max())


def state_from_arrays(view: View, slack: bool, off: np.ndarray, S: np.ndarray, M: np.ndarray,
                      pos: np.ndarray, mach: np.ndarray, idx: np.ndarray) -> State:
    """The `State` a C kernel filled: S, M per interval and the placements in order (`off`
    must be the view's own offsets)."""
    return ArrayState(view, slack, S, M, np.stack([pos, mach, idx]))
