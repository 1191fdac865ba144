"""LPT and SPT local policies (spec 004 §3.2.1-3.2.2, Algorithm 2, A-4, A-24).

Jobs in non-increasing (LPT) or non-decreasing (SPT) order of p; each goes to the machine whose
first fitting interval k (the smallest k with t_ij <= longestJob(i, k)) gives the smallest

    E = start_i(k) + S_i(k) + t_ij + max(t_ij, M_i(k), M_i(k+1), M_i(k+2))

(without the slack rule: E = start_i(k) + S_i(k) + t_ij); ties go to the lowest machine index
(strict '<'); a machine with no fitting interval is skipped, and the allocation is INVALID when
no machine can take the job. The interval order of the view is ignored.

Implementation (same output as the literal loop of `reference.lpt_literal`): each machine keeps
its candidate = first fitting interval for the last duration it was checked with, in numpy
arrays over machines, so one job costs a few vector operations over m plus a rescan of the
machine it went to. The candidate stays first-fitting as long as the duration does not drop to
the largest longestJob of the earlier intervals (LPT) or rise above its own longestJob (SPT);
longestJob never increases as jobs are added. The first interval with longestJob >= 1 only moves
forward, so rescans start there. Cost O(n m) vector work plus O(n K'/m) rescans.
"""

from __future__ import annotations

import numpy as np

import resilsched.heuristics.desktop._ckernel as _ckernel
from resilsched.heuristics.desktop.state import INF, State, View, flat_view, state_from_arrays


class _Candidates:
    """Per machine: first fitting interval for the current duration, and its E terms."""

    def __init__(self, state: State):
        m = len(state.avail)
        self.state = state
        self.kk = [-1] * m
        self.lo = [0] * m  # every interval before lo has longestJob < 1
        self.c = np.full(m, INF, dtype=np.int64)  # start + S of the candidate
        self.w = np.zeros(m, dtype=np.int64)  # max(M(k), M(k+1), M(k+2)) of the candidate
        self.lj = np.full(m, -INF, dtype=np.int64)  # longestJob of the candidate
        self.pm = np.full(m, -INF, dtype=np.int64)  # max longestJob before the candidate

    def refresh(self, i: int, t: int, floor: int, start: int = -1) -> None:
        """Rescan machine i for the first interval where a job of duration t fits; intervals
        at the front whose longestJob is below `floor` (no remaining job fits them, ever) are
        skipped for good. With `start` >= 0 the scan begins there, every earlier interval being
        known not to fit t (the last candidate, after a job went to it): the largest
        longestJob before it is then the previous `pm`, an upper bound, which can only trigger
        an unneeded rescan."""
        st = self.state
        av, S, M = st.avail[i], st.S[i], st.M[i]
        K = len(av)
        slack = st.slack
        if start >= 0:
            k, prevmax, moving_lo = start, int(self.pm[i]), start == self.lo[i]
        else:
            k, prevmax, moving_lo = self.lo[i], -INF, True
        while k < K:
            d = av[k] - S[k]
            if slack:
                w = M[k]
                if k + 1 < K:
                    if M[k + 1] > w:
                        w = M[k + 1]
                    if k + 2 < K and M[k + 2] > w:
                        w = M[k + 2]
                lj = d - w
                if d // 2 < lj:
                    lj = d // 2
                if k >= 1:
                    x = av[k - 1] - S[k - 1]
                    if x < lj:
                        lj = x
                    if k >= 2:
                        x = av[k - 2] - S[k - 2]
                        if x < lj:
                            lj = x
            else:
                w = 0
                lj = d
            if lj >= t:
                self.kk[i] = k
                self.c[i] = st.view.start[i][k] + S[k]
                self.w[i] = w
                self.lj[i] = lj
                self.pm[i] = prevmax
                return
            if lj < floor and moving_lo:
                self.lo[i] = k + 1
            else:
                moving_lo = False
                if lj > prevmax:
                    prevmax = lj
            k += 1
        self.kk[i] = -1
        self.c[i] = INF
        self.lj[i] = INF  # SPT: no later (longer) job fits either, never stale again
        self.pm[i] = prevmax  # LPT: stale again once a job fits one of these intervals


class Trace:
    """The placements of a run, (position, machine, index k-1, t), and H after each of them
    (non-decreasing): what `da_slack` replays (see `list_policy`)."""

    def __init__(self) -> None:
        self.steps: list[tuple[int, int, int, int]] = []
        self.h: list[int] = []
        self.now = 0

    def add(self, state: State, step: tuple[int, int, int, int]) -> None:
        _, i, k, _ = step
        q, S = state.view.q[i], state.S[i]
        h = self.now
        for x in (k, k - 1, k - 2) if state.slack else (k,):
            if x >= 0 and S[x]:
                v = q[x] + S[x] + (state.window(i, x) if state.slack else 0)
                if v > h:
                    h = v
        self.now = h
        self.steps.append(step)
        self.h.append(h)


