"""BATCH-LIST (spec 000 §3.4): doubling batches of attempts allotted by MT-ALLOTMENT.

Batch k gives every pending job g_k = 2^(k-1) attempts with the MT-ALLOTMENT allocations
(`resilsched.heuristics.moldable.mt_allotment`, §3.7), executed in ``attempt_order`` (default
``desc_p``: fastest first; ``asc_p``, ``dp_order`` = the DP's order, ``first_only`` = the first
allocation for all g attempts, spec §7 item 13), runs LIST with that cap, and starts batch k+1
only after every attempt of batch k has ended (barrier). ``g1_exact=True`` replaces the g = 1
DP by the exact threshold search `resilsched.bounds.moldable.L_star_g1` (no slack: the variant
of spec §6.3's "no slack" row). Failures are counted globally: attempt i of job j overall fails
iff i <= f_j, so job j completes in batch ceil(log2(f_j + 2)) (Lemma 5).

`batch_list` is the registered heuristic (``BATCH-LIST``); `BatchPlanner` runs it for one job
set and caches the allotments across scenarios (the experiments' fast path,
`BatchPlanner.makespan`, gives the same makespan as the engine path `BatchPlanner.simulate`).

>>> from resilsched.instances.moldable.adversarial import thm9_instance
>>> inst = thm9_instance(3)
>>> batch_list(inst).objective  # Theorem 9: 1/2 + 1/4 + 1/8
0.875
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import run_engine
from resilsched.heuristics.moldable._kernel import list_run
from resilsched.heuristics.moldable.listsched import (
    ListPolicy,
    check_priority,
    job_keys,
    label,
    priority_key,
)
from resilsched.heuristics.moldable.mt_allotment import MTAllotment
from resilsched.heuristics.moldable.params import AttemptOrder, BatchParams
from resilsched.params import Param, params_of
from resilsched.schedule import Attempt, Schedule
from resilsched.solution import HeuristicResult

ATTEMPT_ORDERS = ("desc_p", "asc_p", "dp_order", "first_only")
#: most element operations (`dp_work`) of one BATCH-LIST run's MT-ALLOTMENT DPs per bisection
#: call: 1.5-5e7 a second were measured on a loaded 2-core machine, so about 5 s at most
MAX_DP_WORK = 1.5e8


def order_attempts(alloc: np.ndarray, attempt_order: str) -> np.ndarray:
    """Execution order of each job's DP multiset inside a batch (spec §3.7, §7 item 13)."""
    if attempt_order == "desc_p":
        return -np.sort(-alloc, axis=1)
    if attempt_order == "asc_p":
        return np.sort(alloc, axis=1)
    if attempt_order == "dp_order":
        return alloc
    if attempt_order == "first_only":
        return np.repeat(alloc[:, :1], alloc.shape[1], axis=1)
    raise InvalidInstance("attempt_order",
                          f"{attempt_order!r} is not one of {', '.join(ATTEMPT_ORDERS)}")


