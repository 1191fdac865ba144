"""The heuristics of the rigid and moldable families as online policies: their exact expected
makespans (issue 26).

A heuristic whose decision at an epoch depends only on the state (and a little memory) is a
fixed policy of the decision process, and `resilsched.models.online.exact` gives its expected
makespan exactly. That holds, with their default options, for

- R-LIST-0, R-LIST-1, R-LIST-Q (fresh reservations, spec 002 §4.1: every reservation is
  recomputed at each event from the queue and the running attempts; the queue holds the
  waiting jobs in priority order, a failed job back at its rank);
- R-SHELF-B/NB (a shelf starts when nothing runs: the end T_i of a shelf is the end of its
  longest member's first attempt, the last attempt still running before T_i) and
  R-SHELFFILL-B/NB, which also remember the jobs that have just failed (they refill the shelf
  when t + t_j <= T_i, and T_i - t is the longest remaining time of the running attempts);
- the moldable LIST heuristics with a fixed allocation (LPA-LIST, MINTIME, MINAREA,
  LPA-PROOF): greedy list scheduling of the allocated jobs.

The decisions are the heuristics' own: at each node the policy rebuilds the heuristic's policy
object (`RList`, `RShelf`) in the state of that node (the queue of waiting jobs, the running
attempts in an `EngineState`, the shelf end) and asks it (``decide``), so nothing of the
heuristics is re-implemented here; tests replay each policy on failure scenarios and compare
with the heuristic's own run. Random priorities draw their keys from the seed as the
heuristics do; options that make a decision depend on the history (``reservations=persistent``
or ``fixed``, ``redraw_on_failure``) and BATCH-LIST are not state functions:
`resilsched.models.online.expectation` bounds them by enumerating the scenarios.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.engine import EngineState
from resilsched.heuristics.rigid.priorities import PriorityQueue, check_priority, priority_keys
from resilsched.heuristics.rigid.rlist import RList
from resilsched.heuristics.rigid.rshelf import RShelf
from resilsched.models.online.policy import OnlinePolicy
from resilsched.models.online.problem import OnlineProblem, build_problem
from resilsched.models.online.space import Action, State, waiting_mask

#: the rigid heuristics that are state functions, with (kind, m or backfill, fill)
RIGID = {
    "R-LIST-0": ("list", 0, False), "R-LIST-1": ("list", 1, False),
    "R-LIST-Q": ("list", "Q", False),
    "R-SHELF-B": ("shelf", True, False), "R-SHELF-NB": ("shelf", False, False),
    "R-SHELFFILL-B": ("shelf", True, True), "R-SHELFFILL-NB": ("shelf", False, True),
}
#: the moldable heuristics with a fixed allocation (LIST over the allocated jobs)
MOLDABLE_FIXED = ("LPA-LIST", "MINTIME", "MINAREA", "LPA-PROOF")


def rigid_keys(problem: OnlineProblem, priority: str | None, seed: int) -> list[tuple]:
    """The priority keys of the rigid heuristics (`make_queue`'s, Random drawn from the seed
    the same way), on the scaled times (same order)."""
    rule = check_priority("LPT" if priority is None else priority)
    p = [m[0].p for m in problem.modes]
    t = [m[0].t for m in problem.modes]
    uses_random = rule == "Random"
    u = np.random.default_rng(seed).random(len(p)) if uses_random else None
    return priority_keys(p, t, rule, P=problem.P, u=u)


def engine_state(problem: OnlineProblem, state: State) -> EngineState:
    """The heuristics' view of a state at time 0: running attempts end at their remaining
    times."""
    done, running = state
    es = EngineState(problem.P, problem.n)
    for j, p, r in running:
        es.running[j] = (0, r, p)
        es.free -= p
    for j in range(problem.n):
        if done >> j & 1:
            es.finished[j] = True
            es.unfinished -= 1
    return es


def _action(decisions: Sequence[tuple[int, int]], problem: OnlineProblem) -> Action:
    out = []
    for j, p in decisions:
        modes = problem.modes[j]
        k = next(i for i, m in enumerate(modes) if m.p == p)
        out.append((j, k))
    return tuple(sorted(out))


class _HeuristicPolicy(OnlinePolicy):
    """A heuristic's policy object rebuilt at each node (memoised): one mode per job, the
    heuristic's priority keys."""

    def __init__(self, problem: OnlineProblem, keys: Sequence[tuple]):
        super().__init__(problem)
        if not problem.rigid:
            raise InvalidInstance("jobs", "a heuristic's policy needs one allocation per job")
        self.keys = list(keys)
        self.p = [modes[0].p for modes in problem.modes]
        self.t = [modes[0].t for modes in problem.modes]
        self.memo: dict[Hashable, Action] = {}

    def action(self, node: Hashable) -> Action:
        hit = self.memo.get(node)
        if hit is None:
            hit = self.memo[node] = self.decide(node)
        return hit

    def decide(self, node: Hashable) -> Action:
        raise NotImplementedError


