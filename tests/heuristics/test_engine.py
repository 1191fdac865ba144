"""The event engine (`resilsched.heuristics.engine`, spec 002 §2) with toy policies: a new
allocation per attempt (the moldable family's use), bad policies, batched completions (A1).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from resilsched.errors import InvalidSchedule
from resilsched.heuristics.engine import run_engine
from resilsched.schedule import Schedule
from resilsched.validation import validate_attempts

# -- engine reuse (moldable-style policy) --------------------------------------------------------

class _MoreProcessorsOnRetry:
    """Toy moldable policy: attempt k of job j runs on min(k, P) processors, t_j(p) = w_j / p."""

    def __init__(self, n: int, P: int):
        self.queue = list(range(n))
        self.P = P
        self.k = [1] * n

    def on_completions(self, t, completed, state):
        for j, failed in completed:
            if failed:
                self.k[j] += 1
                self.queue.append(j)

    def decide(self, t, state):
        out, free = [], state.free
        for j in list(self.queue):
            p = min(self.k[j], self.P)
            if p <= free:
                out.append((j, p))
                free -= p
                self.queue.remove(j)
        return out


def test_engine_supports_a_new_allocation_per_attempt():
    w = [Fraction(6), Fraction(4), Fraction(3)]
    f = (2, 1, 0)
    P = 3
    res = run_engine(P, f, lambda j, p: w[j] / p, _MoreProcessorsOnRetry(3, P))
    sched = Schedule(res.attempts, res.makespan)
    validate_attempts(sched, P, f, duration=lambda j, p: w[j] / p,
                      allowed_p=lambda j, p: 1 <= p <= P)
    assert [a.p for a in sched.attempts_of(0)] == [1, 2, 3]
    assert res.attempt_count == sum(f) + 3


class _Greedy:
    def __init__(self, n, p):
        self.n, self.p = n, p
        self.queue = list(range(n))

    def on_completions(self, t, completed, state):
        self.queue += [j for j, failed in completed if failed]

    def decide(self, t, state):
        out = [(j, self.p) for j in self.queue]
        self.queue = []
        return out


def test_engine_rejects_bad_policies():
    with pytest.raises(InvalidSchedule, match="free processors"):
        run_engine(2, (0, 0, 0), lambda j, p: 1, _Greedy(3, 1))  # third job over-subscribes

    class Lazy(_Greedy):
        def decide(self, t, state):
            return []

    with pytest.raises(InvalidSchedule, match="deadlock"):
        run_engine(2, (0,), lambda j, p: 1, Lazy(1, 1))


def test_engine_batches_simultaneous_completions():
    """A1: both completions at t = 2 are seen before the one pass at t = 2."""
    seen = []

    class Spy(_Greedy):
        def on_completions(self, t, completed, state):
            seen.append((t, completed))
            super().on_completions(t, completed, state)

    run_engine(2, (0, 1), lambda j, p: 2, Spy(2, 1))
    assert seen == [(2, [(0, False), (1, True)]), (4, [(1, False)])]
