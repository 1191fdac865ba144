"""R-SHELF and R-SHELFFILL: shelf scheduling under silent errors (spec 002 §5, Algorithms 2-3).

A shelf S_i is a set of jobs started together at T_{i-1}; it ends at T_i = T_{i-1} + max t_j over
its members. A new shelf is built only at t = T_i (after all completions at T_i are processed,
A1), from the queue Q in priority order:

- b = 1, "B" (First-Fit-like): scan the whole queue, adding every job with
  ``sum p + p_j <= P``;
- b = 0, "NB" (Next-Fit-like): stop at the first job that does not fit.

Processors freed inside a shelf stay idle until T_i (A18). A failed job goes back into Q and waits
for the next shelf, except in R-SHELFFILL, whose refill rule is the parameter ``fill``:

- ``fill="own"`` (A17, the default): a job whose attempt fails at t with ``t + t_j <= T_i``
  restarts at once on its own processors (repeatedly, as long as it fits before T_i); no other
  job ever enters a running shelf;
- ``fill="any-queued"`` (R32, the looser reading of the paper's "failed jobs can be re-executed
  within the same shelf if they fit in"): a failed job goes back into Q, and at every pass
  while a shelf runs (the one that builds it, then every completion time t < T_i) the queue is
  scanned in priority order and every job that fits the free processors and ends by the
  shelf's end (``t + t_j <= T_i``) starts at once, first fit. For B the pass that builds a
  shelf adds nothing more (every job that fits is already a member); for NB the jobs behind the
  first misfit fill the shelf's holes when they end by T_i (they cannot raise its height).

In both, T_i never moves: nothing started inside a shelf runs past its end.

Failure-free with LPT, R-SHELF-NB is NFDH and R-SHELF-B gives the FFDH shelf assignment (§5.1).

The registered heuristics are `r_shelf_b`, `r_shelf_nb`, `r_shelffill_b` and `r_shelffill_nb`;
`RShelf` is their policy for the event engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from resilsched.errors import InvalidInstance, InvalidSchedule
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

#: R-SHELFFILL's refill rules (``fill``): the failed job on its own processors (A17), or any
#: queued job on the free processors of a running shelf (R32).
FillRule = Literal["own", "any-queued"]
FILL_RULES: tuple[str, ...] = ("own", "any-queued")
#: the C engine's code of each rule (0: R-SHELF, no refill)
FILL_CODES = {None: 0, "own": 1, "any-queued": 2}


class RShelf:
    """Policy object of R-SHELF (``fill=None``) / R-SHELFFILL (``fill`` a rule of `FILL_RULES`)
    for `run_engine`.

    After a run, ``shelves`` lists ``(start, end, members)`` for every shelf built.

    Parameters
    ----------
    p, t : processors and duration of each job.
    P : processors of the platform.
    queue : the priority queue Q (all jobs at the start).
    backfill : b = 1 ("B", scan the whole queue) or b = 0 ("NB", stop at the first misfit).
    fill : None (R-SHELF), or R-SHELFFILL's refill rule: ``"own"`` (the failed job itself, on
        its processors, A17) or ``"any-queued"`` (any queued job that ends by T_i, R32); the
        former boolean form is still accepted (False: R-SHELF, True: ``"own"``; the online
        family's shelf policies call it so).
    exact : time arithmetic (see `run_engine`).
    """

    def __init__(self, p: Sequence[int], t: Sequence[Any], P: int, queue: PriorityQueue, *,
                 backfill: bool, fill: str | bool | None, exact: bool | None = None):
        if isinstance(fill, bool):
            fill = "own" if fill else None
        if fill not in FILL_CODES:
            raise ValueError(f"fill={fill!r} is not a refill rule ({', '.join(FILL_RULES)})")
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
            if self.fill == "own" and self._le(t + self.t[j], self.T):
                self._refill.append(j)
            else:
                self.queue.push(j)

    def decide(self, t: Any, state: EngineState) -> list[Decision]:
        p = self.p
        out: list[Decision] = [(j, p[j]) for j in self._refill]
        self._refill.clear()
        if not self._same(t, self.T):
            if self.fill == "any-queued" and self.queue.items:
                out += self._fill_from_queue(t, state.free)
            return out
        if not self.queue.items:
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
        out = [(j, p[j]) for j in members]
        if self.fill == "any-queued" and self.queue.items and width < P:
            out += self._fill_from_queue(t, P - width)
        return out

    def _fill_from_queue(self, t: Any, free: int) -> list[Decision]:
        """``fill="any-queued"`` at a time t while the shelf runs (its start included): the
        queued jobs, in priority order, that fit the `free` processors left by those started
        before them and end by T_i (first fit)."""
        started: list[int] = []
        for j in self.queue.items:
            if self.p[j] <= free and self._le(t + self.t[j], self.T):
                started.append(j)
                free -= self.p[j]
                if free == 0:
                    break
        if started:
            self.queue.keep(set(started))
        return [(j, self.p[j]) for j in started]


# -- the registered heuristics --------------------------------------------------------------------

def fill_rule(fill: str) -> str:
    """R-SHELFFILL's refill rule ``fill``, checked (one-line `InvalidInstance` otherwise)."""
    if fill not in FILL_RULES:
        raise InvalidInstance("fill", f"{fill!r} must be one of {', '.join(FILL_RULES)}")
    return fill


def _shelves(name: str, instance: RigidInstance, scenario: Scenario | Sequence[int] | None,
             priority: str | None, seed: int, redraw_on_failure: bool, ljf_secondary: str,
             record: bool, *, backfill: bool, fill: str | None) -> HeuristicResult:
    run = prepare(instance, scenario, priority, seed, redraw_on_failure, ljf_secondary)
    if not record:
        mk = compiled.makespan(compiled.shelf(backfill, FILL_CODES[fill]), instance.P,
                               instance.p, instance.t, run.queue, run.failures)
        if mk is not None:
            return HeuristicResult(objective=mk, heuristic=name, priority=run.priority)
    policy = RShelf(instance.p, instance.t, instance.P, run.queue, backfill=backfill, fill=fill,
                    exact=run.exact)
    options = changed(redraw_on_failure=redraw_on_failure, ljf_secondary=ljf_secondary)
    if fill not in (None, "own"):
        options["fill"] = fill
    return finish(name, run, policy, record, options, shelves=True)


def r_shelf_b(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
              priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
              ljf_secondary: Secondary = "LPT", record: bool = True) -> HeuristicResult:
    """R-SHELF-B (Algorithm 2, b = 1): shelves filled first-fit from the whole queue; a failed
    job waits for the next shelf. ``extra["shelves"]`` lists the shelves; ``record=False``
    gives the makespan only. Every shelf algorithm is Omega(ln P) (Proposition 3)."""
    return _shelves("R-SHELF-B", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=True, fill=None)


def r_shelf_nb(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
               priority: str | None = None, *, seed: int = 0, redraw_on_failure: bool = False,
               ljf_secondary: Secondary = "LPT", record: bool = True) -> HeuristicResult:
    """R-SHELF-NB (Algorithm 2, b = 0): a shelf stops at the first job that does not fit
    (next-fit; NFDH failure-free with LPT). Otherwise as `r_shelf_b`."""
    return _shelves("R-SHELF-NB", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=False, fill=None)


def r_shelffill_b(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
                  priority: str | None = None, *, seed: int = 0,
                  redraw_on_failure: bool = False, ljf_secondary: Secondary = "LPT",
                  fill: FillRule = "own", record: bool = True) -> HeuristicResult:
    """R-SHELFFILL-B (Algorithm 3, b = 1): as `r_shelf_b`, but a shelf is refilled inside its
    height: ``fill="own"`` (default, A17) restarts a failed job at once on its own processors
    when it still ends by the end of its shelf; ``fill="any-queued"`` (R32) starts any queued
    job that fits the free processors and ends by the shelf's end."""
    return _shelves("R-SHELFFILL-B", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=True, fill=fill_rule(fill))


def r_shelffill_nb(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
                   priority: str | None = None, *, seed: int = 0,
                   redraw_on_failure: bool = False, ljf_secondary: Secondary = "LPT",
                   fill: FillRule = "own", record: bool = True) -> HeuristicResult:
    """R-SHELFFILL-NB (Algorithm 3, b = 0): as `r_shelf_nb` with the in-shelf refill of
    `r_shelffill_b` (``fill``). With LPT and ``fill="own"`` it is Omega(P) (Proposition 4)."""
    return _shelves("R-SHELFFILL-NB", instance, scenario, priority, seed, redraw_on_failure,
                    ljf_secondary, record, backfill=False, fill=fill_rule(fill))