class ListPolicy(_HeuristicPolicy):
    """R-LIST with m = 0, 1 or "Q" (fresh reservations) and fixed priority keys."""

    def __init__(self, problem: OnlineProblem, m: int | str, keys: Sequence[tuple]):
        super().__init__(problem, keys)
        self.m = m

    def decide(self, node: Hashable) -> Action:
        state = self.state(node)
        waiting = waiting_mask(self.problem, state)
        jobs = [j for j in range(self.problem.n) if waiting >> j & 1]
        policy = RList(self.p, self.t, self.problem.P, PriorityQueue(self.keys, jobs=jobs),
                       self.m, exact=True)
        return _action(policy.decide(0, engine_state(self.problem, state)), self.problem)


class ShelfPolicy(_HeuristicPolicy):
    """R-SHELF / R-SHELFFILL; R-SHELFFILL's nodes remember the jobs that have just failed."""

    def __init__(self, problem: OnlineProblem, backfill: bool, fill: bool,
                 keys: Sequence[tuple]):
        super().__init__(problem, keys)
        self.backfill = backfill
        self.fill = fill
        self.memory = "failed" if fill else None

    def decide(self, node: Hashable) -> Action:
        state = self.state(node)
        failed = node[1] if self.fill else 0  # type: ignore[index]
        waiting = waiting_mask(self.problem, state)
        queued = [j for j in range(self.problem.n) if waiting >> j & 1 and not failed >> j & 1]
        policy = RShelf(self.p, self.t, self.problem.P, PriorityQueue(self.keys, jobs=queued),
                        backfill=self.backfill, fill=self.fill, exact=True)
        policy.T = max((r for _, _, r in state[1]), default=0)
        es = engine_state(self.problem, state)
        just = [(j, True) for j in range(self.problem.n) if failed >> j & 1]
        if just:
            policy.on_completions(0, just, es)
        return _action(policy.decide(0, es), self.problem)


def rigid_policy(problem: OnlineProblem, heuristic: str, priority: str | None = None,
                 seed: int = 0) -> OnlinePolicy:
    """The policy of a rigid heuristic (a name of `RIGID`) with its default options."""
    if heuristic not in RIGID:
        raise InvalidInstance("heuristic", f"{heuristic!r} is not a state function of the "
                              f"decision process (choose from {', '.join(RIGID)})")
    kind, arg, fill = RIGID[heuristic]
    keys = rigid_keys(problem, priority, seed)
    if kind == "list":
        return ListPolicy(problem, arg, keys)
    return ShelfPolicy(problem, bool(arg), fill, keys)


def moldable_fixed_problem(instance: Any, allocation: Sequence[int],
                           q: Sequence[Any]) -> OnlineProblem:
    """The rigid problem of a moldable instance under a fixed allocation p_j: one mode
    (p_j, t_j(p_j)) per job, with the float times the simulators use."""
    return build_problem(instance.P, [[(int(p), instance.duration(j, int(p)))]
                                      for j, p in enumerate(allocation)], q)


def moldable_list_policy(instance: Any, heuristic: str, priority: str | None,
                         q: Sequence[Any]) -> OnlinePolicy:
    """A moldable LIST heuristic with a fixed allocation (`MOLDABLE_FIXED`) as a policy: its
    allocation from its failure-free run (``extra["allocation"]``), its priority keys
    t_j(p_j), p_j or p_j t_j(p_j), larger first, ties by job index (spec 000 §3.6)."""
    from resilsched.heuristics import moldable as heuristics
    from resilsched.heuristics.moldable.listsched import check_priority as moldable_priority
    from resilsched.heuristics.moldable.listsched import priority_key

    if heuristic not in MOLDABLE_FIXED:
        raise InvalidInstance("heuristic", f"{heuristic!r} has no fixed allocation (choose "
                              f"from {', '.join(MOLDABLE_FIXED)})")
    run = {"LPA-LIST": heuristics.lpa_list, "MINTIME": heuristics.mintime_list,
           "MINAREA": heuristics.minarea_list, "LPA-PROOF": heuristics.lpa_proof_list}[heuristic]
    rule = moldable_priority(priority)
    allocation = [int(x) for x in run(instance, instance.scenario([0] * instance.n),
                                      rule).extra["allocation"]]
    problem = moldable_fixed_problem(instance, allocation, q)
    keys = [(-priority_key(rule, instance.duration(j, p), p), j)
            for j, p in enumerate(allocation)]
    return ListPolicy(problem, 0, keys)
