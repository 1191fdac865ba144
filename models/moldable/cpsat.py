"""The CP-SAT model of the moldable family (spec 000 §1.5, §8 "models/"), one builder per part.

Job j runs m_j = f_j + 1 attempts; attempt k has a start and an end variable and picks one
allocation p among the candidates of `resilsched.models.moldable.data` (one optional interval of
length t_j(p) and demand p per candidate, `AddExactlyOne` of the presences, shared start/end).

- `add_attempt_intervals`: the variables above;
- `add_attempt_chains`: end(j, k) <= start(j, k+1) (§1.5 item 2);
- `add_capacity`: one cumulative of capacity P over every optional interval (§1.5 item 1; exact
  for identical, non-contiguous processors, §1.2);
- `add_makespan`: C >= end of every last attempt, C >= ceil(L') (a valid cut), minimise C
  (Eq. 1);
- `add_hint`: a complete solution hint, the incumbent's allocations re-run by LIST in scaled
  times;
- `read_schedule`: the attempt-level schedule of a CP-SAT solution in true times.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from resilsched.deadline import Deadline
from resilsched.heuristics.engine import run_engine
from resilsched.heuristics.moldable.listsched import ListPolicy
from resilsched.models.moldable.data import (
    OutOfTime,
    ScaledMoldable,
    horizon_scaled,
    lower_bound_scaled,
)
from resilsched.schedule import Attempt, Schedule

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


@dataclass
class AttemptVars:
    """start[j][k], end[j][k], choice[j][k] = [(p, presence literal), ...], and C."""

    start: list[list[cp_model.IntVar]]
    end: list[list[cp_model.IntVar]]
    choice: list[list[list[tuple[int, cp_model.IntVar]]]]
    intervals: list[tuple[cp_model.IntervalVar, int]]
    makespan: cp_model.IntVar


def add_attempt_intervals(model: cp_model.CpModel, data: ScaledMoldable,
                          deadline: Deadline) -> AttemptVars:
    """One start/end per attempt, one optional interval per candidate p, ExactlyOne (§8)."""
    H = horizon_scaled(data)
    start, end, choice, intervals = [], [], [], []
    for j, (opts, m) in enumerate(zip(data.options, data.m, strict=True)):
        if deadline.expired():
            raise OutOfTime("model building")
        s_row, e_row, c_row = [], [], []
        for k in range(m):
            s = model.new_int_var(0, H, f"s_{j}_{k}")
            e = model.new_int_var(0, H, f"e_{j}_{k}")
            cands = []
            for p, t, _ in opts:
                x = model.new_bool_var(f"x_{j}_{k}_{p}")
                intervals.append((model.new_optional_interval_var(s, t, e, x, ""), p))
                cands.append((p, x))
            model.add_exactly_one(x for _, x in cands)
            s_row.append(s)
            e_row.append(e)
            c_row.append(cands)
        start.append(s_row)
        end.append(e_row)
        choice.append(c_row)
    return AttemptVars(start, end, choice, intervals, model.new_int_var(0, H, "makespan"))


def add_attempt_chains(model: cp_model.CpModel, v: AttemptVars) -> None:
    """end(j, k) <= start(j, k+1): attempts of a job run one after the other (§1.5 item 2)."""
    for s_row, e_row in zip(v.start, v.end, strict=True):
        for k in range(len(s_row) - 1):
            model.add(e_row[k] <= s_row[k + 1])


def add_capacity(model: cp_model.CpModel, data: ScaledMoldable, v: AttemptVars) -> None:
    """Sum of the allocations of running attempts <= P at every instant (§1.5 item 1)."""
    model.add_cumulative([itv for itv, _ in v.intervals], [p for _, p in v.intervals], data.P)


def add_makespan(model: cp_model.CpModel, data: ScaledMoldable, v: AttemptVars) -> None:
    """C >= end of every last attempt (Eq. 1) and C >= ceil(L') (§2.2, a valid cut); min C."""
    for e_row in v.end:
        model.add(v.makespan >= e_row[-1])
    model.add(v.makespan >= lower_bound_scaled(data))
    model.minimize(v.makespan)


def add_hint(model: cp_model.CpModel, data: ScaledMoldable, v: AttemptVars,
             failures: tuple[int, ...], allocation: list[list[int]]) -> int | None:
    """A complete solution hint: LIST with the incumbent's allocations, in scaled times.

    LIST (LPT) with attempt k of job j on ``allocation[j][k - 1]`` processors, re-run with the
    scaled integer durations, is a feasible schedule of the model; its starts, ends, choices
    and makespan are hinted. Returns the hinted makespan, or None (no hint) when an allocation
    is not offered.
    """
    length = [{p: t for p, t, _ in opts} for opts in data.options]
    if any(p not in length[j] for j in range(len(length)) for p in allocation[j]):
        return None
    policy = ListPolicy(lambda j, k: allocation[j][k - 1],
                        lambda j, k: length[j][allocation[j][k - 1]], range(len(length)))
    res = run_engine(data.P, failures, lambda j, p: length[j][p], policy, exact=True)
    assert res.attempts is not None
    for a in res.attempts:
        j, k = a.job, a.k - 1
        model.add_hint(v.start[j][k], a.start)
        model.add_hint(v.end[j][k], a.end)
        for p, x in v.choice[j][k]:
            model.add_hint(x, p == a.p)
    model.add_hint(v.makespan, res.makespan)
    return res.makespan


def read_schedule(solver: cp_model.CpSolver, data: ScaledMoldable, v: AttemptVars,
                  failures: tuple[int, ...]) -> Schedule:
    """The schedule of the solver's best solution, in true times.

    Exact scaling: starts and ends are the scaled values divided by the scale (ints or
    Fractions). Rounded scaling: starts are scaled values / scale (floats) and each attempt
    lasts its true float time, which is at most its rounded-up length, so the schedule stays
    feasible.
    """
    attempts = []
    for j, (opts, rows) in enumerate(zip(data.options, v.choice, strict=True)):
        true = {p: t for p, _, t in opts}
        scaled = {p: t for p, t, _ in opts}
        for k, cands in enumerate(rows):
            p = next(p for p, x in cands if solver.boolean_value(x))
            s = solver.value(v.start[j][k])
            if data.exact:
                begin, finish = to_time(s, data.scale), to_time(s + scaled[p], data.scale)
            else:
                begin = s / data.scale
                finish = begin + float(true[p])
            attempts.append(Attempt(j, k + 1, begin, finish, p, k < failures[j]))
    return Schedule(tuple(attempts), max(a.end for a in attempts if not a.failed))


def to_time(value: int, scale: int) -> int | Fraction:
    """A scaled integer time back in true units (an int when integral)."""
    fr = Fraction(value, scale)
    return int(fr) if fr.denominator == 1 else fr
