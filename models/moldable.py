"""Exact CP-SAT models of the moldable family (spec 000 §1.5, §8 "models/").

* `solve_scenario` — the clairvoyant optimum T_OPT(J, f) of a known failure scenario (§1.5,
  §1.6): job j runs m_j = f_j + 1 attempts chained end(j,m) <= start(j,m+1); each attempt picks
  its own allocation p on the job's time-Pareto front (an optional interval of length t_j(p) and
  demand p per candidate, `AddExactlyOne` of the presences, shared start/end variables); all
  optional intervals share one cumulative of capacity P (exact for identical, non-contiguous
  processors, §1.2); minimise C >= end(j, m_j) (Eq. 1).
* `solve_failure_free` — the same model with m_j = 1 (the failure-free moldable optimum).
* `expected_ratio` — Eq. 4 on tiny instances by enumerating the scenarios with sum_j f_j <= F,
  weighting T_ALG / T_OPT by Q(f), and reporting the truncated mass 1 - sum Q(f).

Only allocations on the time-Pareto front are offered: any other p is dominated (some p' < p is
at least as fast, with a smaller area and demand), so replacing it keeps a schedule feasible and
its makespan unchanged (§1.3 item 7).

Times are scaled to integers by the LCM of their denominators (`resilsched.numeric.
integer_scale`); when the times have no exact small scale (irrational powers, floats), they are
rounded UP: the schedule found stays feasible with the true durations, its true makespan is
reported, the bound is L' only and the status is at best FEASIBLE (``exact_scaling=False``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ortools.sat.python import cp_model

from resilsched.instances.failures import Scenario, enumerate_scenarios
from resilsched.numeric import integer_scale
from resilsched.schedule import Attempt, Schedule, SchedulePayload
from resilsched.solution import Solution, Status

SOLVER = "cp-sat"
MAX_SCALE = 10**6


@dataclass(frozen=True)
class ScaledMoldable:
    """Candidate allocations and integer times per job (scale applied)."""

    P: int
    options: tuple[tuple[tuple[int, int], ...], ...]  # per job: ((p, scaled t), ...)
    m: tuple[int, ...]
    scale: int
    exact: bool


def _front_exact(instance, j: int) -> list[tuple[int, Any]]:
    """Time-Pareto front of job j from the exact scalar times (strict prefix minima)."""
    out: list[tuple[int, Any]] = []
    best = None
    for p in range(1, instance.P + 1):
        t = instance.time(j, p)
        if best is None or t < best:
            out.append((p, t))
            best = t
    return out


def scale_instance(instance, scenario: Scenario, max_scale: int = MAX_SCALE) -> ScaledMoldable:
    """Integer times for CP-SAT (see the module docstring)."""
    fronts = [_front_exact(instance, j) for j in range(instance.n)]
    values = [t for fr in fronts for _, t in fr]
    scale, exact = integer_scale(values, max_scale=max_scale)
    opts = []
    for fr in fronts:
        row = []
        for p, t in fr:
            if exact:
                v = (t if isinstance(t, (int, Fraction))
                     else Fraction(t).limit_denominator(max_scale))
                row.append((p, int(v * scale)))
            else:
                row.append((p, max(1, math.ceil(float(t) * scale * (1 - 1e-12)))))
        opts.append(tuple(row))
    return ScaledMoldable(instance.P, tuple(opts), tuple(f + 1 for f in scenario.failures),
                          scale, exact)


def lower_bound_scaled(data: ScaledMoldable) -> int:
    """ceil(L') in scaled units: max(max_j m_j t_min,j, ceil(sum_j m_j a_min,j / P)) (§2.2)."""
    chain = max(m * min(t for _, t in o) for m, o in zip(data.m, data.options, strict=True))
    area = sum(m * min(p * t for p, t in o) for m, o in zip(data.m, data.options, strict=True))
    return max(chain, -(-area // data.P))


def horizon_scaled(data: ScaledMoldable) -> int:
    """All attempts one after the other at their fastest allocation: a feasible makespan."""
    return sum(m * min(t for _, t in o) for m, o in zip(data.m, data.options, strict=True))


@dataclass
class AttemptVars:
    start: list[list[cp_model.IntVar]]
    end: list[list[cp_model.IntVar]]
    choice: list[list[list[tuple[int, int, cp_model.IntVar]]]]
    makespan: cp_model.IntVar


def add_attempt_intervals(model: cp_model.CpModel, data: ScaledMoldable, H: int) -> AttemptVars:
    """One start/end per attempt, one optional interval per candidate p, ExactlyOne (§8)."""
    start, end, choice = [], [], []
    for j, (opts, m) in enumerate(zip(data.options, data.m, strict=True)):
        s_row, e_row, c_row = [], [], []
        for k in range(m):
            s = model.new_int_var(0, H, f"s_{j}_{k}")
            e = model.new_int_var(0, H, f"e_{j}_{k}")
            cands = []
            for p, t in opts:
                x = model.new_bool_var(f"x_{j}_{k}_{p}")
                itv = model.new_optional_interval_var(s, t, e, x, f"i_{j}_{k}_{p}")
                cands.append((p, t, x, itv))
            model.add_exactly_one(c[2] for c in cands)
            s_row.append(s)
            e_row.append(e)
            c_row.append(cands)
        start.append(s_row)
        end.append(e_row)
        choice.append(c_row)
    mk = model.new_int_var(0, H, "makespan")
    return AttemptVars(start, end, choice, mk)


def add_attempt_chains(model: cp_model.CpModel, v: AttemptVars) -> None:
    """end(j, k) <= start(j, k+1): attempts of a job run one after the other (§1.5 item 2)."""
    for s_row, e_row in zip(v.start, v.end, strict=True):
        for k in range(len(s_row) - 1):
            model.add(e_row[k] <= s_row[k + 1])


def add_capacity(model: cp_model.CpModel, data: ScaledMoldable, v: AttemptVars) -> None:
    """sum of the allocations of running attempts <= P at every instant (§1.5 item 1)."""
    intervals, demands = [], []
    for row in v.choice:
        for cands in row:
            for p, _, _, itv in cands:
                intervals.append(itv)
                demands.append(p)
    model.add_cumulative(intervals, demands, data.P)


def add_makespan(model: cp_model.CpModel, data: ScaledMoldable, v: AttemptVars) -> None:
    """C >= end of every last attempt (Eq. 1) and C >= ceil(L') (§2.2, a valid cut)."""
    for e_row in v.end:
        model.add(v.makespan >= e_row[-1])
    model.add(v.makespan >= lower_bound_scaled(data))
    model.minimize(v.makespan)


def _to_time(value: int, data: ScaledMoldable) -> Any:
    if not data.exact:
        return value / data.scale
    fr = Fraction(value, data.scale)
    return int(fr) if fr.denominator == 1 else fr


def _solve(instance, scenario: Scenario, method: str, time_limit: float, workers: int) -> Solution:
    from resilsched.bounds.moldable import L_prime

    t0 = time.perf_counter()
    data = scale_instance(instance, scenario)
    H = horizon_scaled(data)
    model = cp_model.CpModel()
    v = add_attempt_intervals(model, data, H)
    add_attempt_chains(model, v)
    add_capacity(model, data, v)
    add_makespan(model, data, v)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.0, float(time_limit))
    solver.parameters.num_workers = max(1, min(2, int(workers)))
    code = solver.solve(model)
    wall = time.perf_counter() - t0
    lprime = L_prime(instance, scenario)
    info = {"cp_sat_status": solver.status_name(code), "attempts": sum(data.m),
            "candidate_intervals": sum(m * len(o)
                                       for m, o in zip(data.m, data.options, strict=True))}
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        status = Status.INFEASIBLE if code == cp_model.INFEASIBLE else Status.NO_SOLUTION
        return Solution(None, lprime, status, method, SOLVER, wall, data.scale, data.exact,
                        {"info": info})
    attempts = []
    f = scenario.failures
    for j in range(instance.n):
        for k in range(data.m[j]):
            p = next(p for p, _, x, _ in v.choice[j][k] if solver.value(x))
            s = _to_time(solver.value(v.start[j][k]), data)
            if not data.exact:
                s = float(s)
            t = instance.time(j, p) if data.exact else float(instance.duration(j, p))
            attempts.append(Attempt(j, k + 1, s, s + t, p, k < f[j]))
    sched = Schedule(tuple(attempts), max(a.end for a in attempts if not a.failed))
    if data.exact:
        objective = _to_time(int(solver.objective_value), data)
        bound = _to_time(max(math.ceil(solver.best_objective_bound - 1e-9),
                             lower_bound_scaled(data)), data)
        bound = min(bound, objective)
        status = Status.OPTIMAL if code == cp_model.OPTIMAL else Status.FEASIBLE
    else:
        objective = sched.makespan
        bound = lprime
        status = Status.FEASIBLE
    return Solution(objective, bound, status, method, SOLVER, wall, data.scale, data.exact,
                    SchedulePayload(sched, info))


def solve_scenario(instance, scenario: Scenario | Sequence[int] | None = None,
                   time_limit: float = 60.0, workers: int = 2) -> Solution:
    """Clairvoyant optimum T_OPT(J, f), allocation chosen per attempt (§1.5, §8).

    Returns a `Solution`: ``status`` OPTIMAL only when CP-SAT proved it on exactly scaled times;
    ``bound`` a proven lower bound (>= ceil(L')); ``payload.schedule`` the schedule.
    """
    return _solve(instance, instance.scenario(scenario), "cpsat-scenario", time_limit,
                  workers)


def solve_failure_free(instance, time_limit: float = 60.0, workers: int = 2) -> Solution:
    """Failure-free moldable optimum (one attempt per job), §8."""
    return _solve(instance, Scenario.failure_free(instance.n), "cpsat-failure-free", time_limit,
                  workers)


def expected_ratio(instance, heuristic: str, priority: str = "LPT", lam: float | None = None,
                   max_total_failures: int = 2, time_limit: float = 10.0) -> dict[str, Any]:
    """Eq. 4 by enumeration: sum over scenarios with sum f <= F of Q(f) T_ALG(f) / T_OPT(f).

    Returns ``{"expected_ratio", "covered_mass", "truncated_mass", "scenarios", "all_optimal"}``;
    the true expectation lies in [expected_ratio, expected_ratio + truncated_mass * r_max] for
    any bound r_max on the ratio.
    """
    from resilsched.heuristics.moldable import simulate

    q = [float(x) for x in instance.q(lam)]
    total, mass, count, all_opt = 0.0, 0.0, 0, True
    for sc, prob in enumerate_scenarios(q, max_total_failures):
        alg = simulate(instance, sc, heuristic, priority).objective
        sol = solve_scenario(instance, sc, time_limit=time_limit)
        all_opt &= sol.is_optimal
        total += float(prob) * float(alg) / float(sol.objective)
        mass += float(prob)
        count += 1
    return {"expected_ratio": total, "covered_mass": mass, "truncated_mass": 1.0 - mass,
            "scenarios": count, "all_optimal": all_opt}
