"""Branch and bound over semi-active schedules for a makespan target [OURS] (spec 002 §1.3, §11.2).

Decision problem D(T): is there an attempt schedule of a scaled scenario (job j: m_j chained
attempts of length t_j on p_j processors, capacity P, Eq. 2-3 of §1.3) that ends by T?
`refute_makespan` answers it exactly or runs out of time (or nodes). `solve_scenario` calls it
after CP-SAT on T = bound, bound + 1, ... (decision R7): every refuted T raises the proven bound
by one, and a schedule found at T is optimal, since every smaller T was refuted.

Search. Chronological, over active schedules only: decision times are 0 and the end times
of the attempts placed so far; at a decision time the search starts a set of ready attempts that
fit (taken in increasing job order, so every set is met once) and then moves to the next end
time. An attempt may start at tau > 0 only if its predecessor ends exactly at tau or fewer than
p_j processors are free on [tau - 1, tau): otherwise it could move one unit left. And a job
waiting for its next attempt while p_j processors stay free for t_j units in a row (after its
predecessor ended) is dead: wherever that attempt starts later, it could move into that hole
(the other attempts fixed), so the schedule is not active (decision R25). Every schedule
becomes active by such moves, each lowering a start, without raising the makespan (the moves
by one unit are those of tests/support/rigid/oracle.py), and an active schedule passes these rules;
so a search that fails everywhere proves D(T) false. The search tracks, for each waiting job,
`hole[j]`: how long p_j processors have been free just before tau since it became ready
(1 or more: it could move one unit left).

Pruning, in exact integer arithmetic, at every decision time tau with remaining work
d_j = (attempts not started) t_j + (remaining part of a running attempt):

* chains: max(tau, ready_j) + (attempts not started) t_j <= T for every job;
* cuts sum_j pi_j d_j <= z (T - tau) for a pool of integer vectors pi >= 0 with
  z >= max{sum_{j in K} pi_j : sum_{j in K} p_j <= P}: at every instant the running jobs form
  such a set K (one attempt per job, Eq. 3), so the inequality holds on [tau, T]. The pool
  (`CutPool`) holds the conflict cliques (pi = 1 on the clique, z = 1), the best dual-feasible
  functions of `dff_screen`, and integer certificates of the configuration LP
  (`ConfigurationLP`), solved at the root and on the remaining work of every `lp_every`-th
  node, kept when they cut;
* the profile cut: the attempts running at tau (set R) keep their processors until they end,
  so on each piece [e_{k-1}, e_k) between their ends an instant has pi-value at most
  min(z, pi(R_k) + zf[P - p(R_k)]) (R_k: those still running; zf[c] the largest pi-sum of
  jobs of total width <= c, a knapsack table), and z after the last end; the pool cuts are
  checked against that integral too where the tables are small (`PROFILE_CELLS`);
* memo: a state (attempts left, running attempts' ends relative to tau, waiting jobs' holes)
  that failed with L = T - tau time left fails with any time left <= L, whatever T: the search
  below it depends on the state and the time left only (`RefuteMemo` keeps it from one T to
  the next). The state holds, for a job waiting at tau, its hole length instead of its end
  (the search below reads nothing else of it), and nothing for a job with no attempt left.

Threads (C search only, decision R29): with `workers` > 1 the tree is split at depth
`SPLIT_DEPTH` by a hash of the node's state, the workers sharing one memo; a node whose
subtree lost a node to another worker is not stored as failed, so every stored state is a
fully searched one and D(T) is refuted exactly when every worker refutes its part.
"""

from __future__ import annotations

import ctypes
import itertools
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from resilsched.deadline import Deadline
from resilsched.models.rigid import crefute
from resilsched.models.rigid.config_lp import (
    MAX_ROUNDS,
    ConfigurationLP,
    affordable,
    knapsack_max,
    knapsack_seconds,
    knapsack_table,
)
from resilsched.models.rigid.root_bounds import dff_screen, iter_conflict_cliques
from resilsched.models.rigid.scaling import ScaledScenario