class BatchPlanner:
    """BATCH-LIST for one job set: caches MT-ALLOTMENT per (pending set, g) across scenarios.

    The parameters are those of `batch_list` (checked there, trusted here).
    """

    def __init__(self, instance, eps: float = 0.3, eps2: float = 0.03, area_slack: float = 1.1,
                 attempt_order: AttemptOrder = "desc_p", g1_exact: bool = False):
        self.instance = instance
        self.mt = MTAllotment(instance, eps, eps2, area_slack)
        self.g1_exact = g1_exact
        self.attempt_order = attempt_order
        self.cache: dict[tuple[int, bytes], np.ndarray] = {}
        self._first: dict[tuple[str, int], tuple[np.ndarray, ...]] = {}

    def allocation(self, jobs: np.ndarray, g: int, use_c: bool | None = None) -> np.ndarray:
        """The allotment of a batch of g attempts for the pending `jobs` (cached); ``use_c``
        as in `MTAllotment.solve` (the compiled core gives the same allocations)."""
        key = (g, np.asarray(jobs, dtype=np.int64).tobytes())
        if key not in self.cache:
            if g == 1 and self.g1_exact:
                # exact min_p L for one attempt per job (§3.7 "faster exact alternative")
                from resilsched.bounds.moldable import L_star_g1

                self.cache[key] = L_star_g1(self.instance, jobs.tolist())[1][:, None]
            else:
                self.cache[key] = order_attempts(self.mt.solve(jobs.tolist(), g, use_c).alloc,
                                                 self.attempt_order)
        return self.cache[key]

    def makespan(self, failures: Sequence[int], priority: str = "LPT",
                 use_c: bool | None = None) -> tuple[float, int]:
        """Fast path: (makespan, number of batches); `priority` one of LPT, HPA, LA.

        Each batch runs LIST on the pending jobs alone, renumbered 0..m-1 in increasing job
        order (the same ties as the global numbering), capped at g attempts each.
        """
        left = np.asarray(failures, dtype=np.int64).copy()
        pending = np.arange(self.instance.n, dtype=np.int64)
        clock = 0.0
        k = 0
        while pending.size:
            k += 1
            g = 2 ** (k - 1)
            dur, alloc, key, cap, local = self._inputs(pending, g, priority, use_c)
            ms, done = list_run(self.instance.P, dur, alloc, key, left[pending], cap, local,
                                use_c)
            clock += ms
            left[pending] -= done
            pending = pending[left[pending] >= 0]
        return clock, k

    def _inputs(self, pending: np.ndarray, g: int, priority: str,
                use_c: bool | None) -> tuple[np.ndarray, ...]:
        """LIST inputs of a batch (durations, allocations, keys, caps, local jobs); those of
        the first batch (every job, g = 1) are kept for the next scenarios."""
        if g == 1 and (priority, pending.size) in self._first:
            return self._first[(priority, pending.size)]
        a = self.allocation(pending, g, use_c)
        dur = self.instance.T[pending[:, None], a - 1]
        key = dur if priority == "LPT" else (a.astype(float) if priority == "HPA" else a * dur)
        m = pending.size
        out = (dur, a, key, np.full(m, g, dtype=np.int64), np.arange(m, dtype=np.int64))
        if g == 1 and m == self.instance.n:
            self._first[(priority, m)] = out
        return out

    def simulate(self, failures: Sequence[int],
                 priority: str = "LPT") -> tuple[float, list[Attempt], list[int]]:
        """Engine path: (makespan, attempt log with global numbering, batch of each job)."""
        inst = self.instance
        n = inst.n
        left = list(failures)
        count = [0] * n
        batch_of = [0] * n
        pending = np.arange(n, dtype=np.int64)
        clock = 0.0
        log: list[Attempt] = []
        own = job_keys(inst, priority)
        k = 0
        while pending.size:
            k += 1
            g = 2 ** (k - 1)
            a = self.allocation(pending, g)
            m = pending.size
            # local job r = pending[r]; the engine sees it finish after min(left + 1, g) attempts
            sub_fail = [min(left[int(j)], g - 1) for j in pending]
            T = inst.T

            def duration(r: int, p: int, _pend=pending, T=T) -> float:
                return float(T[_pend[r], p - 1])

            def alloc(r: int, kk: int, _a=a) -> int:
                return int(_a[r, kk - 1])

            def key(r: int, kk: int, _a=a, _pend=pending, T=T) -> float:
                if own is not None:
                    return own[int(_pend[r])]
                p = int(_a[r, kk - 1])
                return priority_key(priority, float(T[_pend[r], p - 1]), p)

            policy = ListPolicy(alloc, key, list(range(m)), [g] * m,
                                [f + 1 for f in sub_fail], inst.P)
            res = run_engine(inst.P, sub_fail, duration, policy, record=True, exact=False)
            assert res.attempts is not None
            for att in res.attempts:
                j = int(pending[att.job])
                count[j] += 1
                failed = count[j] <= failures[j]
                log.append(Attempt(j, count[j], clock + att.start, clock + att.end, att.p, failed))
            clock = clock + res.makespan
            nxt = []
            for j in pending.tolist():
                ran = min(left[j] + 1, g)
                left[j] -= ran
                if left[j] >= 0:
                    nxt.append(j)
                else:
                    batch_of[j] = k
            pending = np.array(sorted(nxt), dtype=np.int64)
        return clock, log, batch_of


