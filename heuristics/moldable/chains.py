"""The clairvoyant chain construction of the moldable family (issue 23): a schedule of the exact
problem T_OPT(J, f) (spec 000 §1.5) built knowing the failure scenario f in advance. It is not a
heuristic of the paper (LIST learns of a failure when it happens), so the family registers it as
a *construction*: the portfolio of ``resilsched solve`` and the exact models take its schedule.

Every job j runs its m_j = f_j + 1 attempts back to back on one allocation p_j: a *chain*, a
rigid block of p_j processors for m_j t_j(p_j). For a target makespan T, p_j is the allocation
of least area p t_j(p) (the narrowest among equal areas) among the points of the job's
time-Pareto front whose chain fits in T (the fastest point when none does). The chains are
list-scheduled on the P processors, longest first (ties: wider, then by index), each pass
starting every queued chain that fits the free processors (greedy backfilling, `FitIndex`); a
chain that starts at s runs attempt k in [s + (k-1) t_j(p_j), s + k t_j(p_j)).

The targets are searched upward from L' (the paper's normaliser, a lower bound on T_OPT, §2.2):
L' itself, then each makespan found, until a target is met (makespan <= target), then a
bisection between the largest target missed and the smallest met. The best schedule seen is
returned; when its makespan equals L' it is optimal. On the paper's mix job sets (n = 500,
P = 7500) at lambda = 1e-7 and failure-free the first target, L', is met: there L' is the
longest chain at its fastest allocation (max_j m_j t_min,j), and the other chains fit beside it.

Times are exact (ints/Fractions, from ``instance.time``) on exact data, floats (the table the
validator reads) otherwise.

>>> from resilsched.instances.moldable import MoldableInstance, Roofline
>>> inst = MoldableInstance(4, (Roofline(8, 2), Roofline(8, 2), Roofline(4, 4)))
>>> res = chain_schedule(inst, inst.scenario([1, 0, 0]))
>>> res.objective, res.extra["chains"], res.extra["lower_bound"]
(8, [2, 1, 1], 8)
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.bounds.moldable import L_prime
from resilsched.deadline import Deadline
from resilsched.heuristics.rigid.fitindex import FitIndex
from resilsched.schedule import Attempt, Schedule
from resilsched.solution import HeuristicResult

NAME = "CHAINS"
#: most targets evaluated (each costs O(n log n) plus the list scheduling of n chains)
MAX_TARGETS = 40
#: the bisection stops when the targets met and missed are this close (relative)
TARGET_RTOL = 1e-4


@dataclass(frozen=True)
class _Fronts:
    """Per job: its front (ascending p), minus the float chain length m_j t_j(p) of each point
    (ascending) and, per point, the index of the least-area point at or after it."""

    p: list[np.ndarray]
    minus_chain: list[np.ndarray]
    cheapest: list[np.ndarray]


def _fronts(instance, m: list[int]) -> _Fronts:
    T = instance.T
    ps, chains, cheapest = [], [], []
    for j, front in enumerate(instance.fronts):
        t = T[j, front - 1]
        area = t * front
        # per point, the least-area point at or after it (the smallest p among equal areas):
        # the first index >= i whose area is its suffix minimum
        suffix = np.minimum.accumulate(area[::-1])[::-1]
        marks = np.where(area <= suffix, np.arange(len(front)), len(front))
        best = np.minimum.accumulate(marks[::-1])[::-1]
        ps.append(front)
        chains.append(-m[j] * t)
        cheapest.append(best)
    return _Fronts(ps, chains, cheapest)


def _allotment(fronts: _Fronts, target: float) -> list[int]:
    """p_j: the least-area front point whose chain fits in `target` (else the fastest)."""
    out = []
    for front, minus, cheapest in zip(fronts.p, fronts.minus_chain, fronts.cheapest,
                                      strict=True):
        # the chains shorten along the front: the points that fit are a suffix
        i = int(np.searchsorted(minus, -target * (1 + 1e-12), side="left"))
        i = min(i, len(front) - 1)
        out.append(int(front[cheapest[i]]))
    return out


def _pack(P: int, widths: list[int], lengths: list[Any]) -> tuple[list[Any], Any]:
    """Greedy list scheduling of rigid chains, longest first: (start per chain, makespan)."""
    n = len(widths)
    order = sorted(range(n), key=lambda j: (-lengths[j], -widths[j], j))
    index = FitIndex([widths[j] for j in order], never=P + 1)
    starts: list[Any] = [None] * n
    running: list[tuple[Any, int]] = []
    free, now, left, makespan = P, 0, n, 0
    while left:
        pos = index.first_fitting(free)
        while pos >= 0:
            j = order[pos]
            index.set(pos, P + 1)
            starts[j] = now
            end = now + lengths[j]
            makespan = end if end > makespan else makespan
            heapq.heappush(running, (end, j))
            free -= widths[j]
            left -= 1
            pos = index.next_fitting(free, pos + 1)
        if not left:
            break
        now = running[0][0]
        while running and running[0][0] == now:  # exact: never more than P in use
            free += widths[heapq.heappop(running)[1]]
    return starts, makespan


def _times(instance, widths: list[int], exact: bool) -> list[Any]:
    if exact:
        return [instance.time(j, p) for j, p in enumerate(widths)]
    return [float(instance.T[j, p - 1]) for j, p in enumerate(widths)]


def _schedule(widths: list[int], times: list[Any], m: list[int], starts: list[Any],
              failures: tuple[int, ...]) -> Schedule:
    attempts = []
    for j, (p, t, s) in enumerate(zip(widths, times, starts, strict=True)):
        for k in range(m[j]):
            attempts.append(Attempt(j, k + 1, s + k * t, s + (k + 1) * t, p, k < failures[j]))
    return Schedule(tuple(attempts), max(a.end for a in attempts if not a.failed))


def _is_exact(instance) -> bool:
    return all(isinstance(instance.time(j, p), (int, Fraction))
               for j in range(instance.n) for p in {1, instance.P})


def chain_schedule(instance, scenario=None, *, deadline: Deadline | None = None
                   ) -> HeuristicResult:
    """The best chain schedule over the targets searched (module docstring).

    Parameters
    ----------
    instance : a `MoldableInstance`.
    scenario : its failure scenario (None: the stored one, failure-free without one).
    deadline : stop the target search when it passes (the schedule of the first target, L',
        is always built).

    Returns
    -------
    HeuristicResult
        objective = the makespan (exact on exact data), schedule = the attempt-level
        `Schedule`, ``extra`` = the processors of each job's chain (``chains``; not named
        ``allocation``: the family's validator checks Lemma 2's LIST bound on that key), the
        ``target`` that gave it, the ``lower_bound`` L' and the ``targets`` evaluated.
    """
    scenario = instance.scenario() if scenario is None else scenario
    deadline = deadline or Deadline(None)
    failures = tuple(scenario.failures)
    m = [f + 1 for f in failures]
    exact = _is_exact(instance)
    bound = L_prime(instance, scenario)
    fronts = _fronts(instance, m)
    tried: dict[Any, tuple[Any, list[int], list[Any], list[Any]]] = {}

    def build(target: Any) -> Any:
        if target not in tried:
            widths = _allotment(fronts, float(target))
            times = _times(instance, widths, exact)
            lengths = [mj * t for mj, t in zip(m, times, strict=True)]
            starts, makespan = _pack(instance.P, widths, lengths)
            tried[target] = (makespan, widths, times, starts)
        return tried[target][0]

    missed, met = None, None
    target = bound
    build(bound)  # the first target always, whatever the deadline
    while len(tried) < MAX_TARGETS and not deadline.expired():
        makespan = build(target)
        if makespan <= target:
            met = target
            break
        missed, target = target, makespan
        if target in tried:  # the same allotment again: no progress upward
            break
    while (met is not None and missed is not None and len(tried) < MAX_TARGETS
           and not deadline.expired() and met - missed > TARGET_RTOL * missed):
        mid = (missed + met) / 2
        if exact:
            mid = Fraction(mid)
        if build(mid) <= mid:
            met = mid
        else:
            missed = mid
    best = min(tried, key=lambda k: (tried[k][0], k))
    makespan, widths, times, starts = tried[best]
    schedule = _schedule(widths, times, m, starts, failures)
    return HeuristicResult(schedule.makespan, NAME, None, schedule, {
        "chains": widths, "target": best, "lower_bound": bound,
        "targets": len(tried)})

