"""Local search on a partition into packs: incumbents for branch-and-price (spec 001 §2.3,
decision C25).

A heuristic, never a proof. A pack's time is read off the pricing oracle's thresholds: with
q_i(T) the fewest processors on which task i runs within T (`pricing_oracle.PackOracle.q`), the
optimal time of pack B (Algorithm 1) is the least instance time T with sum_{i in B} q_i(T) <= p, and
|B| <= k. Each pack keeps its column of sums S_B(T) = sum_{i in B} q_i(T), so a move costs two
vector operations. Moves, first improvement, until none improves the makespan (the sum of the
pack times) or the deadline expires: a task to another pack or to a pack of its own; two tasks
of different packs swapped.
"""

from __future__ import annotations

import numpy as np

from resilsched.deadline import Deadline

#: a move must save more than this share of the makespan (float noise is no improvement)
REL_GAIN = 1e-12


class _Packs:
    """Packs as task lists with their sums S_B(T) over the thresholds and their times."""

    def __init__(self, oracle, packs: list[tuple[int, ...]]):
        self.q = oracle.q.T.astype(np.int64)  # (n, thresholds)
        self.thr = oracle.thresholds
        self.p, self.k = oracle.p, oracle.k
        self.tasks = [list(b) for b in packs]
        self.sums = [self.q[list(b)].sum(axis=0) for b in packs]
        self.times = [self.time(s, len(b)) for s, b in zip(self.sums, packs, strict=True)]

    def time(self, sums: np.ndarray, size: int) -> float:
        """The pack's optimal time (0 when empty; inf when it cannot run)."""
        if size == 0:
            return 0.0
        if size > self.k:
            return np.inf
        fits = sums <= self.p  # sums decrease as T grows
        return float(self.thr[int(np.argmax(fits))]) if fits[-1] else np.inf

    def set(self, a: int, tasks: list[int], sums: np.ndarray, time: float) -> None:
        if a == len(self.tasks):
            self.tasks.append([])
            self.sums.append(sums)
            self.times.append(0.0)
        self.tasks[a], self.sums[a], self.times[a] = tasks, sums, time


def improve_packs(oracle, packs: list[tuple[int, ...]], deadline: Deadline | None = None
                  ) -> list[tuple[int, ...]]:
    """A partition no worse than `packs` (module docstring), as ascending task tuples."""
    st = _Packs(oracle, packs)
    total = sum(st.times)
    if not np.isfinite(total):
        return [tuple(sorted(b)) for b in packs]
    improved = True
    while improved and not (deadline is not None and deadline.expired()):
        improved = _moves(st) or _swaps(st)
    return [tuple(sorted(b)) for b in st.tasks if b]


def _gain_ok(old: float, new: float, scale: float) -> bool:
    return new < old - REL_GAIN * max(1.0, scale)


def _moves(st: _Packs) -> bool:
    """Move one task to another pack (or a new one); True after the first improving move."""
    scale = sum(st.times)
    for a in range(len(st.tasks)):
        for i in list(st.tasks[a]):
            rest = [x for x in st.tasks[a] if x != i]
            rest_sums = st.sums[a] - st.q[i]
            rest_time = st.time(rest_sums, len(rest))
            for b in range(len(st.tasks) + 1):
                if b == a or (b < len(st.tasks) and not st.tasks[b]):
                    continue
                if b == len(st.tasks) and not rest:
                    continue  # moving a singleton to a new pack changes nothing
                tb = st.tasks[b] if b < len(st.tasks) else []
                sb = (st.sums[b] if b < len(st.tasks) else 0) + st.q[i]
                time_b = st.time(sb, len(tb) + 1)
                old = st.times[a] + (st.times[b] if b < len(st.tasks) else 0.0)
                if _gain_ok(old, rest_time + time_b, scale):
                    st.set(b, tb + [i], sb, time_b)
                    st.set(a, rest, rest_sums, rest_time)
                    return True
    return False


def _swaps(st: _Packs) -> bool:
    """Swap two tasks of different packs; True after the first improving swap."""
    scale = sum(st.times)
    m = len(st.tasks)
    for a in range(m):
        for b in range(a + 1, m):
            old = st.times[a] + st.times[b]
            for i in st.tasks[a]:
                for j in st.tasks[b]:
                    delta = st.q[j] - st.q[i]
                    sa, sb = st.sums[a] + delta, st.sums[b] - delta
                    ta = st.time(sa, len(st.tasks[a]))
                    tb = st.time(sb, len(st.tasks[b]))
                    if _gain_ok(old, ta + tb, scale):
                        new_a = [x for x in st.tasks[a] if x != i] + [j]
                        new_b = [x for x in st.tasks[b] if x != j] + [i]
                        st.set(a, new_a, sa, ta)
                        st.set(b, new_b, sb, tb)
                        return True
    return False
