"""Online policies: their exact expected makespan, their replay on a failure scenario, and the
optimal policy's decision table (issue 26).

A policy acts on *nodes*: a state of `resilsched.models.online.space` plus what the policy
remembers (nothing for most; the jobs that have just failed for R-SHELFFILL, which refills a
shelf with them). `OnlinePolicy` gives the root node, the action at a node and the node after
an outcome; from them follow

- `expected_makespan`: the exact value of the policy (`resilsched.models.online.exact`);
- `replay`: the attempt schedule of one failure scenario f (attempt k of job j fails iff
  k <= f_j, spec 002 §2), in the instance's time unit, for the family validators;
- `sample_makespans`: makespans of scenarios drawn from the q_j (Monte-Carlo).

`DecisionTable` is a policy as a table (the optimal one, or a heuristic's): one action per node
it reaches, to query (`decision`), replay, and check (`resilsched.validation.online`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.models.online.exact import Move, evaluate, exact_value, reach
from resilsched.models.online.problem import OnlineProblem
from resilsched.models.online.space import INITIAL, Action, State, Step, step, successes
from resilsched.numeric import readable
from resilsched.schedule import Attempt, Schedule


class OnlinePolicy:
    """A memoryless policy: the node is the state. Subclasses give `action`. A policy that
    remembers the jobs that have just failed (`memory` = ``"failed"``) has the nodes
    (state, mask of those jobs)."""

    memory: str | None = None

    def __init__(self, problem: OnlineProblem):
        self.problem = problem

    def root(self) -> Hashable:
        return (INITIAL, 0) if self.memory else INITIAL

    def state(self, node: Hashable) -> State:
        return node[0] if self.memory else node  # type: ignore[index,return-value]

    def action(self, node: Hashable) -> Action:
        raise NotImplementedError

    def after(self, node: Hashable, st: Step, succeeded: int) -> Hashable:
        """The node after the jobs of `succeeded` (a subset of the ending ones) succeed."""
        state = (self.state(node)[0] | succeeded, st.rest)
        return (state, st.ended & ~succeeded) if self.memory else state

    def move(self, node: Hashable) -> Move | None:
        """The move of `node` for `resilsched.models.online.exact` (None: all jobs done)."""
        state = self.state(node)
        if state[0] == (1 << self.problem.n) - 1:
            return None
        action = self.action(node)
        if not action and not state[1]:
            raise RuntimeError(f"the policy starts nothing while nothing runs at {state}")
        st = step(self.problem, state, action)
        outs = tuple((self.after(node, st, s), s) for s in successes(st.ended) if s)
        return Move(st.delta, st.ended, self.after(node, st, 0), outs)

    def level(self, node: Hashable) -> int:
        return self.state(node)[0].bit_count()


#: most nodes a fixed policy may reach (`policy_table`, `expected_makespan`)
MAX_NODES = 1_000_000


def _reach(policy: OnlinePolicy, expired: Callable[[], bool], max_nodes: int
           ) -> dict[Hashable, Move | None]:
    count = 0

    def move(node: Hashable) -> Move | None:
        nonlocal count
        count += 1
        if count > max_nodes:
            raise InvalidInstance("jobs", f"the policy reaches more than {max_nodes} states of "
                                  "the decision process")
        return policy.move(node)
    return reach(policy.root(), move, expired)


def expected_makespan(policy: OnlinePolicy, expired: Callable[[], bool] = lambda: False,
                      max_nodes: int = MAX_NODES) -> tuple[Fraction, int]:
    """E[makespan] of `policy` in the instance's time unit (exact) and the number of nodes."""
    moves = _reach(policy, expired, max_nodes)
    values = evaluate(policy.problem, moves, policy.level, None, expired)
    return exact_value(values[policy.root()] * policy.problem.unit), len(moves)


def policy_table(policy: OnlinePolicy, expired: Callable[[], bool] = lambda: False,
                 max_nodes: int = MAX_NODES) -> DecisionTable:
    """The decision table of `policy` on every node it reaches, with its exact value."""
    moves = _reach(policy, expired, max_nodes)
    values = evaluate(policy.problem, moves, policy.level, None, expired)
    table = {node: policy.action(node) for node, m in moves.items() if m is not None}
    return DecisionTable(policy.problem, table,
                         exact_value(values[policy.root()] * policy.problem.unit), policy.memory)


def replay(policy: OnlinePolicy, failures: Sequence[int]) -> Schedule:
    """The attempts of `policy` in scenario f (attempt k of job j fails iff k <= f_j), in the
    instance's time unit."""
    problem = policy.problem
    node = policy.root()
    done = [0] * problem.n
    starts: dict[int, tuple[int, int]] = {}  # job -> (start in units, p)
    attempts: list[Attempt] = []
    now = 0
    limit = sum(failures) + problem.n
    while policy.state(node)[0] != (1 << problem.n) - 1:
        state = policy.state(node)
        action = policy.action(node)
        for j, k in action:
            starts[j] = (now, problem.modes[j][k].p)
        st = step(problem, state, action)
        now += st.delta
        succeeded = 0
        for j in range(problem.n):
            if st.ended >> j & 1:
                s, p = starts.pop(j)
                done[j] += 1
                failed = done[j] <= failures[j]
                attempts.append(Attempt(j, done[j], problem.to_time(s), problem.to_time(now),
                                        p, failed))
                if not failed:
                    succeeded |= 1 << j
        if len(attempts) > limit:
            raise RuntimeError("the replay runs more attempts than the scenario has")
        node = policy.after(node, st, succeeded)
    makespan = max(a.end for a in attempts)
    return Schedule(tuple(attempts), makespan)


