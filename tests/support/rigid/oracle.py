"""Brute-force oracle for the clairvoyant optimum T_OPT(f) of tiny rigid instances (spec 002 §1.3).

Independent of `resilsched.models.rigid`: it shares no code with the CP-SAT model, reads only
``P``, the ``(p_j, t_j)`` pairs and the failure counts ``f_j``, and works in exact arithmetic on
ints or `fractions.Fraction`.

Problem. Job j runs m_j = f_j + 1 attempts of length t_j on p_j processors, one after the other
(Eq. 3), at most P processors busy at any instant (Eq. 2); minimise the last end (Eq. 1).

Completeness of the enumeration (why a semi-active search finds T_OPT).

1. *Left-justified optimal schedules exist.* Take an optimal schedule and an attempt a starting
   at s > 0 that does not start at the end of another attempt. Let e be the latest value in
   {0} u {end(b) : b != a, end(b) <= s}; then e < s and no other attempt ends in (e, s]. So on
   [e, s) the other attempts only start, never end, and the processors they use at any x in
   [e, s) are at most those in use at s, which leave p_a free. Moving a to [e, e + t_a) keeps
   the capacity on [e, s) and on [s, e + t_a) (a subset of its old window), keeps the chain (its
   predecessor ends at or before e, its successor starts at or after s + t_a) and does not
   increase the makespan. The sum of start times strictly decreases, and after scaling to
   integers every move lowers it by at least 1, so repeating this ends in an optimal schedule
   where every attempt starts at 0 or at the end of another attempt.
2. *The search reaches that schedule.* The search visits decision times in increasing order:
   0, then the successive end times of the attempts placed so far. At a decision time it
   either starts one more attempt that is ready (its predecessor has ended) and fits the free
   processors, or closes the time and moves to the next end time. Attempts started at the same
   time are taken in increasing job order (a set, not a sequence). Following a left-justified
   optimal schedule S*: every start s of S* equals 0 or end(b) for an attempt b with
   start(b) < s; by induction on s, b has already been placed, so s is a decision time and the
   search can start there exactly the attempts S* starts. Capacity need only be checked at
   start times, since usage rises only when an attempt starts.
3. Branch and bound prunes a node only when a valid lower bound on every completion of it (the
   latest end so far, and for each job its ready time plus its remaining chain) is not below the
   best makespan found, so the optimum is never lost.

Intended for at most ~8-10 attempts; the search is exponential.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def brute_force_makespan(
    P: int, jobs: Sequence[tuple[int, Any]], failures: Sequence[int] | None = None
) -> tuple[Any, list[list[Any]]]:
    """Exact T_OPT(f) by enumeration of semi-active schedules.

    Parameters
    ----------
    P : processors.
    jobs : (p_j, t_j) pairs, t_j an int or Fraction.
    failures : f_j per job (default all zero: the failure-free optimum).

    Returns
    -------
    (makespan, starts) with ``starts[j]`` the start times of the attempts of job j.
    """
    n = len(jobs)
    f = list(failures) if failures is not None else [0] * n
    p = [int(pj) for pj, _ in jobs]
    t = [tj for _, tj in jobs]
    m = [fj + 1 for fj in f]
    if any(pj > P for pj in p):
        raise ValueError("a job is wider than the platform")

    # Upper bound to start from: run all attempts one after the other.
    best: list[Any] = [sum(m[j] * t[j] for j in range(n)), None]
    starts: list[list[Any]] = [[] for _ in range(n)]
    ready = [0] * n  # end of the previous attempt of each job
    running: list[tuple[Any, int]] = []  # (end, job) of attempts started so far, still relevant

    def lower_bound(now_max_end: Any) -> Any:
        lb = now_max_end
        for j in range(n):
            left = m[j] - len(starts[j])
            if left:
                cand = ready[j] + left * t[j]
                if cand > lb:
                    lb = cand
        return lb

    def search(time: Any, min_job: int, max_end: Any) -> None:
        if lower_bound(max_end) >= best[0] and best[1] is not None:
            return
        if all(len(starts[j]) == m[j] for j in range(n)):
            if best[1] is None or max_end < best[0]:
                best[0] = max_end
                best[1] = [list(s) for s in starts]
            return
        used = sum(p[j] for end, j in running if end > time)
        # Option A: start one more ready attempt at `time` (jobs in increasing order).
        for j in range(min_job, n):
            if len(starts[j]) == m[j] or ready[j] > time or used + p[j] > P:
                continue
            if any(jj == j and end > time for end, jj in running):
                continue
            old_ready = ready[j]
            starts[j].append(time)
            ready[j] = time + t[j]
            running.append((ready[j], j))
            search(time, j + 1, max(max_end, ready[j]))
            running.pop()
            ready[j] = old_ready
            starts[j].pop()
        # Option B: close this time and move to the next end time.
        later = [end for end, _ in running if end > time]
        if later:
            search(min(later), 0, max_end)

    search(0, 0, 0)
    if best[1] is None:  # pragma: no cover - the serial schedule is always reachable
        raise AssertionError("enumeration found no schedule")
    return best[0], best[1]
