"""The state space of the online scheduling Markov decision process (issue 26).

A *state* is a decision epoch: time 0, or the end of one or more attempts. It holds the jobs
done D (a bit mask) and the running attempts R, each as ``(job, p, remaining)`` with the
remaining time in scaled units (`resilsched.models.online.problem`), sorted by job; the other
jobs wait. Absolute time is not part of it: the value of a state is the expected time from it
to the end of the last job (the makespan to go), which only depends on D and R because failures
are independent from attempt to attempt (geometric, memoryless).

An *action* starts a set of waiting jobs, each in one of its modes, on the free processors.
Idling is allowed (start nothing, or fewer jobs than fit), except when nothing runs: a state
where nothing runs and nothing starts would never change. After the action, time advances by
delta = the smallest remaining time; the attempts ending then (the set E) each succeed with
probability 1 - q_j or fail and wait again. The outcome with no success keeps D: it is the
action's *in-level* successor (a level is a set D). Every other outcome adds to D.

`explore` lists every state reachable from time 0 under any policy, with all its actions and
outcomes, in flat arrays (a few hundred thousand states take about a minute in Python); the
exploration checks the deadline and refuses to grow beyond `max_states`.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from resilsched.models.online.problem import OnlineProblem

#: A state: (done mask, running attempts ((job, p, remaining), ...) sorted by job).
State = tuple[int, tuple[tuple[int, int, int], ...]]
#: An action: the attempts started, ((job, mode index), ...) in increasing job.
Action = tuple[tuple[int, int], ...]

INITIAL: State = (0, ())


class SpaceTooLarge(Exception):
    """The exploration reached its cap on the number of states."""

    def __init__(self, reached: int):
        super().__init__(reached)
        self.reached = reached


class OutOfTime(Exception):
    """The deadline passed during a phase that cannot return a partial answer."""


@dataclass
class Step:
    """One action applied to a state: time advance, ending jobs, and the state the attempts
    still running are in (the successors differ only by the jobs added to D)."""

    delta: int
    ended: int
    rest: tuple[tuple[int, int, int], ...]


def step(problem: OnlineProblem, state: State, action: Action) -> Step:
    """The transition of `action` from `state` (not checked: the caller's action is valid)."""
    _, running = state
    modes = problem.modes
    entries = list(running)
    for j, k in action:
        m = modes[j][k]
        entries.append((j, m.p, m.t))
    delta = min(e[2] for e in entries)
    ended = 0
    rest = []
    for j, p, r in entries:
        if r == delta:
            ended |= 1 << j
        else:
            rest.append((j, p, r - delta))
    rest.sort()
    return Step(delta, ended, tuple(rest))


def successes(ended: int) -> Iterator[int]:
    """Every subset S of `ended` (a bit mask), the empty one last."""
    s = ended
    while s:
        yield s
        s = (s - 1) & ended
    yield 0


def waiting_mask(problem: OnlineProblem, state: State) -> int:
    done, running = state
    busy = done
    for j, _, _ in running:
        busy |= 1 << j
    return ((1 << problem.n) - 1) & ~busy


def free_processors(problem: OnlineProblem, state: State) -> int:
    return problem.P - sum(p for _, p, _ in state[1])


class ActionLister:
    """Every action of a state: the subsets of the waiting jobs, each job in one of its modes,
    that fit on the free processors (memoised by (waiting jobs, free processors))."""

    def __init__(self, problem: OnlineProblem):
        self.problem = problem
        self.memo: dict[tuple[int, int], list[Action]] = {}

    def __call__(self, state: State) -> list[Action]:
        waiting = waiting_mask(self.problem, state)
        free = free_processors(self.problem, state)
        key = (waiting, free)
        hit = self.memo.get(key)
        if hit is None:
            hit = self._list(waiting, free)
            self.memo[key] = hit
        if not state[1]:  # nothing runs: something must start
            return [a for a in hit if a]
        return hit

    def _list(self, waiting: int, free: int) -> list[Action]:
        jobs = [j for j in range(self.problem.n) if waiting >> j & 1]
        modes = self.problem.modes
        out: list[Action] = []

        def grow(i: int, chosen: list[tuple[int, int]], cap: int) -> None:
            if i == len(jobs):
                out.append(tuple(chosen))
                return
            grow(i + 1, chosen, cap)
            j = jobs[i]
            for k, m in enumerate(modes[j]):
                if m.p <= cap:
                    chosen.append((j, k))
                    grow(i + 1, chosen, cap - m.p)
                    chosen.pop()

        grow(0, [], free)
        return out


@dataclass
class StateSpace:
    """Every reachable state with its actions and outcomes, in flat arrays.

    State i is ``states[i]``; its actions are ``act_lo[i] <= a < act_lo[i + 1]``. Action a
    starts ``actions[a]``, advances ``delta[a]`` units, ends the jobs of ``ended[a]``; its
    in-level successor (every ending job fails) is ``fail[a]``, its other outcomes are
    ``out_lo[a] <= o < out_lo[a + 1]``: successor ``out_state[o]`` when the jobs of
    ``out_mask[o]`` succeed. A terminal state (every job done) has no action.
    """

    problem: OnlineProblem
    states: list[State] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict)
    act_lo: array = field(default_factory=lambda: array("q"))
    actions: list[Action] = field(default_factory=list)
    delta: array = field(default_factory=lambda: array("q"))
    ended: array = field(default_factory=lambda: array("q"))
    fail: array = field(default_factory=lambda: array("q"))
    out_lo: array = field(default_factory=lambda: array("q"))
    out_state: array = field(default_factory=lambda: array("q"))
    out_mask: array = field(default_factory=lambda: array("q"))

    @property
    def size(self) -> int:
        return len(self.states)

    @property
    def transitions(self) -> int:
        """Outcomes of all actions (the in-level ones included)."""
        return len(self.out_state) + len(self.actions)

    def level(self, i: int) -> int:
        """|D| of state i."""
        return self.states[i][0].bit_count()

    def actions_of(self, i: int) -> range:
        return range(self.act_lo[i], self.act_lo[i + 1])