def sample_makespans(policy: OnlinePolicy, rng: np.random.Generator, count: int) -> np.ndarray:
    """Makespans (floats, instance unit) of `count` scenarios drawn from the q_j with `rng`
    (f_j geometric, `resilsched.instances.failures.sample_failures`)."""
    from resilsched.instances.failures import sample_failures

    draws = sample_failures(np.array(policy.problem.qf), count, rng)
    out = np.empty(count)
    for i, row in enumerate(draws):
        out[i] = float(replay_makespan(policy, row))
    return out


def replay_makespan(policy: OnlinePolicy, failures: Sequence[int]) -> Fraction:
    """The makespan of `replay` (instance unit), without building the schedule."""
    problem = policy.problem
    node = policy.root()
    done = [0] * problem.n
    now = 0
    full = (1 << problem.n) - 1
    while policy.state(node)[0] != full:
        st = step(problem, policy.state(node), policy.action(node))
        now += st.delta
        succeeded = 0
        mask, j = st.ended, 0
        while mask:
            if mask & 1:
                done[j] += 1
                if done[j] > failures[j]:
                    succeeded |= 1 << j
            mask >>= 1
            j += 1
        node = policy.after(node, st, succeeded)
    return now * problem.unit


def confidence_interval(samples: np.ndarray, z: float = 3.890592) -> tuple[float, float]:
    """Mean +- z standard errors (z = 3.89: 99.99 % two-sided for a normal mean)."""
    mean = float(np.mean(samples))
    half = z * float(np.std(samples, ddof=1)) / math.sqrt(len(samples))
    return mean - half, mean + half


class TablePolicy(OnlinePolicy):
    """A policy given as a table: node -> action."""

    def __init__(self, problem: OnlineProblem, table: dict[Hashable, Action],
                 memory: str | None = None):
        super().__init__(problem)
        self.table = table
        self.memory = memory

    def action(self, node: Hashable) -> Action:
        return self.table[node]


@dataclass
class DecisionTable:
    """A policy of an instance as a table: its action in every node it reaches.

    `value` is its expected makespan (exact, instance unit): E[T_online-OPT] for the optimal
    policy. `table` maps a state (done mask, ((job, p, remaining units), ...)), or the pair
    (state, mask of the jobs that have just failed) when `memory` is ``"failed"``, to the
    action ((job, mode), ...).
    """

    problem: OnlineProblem
    table: dict[Hashable, Action]
    value: Fraction | int
    memory: str | None = None
    policy: TablePolicy = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.policy = TablePolicy(self.problem, self.table, self.memory)

    def decision(self, done: Sequence[int] = (),
                 running: dict[int, tuple[int, Any]] | None = None,
                 failed: Sequence[int] = ()) -> list[tuple[int, int]]:
        """What the policy starts when the jobs `done` are done and the jobs of `running` run
        (job -> (p, remaining time in the instance's unit)), `failed` having just failed (for
        a table with memory): ``[(job, p), ...]``.

        Raises `InvalidInstance` when the policy never reaches that state."""
        mask = 0
        for j in done:
            mask |= 1 << int(j)
        rows = []
        for j, (p, remaining) in sorted((running or {}).items()):
            units = Fraction(remaining) / self.problem.unit
            if units.denominator != 1:
                raise InvalidInstance("running", f"job {j}: remaining time {remaining} is not "
                                      f"a multiple of the time unit {self.problem.unit}")
            rows.append((int(j), int(p), int(units)))
        state = (mask, tuple(rows))
        key: Hashable = (state, sum(1 << int(j) for j in failed)) if self.memory else state
        if key not in self.table:
            raise InvalidInstance("state", f"done={sorted(done)}, running={running or {}} is "
                                  "not reached by the policy")
        return [(j, self.problem.modes[j][k].p) for j, k in self.table[key]]

    def replay(self, failures: Sequence[int]) -> Schedule:
        """The policy's schedule in scenario f."""
        return replay(self.policy, failures)

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """Makespans of `count` scenarios drawn from the failure model."""
        return sample_makespans(self.policy, rng, count)

    def rows(self) -> list[dict[str, Any]]:
        """The table, one row per node: done jobs, running (job, p, remaining), the jobs that
        have just failed (with memory), the attempts started (job, p)."""
        out = []
        for node, action in sorted(self.table.items(), key=lambda kv: repr(kv[0])):
            (mask, running), failed = (node, 0) if not self.memory else node  # type: ignore
            row: dict[str, Any] = {
                "done": [j for j in range(self.problem.n) if mask >> j & 1],
                "running": [[j, p, self.problem.to_time(r)] for j, p, r in running],
            }
            if self.memory:
                row["failed"] = [j for j in range(self.problem.n) if failed >> j & 1]
            row["start"] = [[j, self.problem.modes[j][k].p] for j, k in action]
            out.append(row)
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"expected_makespan": self.value, "states": len(self.table)}
        if self.memory:
            out["memory"] = self.memory
        out["policy"] = self.rows()
        return out

    def lines(self) -> list[str]:
        """The first decision and the size of the table."""
        first = self.decision()
        start = ", ".join(f"job {j} on {p}" for j, p in first) or "nothing"
        value = readable(float(self.value))
        return [f"the policy's expected makespan over the failure model: {value}",
                f"time 0: start {start}",
                f"decision table: {len(self.table)} states reached by the policy "
                "(--json lists them)"]