#: A fresh configuration-LP cut every `LP_EVERY`-th node of the Python search, every
#: `LP_EVERY_C`-th of the C search (an LP costs about 0.5 ms, 40-60 Python nodes or 300-1000 C
#: nodes; uniform case 15 at T = 798: every 64th node 3.0 M nodes in 33 s, every 1024th
#: 3.1 M in 11 s, never 4.1 M in 11 s, before the active-schedule rule).
LP_EVERY = 64
LP_EVERY_C = 1024

#: Depth of the nodes whose subtrees the workers of the C search share out (decision R29).
SPLIT_DEPTH = 6

#: Pool size cap for the configuration-LP cuts (the oldest are dropped first).
MAX_LP_CUTS = 200

#: Memo size cap (about 0.5 KB per state): the memo is emptied when it is reached, which only
#: loses pruning, never a schedule.
MAX_MEMO = 1_000_000

#: Memory for the C search's memo (`c_memo`): 1 GiB. A memo emptied too early costs nodes
#: (uniform case 1 at T = 897: 6.8 M nodes with 3.6 M states kept or 20 M, 31.7 M with 0.5 M).
C_MEMO_BYTES = 2**30

#: Largest (pool rows + `MAX_LP_CUTS`) x (P + 1) for the profile cut's tables (decision R25),
#: and largest knapsack work to build them (rows x n x (P + 1) cells, about 0.1 s).
PROFILE_CELLS = 4_000_000
PROFILE_WORK = 20_000_000

#: Dual-feasible functions kept as cuts (all of them for small P).
DFF_CUTS = 128

#: Conflict cliques kept as cuts, largest first (each is a dense row of the cut matrix, which
#: every node multiplies; a large instance can have thousands).
CLIQUE_CUTS = 128

#: Knapsack cells worth one search node, to count the configuration-LP nodes in `max_nodes`.
CELLS_PER_NODE = 20_000

#: Largest n (P + 1) for which a cut's z is tightened by an exact knapsack (else z = u(P)).
MAX_KNAPSACK_CELLS = 1_000_000


@dataclass(frozen=True)
class RefuteResult:
    """``status``: "infeasible" (D(T) is false), "feasible" (``starts`` ends by T) or "timeout"
    (time or work budget spent); ``nodes`` the nodes searched, ``work`` the work counted
    against `max_nodes`; ``engine`` "c" or "python"."""

    status: str
    starts: list[list[int]] | None
    nodes: int
    seconds: float
    work: int = 0
    engine: str = "python"


#: A configuration-LP cut found during the search: pi, z and its profile table (or None).
LPCut = tuple[list[int], int, "np.ndarray | None"]


class _Timeout(Exception):
    pass


