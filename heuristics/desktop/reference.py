"""Straightforward implementations of the local policies, line by line from the pseudocode
(spec 004 §3.1-3.2 with the fixes A-1 to A-4, A-9, A-25): the oracles of the equivalence tests
and the baseline of ``scripts/bench_desktop.py``.

Each reads the view and t_ij directly, recomputes longestJob from scratch on every test (the
literal Algorithm 1: d(k) / 2 compared exactly as 2 t <= d(k)), scans machines and intervals from
the first one for every job (LPT/SPT), iterates a snapshot of the job list (FFD/FFI) and builds
the full P / P_s tables (DPslack). `deadline` (a `time.perf_counter()` value) makes a call raise
`TimeoutError` once passed, so that a benchmark can cap a baseline that would take hours.
"""

from __future__ import annotations

import time

import numpy as np

from resilsched.heuristics.desktop.dpslack import select_reference
from resilsched.heuristics.desktop.state import State, View


class _Literal:
    """pi, S, M over a view, with Algorithm 1 evaluated literally."""

    def __init__(self, view: View, slack: bool, deadline: float | None):
        self.state = State(view, slack)
        self.deadline = deadline
        self.ticks = 0

    def fits(self, i: int, k: int, t: int) -> bool:
        """t <= longestJob(i, k) (Algorithm 1; a - S without the slack rule)."""
        self.ticks += 1
        if self.deadline is not None and self.ticks % 4096 == 0 \
                and time.perf_counter() > self.deadline:
            raise TimeoutError("reference implementation: deadline passed")
        st = self.state
        av, S, M = st.avail[i], st.S[i], st.M[i]
        K = len(av)

        def d(x: int) -> float:
            return float("inf") if x < 0 else av[x] - S[x]

        def mm(x: int) -> int:
            return M[x] if x < K else 0

        if not st.slack:
            return t <= d(k)
        prev = min(d(k - 2), d(k - 1))
        nxt = d(k) - max(mm(k), mm(k + 1), mm(k + 2))
        return t <= prev and 2 * t <= d(k) and t <= nxt


def lpt_literal(view: View, T: np.ndarray, slack: bool, decreasing: bool = True,
                deadline: float | None = None) -> State | None:
    """Algorithm 2 (LPT; SPT with ``decreasing=False``); T is t_ij by sorted position (m, n)."""
    lit = _Literal(view, slack, deadline)
    st = lit.state
    n = T.shape[1]
    for pos in (range(n - 1, -1, -1) if decreasing else range(n)):
        best, where = None, None
        for i in range(len(view.avail)):
            t = int(T[i, pos])
            K = len(view.avail[i])
            k = 0
            while k < K and not lit.fits(i, k, t):
                k += 1
            if k == K:
                continue  # machine i cannot take the job
            M = st.M[i]
            w = max([t] + [M[x] for x in (k, k + 1, k + 2) if x < K]) if slack else 0
            e = view.start[i][k] + st.S[i][k] + t + w
            if best is None or e < best:
                best, where = e, (i, k, t)
        if where is None:
            return None
        st.place(where[0], where[1], pos, where[2])
    return st


def binpack_literal(view: View, T: np.ndarray, slack: bool, decreasing: bool,
                    deadline: float | None = None) -> State | None:
    """Algorithm 3 (FFD; FFI with ``decreasing=False``) over a snapshot of the job list."""
    lit = _Literal(view, slack, deadline)
    n = T.shape[1]
    J = list(range(n - 1, -1, -1)) if decreasing else list(range(n))
    for i, k in view.order:
        for pos in list(J):
            t = int(T[i, pos])
            if lit.fits(i, k, t):
                lit.state.place(i, k, pos, t)
                J.remove(pos)
    return lit.state if not J else None


def binpack_by_job_literal(view: View, T: np.ndarray, slack: bool, decreasing: bool,
                           deadline: float | None = None) -> State | None:
    """FFD (FFI with ``decreasing=False``) job by job, the prose of §3.2.3 (D-24): each job in
    the first bin of the view's order where it fits."""
    lit = _Literal(view, slack, deadline)
    n = T.shape[1]
    for pos in (range(n - 1, -1, -1) if decreasing else range(n)):
        for i, k in view.order:
            t = int(T[i, pos])
            if lit.fits(i, k, t):
                lit.state.place(i, k, pos, t)
                break
        else:
            return None
    return lit.state


def dpslack_literal(view: View, T: np.ndarray, slack: bool,
                    deadline: float | None = None) -> State | None:
    """Algorithm 4 with the fixes of A-9 and the explicit tables of `select_reference`."""
    lit = _Literal(view, slack, deadline)
    st = lit.state
    J = list(range(T.shape[1]))
    for i, k in view.order:
        cand = [pos for pos in J if lit.fits(i, k, int(T[i, pos]))]  # a prefix (A-9 a)
        if not cand:
            continue
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeoutError("reference implementation: deadline passed")
        c = [int(T[i, pos]) for pos in cand]
        K = len(view.avail[i])
        m1 = st.M[i][k + 1] if k + 1 < K else 0
        m2 = st.M[i][k + 2] if k + 2 < K else 0
        for x in select_reference(c, view.avail[i][k] - st.S[i][k], m1, m2, slack):
            st.place(i, k, cand[x], c[x])
            J.remove(cand[x])
    return st if not J else None


#: local policy name -> literal function(view, T (m, n), slack, deadline)
LITERAL = {
    "LPT": lambda v, T, s, dl=None: lpt_literal(v, T, s, True, dl),
    "SPT": lambda v, T, s, dl=None: lpt_literal(v, T, s, False, dl),
    "FFD": lambda v, T, s, dl=None: binpack_literal(v, T, s, True, dl),
    "FFI": lambda v, T, s, dl=None: binpack_literal(v, T, s, False, dl),
    "DPslack": dpslack_literal,
}

#: the job-by-job reading of FFD and FFI (``fill=job``, D-24)
LITERAL_BY_JOB = {
    "FFD": lambda v, T, s, dl=None: binpack_by_job_literal(v, T, s, True, dl),
    "FFI": lambda v, T, s, dl=None: binpack_by_job_literal(v, T, s, False, dl),
}
