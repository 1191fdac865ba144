"""Event-driven list-scheduling engine for parallel jobs under silent errors (spec 002 §2).

One engine serves every list- or shelf-style policy of the rigid family (spec 002 §4-§5) and is
meant to be reused by the moldable family (spec 000 §3): a *policy* decides, at each scheduling
pass, which queued jobs start now and on how many processors ``p``; the engine owns the clock,
the running attempts, the failure oracle and the attempt log.

Event loop (spec 002 §2, ambiguity A1 resolved as "batch"):

1. time 0 is the completion of a virtual job J_0: one scheduling pass;
2. repeat while attempts are running: advance the clock to the earliest end t, complete *all*
   attempts ending at t (ends equal to t exactly for int/Fraction times, within the relative
   1e-9 tolerance of `resilsched.numeric.time_eq` for floats), tell the policy which of them
   failed, then run *one* scheduling pass at t;
3. the makespan is the largest end of a successful attempt (Eq. 1).

Failure oracle: the k-th attempt of job j fails iff k <= f_j (scenario f is data, spec 002 §2).
Attempt k of job j started at time s on p processors ends at s + duration(j, p) — for rigid jobs
``duration(j, p) = t_j``; for moldable jobs ``t_j(p)``, so each attempt may use a different p.

Policy interface (duck-typed, see `Policy`):

- ``on_completions(t, completed, state)``: ``completed`` lists ``(job, failed)`` for every
  attempt that ended at t, in increasing job index; the policy updates its queue (reinsert a
  failed job, refill a shelf, ...). Not called at time 0.
- ``decide(t, state) -> iterable of (job, p)``: attempts to start now. The engine checks that
  each job is unfinished and idle and that ``p`` fits the free processors, and raises
  `resilsched.errors.InvalidSchedule` otherwise (a policy bug, never an input error).

The engine is generic over the time type: ints and `fractions.Fraction` stay exact, floats are
grouped with a tolerance. Cost: O(log R) per attempt for the event heap (R = running attempts)
plus whatever the policy spends per pass.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from resilsched.errors import InvalidSchedule
from resilsched.numeric import REL_TOL, time_eq, time_le
from resilsched.schedule import Attempt

Decision = tuple[int, int]
"""``(job, p)``: start the next attempt of ``job`` now on ``p`` processors."""


def _float_same(a: Any, b: Any) -> bool:
    # the test of `time_eq` (math.isclose with rel_tol = abs_tol = 1e-9), inlined
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b), 1.0)


def _exact_same(end: Any, t: Any) -> bool:
    return end == t


def same_time_function(exact: bool | None) -> Callable[[Any, Any], bool]:
    """The test "end == t" the event loop groups completions with.

    ``exact=True``: plain equality (int/Fraction times); ``exact=False``: the float tolerance of
    `resilsched.numeric.time_eq`; ``None``: `time_eq` itself, decided per pair (mixed types).
    """
    if exact is None:
        return time_eq
    return _exact_same if exact else _float_same


def _float_le(a: Any, b: Any) -> bool:
    return a <= b or a - b <= REL_TOL * max(abs(a), abs(b), 1.0)


def _exact_le(a: Any, b: Any) -> bool:
    return a <= b


def time_le_function(exact: bool | None) -> Callable[[Any, Any], bool]:
    """"a <= b" with the same convention as `same_time_function` (equals `numeric.time_le`)."""
    if exact is None:
        return time_le
    return _exact_le if exact else _float_le


class EngineState:
    """What a policy may read during a pass (treat as read-only).

    Attributes
    ----------
    P : number of processors.
    free : processors not used by running attempts.
    running : ``job -> (start, end, p)`` for each running attempt (at most one per job, Eq. 3).
    done : ``done[j]`` = number of completed attempts of job j.
    finished : ``finished[j]`` is True once job j's successful attempt has ended.
    unfinished : number of jobs not finished yet.
    """

    __slots__ = ("P", "free", "running", "done", "finished", "unfinished")

    def __init__(self, P: int, n: int):
        self.P = P
        self.free = P
        self.running: dict[int, tuple[Any, Any, int]] = {}
        self.done = [0] * n
        self.finished = [False] * n
        self.unfinished = n


class Policy(Protocol):
    """A scheduling policy driven by `run_engine` (see the module docstring)."""

    def on_completions(self, t: Any, completed: list[tuple[int, bool]],
                       state: EngineState) -> None: ...

    def decide(self, t: Any, state: EngineState) -> Iterable[Decision]: ...


@dataclass(frozen=True)
class EngineResult:
    """Outcome of one simulated scenario.

    ``attempts`` is None when the run was made with ``record=False`` (fast path).
    """

    makespan: Any
    attempts: tuple[Attempt, ...] | None
    events: int
    attempt_count: int


def run_engine(
    P: int,
    failures: Sequence[int],
    duration: Callable[[int, int], Any],
    policy: Policy,
    *,
    record: bool = True,
    exact: bool | None = None,
) -> EngineResult:
    """Simulate `policy` on P processors under failure scenario ``failures`` (spec 002 §2).

    Parameters
    ----------
    P : processors.
    failures : f_j per job; attempt k of job j fails iff k <= f_j.
    duration : ``duration(j, p)`` = length of an attempt of job j on p processors.
    policy : object with ``on_completions`` and ``decide`` (see `Policy`).
    record : build the `Attempt` log (False skips it for benchmarks).
    exact : True for int/Fraction times, False for floats, None to decide per comparison.

    Returns
    -------
    EngineResult with the makespan (largest successful end), the attempts (if recorded), the
    number of scheduling passes and of attempts.

    Raises
    ------
    InvalidSchedule
        when the policy starts a finished or running job, over-subscribes the processors, or
        stops starting jobs while some are unfinished and nothing runs (deadlock).
    """
    n = len(failures)
    state = EngineState(P, n)
    same = same_time_function(exact)
    heap: list[tuple[Any, int]] = []
    running = state.running
    done = state.done
    finished = state.finished
    log: list[Attempt] = []
    makespan: Any = 0
    events = 0
    attempts = 0

    def start(t: Any, decisions: Iterable[Decision]) -> None:
        nonlocal attempts
        for j, p in decisions:
            if finished[j] or j in running:
                raise InvalidSchedule(f"policy started job {j} at {t}, which is "
                                      f"{'finished' if finished[j] else 'running'}")
            if p < 1 or p > state.free:
                raise InvalidSchedule(f"policy started job {j} on p={p} at {t} with "
                                      f"{state.free} free processors")
            end = t + duration(j, p)
            running[j] = (t, end, p)
            state.free -= p
            attempts += 1
            heapq.heappush(heap, (end, j))

    t: Any = 0
    events += 1
    start(t, policy.decide(t, state))
    while heap:
        t = heap[0][0]
        completed: list[tuple[int, bool]] = []
        while heap and same(heap[0][0], t):
            end, j = heapq.heappop(heap)
            s, _, p = running.pop(j)
            state.free += p
            done[j] += 1
            failed = done[j] <= failures[j]
            if record:
                log.append(Attempt(j, done[j], s, end, p, failed))
            if not failed:
                finished[j] = True
                state.unfinished -= 1
                if end > makespan:
                    makespan = end
            completed.append((j, failed))
        completed.sort()
        policy.on_completions(t, completed, state)
        events += 1
        start(t, policy.decide(t, state))
    if state.unfinished:
        raise InvalidSchedule(f"deadlock at time {t}: {state.unfinished} unfinished jobs and "
                              "no running attempt")
    return EngineResult(makespan, tuple(log) if record else None, events, attempts)