class CutPool:
    """The cuts of a scaled scenario, built once and shared by every target T.

    Building it (cliques, dual-feasible functions, the root configuration LP and the knapsacks
    that tighten each z) stops adding cuts at `deadline`: fewer cuts only prune less. `max_k`
    and `max_rounds` are work limits (see `dff_screen`, `ConfigurationLP`), as is
    `max_seconds` for the knapsacks that tighten z (counted by `knapsack_seconds`, not read
    on the clock).
    """

    def __init__(self, data: ScaledScenario, deadline: Deadline | None = None,
                 max_k: int | None = None, max_rounds: int = MAX_ROUNDS,
                 max_seconds: float | None = None) -> None:
        n, P, p = data.n, data.P, list(data.p)
        self.p, self.P = p, P
        self.lock = threading.Lock()  # the LP's columns are shared by concurrent searches
        # the configuration LP only where its knapsacks fit in memory (`affordable`)
        self.lp = ConfigurationLP(p, P, max_rounds) if affordable(n, P, None) else None
        exact_z = n * (P + 1) <= MAX_KNAPSACK_CELLS
        rows: list[tuple[list[int], int, bool]] = []  # (pi, z, tighten z by a knapsack)
        for c in itertools.islice(iter_conflict_cliques(p, P), CLIQUE_CUTS):
            if deadline is not None and deadline.expired():
                break
            row = [0] * n
            for j in c:
                row[j] = 1
            rows.append((row, 1, False))
        for u in dff_screen(data, DFF_CUTS, deadline, max_k).top:
            rows.append((u.row(p), u.den, exact_z))  # z <= u(P), by dual feasibility
        if self.lp is not None and max_rounds > 0 and affordable(n, P, deadline, 2):
            row, z = self.lp.certificate(self.lp.duals(data.work(), deadline))
            rows.append((row, z, False))  # z is already the exact knapsack
        self.base: list[tuple[list[int], int]] = []
        seen: set[tuple[int, ...]] = set()
        spent, cost = 0.0, knapsack_seconds(n, P)
        for row, z, tighten in rows:
            if tuple(row) in seen:
                continue
            if (tighten and affordable(n, P, deadline)
                    and (max_seconds is None or spent + cost <= max_seconds)):
                z = int(knapsack_max(p, row, P)[0])
                spent += cost
            if z > 0:
                seen.add(tuple(row))
                self.base.append((row, z))
        # the profile cut's tables zf (decision R25), where they are small
        self.profile = ((len(self.base) + MAX_LP_CUTS) * (P + 1) <= PROFILE_CELLS
                        and len(self.base) * n * (P + 1) <= PROFILE_WORK
                        and not (deadline is not None and deadline.expired()))
        self.tables = [self.table(row, z) for row, z in self.base] if self.profile else []

    def table(self, row: list[int], z: int) -> np.ndarray:
        """zf[c] = min(z, max{sum_{j in K} pi_j : sum_{j in K} p_j <= c}), c = 0..P."""
        return np.minimum(knapsack_table(self.p, row, self.P), z)