def list_policy(view: View, durations_by_job: np.ndarray, positions: np.ndarray,
                slack: bool, decreasing: bool,
                replay: list[tuple[int, int, int, int]] = ()) -> State | None:
    """Algorithm 2 over the jobs at `positions` (sorted positions, in processing order).

    `durations_by_job[r]` holds t_ij of the job at sorted position r on every machine. Returns
    the filled `State` (its `trace` records the run), or None (INVALID) when some job fits no
    machine. `replay` holds the first placements of another run, taken as they are: DAslack
    passes the prefix of a valid run at a larger horizon whose H stayed <= this view's horizon,
    which this run would repeat step by step (`resilsched.heuristics.desktop.policies`).
    `decreasing` says LPT (positions non-increasing) or SPT. The loop runs in C when the kernel
    is available (`_ckernel.list_run`, same result).
    """
    dll = _ckernel.lib()
    if dll is not None:
        return _list_policy_c(dll, view, durations_by_job, positions, slack, decreasing, replay)
    state = State(view, slack)
    trace = Trace()
    state.trace = trace
    cand = _Candidates(state)
    m = len(view.avail)
    place = state.place
    for step in replay:
        place(step[1], step[2], step[0], step[3])
        trace.add(state, step)
    positions = positions[len(replay):]
    if len(positions) == 0:
        return state
    t0 = durations_by_job[positions[0]]
    # no remaining job is shorter than the last one (LPT) or than the current one (SPT)
    floors = durations_by_job[positions[-1]].tolist() if decreasing else None
    for i in range(m):
        cand.refresh(i, int(t0[i]), floors[i] if decreasing else int(t0[i]))
    c, w, lj, pm = cand.c, cand.w, cand.lj, cand.pm
    e = np.empty(m, dtype=np.int64)
    for pos in positions.tolist():
        t = durations_by_job[pos]
        stale = (t <= pm) if decreasing else (t > lj)
        if stale.any():
            for i in np.flatnonzero(stale).tolist():
                ti = int(t[i])
                cand.refresh(i, ti, floors[i] if decreasing else ti)
        if slack:
            np.maximum(t, w, out=e)
            e += t
            e += c
        else:
            np.add(c, t, out=e)
        i = int(e.argmin())
        if e[i] >= INF:
            return None
        ti = int(t[i])
        k = cand.kk[i]
        place(i, k, pos, ti)
        trace.add(state, (pos, i, k, ti))
        cand.refresh(i, ti, floors[i] if decreasing else ti, k)
    return state


def lpt(view: View, durations_by_job: np.ndarray, slack: bool,
        replay: list[tuple[int, int, int, int]] = ()) -> State | None:
    """LPT: jobs by non-increasing p (the reverse of the sorted order, A-24)."""
    n = durations_by_job.shape[0]
    return list_policy(view, durations_by_job, np.arange(n - 1, -1, -1), slack, True, replay)


def spt(view: View, durations_by_job: np.ndarray, slack: bool,
        replay: list[tuple[int, int, int, int]] = ()) -> State | None:
    """SPT: jobs by non-decreasing p (§3.2.2)."""
    n = durations_by_job.shape[0]
    return list_policy(view, durations_by_job, np.arange(n), slack, False, replay)


def _list_policy_c(dll, view: View, D: np.ndarray, positions: np.ndarray, slack: bool,
                   decreasing: bool, replay) -> State | None:
    """`list_policy` through the C kernel: same placements, same trace."""
    m, n = view.m, len(positions)
    off, start, avail, q = flat_view(view)
    S = np.zeros(int(off[-1]), dtype=np.int64)
    M = np.zeros_like(S)
    out = np.zeros((5, max(n, 1)), dtype=np.int64)  # pos, i, k, t, h
    if len(replay):
        out[:4, :len(replay)] = np.asarray(replay, dtype=np.int64).T
    work = np.zeros(6 * m, dtype=np.int64)
    pos = np.ascontiguousarray(positions, dtype=np.int64)
    D = np.ascontiguousarray(D, dtype=np.int64)
    done = dll.list_run(m, off, start, avail, q, D, pos, n, int(slack), int(decreasing),
                        len(replay), S, M, work, *(out[x] for x in range(5)))
    if done < n:
        return None
    state = state_from_arrays(view, slack, off, S, M, out[0, :n], out[1, :n], out[2, :n])
    cols = [c[:n] for c in out.tolist()]
    trace = Trace()
    trace.steps = list(zip(cols[0], cols[1], cols[2], cols[3], strict=True))
    trace.h = cols[4]
    trace.now = trace.h[-1] if n else 0
    state.trace = trace
    return state
