"""The exact horizon model of the desktop family in OR-Tools CP-SAT (spec 004 §7.1).

Minimises the horizon lambda over allocations that respect the rule the instance names (the
model E1-E6 of `resilsched.models.desktop.common`), all intervals k = 1..K_i of the trace
available. Phases, all within ``time_limit``: lower bound (LB_big, LB_cap, spec 7.2), incumbent
(the best heuristic allocation that fits in a quarter of the time), model building (skipped, with
the incumbent returned as FEASIBLE, when the model would exceed ``max_vars`` admissible x_jik or
could not be built in the time left), search (hinted with the incumbent, lambda <= incumbent),
check of the allocation by the independent validator. ``optimal`` only with CP-SAT's proof.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from resilsched.models.desktop.common import (
    HorizonData,
    HorizonOptions,
    solve_with,
)
from resilsched.solution import Solution, Status
from resilsched.solvers import cpsat_solver, run_cpsat

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

METHOD = "cpsat"


def add_assignment(m: cp_model.CpModel, data: HorizonData) -> dict:
    """x_jik and (E1): every job in exactly one admissible interval."""
    x = {p: m.NewBoolVar(f"x{p}") for p in data.pairs}
    by_job: dict[int, list] = {}
    for (j, _i, _k), var in x.items():
        by_job.setdefault(j, []).append(var)
    for j in range(data.instance.n):
        m.AddExactlyOne(by_job.get(j, []))
    return x


def add_intervals(m: cp_model.CpModel, data: HorizonData, x: dict, lam: Any) -> dict:
    """S, M, y per interval with (E2)-(E6)."""
    terms: dict[tuple[int, int], list] = {}
    for (j, i, k), var in x.items():
        terms.setdefault((i, k), []).append((j, var))
    S, M = {}, {}
    for i, a in enumerate(data.a):
        for k, ak in enumerate(a):
            S[i, k] = m.NewIntVar(0, ak, f"S{i},{k}")
            M[i, k] = m.NewIntVar(0, ak // 2 if data.slack else ak, f"M{i},{k}")
            y = m.NewBoolVar(f"y{i},{k}")
            tv = terms.get((i, k), [])
            m.Add(S[i, k] == sum(data.t(i, j) * var for j, var in tv))  # (E2)
            for j, var in tv:
                if data.slack:
                    m.Add(M[i, k] >= data.t(i, j)).OnlyEnforceIf(var)  # (E3)
                m.AddImplication(var, y)  # (E5)
            if not tv:
                m.Add(y == 0)
            q = data.q[i][k]
            if data.slack:
                m.Add(lam >= q * y + S[i, k] + M[i, k])  # (E6)
            else:
                m.Add(lam >= q * y + S[i, k])
    if data.slack:
        for i, a in enumerate(data.a):
            for k, ak in enumerate(a):
                for kk in (k, k + 1, k + 2):
                    if kk < len(a):
                        m.Add(S[i, k] + M[i, kk] <= ak)  # (E4)
    return S


def solve(instance, scenario: Any = None, *, time_limit: float | None = None,
          **options: Any) -> Solution:
    """Minimum horizon under the instance's rule (CP-SAT; spec 7.1)."""
    return solve_with(instance, time_limit, options, METHOD, "cp-sat", "model", _search)


def _search(data: HorizonData, lb: int, ub: int, best: Any, opts: HorizonOptions,
            info: dict) -> tuple[Status, dict | None, int | None]:
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    lam = m.NewIntVar(min(lb, ub), ub, "lambda")
    x = add_assignment(m, data)
    add_intervals(m, data, x, lam)
    m.Minimize(lam)
    if best is not None:
        where = best.placement()
        for (j, i, k), var in x.items():
            m.AddHint(var, where.get(j) == (i, k + 1))
    # desktop's budget is the time left on the clock (decision T26)
    solver = cpsat_solver(opts, "desktop", seconds=max(0.01, opts.deadline.remaining()))
    opts.say("search (CP-SAT)")
    run = run_cpsat(solver, m)
    info["cp_sat_status"] = run.solver_status
    if not run.has_solution:
        return run.status, None, None
    chosen: dict = {}
    for (j, i, k), var in x.items():
        if solver.BooleanValue(var):
            chosen.setdefault((i, k), []).append(j)
    bound = None if run.bound is None else int(-(-run.bound // 1))
    return run.status, chosen, bound
