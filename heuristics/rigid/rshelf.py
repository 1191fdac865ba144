"""R-SHELF and R-SHELFFILL: shelf scheduling under silent errors (spec 002 §5, Algorithms 2-3).

A shelf S_i is a set of jobs started together at T_{i-1}; it ends at T_i = T_{i-1} + max t_j over
its members. A new shelf is built only at t = T_i (after all completions at T_i are processed,
A1), from the queue Q in priority order:

- b = 1, "B" (First-Fit-like): scan the whole queue, adding every job with
  ``sum p + p_j <= P``;
- b = 0, "NB" (Next-Fit-like): stop at the first job that does not fit.

Processors freed inside a shelf stay idle until T_i (A18). A failed job goes back into Q and waits
for the next shelf, except in R-SHELFFILL (A17): a job whose attempt fails at t with
``t + t_j <= T_i`` restarts at once on its own processors (repeatedly, as long as it fits before
T_i); no other job ever enters a running shelf and T_i never moves.

Failure-free with LPT, R-SHELF-NB is NFDH and R-SHELF-B gives the FFDH shelf assignment (§5.1).

The registered heuristics are `r_shelf_b`, `r_shelf_nb`, `r_shelffill_b` and `r_shelffill_nb`;
`RShelf` is their policy for the event engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from resilsched.errors import InvalidSchedule
from resilsched.heuristics.engine import (
    Decision,
    EngineState,
    same_time_function,
    time_le_function,
)
from resilsched.heuristics.rigid import compiled
from resilsched.heuristics.rigid.common import Secondary, changed, finish, prepare
from resilsched.heuristics.rigid.priorities import PriorityQueue
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.solution import HeuristicResult


class RShelf:
    """Policy object of R-SHELF (``fill=False``) / R-SHELFFILL (``fill=True``) for `run_engine`.

    After a run, ``shelves`` lists ``(start, end, members)`` for every shelf built.

    Parameters
    ----------
    p, t : processors and duration of each job.
    P : processors of the platform.
    queue : the priority queue Q (all jobs at the start).
    backfill : b = 1 ("B", scan the whole queue) or b = 0 ("NB", stop at the first misfit).
    fill : refill a shelf with the failed job itself (R-SHELFFILL).
    exact : time arithmetic (see `run_engine`).
    """

    def __init__(self, p: Sequence[int], t: Sequence[Any], P: int, queue: PriorityQueue, *,
                 backfill: bool, fill: bool, exact: bool | None = None):
        self.p = p
        self.t = t
        self.P = P
        self.queue = queue
        self.backfill = backfill
        self.fill = fill
        self.T: Any = 0  # end of the current shelf, T_0 = 0
        self.shelves: list[tuple[Any, Any, tuple[int, ...]]] = []
        self._refill: list[int] = []
        self._same = same_time_function(exact)
        self._le = time_le_function(exact)

    def on_completions(self, t: Any, completed: list[tuple[int, bool]],
                       state: EngineState) -> None:
        for j, failed in completed:
            if not failed:
                continue
            if self.fill and self._le(t + self.t[j], self.T):
                self._refill.append(j)
            else:
                self.queue.push(j)

    def decide(self, t: Any, state: EngineState) -> list[Decision]:
        p = self.p
        out: list[Decision] = [(j, p[j]) for j in self._refill]
        self._refill.clear()
        if not self._same(t, self.T) or not self.queue.items:
            return out
        if state.running or out:
            raise InvalidSchedule(f"shelf boundary {t} with attempts still running")
        members: list[int] = []
        width = 0
        height: Any = None
        P = self.P
        for j in self.queue.items:
            pj = p[j]
            if width + pj <= P:
                members.append(j)
                width += pj
                if height is None or self.t[j] > height:
                    height = self.t[j]
                if width == P:
                    break
            elif not self.backfill:
                break
        self.queue.keep(set(members))
        self.T = t + height
        self.shelves.append((t, self.T, tuple(members)))
        return [(j, p[j]) for j in members]


# -- the registered heuristics --------------------------------------------------------------------

def _shelves(name: str, instance: RigidInstance, scenario: Scenario | Sequence[int] | None,
             priority: str | None, seed: int, redraw_on_failure: bool, ljf_secondary: str,
             record: bool, *, backfill: bool, fill: bool) -> HeuristicResult:
    run = prepare(instance, scenario, priority, seed, redraw_on_failure, ljf_secondary)
    if not record:
        mk = compiled.makespan(compiled.shelf(backfill, fill), instance.P, instance.p,
                               instance.t, run.queue, run.failures)
        if mk is not None:
            return HeuristicResult(objective=mk, heuristic=name, priority=run.priority)
    policy = RShelf(instance.p, instance.t, instance.P, run.queue, backfill=backfill, fill=fill,
                    exact=run.exact)
    options = changed(redraw_on_failure=redraw_on_failure, ljf_secondary=ljf_secondary)
    return finish(name, run, policy, record, options, shelves=True)


def r_shelf_b(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
              priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
              ljf_secondary: Secondary = "LPT", record: bool = True) -> HeuristicResult:
    """R-SHELF-B (Algorithm 2, b = 1): shelves filled first-fit from the whole queue; a failed
    job waits for the next shelf. ``extra["shelves"]`` lists the shelves; ``record=False``
    gives the makespan only. Every shelf algorithm is Omega(ln P) (Proposition 3)."""
    return _shelves("R-SHELF-B", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=True, fill=False)


def r_shelf_nb(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
               priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
               ljf_secondary: Secondary = "LPT", record: bool = True) -> HeuristicResult:
    """R-SHELF-NB (Algorithm 2, b = 0): a shelf stops at the first job that does not fit
    (next-fit; NFDH failure-free with LPT). Otherwise as `r_shelf_b`."""
    return _shelves("R-SHELF-NB", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=False, fill=False)


def r_shelffill_b(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
                  priority: str | None = None, *, seed: int = 0,
                  redraw_on_failure: bool = False, ljf_secondary: Secondary = "LPT",
                  record: bool = True) -> HeuristicResult:
    """R-SHELFFILL-B (Algorithm 3, b = 1): as `r_shelf_b`, but a failed job restarts at once
    on its own processors when it still ends by the end of its shelf (A17)."""
    return _shelves("R-SHELFFILL-B", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=True, fill=True)


def r_shelffill_nb(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
                   priority: str | None = None, *, seed: int = 0,
                   redraw_on_failure: bool = False, ljf_secondary: Secondary = "LPT",
                   record: bool = True) -> HeuristicResult:
    """R-SHELFFILL-NB (Algorithm 3, b = 0): as `r_shelf_nb` with the in-shelf re-execution of
    `r_shelffill_b`. With LPT it is Omega(P) (Proposition 4)."""
    return _shelves("R-SHELFFILL-NB", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=False, fill=True)
