"""The CP-SAT attempt model of a scaled rigid scenario, one builder per constraint (spec 002 §1.3,
§11.2).

Job j runs m_j = f_j + 1 attempts x_{j,1..m_j}, each an interval of length t_j and demand p_j:
`add_attempt_intervals` (with C), `add_attempt_chains` (Eq. 3), `add_capacity` (Eq. 2),
`add_makespan` (Eq. 1). The strengthened model adds constraints that remove no optimal value,
each proven in its docstring and checked against brute force in tests/models/rigid:
`add_conflict_cliques_no_overlap`, `add_forbidden_set_clauses`, `add_symmetry_breaking`; and a
solution hint (`add_hint`). `build_model` assembles them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from resilsched.deadline import Deadline
from resilsched.models.rigid.greedy import greedy_upper_bound, makespan_of
from resilsched.models.rigid.root_bounds import iter_conflict_cliques, lower_bound_scaled
from resilsched.models.rigid.scaling import ScaledScenario

if TYPE_CHECKING:  # OR-Tools (and the pandas it loads) is imported when a model is built
    from ortools.sat.python import cp_model


@dataclass
class AttemptVars:
    """CP-SAT variables: ``start[j][k]``, ``interval[j][k]`` for attempt k of job j, and C."""

    start: list[list[cp_model.IntVar]]
    interval: list[list[cp_model.IntervalVar]]
    makespan: cp_model.IntVar


def add_attempt_intervals(
    model: cp_model.CpModel, data: ScaledScenario, horizon: int, lower: int
) -> AttemptVars:
    """One fixed-length interval per attempt x_{j,k} (length t_j, §11.2), and C in [lower, horizon].

    Domains are tight but valid: attempt k (0-based) of job j cannot start before k t_j (its
    predecessors run before it) nor after horizon - (m_j - k) t_j (it and its successors must
    end by the horizon, an upper bound on the optimum).
    """
    start, interval = [], []
    for j in range(data.n):
        tj, mj = data.t[j], data.m[j]
        sj, ij = [], []
        for k in range(mj):
            s = model.new_int_var(k * tj, horizon - (mj - k) * tj, f"s_{j}_{k}")
            sj.append(s)
            ij.append(model.new_fixed_size_interval_var(s, tj, f"x_{j}_{k}"))
        start.append(sj)
        interval.append(ij)
    makespan = model.new_int_var(lower, horizon, "C")
    return AttemptVars(start, interval, makespan)


def add_attempt_chains(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """Eq. (3) of §1.3: start(x_{j,k+1}) >= end(x_{j,k}); attempts of a job run one by one."""
    for j in range(data.n):
        for k in range(data.m[j] - 1):
            model.add(v.start[j][k + 1] >= v.start[j][k] + data.t[j])


def add_capacity(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """Eq. (2) of §1.3: one cumulative of capacity P over all attempts, demand p_j.

    Exact for non-contiguous allocation (§1.1, §11.2): sweeping by start time, the processors
    free at a start are always enough, whichever ones they are.
    """
    intervals = [iv for row in v.interval for iv in row]
    demands = [data.p[j] for j in range(data.n) for _ in range(data.m[j])]
    model.add_cumulative(intervals, demands, data.P)


def add_makespan(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """Eq. (1) of §1.3: C >= end of the last (successful) attempt of every job; minimise C."""
    for j in range(data.n):
        model.add(v.makespan >= v.start[j][-1] + data.t[j])
    model.minimize(v.makespan)


def add_conflict_cliques_no_overlap(
    model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars,
    deadline: Deadline | None = None, max_intervals: int | None = None,
) -> list[list[int]]:
    """Redundant NoOverlap over all attempts of each conflict clique (spec 002 §7, §11.2).

    Two attempts of jobs with p_i + p_j > P cannot overlap under the capacity (Eq. 2), and two
    attempts of the same job cannot overlap under the chain (Eq. 3); so the disjunction holds in
    every feasible schedule and removes none. Includes the wide jobs p_j > P/2 of §11.2
    (`add_wide_jobs_no_overlap` is the special case). The cliques can hold a quadratic number
    of intervals in all: they are added largest first (`iter_conflict_cliques`) until
    `deadline` or `max_intervals` intervals (fewer redundant constraints: a weaker model, as
    valid). Returns the cliques used.
    """
    cliques = []
    used = 0
    for clique in iter_conflict_cliques(data.p, data.P):
        size = sum(data.m[j] for j in clique)
        if (deadline is not None and deadline.expired()
                or max_intervals is not None and used + size > max_intervals):
            break
        model.add_no_overlap([iv for j in clique for iv in v.interval[j]])
        cliques.append(clique)
        used += size
    return cliques


def add_wide_jobs_no_overlap(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> None:
    """NoOverlap over the attempts of the jobs with p_j > P/2, as named in §11.2.

    Not used by `build_model`: `add_conflict_cliques_no_overlap` adds it (W is one of the
    cliques) together with the other maximal cliques.
    """
    wide = [iv for j in range(data.n) if 2 * data.p[j] > data.P for iv in v.interval[j]]
    if len(wide) >= 2:
        model.add_no_overlap(wide)


def minimal_forbidden_sets(p: Sequence[int], P: int, max_size: int,
                           deadline: Deadline | None = None, max_steps: int | None = None,
                           max_sets: int | None = None) -> list[tuple[int, ...]]:
    """Sets S of jobs, 2 <= |S| <= max_size, with sum p > P but sum p - min p <= P (minimal),
    by size, then in lexicographic order of the job indices.

    Removing any member of a minimal set brings it within capacity; pairs are the conflict
    pairs of `conflict_cliques`. Enumerated widest job first: a prefix of sum s <= P is closed
    by any narrower job wider than P - s, and extended only while enough width is left to exceed
    P. Stops at `deadline`, after `max_steps` steps or once `max_sets` sets are found (the sets
    found so far are still minimal forbidden sets).
    """
    order = sorted(range(len(p)), key=lambda j: (-p[j], j))
    w = [p[j] for j in order]
    n = len(w)
    found: list[tuple[int, ...]] = []
    steps = 0

    def extend(prefix: list[int], s: int) -> bool:
        """Close or extend `prefix` (positions in `order`); False once the deadline passed."""
        nonlocal steps
        after = max(0, max_size - len(prefix) - 1)  # elements addable after the next one
        for i in range(prefix[-1] + 1, n):
            steps += 1
            if max_steps is not None and steps > max_steps:
                return False
            if steps % 4096 == 0 and deadline is not None and deadline.expired():
                return False
            if s + w[i] > P:
                found.append(tuple(sorted(order[q] for q in [*prefix, i])))
                if max_sets is not None and len(found) >= max_sets:
                    return False
            elif after and s + w[i] + sum(w[i + 1:i + 1 + after]) > P:
                if not extend([*prefix, i], s + w[i]):
                    return False
            else:
                break  # narrower jobs from here on close or extend nothing
        return True

    if max_size >= 2:
        for i in range(n):
            if w[i] + sum(w[i + 1:i + max_size]) <= P:
                break
            if not extend([i], w[i]):
                break
    return sorted(found, key=lambda S: (len(S), S))


def add_forbidden_set_clauses(
    model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars, max_size: int = 3,
    max_clauses: int = 20000, deadline: Deadline | None = None, max_steps: int | None = None,
) -> int:
    """Redundant precedence literals and minimal-forbidden-set clauses [OURS], after the
    forbidden-set view of the capacity constraint (Eq. 2 of §1.3).

    For attempts a, b of different jobs a literal before(a, b) => end(a) <= start(b). For every
    minimal forbidden set S of jobs (sum p > P, |S| <= `max_size`) and every choice of one
    attempt per job of S, the clause "some pair of these attempts is ordered" is added.

    Why no schedule is lost: if the chosen attempts pairwise overlapped, intervals having the
    Helly property, they would share an instant where they use sum_S p > P processors. So some
    pair is disjoint, and setting every before(a, b) to "a ends before b starts" satisfies all
    clauses. The clauses let CP-SAT learn conflicts on orderings (as in disjunctive scheduling),
    which the cumulative alone does not. Stops adding clauses after `max_clauses` or at
    `deadline` (the model stays valid, only weaker). Returns the number of clauses.
    """
    before: dict[tuple[tuple[int, int], tuple[int, int]], cp_model.IntVar] = {}

    def lit(a: tuple[int, int], b: tuple[int, int]) -> cp_model.IntVar:
        if (a, b) not in before:
            x = model.new_bool_var(f"before_{a[0]}_{a[1]}_{b[0]}_{b[1]}")
            model.add(v.start[a[0]][a[1]] + data.t[a[0]] <= v.start[b[0]][b[1]]).only_enforce_if(x)
            before[(a, b)] = x
        return before[(a, b)]

    count = 0
    for S in minimal_forbidden_sets(data.p, data.P, max_size, deadline, max_steps, max_clauses):
        if deadline is not None and deadline.expired():
            return count
        for ks in itertools.product(*[range(data.m[j]) for j in S]):
            if count >= max_clauses:
                return count
            atts = list(zip(S, ks, strict=True))
            lits = []
            for a, b in itertools.combinations(atts, 2):
                lits += [lit(a, b), lit(b, a)]
            model.add_bool_or(lits)
            count += 1
    return count


def symmetry_classes(data: ScaledScenario) -> list[list[int]]:
    """Jobs grouped by equal (p_j, t_j), each group sorted by (m_j, j); groups of size >= 2."""
    groups: dict[tuple[int, int], list[int]] = {}
    for j in range(data.n):
        groups.setdefault((data.p[j], data.t[j]), []).append(j)
    return [sorted(g, key=lambda j: (data.m[j], j)) for g in groups.values() if len(g) >= 2]


def add_symmetry_breaking(model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars) -> int:
    """Order the attempts of jobs with equal (p, t), aligned on their last attempts [OURS].

    For consecutive jobs a, b of a class (m_a <= m_b, d = m_b - m_a) impose
    start(x_{a,k}) <= start(x_{b,d+k}) for k = 1..m_a.

    Why no optimal value is lost: number the attempts of each job from its last one backwards;
    "column" c holds the c-th last attempt of every job of the class that has one, and the jobs
    present in column c+1 are a top segment (largest m) of those in column c. Re-assign, in
    every column, the start times in increasing order to the jobs in class order. The multiset
    of intervals (all of length t and width p) is unchanged, so capacity and makespan are too.
    Chains survive: the r-th job of column c+1 is the (r + delta)-th job of column c, and the
    (r + delta)-th smallest value of column c is at least the r-th smallest among the column-c
    values of column c+1's jobs, each >= that job's column-(c+1) value + t. The re-assigned
    schedule meets every constraint added here. Returns the number of constraints added.
    """
    count = 0
    for cls in symmetry_classes(data):
        for a, b in zip(cls, cls[1:], strict=False):
            d = data.m[b] - data.m[a]
            for k in range(data.m[a]):
                model.add(v.start[a][k] <= v.start[b][d + k])
                count += 1
    return count


def canonical_starts(data: ScaledScenario, starts: list[list[int]]) -> list[list[int]]:
    """The column-sorted schedule of `add_symmetry_breaking` (used to make the hint satisfy it)."""
    out = [list(s) for s in starts]
    for cls in symmetry_classes(data):
        longest = max(data.m[j] for j in cls)
        for c in range(1, longest + 1):  # c-th last attempt
            members = [j for j in cls if data.m[j] >= c]
            values = sorted(out[j][data.m[j] - c] for j in members)
            for j, val in zip(members, values, strict=True):
                out[j][data.m[j] - c] = val
    return out


def add_hint(
    model: cp_model.CpModel, data: ScaledScenario, v: AttemptVars, starts: list[list[int]]
) -> None:
    """Solution hint: the start times of a feasible schedule (the greedy one by default)."""
    for j in range(data.n):
        for k in range(data.m[j]):
            model.add_hint(v.start[j][k], starts[j][k])
    model.add_hint(v.makespan, makespan_of(data, starts))


@dataclass
class BuiltModel:
    """A CP-SAT model with its variables and the facts needed to report the result:
    ``lower`` its root bound, ``horizon`` and ``greedy`` the best known schedule."""

    model: cp_model.CpModel
    vars: AttemptVars
    lower: int
    horizon: int
    greedy: list[list[int]]


def build_model(
    data: ScaledScenario, strengthen: bool = True, hint: list[list[int]] | None = None,
    forbidden_set_size: int = 3, lower: int | None = None, deadline: Deadline | None = None,
    max_steps: int | None = None, upper: tuple[int, list[list[int]]] | None = None,
    max_clauses: int = 20000,
) -> BuiltModel:
    """Assemble the attempt model of §11.2 (plain) or with the redundant constraints.

    `lower` is a proven lower bound (default: `lower_bound_scaled`), `upper` a feasible
    schedule and its makespan (default: `greedy_upper_bound`), `hint` start times of a feasible
    schedule used when better; the optional cliques and clauses stop at `deadline`, the clauses
    also after `max_steps` enumeration steps and `max_clauses` clauses, the cliques after 10
    intervals per attempt.
    """
    from ortools.sat.python import cp_model

    horizon, greedy = greedy_upper_bound(data) if upper is None else upper
    if hint is not None:
        mk = makespan_of(data, hint)
        if mk < horizon:
            horizon, greedy = mk, hint
    if lower is None:
        lower = lower_bound_scaled(data, strengthen, deadline)
    model = cp_model.CpModel()
    v = add_attempt_intervals(model, data, horizon, min(lower, horizon))
    add_attempt_chains(model, data, v)
    add_capacity(model, data, v)
    add_makespan(model, data, v)
    if strengthen:
        # at most 10 intervals per attempt in the cliques (the model's size stays linear)
        add_conflict_cliques_no_overlap(model, data, v, deadline, 10 * sum(data.m) + 100)
        add_symmetry_breaking(model, data, v)
        if forbidden_set_size >= 2:
            add_forbidden_set_clauses(model, data, v, forbidden_set_size, max_clauses,
                                      deadline=deadline, max_steps=max_steps)
        greedy = canonical_starts(data, greedy)
    add_hint(model, data, v, greedy)
    return BuiltModel(model, v, lower, horizon, greedy)
