"""LIST scheduling (Algorithm 1, spec 000 §3.1) of moldable jobs with per-attempt allocations.

At time 0 and whenever attempts complete (all completions at one timestamp first, spec §7 item
6), a failed job is re-inserted in the queue at its priority position (if it may still run in
this LIST run), then the queue is scanned in priority order and every job whose next attempt's
allocation fits the free processors starts now (full scan = greedy backfilling, no reservation).
After each pass no queued job fits (the invariant Lemma 1 needs).

Priority rules (§3.6, §7 item 5): key of the *current attempt* with allocation p — ``LPT``:
t_j(p), ``HPA``: p, ``LA``: p t_j(p); larger first, ties by job index. A key function of one's
own, ``key(instance, j) -> number``, is also a priority: the smallest key first, ties by job
index (`job_keys`).

Two implementations with identical decisions:

- `ListPolicy`, a policy of the shared engine `resilsched.heuristics.engine.run_engine`, which
  records the attempt log validated by `resilsched.validation.validate_attempts`;
- the kernel of `resilsched.heuristics.moldable._kernel`, a specialised loop without the log
  (the experiments' fast path: the compiled core, `resilsched.engine`, when built, else Python),
  tested equal to the engine path.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import EngineResult, EngineState, run_engine
from resilsched.heuristics.rigid.fitindex import FitIndex
from resilsched.heuristics.rigid.priorities import key_name, key_values

PRIORITIES = ("LPT", "HPA", "LA")


def check_priority(priority: str | Callable[[Any, int], Any] | None) -> Any:
    """Canonical priority name (case-insensitive); None means LPT; a key function is kept."""
    if priority is None:
        return "LPT"
    if callable(priority):
        return priority
    for p in PRIORITIES:
        if isinstance(priority, str) and priority.upper() == p:
            return p
    raise InvalidInstance("priority",
                          f"{priority!r} is unknown (choose from {', '.join(PRIORITIES)})")


def label(priority: Any) -> str:
    """The priority as results name it (a key function: ``module:qualname``)."""
    return key_name(priority) if callable(priority) else priority


def job_keys(instance: Any, priority: Any) -> list[float] | None:
    """For a key-function priority, ``-key(instance, j)`` per job (larger first, as the rule
    keys), each checked (`key_values`); None for a named rule."""
    if not callable(priority):
        return None
    return [-float(v) for v in key_values(instance, priority, instance.n)]


def priority_key(priority: str, t: float, p: int) -> float:
    """Key of an attempt on p processors lasting t (larger = scheduled first)."""
    if priority == "LPT":
        return t
    if priority == "HPA":
        return float(p)
    return p * t


class ListPolicy:
    """Algorithm 1 as an engine policy.

    Parameters
    ----------
    alloc : ``alloc(j, k)`` = processors of attempt k (1-based, counted in this run) of job j.
    key : ``key(j, k)`` = priority key of that attempt (larger first; ties by job index).
    jobs : jobs queued at time 0 (the others must be marked finished by the caller).
    cap : per-job maximum attempts in this run (None = unlimited); a job whose last allowed
        attempt fails is not re-queued (BATCH-LIST defers it to the next batch).
    attempts, P : the attempts each job runs in this run (min(f_j + 1, cap_j)) and the
        processors. Given, every attempt (j, k) gets its place in the order (-key, j) up front
        and the queue is a `FitIndex` over those places: a pass starts, again and again, the
        first queued attempt that fits (the same starts as the scan, a job skipped for want of
        processors never fits later in the pass) in O(log A) each, instead of scanning the
        whole queue at every event (O(A n): 18-56 s for 10^4 jobs).
    """

    def __init__(self, alloc: Callable[[int, int], int], key: Callable[[int, int], float],
                 jobs: Sequence[int], cap: Sequence[int] | None = None,
                 attempts: Sequence[int] | None = None, P: int | None = None):
        self.alloc = alloc
        self.key = key
        self.cap = cap
        self.queue: list[tuple[float, int]] = []
        self.fit: FitIndex | None = None
        if attempts is None or P is None:
            self.queue = sorted((-key(j, 1), j) for j in jobs)
            return
        items = sorted((-key(j, k), j, k) for j in jobs for k in range(1, attempts[j] + 1))
        self.place: dict[tuple[int, int], int] = {(j, k): i for i, (_, j, k) in enumerate(items)}
        self.item = [(j, k) for _, j, k in items]
        self.never = P + 1
        widths = [self.never] * len(items)
        for j in jobs:
            widths[self.place[(j, 1)]] = alloc(j, 1)
        self.fit = FitIndex(widths, self.never)

    def on_completions(self, t: Any, completed: list[tuple[int, bool]], state: EngineState) -> None:
        for j, failed in completed:
            if failed and (self.cap is None or state.done[j] < self.cap[j]):
                k = state.done[j] + 1
                if self.fit is not None:
                    self.fit.set(self.place[(j, k)], self.alloc(j, k))
                else:
                    bisect.insort(self.queue, (-self.key(j, k), j))

    def decide(self, t: Any, state: EngineState) -> list[tuple[int, int]]:
        free = state.free
        fit = self.fit
        if fit is not None:
            out = []
            pos = fit.first_fitting(free)
            while pos >= 0:
                j, k = self.item[pos]
                p = self.alloc(j, k)
                out.append((j, p))
                free -= p
                fit.set(pos, self.never)
                pos = fit.first_fitting(free)
            return out
        out, keep = [], []
        for item in self.queue:
            j = item[1]
            p = self.alloc(j, state.done[j] + 1)
            if p <= free:
                out.append((j, p))
                free -= p
            else:
                keep.append(item)
        self.queue = keep
        return out


def run_list(instance, failures: Sequence[int], alloc: Callable[[int, int], int],
             priority: str, jobs: Sequence[int] | None = None, cap: Sequence[int] | None = None,
             record: bool = True, exact: bool = False) -> EngineResult:
    """LIST on the shared engine with per-attempt allocations ``alloc(j, k)`` (Algorithm 1).

    `priority` is one of `PRIORITIES` (checked by the caller). Attempts last the float times
    ``instance.T``; with ``exact=True`` the exact scalar times ``instance.time(j, p)``
    (int/Fraction for exact parameters) and the engine compares them exactly (the exact
    models' incumbent). The decisions use the float keys either way.
    """
    T = instance.T

    def duration(j: int, p: int) -> float:
        return float(T[j, p - 1])

    own = job_keys(instance, priority)

    def key(j: int, k: int) -> float:
        if own is not None:
            return own[j]
        p = alloc(j, k)
        return priority_key(priority, float(T[j, p - 1]), p)

    jobs = range(instance.n) if jobs is None else jobs
    attempts = [f + 1 for f in failures]
    if cap is not None:
        attempts = [min(a, c) for a, c in zip(attempts, cap, strict=True)]
    policy = ListPolicy(alloc, key, list(jobs), cap, attempts, instance.P)
    if exact:
        return run_engine(instance.P, failures, instance.time, policy, record=record, exact=None)
    return run_engine(instance.P, failures, duration, policy, record=record, exact=False)