class _Search:
    def __init__(self, data: ScaledScenario, T: int, pool: CutPool, time_limit: float,
                 lp_every: int, max_nodes: int | None, memo: RefuteMemo,
                 halt: ctypes.c_int32 | None = None) -> None:
        self.P, self.p, self.t, self.n = data.P, list(data.p), list(data.t), data.n
        self.m, self.T, self.lp_every = list(data.m), T, lp_every
        self.clock = Deadline(time_limit)
        self.halt = halt
        self.max_nodes = max_nodes
        self.nodes = 0
        self.work = 0  # nodes weighted by their cost (`node_cost`)
        # the configuration LP's knapsack cells, in node units
        self.cells0 = 0 if pool.lp is None else pool.lp.cells
        self.lp_work = 0
        self.memo = memo.table
        self.max_memo = memo.max_python
        self.starts: list[list[int]] = [[] for _ in range(self.n)]
        self.solution: list[list[int]] | None = None
        self.lp = pool.lp
        self.base = pool.base
        self.lp_cuts: list[tuple[list[int], int]] = []
        self.pool = pool
        self.lp_tables: list[np.ndarray] = []
        # int64 unless sum_j pi_j d_j or z (T - tau) could overflow (very fine time scales);
        # the configuration-LP cuts have pi_j <= 2^20 and z <= n 2^20
        work = sum(self.m[j] * self.t[j] for j in range(self.n))
        top_pi = max([2**20] + [max(r, default=0) for r, _ in self.base])
        top_z = max([self.n * 2**20] + [z for _, z in self.base])
        big = max(top_z * max(T, 1), top_pi * max(work, 1))
        self.dtype = np.int64 if big < 2**62 else object
        self._rebuild()

    def _rebuild(self) -> None:
        rows = self.base + self.lp_cuts
        self.pi = np.array([r for r, _ in rows], dtype=self.dtype).reshape(len(rows), self.n)
        self.z = np.array([z for _, z in rows], dtype=self.dtype)
        # a node's work grows with its cut matrix: one unit per CELLS_PER_NODE / 10 entries
        self.node_cost = 1 + 10 * len(rows) * self.n // CELLS_PER_NODE
        if self.pool.profile:
            self.zf = np.array(self.pool.tables + self.lp_tables, dtype=self.dtype).reshape(
                len(rows), self.P + 1)

    # --- bounds ----------------------------------------------------------------------------
    def _cut_ok(self, tau: int, d: list[int], end: list[int]) -> bool:
        """The pool cuts (with the profile of the attempts running at tau, `_profile`), and
        every `lp_every`-th node a fresh configuration-LP cut, on the remaining work `d`."""
        left = self.T - tau
        if len(self.z):
            load = self.pi @ np.array(d, dtype=self.dtype)
            if np.any(load > self.z * left) or (self.pool.profile and
                                                np.any(load > self._profile(tau, end))):
                return False
        if self.nodes % self.lp_every or self.lp is None:
            return True
        found, self.lp_work = self.lp_cut(d, left)
        if found is not None:
            self.lp_cuts = (self.lp_cuts + [found[:2]])[-MAX_LP_CUTS:]
            if self.pool.profile:
                self.lp_tables = (self.lp_tables + [found[2]])[-MAX_LP_CUTS:]
            self._rebuild()
            return False
        return True

    def _profile(self, tau: int, end: list[int]) -> np.ndarray:
        """Per row, the largest sum_j pi_j d_j the time left allows (the profile cut): the
        attempts running at tau (set R) keep their processors until they end, so on each piece
        [e_{k-1}, e_k) between their ends an instant has pi-value at most
        min(z, pi(R_k) + zf[P - p(R_k)]), R_k those still running, and after the last end at
        most z."""
        run = sorted((e, j) for j, e in enumerate(end) if e > tau)
        piR = self.pi[:, [j for _, j in run]].sum(axis=1)
        used = sum(self.p[j] for _, j in run)
        rhs, prev, k = np.zeros_like(self.z), tau, 0
        while k < len(run):
            e = run[k][0]
            rhs += (e - prev) * np.minimum(piR + self.zf[:, self.P - used], self.z)
            while k < len(run) and run[k][0] == e:
                piR = piR - self.pi[:, run[k][1]]
                used -= self.p[run[k][1]]
                k += 1
            prev = e
        return rhs + self.z * (self.T - prev)

    def lp_cut(self, d: list[int], left: int) -> tuple[LPCut | None, int]:
        """A configuration-LP cut (pi, z, its profile table or None) on the remaining work `d`
        that prunes the node (sum_j pi_j d_j > z left) or None, and the LP's work so far in
        node units. Called by the Python search and, through a callback, by the C search."""
        assert self.lp is not None
        if not affordable(self.n, self.P, self.clock, 2):
            return None, self.lp_work  # no time for the LP's knapsacks: the pool cuts only
        with self.pool.lock:
            row, z = self.lp.certificate(self.lp.duals(d, self.clock))
            self.lp_work = (self.lp.cells - self.cells0) // CELLS_PER_NODE
        if z > 0 and sum(a * b for a, b in zip(row, d, strict=True)) > z * left:
            return (row, z, self.pool.table(row, z) if self.pool.profile else None), \
                self.lp_work
        return None, self.lp_work

    # --- search ----------------------------------------------------------------------------
    def run(self) -> bool:
        return self._at(0, list(self.m), [0] * self.n, self.P, [0] * self.n)

    def _at(self, tau: int, rem: list[int], end: list[int], free: int, hole: list[int]
            ) -> bool:
        """Decision time tau: `end[j]` is the end of job j's last started attempt (its ready
        time), `free` the processors free at tau, `hole[j]` for a job waiting at tau how long
        p_j processors have been free just before tau since it became ready (module
        docstring: active schedules)."""
        self.nodes += 1
        self.work += self.node_cost
        if (self.max_nodes is not None and self.work + self.lp_work > self.max_nodes
                or self.clock.expired() or (self.halt is not None and self.halt.value)):
            raise _Timeout
        T = self.T
        rel: list[int] = []  # end - tau for a running job, -1 - hole for a waiting one
        d: list[int] = []  # remaining work
        done = True
        for r, e, tj, h in zip(rem, end, self.t, hole, strict=True):
            ahead = e - tau
            if r:
                done = False
                if (e if ahead > 0 else tau) + r * tj > T:
                    return False  # chain
            if ahead > 0:
                rel.append(ahead)
                d.append(r * tj + ahead)
            else:
                rel.append(-1 - h if r else -1)
                d.append(r * tj)
        if done:
            self.solution = [list(s) for s in self.starts]
            return True
        key = (tuple(rem), tuple(rel))
        failed = self.memo.get(key)  # the most time left with which the state failed
        if failed is not None and failed >= T - tau:
            return False
        if not self._cut_ok(tau, d, end):
            return False
        if self._choose(tau, 0, rem, end, free, hole):
            return True
        if len(self.memo) >= self.max_memo:
            self.memo.clear()
        self.memo[key] = T - tau if failed is None else max(T - tau, failed)
        return False

    def _choose(self, tau: int, first: int, rem: list[int], end: list[int], free: int,
                hole: list[int]) -> bool:
        p, t = self.p, self.t
        for j in range(first, self.n):
            if not rem[j] or end[j] > tau or p[j] > free or tau + rem[j] * t[j] > self.T:
                continue
            if hole[j]:
                continue  # could start one unit earlier: not semi-active
            ready = end[j]
            rem[j] -= 1
            end[j] = tau + t[j]
            self.starts[j].append(tau)
            if self._choose(tau, j + 1, rem, end, free - p[j], hole):
                return True
            rem[j] += 1
            end[j] = ready
            self.starts[j].pop()
        nxt = min((e for e in end if e > tau), default=None)
        if nxt is None:
            return False
        # the attempts running at tau all run on [tau, nxt) (none ends before nxt, and every
        # attempt placed so far starts by tau); those ending after nxt go on at nxt
        used_before = sum(pj for e, pj in zip(end, p, strict=True) if e > tau)
        used_at = sum(pj for e, pj in zip(end, p, strict=True) if e > nxt)
        after = list(hole)
        for j in range(self.n):
            if rem[j] and end[j] <= tau:  # waiting through [tau, nxt)
                after[j] = hole[j] + nxt - tau if self.P - used_before >= p[j] else 0
                if after[j] >= t[j]:
                    return False  # a hole job j fits in: it can never start (not active)
        return self._at(nxt, rem, end, self.P - used_at, after)


