"""Better schedules for the exact models: knapsack list schedules, forward-backward passes and
time-window rounds [OURS] (decisions R30, R33, R34).

On the paper's instances (n = 100 narrow jobs, p_j <= P/5) the list heuristics stay 1.4-5.9 %
and CP-SAT's 60 s 1.6-2.1 % above the area bound, while the preemptive relaxations (the
configuration LP, the dual-feasible functions) are at the area bound itself: the interval is in
the schedules. They lose processors at every event: the greedy start of the first fitting jobs
leaves a residue of free processors that no waiting job fills until the next end. Two moves
close most of it, both on a `ScaledScenario` in integer arithmetic:

* `knapsack_list` — a non-delay list schedule that, at every event, starts the set of ready
  jobs of most value among those that fit in the free processors (an exact 0/1 knapsack over
  the free capacity, `resilsched.models.rigid.config_lp.knapsack_max`): the value of a job is
  its width, raised for jobs with long remaining chains (so that they start early) and lowered
  for the narrowest jobs (kept to fill the small holes later), with a seeded random weight per
  job; from a cut of a schedule on, it is the recreate step of a ruin-and-recreate move;
* `forward_backward` — the forward-backward improvement of project scheduling (Li and Willis
  1992, "justification"): the schedule is rebuilt by the serial schedule-generation scheme
  (`serial_schedule`: each attempt, in a list order, at the earliest time it fits in the
  profile of the attempts placed before it) mirrored in time with the attempts taken by their
  latest end, then forward with the attempts taken by their earliest start; repeated while the
  makespan falls (a pass is kept only then, so the result is never longer).

* `window_recreate` — ruin and recreate of one time window (decision R33): the attempts that
  begin in it are rebuilt by `knapsack_list` over the profile of the earlier ones, and the
  later part of the schedule, kept in its order, slides into what the window frees.

`improve_schedule` alternates fresh, mirrored and ruin-and-recreate rounds from seeded random
parameters, then, once they have settled, window rounds (which may pull a few later attempts
into their window), until its deadline or round cap, on large scenarios restarting from the
incumbent whenever the window rounds stall (decision R34), and returns the best schedule
found. The serial scheme runs in C when built (`resilsched.models.rigid.cserial`).
Every schedule is feasible by construction (capacity and
chains are checked as each attempt is placed); tests/models/rigid/test_improve.py checks them with
the family's validator.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import numpy as np

from resilsched.deadline import Deadline
from resilsched.models.rigid import cserial
from resilsched.models.rigid.config_lp import knapsack_max
from resilsched.models.rigid.greedy import makespan_of
from resilsched.models.rigid.scaling import ScaledScenario

#: Fewest attempts the exact models improve schedules for (below, CP-SAT and the refutation
#: search find the optimum faster than the rounds would run).
MIN_ATTEMPTS = 40
#: Most attempts the improvement phase takes: one serial pass costs O(A x events), 4 ms at
#: 100 attempts on a loaded machine, so about 1.6 s at 2000.
MAX_ATTEMPTS = 2_000
_NEVER = cserial.NEVER  # later than any time of a scaled scenario
#: Rounds without a better schedule after which `improve_schedule` stops (by default).
STALL_ROUNDS = 5000
#: ... on the exact models' smaller scenarios, whose time is better spent in CP-SAT and the
#: refutation search (`resilsched.models.rigid.budget.LARGE_ATTEMPTS`).
STALL_ROUNDS_SMALL = 100
#: Knapsack values: the bonus factors for a long remaining chain, drawn per round.
_CHAIN_BONUS = (0.3, 1.0, 2.0, 3.0, 5.0, 10.0)
#: ... the spread of the random per-job weight of that bonus, and the narrow-job penalties.
_NOISE = (0.0, 0.5, 1.0)
_NARROW = (0.0, 0.5, 2.0)
#: Of every `_CYCLE` rounds, one is a fresh knapsack list schedule, one the same mirrored,
#: the others a ruin-and-recreate move on the best schedule, cut at a fraction `_CUT` of
#: its makespan.
_CYCLE = 3
_CUT = (0.2, 0.95)
#: Rounds of the first stage without progress after which `improve_schedule` turns to window
#: rounds (it settles within a few hundred rounds on the paper's instances, decision R30) ...
SWITCH_STALL = 300
#: ... whose windows begin before `_WINDOW_AT` of the makespan and last a fraction `_WINDOW`.
_WINDOW_AT = 0.95
_WINDOW = (0.03, 0.15)
#: A window round pulls 0 to `_PULL` later attempts into its window (uniformly), half of the
#: time among the first later attempts of the `_PULL_TAIL` jobs whose ends come last (decision
#: R34).
_PULL = 3
_PULL_TAIL = 10
#: Window rounds without progress after which `improve_schedule`, when it restarts, begins
#: again from the incumbent (decision R34: 3000 measured better than 1500).
RESTART_STALL = 3000


def serial_schedule(data: ScaledScenario, order: Sequence[int]) -> list[list[int]]:
    """The serial schedule-generation scheme over attempts: `order` lists job j `m_j` times,
    and its k-th occurrence is attempt k of job j, placed at the earliest time at or after the
    end of attempt k - 1 where p_j processors stay free for t_j in the profile of the attempts
    placed before it. Every active schedule is the result of some order.

    Runs in C (`resilsched.models.rigid.cserial`, the same starts) when it is built, else
    `serial_python`.

    >>> from resilsched.models.rigid.scaling import ScaledScenario
    >>> d = ScaledScenario(2, (1, 2, 1), (2, 1, 1), (1, 1, 2), 1, True)
    >>> serial_schedule(d, [0, 1, 2, 2])
    [[0], [2], [0, 1]]
    """
    starts = cserial.serial(data, order)
    return serial_python(data, order) if starts is None else starts


def serial_python(data: ScaledScenario, order: Sequence[int]) -> list[list[int]]:
    """`serial_schedule` in Python (the oracle of the C scheme)."""
    P, p, t = data.P, data.p, data.t
    # breakpoints of the profile, used[i] processors busy on [times[i], times[i+1]); the
    # sentinel `_NEVER` ends every scan
    times: list[int] = [0, _NEVER]
    used: list[int] = [0, 0]
    ready = [0] * data.n
    starts: list[list[int]] = [[] for _ in range(data.n)]
    for j in order:
        cap, tj = P - p[j], t[j]
        s = ready[j]
        i = bisect_right(times, s) - 1
        while True:  # the first window [s, s + t_j) with used <= cap throughout
            end, k = s + tj, i
            while times[k] < end:
                if used[k] > cap:
                    break
                k += 1
            else:
                break
            i = k + 1  # piece k is too full: the window starts at its end at the earliest
            s = times[i]
        a = bisect_left(times, s, i)
        if times[a] != s:
            times.insert(a, s)
            used.insert(a, used[a - 1])
        b = bisect_left(times, end, a)
        if times[b] != end:
            times.insert(b, end)
            used.insert(b, used[b - 1])
        pj = p[j]
        for k in range(a, b):
            used[k] += pj
        starts[j].append(s)
        ready[j] = end
    return starts


def _order(data: ScaledScenario, starts: Sequence[Sequence[int]], backward: bool) -> list[int]:
    """Attempts by start time (forward) or by end time, latest first (backward)."""
    keys = []
    for j, row in enumerate(starts):
        for s in row:
            keys.append((-(s + data.t[j]), j) if backward else (s, j))
    keys.sort()
    return [j for _, j in keys]


def mirrored(data: ScaledScenario, starts: Sequence[Sequence[int]]) -> list[list[int]]:
    """The schedule run backwards: attempt [s, s + t_j) becomes [C - s - t_j, C - s).
    Feasible whenever `starts` is (the attempts of a job are identical, so their chain holds
    in either direction)."""
    mk = makespan_of(data, starts)
    return [sorted(mk - s - data.t[j] for s in row) for j, row in enumerate(starts)]


def forward_backward(data: ScaledScenario, starts: list[list[int]], rounds: int = 20
                     ) -> tuple[int, list[list[int]]]:
    """Forward-backward improvement (module docstring) of a feasible schedule: the best
    (makespan, starts) met, never longer than `starts`."""
    best = (makespan_of(data, starts), starts)
    for _ in range(rounds):
        back = serial_schedule(data, _order(data, best[1], backward=True))
        fwd = serial_schedule(data, _order(data, mirrored(data, back), backward=False))
        mk = makespan_of(data, fwd)
        if mk >= best[0]:
            break
        best = (mk, fwd)
    return best


def knapsack_list(data: ScaledScenario, bonus: float, noise: Sequence[float],
                  narrow_penalty: float, prefix: Sequence[Sequence[int]] | None = None,
                  at: int = 0, until: int | None = None, extra: Sequence[int] = ()
                  ) -> list[list[int]]:
    """Non-delay list schedule that starts, at each event, the most valuable set of ready jobs
    fitting in the free processors (module docstring). Job j's value is
    p_j (1 + bonus noise_j r_j / r_max) - min(narrow_penalty (q - p_j)_+, p_j / 2), r_j its
    remaining chain (attempts left x t_j) and q the 15th percentile of the widths.

    With `prefix` (a feasible schedule) the attempts it starts before `at` are kept and the
    rest is rebuilt from time `at` on (the recreate step of a ruin-and-recreate move). With
    `until` as well, only the attempts `prefix` starts in [at, until) are rebuilt, and those it
    starts later are left out of the result (`window_recreate` places them), but for the
    first of those of each job in `extra`, which is rebuilt too."""
    n, P, p, t = data.n, data.P, data.p, data.t
    q = float(np.percentile(p, 15))
    left = list(data.m)
    r_max = max(mj * tj for mj, tj in zip(data.m, t, strict=True))
    running: list[tuple[int, int]] = []
    starts: list[list[int]] = [[] for _ in range(n)]
    free, now = P, 0
    if prefix is not None:
        for j, row in enumerate(prefix):
            for s in row:
                if s < at:
                    starts[j].append(s)
                    left[j] -= 1
                    if s + t[j] > at:
                        free -= p[j]
                        heapq.heappush(running, (s + t[j], j))
                elif until is not None and s >= until:
                    left[j] -= 1
        for j in extra:
            left[j] += 1
        now = at
    busy = {j for _, j in running}
    ready = {j for j in range(n) if left[j] and j not in busy}
    while ready or running:
        while running and running[0][0] <= now:
            _, j = heapq.heappop(running)
            free += p[j]
            if left[j] and not any(k == j for _, k in running):
                ready.add(j)
        cand = sorted(j for j in ready if p[j] <= free)
        if cand:
            values = [p[j] * (1.0 + bonus * noise[j] * left[j] * t[j] / r_max)
                      - min(narrow_penalty * max(0.0, q - p[j]), 0.5 * p[j]) for j in cand]
            _, chosen = knapsack_max([p[j] for j in cand], values, free)
            if not chosen and not running:  # nothing would run: start the best one
                chosen = [int(np.argmax(values))]
            for i in chosen:
                j = cand[i]
                starts[j].append(now)
                left[j] -= 1
                ready.discard(j)
                free -= p[j]
                heapq.heappush(running, (now + t[j], j))
        if running:
            now = running[0][0]
    return starts


def window_recreate(data: ScaledScenario, starts: Sequence[Sequence[int]], at: int, until: int,
                    bonus: float, noise: Sequence[float], narrow_penalty: float,
                    extra: Sequence[int] = ()) -> list[list[int]]:
    """Ruin and recreate one time window of a feasible schedule: the attempts `starts` begins
    in [at, until) are rebuilt by `knapsack_list` over the profile of those begun before `at`,
    then every attempt is re-placed by `serial_schedule` in the order earlier ones, rebuilt
    ones (by their new start), later ones (by their old start), so that the later part of the
    schedule keeps its order and slides into what the window frees. The first attempt begun at
    or after `until` of each job in `extra` (distinct jobs that have one) is pulled into the
    window: rebuilt with its attempts, it may fill a hole there (decision R34). Feasible by
    construction.

    >>> from resilsched.models.rigid.scaling import ScaledScenario
    >>> d = ScaledScenario(2, (1, 1, 2), (2, 1, 1), (1, 1, 1), 1, True)
    >>> window_recreate(d, [[0], [2], [3]], 0, 3, 0.0, [1.0, 1.0, 1.0], 0.0)
    [[0], [0], [2]]
    """
    window = knapsack_list(data, bonus, noise, narrow_penalty, starts, at, until, extra)
    pulled = {(min(s for s in starts[j] if s >= until), j) for j in extra}
    keys = [(0 if s < at else 1, s, j) for j, row in enumerate(window) for s in row]
    keys += [(2, s, j) for j, row in enumerate(starts) for s in row
             if s >= until and (s, j) not in pulled]
    keys.sort()
    return serial_schedule(data, [j for _, _, j in keys])


def _pull(data: ScaledScenario, starts: Sequence[Sequence[int]], until: int,
          rng: np.random.Generator) -> list[int]:
    """Jobs whose first attempt begun at or after `until` a window round pulls into its window
    (`_PULL`, `_PULL_TAIL`), distinct, drawn from `rng`."""
    k = int(rng.integers(0, _PULL + 1))
    if not k:
        return []
    first: dict[int, int] = {}
    for j, row in enumerate(starts):
        later = [s for s in row if s >= until]
        if later:
            first[j] = later[0]
    jobs = sorted(first, key=lambda j: (-(first[j] + data.t[j]), j))
    if rng.random() < 0.5:
        jobs = jobs[:_PULL_TAIL]
    if not jobs:
        return []
    return [jobs[i] for i in rng.choice(len(jobs), size=min(k, len(jobs)), replace=False)]


def improve_schedule(data: ScaledScenario, incumbent: tuple[int, list[list[int]]],
                     lower: int, deadline: Deadline | None = None, seed: int = 0,
                     max_rounds: int | None = None, stall_rounds: int = STALL_ROUNDS,
                     restart: int | None = None) -> tuple[int, list[list[int]], int]:
    """The best of `incumbent` and of seeded random rounds, each improved by
    `forward_backward`, in two stages. First, of every `_CYCLE` rounds, one fresh
    `knapsack_list` schedule, one the same mirrored, the others ruin and recreate on the best
    schedule so far after a cut; after `SWITCH_STALL` rounds (or `stall_rounds`, if fewer)
    without progress, `window_recreate` rounds on the best schedule, a window of a random
    fraction `_WINDOW` of its makespan beginning anywhere up to `_WINDOW_AT` of it; a window
    round that gives the same makespan replaces the best schedule (a step along the plateau);
    it may pull a few later attempts into its window (`_pull`).

    With `restart` (rounds, e.g. `RESTART_STALL`), a window stage that has made no progress
    for that many rounds does not stop: the search begins again from the incumbent, first
    stage included, the best schedule of every run kept (decision R34). Stops at `deadline`,
    after `max_rounds` rounds in all (the work limit of ``deterministic=True``), without
    `restart` after `stall_rounds` window rounds without progress, or when the makespan meets
    `lower` (a proven bound). Returns (makespan, starts, rounds run).
    Deterministic for a given seed and round count; the random draws come from
    ``numpy.random.default_rng(seed)``.
    """
    first = best = top = forward_backward(data, incumbent[1])  # top: the best of every run
    rng = np.random.default_rng(seed)
    rounds = stall = 0
    windows = False  # the second stage
    while top[0] > lower:
        if not windows and stall >= min(SWITCH_STALL, stall_rounds):
            windows, stall = True, 0
        if restart is not None and windows and stall >= restart:
            best, windows, stall = first, False, 0  # a new run from the incumbent
        if restart is None and stall >= stall_rounds \
                or max_rounds is not None and rounds >= max_rounds \
                or deadline is not None and deadline.expired():
            break
        rounds += 1
        bonus = float(rng.choice(_CHAIN_BONUS))
        spread, narrow = float(rng.choice(_NOISE)), float(rng.choice(_NARROW))
        noise = (1.0 + spread * rng.random(data.n)).tolist()
        kind = rounds % _CYCLE
        if windows:
            at = int(best[0] * rng.uniform(0.0, _WINDOW_AT))
            until = at + max(1, int(best[0] * rng.uniform(*_WINDOW)))
            starts = window_recreate(data, best[1], at, until, bonus, noise, narrow,
                                     _pull(data, best[1], until, rng))
        elif kind >= 2:  # ruin and recreate: keep the best schedule's starts before `at`
            at = int(best[0] * rng.uniform(*_CUT))
            starts = knapsack_list(data, bonus, noise, narrow, best[1], at)
        else:
            starts = knapsack_list(data, bonus, noise, narrow)
            if kind == 1:
                starts = mirrored(data, starts)
        # one pass in the second stage: more rounds in the same time, as good each
        mk, starts = forward_backward(data, starts, 1 if windows else 20)
        if mk < best[0]:
            best, stall = (mk, starts), 0
            top = best if mk < top[0] else top
        else:
            stall += 1
            if windows and mk == best[0]:
                best = (mk, starts)
    return top[0], top[1], rounds