def explore(problem: OnlineProblem, max_states: int,
            expired: Callable[[], bool] = lambda: False) -> StateSpace:
    """The reachable state space (breadth first from time 0).

    Raises `SpaceTooLarge` when more than `max_states` states are found and `OutOfTime` when
    `expired()` turns true (checked every 16 states).
    """
    space = StateSpace(problem)
    lister = ActionLister(problem)
    states, index = space.states, space.index
    act_lo, actions, delta, ended_a, fail = (space.act_lo, space.actions, space.delta,
                                             space.ended, space.fail)
    out_lo, out_state, out_mask = space.out_lo, space.out_state, space.out_mask
    full = (1 << problem.n) - 1
    states.append(INITIAL)
    index[INITIAL] = 0
    # a step depends on the running attempts and the action, not on the jobs done: memoised
    steps: dict[tuple, tuple[Step, list[int]]] = {}
    i = 0
    while i < len(states):
        if not i & 15 and expired():
            raise OutOfTime
        state = states[i]
        act_lo.append(len(actions))
        done = state[0]
        if done != full:
            running = state[1]
            for action in lister(state):
                hit = steps.get((running, action))
                if hit is None:
                    st = step(problem, state, action)
                    hit = steps[(running, action)] = (st, list(successes(st.ended)))
                st, subsets = hit
                actions.append(action)
                delta.append(st.delta)
                ended_a.append(st.ended)
                out_lo.append(len(out_state))
                rest = st.rest
                for s in subsets:
                    key = (done | s, rest)
                    k = index.get(key)
                    if k is None:
                        k = len(states)
                        if k >= max_states:
                            raise SpaceTooLarge(k)
                        index[key] = k
                        states.append(key)
                    if s:
                        out_state.append(k)
                        out_mask.append(s)
                    else:
                        fail.append(k)
        i += 1
    act_lo.append(len(actions))
    out_lo.append(len(out_state))
    return space
