"""Rigid-job heuristics under silent errors (spec 002 §2-§5): R-LIST-0/1/Q, R-SHELF(-FILL)-B/NB.

`simulate` runs one heuristic with one priority rule on one failure scenario through the shared
event engine (`resilsched.heuristics.engine`) and returns a `HeuristicResult` whose objective is
the makespan and whose schedule is the attempt-level `Schedule`. `makespan` is the fast path for
benchmarks: the same decisions without building `Attempt` objects (R-LIST-0 uses a dedicated
greedy loop, spec 002 §11.6), with identical makespans.

Options (keyword arguments of `simulate` and `makespan`):

- ``redraw_on_failure`` (Random, A6): a failed job draws a fresh random key;
- ``ljf_secondary`` (LJF, A16): the rule ordering small jobs (default "LPT");
- ``classic_easy`` and ``persistent_reservations`` (R-LIST-1 and R-LIST-Q, A2 and A3).

>>> from resilsched.instances.rigid import RigidInstance
>>> from resilsched.instances.failures import Scenario
>>> inst = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)])
>>> simulate(inst, Scenario((1, 0, 0)), "R-LIST-0", "LPT").objective
4
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import run_engine, same_time_function
from resilsched.heuristics.rigid.priorities import PRIORITIES, check_priority, make_queue
from resilsched.heuristics.rigid.rlist import Profile, RList
from resilsched.heuristics.rigid.rshelf import RShelf
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.schedule import Schedule
from resilsched.solution import HeuristicResult

HEURISTICS = ("R-LIST-0", "R-LIST-1", "R-LIST-Q", "R-SHELF-B", "R-SHELF-NB",
              "R-SHELFFILL-B", "R-SHELFFILL-NB")

_LIST_M: dict[str, int | str] = {"R-LIST-0": 0, "R-LIST-1": 1, "R-LIST-Q": "Q"}
_SHELF: dict[str, tuple[bool, bool]] = {  # name -> (backfill b, fill)
    "R-SHELF-B": (True, False), "R-SHELF-NB": (False, False),
    "R-SHELFFILL-B": (True, True), "R-SHELFFILL-NB": (False, True),
}
_PRIORITY_OPTIONS = {"redraw_on_failure", "ljf_secondary"}
_RESERVATION_OPTIONS = {"classic_easy", "persistent_reservations"}

__all__ = ["HEURISTICS", "PRIORITIES", "Profile", "RList", "RShelf", "makespan",
           "make_policy", "simulate"]


def check_heuristic(name: str) -> str:
    """Canonical spelling of a heuristic name (case-insensitive) or `InvalidInstance`."""
    for h in HEURISTICS:
        if isinstance(name, str) and name.upper() == h:
            return h
    raise InvalidInstance("heuristic", f"{name!r} is unknown (choose from {', '.join(HEURISTICS)})")


def _check_options(heuristic: str, options: dict[str, Any]) -> None:
    allowed = set(_PRIORITY_OPTIONS)
    if heuristic in ("R-LIST-1", "R-LIST-Q"):
        allowed |= _RESERVATION_OPTIONS
    for key in options:
        if key not in allowed:
            raise InvalidInstance("options", f"{key!r} is not an option of {heuristic} "
                                             f"(choose from {', '.join(sorted(allowed))})")


def _failures(instance: RigidInstance, scenario: Scenario | Sequence[int]) -> tuple[int, ...]:
    f = scenario.failures if isinstance(scenario, Scenario) else tuple(int(x) for x in scenario)
    if len(f) != instance.n:
        raise InvalidInstance("failures", f"has {len(f)} entries but the instance has "
                                          f"{instance.n} jobs")
    if any(x < 0 for x in f):
        raise InvalidInstance("failures", "counts must be >= 0")
    return f


def _is_exact(t: Sequence[Any]) -> bool:
    return all(isinstance(x, (int, Fraction)) for x in t)


def make_policy(instance: RigidInstance, heuristic: str, priority: str = "LPT", *,
                seed: int = 0, **options: Any) -> RList | RShelf:
    """The policy object of `heuristic` x `priority` for `run_engine` (fresh state per run)."""
    heuristic = check_heuristic(heuristic)
    priority = check_priority(priority)
    _check_options(heuristic, options)
    p, t, P = instance.p, instance.t, instance.P
    queue = make_queue(p, t, priority, P=P, seed=seed,
                       redraw_on_failure=bool(options.get("redraw_on_failure", False)),
                       ljf_secondary=options.get("ljf_secondary", "LPT"))
    exact = _is_exact(t)
    if heuristic in _LIST_M:
        return RList(p, t, P, queue, _LIST_M[heuristic],
                     classic_easy=bool(options.get("classic_easy", False)),
                     persistent_reservations=bool(options.get("persistent_reservations", False)),
                     exact=exact)
    backfill, fill = _SHELF[heuristic]
    return RShelf(p, t, P, queue, backfill=backfill, fill=fill, exact=exact)


def simulate(instance: RigidInstance, scenario: Scenario, heuristic: str, priority: str = "LPT",
             *, seed: int = 0, **options: Any) -> HeuristicResult:
    """Simulate `heuristic` with `priority` on `instance` under `scenario` (spec 002 §2).

    Returns a `HeuristicResult`: ``objective`` = makespan T_ALG(f) (Eq. 1), ``schedule`` = the
    `Schedule` of every attempt; ``extra`` holds the attempt and pass counts and, for shelf
    heuristics, the shelves as ``{"start", "end", "jobs"}``. `seed` feeds the Random rule.

    Raises `InvalidInstance` for an unknown heuristic, priority or option, or a scenario of the
    wrong length.
    """
    heuristic = check_heuristic(heuristic)
    priority = check_priority(priority)
    f = _failures(instance, scenario)
    policy = make_policy(instance, heuristic, priority, seed=seed, **options)
    t = instance.t
    res = run_engine(instance.P, f, lambda j, p: t[j], policy, record=True, exact=_is_exact(t))
    schedule = Schedule(res.attempts, res.makespan)
    extra: dict[str, Any] = {"attempts": res.attempt_count, "passes": res.events}
    if options:
        extra["options"] = dict(options)
    if isinstance(policy, RShelf):
        extra["shelves"] = [{"start": s, "end": e, "jobs": list(m)} for s, e, m in policy.shelves]
    return HeuristicResult(objective=res.makespan, heuristic=heuristic, priority=priority,
                           schedule=schedule, extra=extra)


def _greedy_makespan(p: Sequence[int], t: Sequence[Any], P: int, f: Sequence[int],
                     queue: Any, exact: bool) -> Any:
    """R-LIST-0 without the engine: same event grouping, same decisions, no attempt log."""
    same = same_time_function(exact)
    push = queue.push
    minp = min(p)
    done = [0] * len(p)
    heap: list[tuple[Any, int]] = []
    heappush, heappop = heapq.heappush, heapq.heappop
    free = P
    now: Any = 0
    best: Any = 0
    while True:
        # one greedy pass at time `now`
        if free >= minp and queue.items:
            rest = []
            items = queue.items
            for i, j in enumerate(items):
                pj = p[j]
                if pj <= free:
                    free -= pj
                    heappush(heap, (now + t[j], j))
                    if free < minp:
                        rest.extend(items[i + 1:])
                        break
                else:
                    rest.append(j)
            queue.items = rest
        if not heap:
            break
        now = heap[0][0]
        failed_jobs = []
        while heap and same(heap[0][0], now):
            end, j = heappop(heap)
            free += p[j]
            done[j] += 1
            if done[j] <= f[j]:
                failed_jobs.append(j)
            elif end > best:
                best = end
        if failed_jobs:
            failed_jobs.sort()
            for j in failed_jobs:
                push(j)
    return best


def makespan(instance: RigidInstance, failures_row: Sequence[int] | Scenario, heuristic: str,
             priority: str = "LPT", seed: int = 0, **options: Any) -> Any:
    """Fast path: the makespan `simulate` returns, without building the attempt log.

    `failures_row` is a `Scenario` or any sequence of f_j (e.g. a row of the matrix of
    `resilsched.instances.failures.sample_failures`). Returns the same value (same type) as
    ``simulate(...).objective``; for float instances it is a Python float.
    """
    heuristic = check_heuristic(heuristic)
    priority = check_priority(priority)
    f = _failures(instance, failures_row)
    t = instance.t
    exact = _is_exact(t)
    if heuristic == "R-LIST-0":
        _check_options(heuristic, options)
        queue = make_queue(instance.p, t, priority, P=instance.P, seed=seed,
                           redraw_on_failure=bool(options.get("redraw_on_failure", False)),
                           ljf_secondary=options.get("ljf_secondary", "LPT"))
        return _greedy_makespan(instance.p, t, instance.P, f, queue, exact)
    policy = make_policy(instance, heuristic, priority, seed=seed, **options)
    return run_engine(instance.P, f, lambda j, p: t[j], policy, record=False,
                      exact=exact).makespan
