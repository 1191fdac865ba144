"""State of one simulated execution (spec 001 §3.1 "per running application", §3.3, A-6..A-9).

Per application i: sigma_i (even count), alpha_i (remaining fraction at t_lastR_i), t_lastR_i,
t^U_i = t_lastR_i + t^R_{i,sigma_i}(alpha_i) (the expected finish, used for decisions) and E_i,
the realized finish if no further failure strikes: t_lastR_i + alpha_i t + N^ff C (A-6; t^U_i
with ``end_mode='expected'``). The idle processors are `free`; with failures the processors are
explicit ids with an owner map: an application gives back its most recently received ids first
and idle ids are handed out first-in first-out (A-22).

A failure that strikes the buddy of a struck processor while that application recovers (from the
failure to the end of D + R: the buddy holds the only copies of both checkpoints) is *fatal*
(spec §1.4); it is counted and listed as a diagnostic only, the run going on as if it had been
a plain failure (spec [REC], decision MA-21). Buddies are the pairs of an application's ids in
the order it holds them: positions 2r and 2r + 1.

Every change is logged as a *phase* of an application (start, restart = t_lastR, count, alpha
at the restart, end, how it ended, fraction done), and with failures every change of the ids an
application holds as a *transfer* (time, application, ids taken, ids given back, each as ranges
of consecutive ids), which `resilsched.validation.malleable` checks independently.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

import numpy as np

from resilsched.instances.malleable.formulas import Formulas


@dataclass(frozen=True)
class Options:
    """The simulator's switches (spec §6): defaults are the spec's recommendations."""

    end_mode: str = "realized"        # 'realized' | 'expected'
    progress: str = "clamp"           # 'clamp' | 'literal'
    baseline: str = "stale"           # 'stale' | 'fresh'
    improve_rule: str = "lookahead"   # 'lookahead' | 'strict_step'
    on_stuck: str = "stop"            # 'stop' | 'skip'
    lookahead_release: bool = True
    lookahead_pool: str = "faulty_only"  # 'faulty_only' | 'at_end' | 'any' (MA-9)
    refill: bool = False


def id_ranges(ids: list[int]) -> tuple[tuple[int, int], ...]:
    """`ids` in their order as runs of consecutive ids, ``(first, last)`` each."""
    if len(ids) > 64:
        a = np.asarray(ids, dtype=np.int64)
        cut = np.flatnonzero(np.diff(a) != 1) + 1
        first, last = a[np.r_[0, cut]], a[np.r_[cut - 1, a.size - 1]]
        return tuple(zip(first.tolist(), last.tolist(), strict=True))
    out: list[tuple[int, int]] = []
    for q in ids:
        if out and q == out[-1][1] + 1:
            out[-1] = (out[-1][0], q)
        else:
            out.append((q, q))
    return tuple(out)


class RunState:
    """Arrays of the n applications plus the processor pool of one run.

    Besides the spec's state, each application keeps the constants of its current count
    (t, C, tau: `cur_t`, `cur_c`, `cur_tau`) for the progress formula, and the realized ends
    sit in a heap (`next_end`), so that an event costs no pass over the n applications.
    """

    def __init__(self, inst, F: Formulas, opts: Options) -> None:
        n = inst.n
        self.inst, self.F, self.opts = inst, F, opts
        self.T = F.tables
        self.clamp = opts.progress == "clamp"
        self.expected_end = opts.end_mode == "expected"
        self.sigma = np.zeros(n, dtype=np.int64)
        self.alpha = np.ones(n)
        self.tlast = np.zeros(n)
        self.tU = np.zeros(n)
        self.E = np.full(n, np.inf)
        self.cur_t = np.ones(n)
        self.cur_c = np.zeros(n)
        self.cur_tau = np.full(n, np.inf)
        self.running = np.ones(n, dtype=bool)
        self.finish = np.full(n, np.nan)
        self.released = np.full(n, np.nan)
        self.free = inst.p
        self.track_ids = not inst.fault_free
        self.owner = np.full(inst.p, -1, dtype=np.int64)
        self.slot = np.full(inst.p, -1, dtype=np.int64)  # position of an id in its owner's list
        self.watch: dict[int, tuple[int, float]] = {}  # buddy id -> (application, recovered at)
        self.fatal: list[tuple[float, int, int]] = []    # (time, processor, application)
        self.ids: list[list[int]] = [[] for _ in range(n)]
        self.pool: deque[int] = deque(range(inst.p))
        self.phases: list[tuple] = []
        self.transfers: list[tuple] = []  # (time, app, taken, given back), ids as ranges
        self._open: list[tuple] = [(0.0, 0.0, 0, 1.0)] * n
        self._ends: list[tuple[float, int]] = []  # heap of (E_i, i); stale entries skipped
        self.reserved_for = -1            # A-14 'faulty_only': T_f during its FAIL policy
        self.reserved: list[list] = []    # held [free at, ids, count] that T_f takes first
        self.counts = {"failures": 0, "discarded": 0, "redistributions": 0,
                       "end_calls": 0, "fail_calls": 0, "lookahead_finished": 0, "fatal": 0}

    # ------------------------------------------------------------------ start
    def start(self, sigma: np.ndarray) -> None:
        """Initial allocation at t = 0: alpha = 1, t_lastR = 0, no checkpoint (A-33)."""
        idx = np.arange(self.inst.n)
        self._take(idx, np.zeros_like(sigma), sigma, 0.0)
        self.sigma[:] = sigma
        self.tU[:] = self.F.t_r(idx, sigma, 1.0)
        self.E[:] = self._end(idx)
        for i, k in enumerate(sigma.tolist()):
            self._constants(i, k)
        self._ends = list(zip(self.E.tolist(), range(self.inst.n), strict=True))
        heapq.heapify(self._ends)
        self._open = [(0.0, 0.0, int(k), 1.0) for k in sigma]

    def _end(self, idx: np.ndarray) -> np.ndarray:
        if self.expected_end:
            return self.tU[idx]
        return self.tlast[idx] + self.F.duration(idx, self.sigma[idx], self.alpha[idx])

    def _constants(self, i: int, k: int) -> None:
        t, c, tau = self.T.cell(i, k)[:3]
        self.cur_t[i], self.cur_c[i], self.cur_tau[i] = t, c, tau

    def _set(self, i: int, k: int, a: float, restart: float) -> None:
        """Application i works on k processors from `restart` with `a` of its work left."""
        T = self.T
        self.sigma[i] = k
        self.alpha[i] = a
        self.tlast[i] = restart
        tu = restart + T.t_r(i, k, a)
        self.tU[i] = tu
        e = tu if self.expected_end else restart + T.duration(i, k, a)
        self.E[i] = e
        self._constants(i, k)
        heapq.heappush(self._ends, (e, i))

    def next_end(self) -> tuple[int, float] | None:
        """The running application with the first realized end (lowest index on ties, A-31)
        and that end, or None when nothing runs."""
        ends = self._ends
        while ends:
            e, i = ends[0]
            if self.running[i] and self.E[i] == e:
                return i, e
            heapq.heappop(ends)
        return None

    # ------------------------------------------------------------------ progress
    def alpha_now(self, idx: np.ndarray, t: float) -> np.ndarray:
        """Remaining fraction at t of running, unstruck applications (1.10, A-9)."""
        delta = t - self.tlast[idx]
        if self.inst.fault_free:
            done = delta / self.cur_t[idx]
        else:
            tau, c = self.cur_tau[idx], self.cur_c[idx]
            n = np.floor(delta / tau)
            if self.clamp:
                done = (n * (tau - c) + np.minimum(delta - n * tau, tau - c)) / self.cur_t[idx]
            else:
                done = (delta - n * c) / self.cur_t[idx]
        return np.maximum(0.0, self.alpha[idx] - done)

    def alpha_one(self, i: int, t: float) -> float:
        """`alpha_now` of one application (the same operations, in scalar form)."""
        delta = t - float(self.tlast[i])
        tk, c, tau = self.T.cell(i, int(self.sigma[i]))[:3]
        if self.inst.fault_free:
            done = delta / tk
        else:
            n = math.floor(delta / tau)
            if self.clamp:
                done = (n * (tau - c) + min(delta - n * tau, tau - c)) / tk
            else:
                done = (delta - n * c) / tk
        return max(0.0, float(self.alpha[i]) - done)

    # ------------------------------------------------------------------ changes
    def commit(self, idx: np.ndarray, k: np.ndarray, a: np.ndarray, restart: np.ndarray,
               t: float, kind: str = "redistributed") -> None:
        """Applications `idx` go to counts `k` at time t with remaining `a`, working again
        from `restart` (their t_lastR)."""
        if idx.size == 0:
            return
        old = self.sigma[idx].copy()
        self._take(idx, old, k, t)
        for i, kk, aa, rs in zip(idx.tolist(), k.tolist(), a.tolist(), restart.tolist(),
                                 strict=True):
            self._close(i, t, kind, self.alpha[i] - aa)
            self._open[i] = (t, rs, kk, aa)
            self._set(i, kk, aa, rs)
        self.counts["redistributions"] += int(np.count_nonzero(k != old))

    def fail(self, f: int, t: float, proc: int) -> None:
        """T_f is struck at t on processor `proc`: back to its last checkpoint, then D + R (A-8);
        its buddy is watched until then (fatal failures, module doc)."""
        j = int(self.sigma[f])
        tk, c, tau = self.T.cell(f, j)[:3]
        done = math.floor((t - float(self.tlast[f])) / tau) * (tau - c) / tk
        a = max(0.0, float(self.alpha[f]) - done)
        restart = t + self.F.D + c
        self.watch[self.ids[f][int(self.slot[proc]) ^ 1]] = (f, restart)
        self._close(f, t, "failure", min(done, float(self.alpha[f])))  # capped (MA-15)
        self._open[f] = (t, restart, j, a)
        self._set(f, j, a, restart)
        self.counts["failures"] += 1

    def finish_app(self, idx: np.ndarray, when: np.ndarray, t: float,
                   hold: bool = False) -> np.ndarray:
        """Applications `idx` end at times `when`; their processors are released at t (to the
        pool, or returned to the caller with `hold`, A-14 'at_end')."""
        freed: list[int] = []
        for i, e in zip(idx.tolist(), when.tolist(), strict=True):
            self._close(i, e, "finished", self.alpha[i])
            self.finish[i] = e
            self.released[i] = t
            self.running[i] = False
            if self.track_ids:
                freed += self.ids[i]
                self.owner[self.ids[i]] = -1
                self.ids[i] = []
        count = int(self.sigma[idx].sum())
        self.sigma[idx] = 0
        if hold:
            return np.array(freed, dtype=np.int64) if self.track_ids else np.array([count])
        self.free += count
        if self.track_ids:
            self.pool.extend(freed)
        return np.array([], dtype=np.int64)

    def check_fatal(self, t: float, proc: int) -> None:
        """A failure of `proc` at t is fatal when `proc` is the buddy of a processor whose
        application is still recovering from that processor's failure (module doc)."""
        got = self.watch.pop(proc, None)
        if got is not None and t < got[1]:
            self.fatal.append((t, proc, got[0]))
            self.counts["fatal"] += 1

    def give_back(self, ids: list[int], count: int) -> None:
        """Held processors (`finish_app(hold=True)`) join the idle pool."""
        self.free += count
        if self.track_ids:
            self.pool.extend(ids)

    def reserve(self, f: int, held: list[list]) -> None:
        """Held processors only T_f may take (first) until the next call (A-14 'faulty_only');
        f = -1 ends the reservation. Entries are the simulator's [free at, ids, count]."""
        self.reserved_for, self.reserved = f, held

    def reserved_count(self, i: int) -> int:
        """Processors reserved for application i (0 for any other)."""
        return sum(h[2] for h in self.reserved) if i == self.reserved_for else 0

    # ------------------------------------------------------------------ processors
    def _take(self, idx: np.ndarray, old: np.ndarray, new: np.ndarray, t: float) -> None:
        diff = new - old
        self.free -= int(diff.sum())
        if not self.track_ids:
            return
        for i, d in zip(idx.tolist(), diff.tolist(), strict=True):
            if d < 0:  # most recently received ids leave first
                out = self.ids[i][d:]
                del self.ids[i][d:]
                self.owner[out] = -1
                self.pool.extend(out)
                self.transfers.append((float(t), i, (), id_ranges(out)))
        for i, d in zip(idx.tolist(), diff.tolist(), strict=True):
            if d > 0:
                got = self._take_reserved(d) if i == self.reserved_for else []
                self.free += len(got)  # counted above, but taken from the held processors
                got += [self.pool.popleft() for _ in range(d - len(got))]
                self.slot[got] = np.arange(len(self.ids[i]), len(self.ids[i]) + d)
                self.ids[i].extend(got)
                self.owner[got] = i
                self.transfers.append((float(t), i, id_ranges(got), ()))

    def _take_reserved(self, d: int) -> list[int]:
        got: list[int] = []
        for h in self.reserved:
            take = min(d - len(got), h[2])
            got += h[1][:take]
            del h[1][:take]
            h[2] -= take
        return got

    def _close(self, i: int, end: float, kind: str, done: float) -> None:
        start, restart, count, alpha = self._open[i]
        self.phases.append((i, start, restart, count, alpha, float(end), kind, float(done)))