class RefuteMemo:
    """The failed states of one scenario, kept from one target T to the next (decision R25).

    A state that cannot finish within L time units cannot within less, whatever T: each entry
    holds the most time left T - tau with which its state failed, so the states refuted for T
    prune the search for T + 1 when met one unit later or more. `max_memo` states are kept
    before the memo is emptied (default `MAX_MEMO` in Python, `c_memo` in C). The Python
    search keeps `table`; the C search its own table (`crefute.CMemo`, made at first use).
    """

    def __init__(self, n: int, max_memo: int | None = None) -> None:
        self.n = n
        self.table: dict[tuple, int] = {}
        self.max_python = max(1, MAX_MEMO if max_memo is None else max_memo)
        self.max_c = max(1, c_memo(n) if max_memo is None else max_memo)
        self.c: crefute.CMemo | None = None

    def for_c(self) -> crefute.CMemo | None:
        """The C search's table (None when the C search is not built)."""
        if self.c is None:
            self.c = crefute.CMemo.make(2 * self.n + 1, self.max_c)
        return self.c


def c_memo(n: int) -> int:
    """Failed states the C search keeps before emptying its memo: `C_MEMO_BYTES` over an
    entry's size (a key of 2n + 1 int32, its time, and 72 bytes for its share of the 8-byte
    table slots, two to four per entry: a bound kept from R25's 16-byte slots). The C memo
    reserves all of it at once; the pages are touched only as states are stored."""
    return max(1, C_MEMO_BYTES // (4 * (2 * n + 1) + 72))


def refute_makespan(data: ScaledScenario, T: int, time_limit: float = 60.0,
                    lp_every: int | None = None, *, pool: CutPool | None = None,
                    max_nodes: int | None = None, engine: str = "auto",
                    max_memo: int | None = None, memo: RefuteMemo | None = None,
                    halt: ctypes.c_int32 | None = None, workers: int = 1,
                    split_depth: int | None = None, only: int | None = None
                    ) -> RefuteResult:
    """Decide D(T) for the scaled scenario `data` within `time_limit` seconds and, if given,
    `max_nodes` units of work (a node one unit, more with a large cut matrix, and
    `CELLS_PER_NODE` knapsack cells of the configuration LP another), a limit that does not
    depend on the clock (module docstring).

    Returns "infeasible" (proof that every schedule ends after T), "feasible" with the start
    times of a schedule ending by T, or "timeout". `pool` is the scenario's `CutPool` (built
    here when not given; pass it when deciding several T on the same scenario).

    `lp_every`: default `LP_EVERY`, or `LP_EVERY_C` when the C search is available.
    `engine`: "auto" runs the compiled search (`crefute`, decision R25) when it is built and
    exact on this scenario, else this module's; "python" this module's; "c" the compiled one
    or ValueError. Both give the same verdict after the same nodes for the same `max_memo`
    (failed states kept before the memo is emptied; default `MAX_MEMO` in Python, `c_memo`
    in C) and the same history of `memo` (pass one `RefuteMemo` to every T of a scenario: its
    states serve the next targets; a fresh one otherwise). `halt`: a flag another thread may
    set to stop the search ("timeout"); the C search runs without the GIL.

    `workers` > 1 (C search only; the Python search ignores it) split the tree between that
    many threads sharing the memo (decision R29): worker k takes the subtrees of the nodes at
    depth `split_depth` (default `SPLIT_DEPTH`) whose state hashes to k. The verdict is the
    same; the node count and the schedule found may differ. `only` = k runs worker k alone
    (tests).
    """
    t0 = time.perf_counter()
    if engine not in ("auto", "python", "c"):
        raise ValueError(f"engine: {engine!r} is not auto, python or c")
    if data.n == 0:
        return RefuteResult("feasible" if T >= 0 else "infeasible", [], 0, 0.0)
    limit = max(0.0, time_limit)
    if pool is None:
        pool = CutPool(data, Deadline(limit))
    if lp_every is None:  # the LP's cost against a node's: far cheaper in C
        lp_every = LP_EVERY_C if engine != "python" and crefute.library() is not None \
            else LP_EVERY
    if memo is None:
        memo = RefuteMemo(data.n, max_memo)
    search = _Search(data, T, pool, limit - (time.perf_counter() - t0), max(1, lp_every),
                     max_nodes, memo, halt)
    if engine != "python":
        done = crefute.run(
            data.n, data.P, T, search.p, search.t, search.m, search.base,
            pool.tables if pool.profile else None, MAX_LP_CUTS,
            search.lp_every, None if search.lp is None else search.lp_cut, max_nodes,
            limit - (time.perf_counter() - t0), memo.for_c, halt, workers,
            SPLIT_DEPTH if split_depth is None else split_depth, only)
        if done is not None:
            status, starts, nodes, work, lp_work = done
            return RefuteResult(status, starts, nodes, time.perf_counter() - t0, work + lp_work,
                                "c")
        if engine == "c" or only is not None:
            raise ValueError("engine: the compiled search is not built, disabled, or not exact "
                             "on this scenario")
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * sum(data.m) + 1000))
    try:
        status = "feasible" if search.run() else "infeasible"
    except _Timeout:
        status = "timeout"
    finally:
        sys.setrecursionlimit(old)
    starts = search.solution if status == "feasible" else None
    return RefuteResult(status, starts, search.nodes, time.perf_counter() - t0,
                        search.work + search.lp_work)