def batch_list(instance, scenario=None, priority: str | None = None, *, seed: int = 0,
               eps: float = 0.3, eps2: float = 0.03, area_slack: float = 1.1,
               attempt_order: AttemptOrder = "desc_p", g1_exact: bool = False
               ) -> HeuristicResult:
    """BATCH-LIST (spec 000 §3.4) with MT-ALLOTMENT (§3.7); see the module docstring.

    The contract of every registered heuristic (`resilsched.plugin`); the parameters are checked
    against `batch_params` (one-line `InvalidInstance` naming ``--param NAME``). Returns the
    makespan, the attempt log (attempts numbered per job across batches) and
    ``extra = {"batches": number of batches, "batch_of_job": [batch in which job j ended]}``.
    O(sum over batches of the MT-ALLOTMENT cost + LIST); ``seed`` is unused (deterministic).
    """
    values = {"eps": eps, "eps2": eps2, "area_slack": area_slack,
              "attempt_order": attempt_order, "g1_exact": g1_exact}
    for param in batch_params():
        values[param.name] = param.check(values[param.name], "BATCH-LIST")
    priority = check_priority(priority)
    if scenario is None:
        scenario = instance.scenario()
    work = dp_work(instance, scenario.failures, values["eps"])
    if work > MAX_DP_WORK:
        raise InvalidInstance("failures", f"f_max={max(scenario.failures)} needs MT-ALLOTMENT "
                              f"DPs of {work:.3g} operations for BATCH-LIST, at most "
                              f"{MAX_DP_WORK:.2g} (batches of g attempts square grids of g/eps "
                              "quanta: fewer failures or a larger --param eps)")
    planner = BatchPlanner(instance, **values)
    makespan, log, batch_of = planner.simulate(scenario.failures, priority)
    return HeuristicResult(makespan, "BATCH-LIST", label(priority),
                           Schedule(tuple(log), makespan),
                           {"batches": max(batch_of), "batch_of_job": batch_of})


def area_steps(instance, jobs: Sequence[int]) -> np.ndarray:
    """Distinct areas s_j on the time-Pareto front of each of `jobs` (suffix minima, as
    MT-ALLOTMENT's h_j sees them): 1 for a roofline job (its area is w up to pbar)."""
    fronts, T = instance.fronts, instance.T
    out = []
    for j in jobs:
        area = T[j, fronts[j] - 1] * fronts[j]
        suffix = np.minimum.accumulate(area[::-1])
        out.append(1 + int(np.count_nonzero(suffix[1:] != suffix[:-1])))
    return np.array(out, dtype=np.int64)


def dp_work(instance, failures: Sequence[int], eps: float) -> float:
    """Element operations of the MT-ALLOTMENT DPs of a BATCH-LIST run, per bisection call (an
    upper estimate, the rule that refuses a scenario up front).

    Batch b (g = 2^(b-1) attempts) builds, for each job j with f_j >= g - 1, h_j on a grid of
    K = floor(g / eps) + g quanta and squares it for chains of c = 1, 2, ..., g/2 attempts; a
    squaring costs (K + 1) x its step count (`mt_allotment._min_plus_square`), at most K/2
    steps, c + 1 for a job with s_j = 2 distinct areas on its front and 1 for s_j = 1
    (`area_steps`, computed for the jobs that fail only).

    >>> from resilsched.instances.moldable import MoldableInstance, Roofline
    >>> inst = MoldableInstance(4, (Roofline(8, 2), Roofline(8, 2)))
    >>> dp_work(inst, [0, 3], 0.3)  # K = 4, 8, 17: 2 x 5 + 9 + 9 + 18 + 18 + 18
    82.0
    """
    f = np.asarray(failures, dtype=np.int64)
    s = np.zeros(f.size, dtype=np.int64)  # only the jobs that fail are squared
    failing = np.flatnonzero(f >= 1)
    s[failing] = area_steps(instance, failing.tolist())
    total, g = 0.0, 1
    while True:
        pending = f >= g - 1
        if not pending.any():
            return total
        K = int(g / eps) + g
        total += (K + 1) * int(pending.sum())
        c = 1
        while c < g:
            steps = np.where(s[pending] == 1, 1, np.where(s[pending] == 2, c + 1, K // 2))
            total += (K + 1) * float(np.minimum(steps, K // 2 + 1).sum())
            c *= 2
        g *= 2


def batch_params() -> tuple[Param, ...]:
    """BATCH-LIST's ``--param`` options: the fields of `BatchParams`, with ranges and help.

    Examples
    --------
    >>> [(p.name, p.default, p.low, p.high) for p in batch_params()][:3]
    [('eps', 0.3, 0.05, 1.0), ('eps2', 0.03, 0.001, 1.0), ('area_slack', 1.1, 1.0, 4.0)]
    >>> batch_params()[3].choices
    ('desc_p', 'asc_p', 'dp_order', 'first_only')
    """
    return params_of(BatchParams)
