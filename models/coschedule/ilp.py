"""The k-in-p ILP of Theorem 1.5 (spec 001 §2.3, Method 2) and a stronger variant, in Pyomo.

Paper formulation ``kinp-ilp`` (1.12): x_{i,j,b} in {0,1} (task i in pack b on j processors),
y_b >= 0 (cost of pack b), b = 1..n::

    min sum_b y_b
    (i)   sum_{j,b} x_{i,j,b} = 1                 for all i
    (ii)  sum_{i,j} x_{i,j,b} <= k                for all b
    (iii) sum_{i,j} j x_{i,j,b} <= p              for all b
    (iv)  t_{i,j} x_{i,j,b} <= y_b                for all i, j, b

Only j >= pmin_i is modelled (t_{i,j} = +inf below it). Stronger formulation ``kinp-ilp-strong``
(spec A-29 options, all equivalent reformulations, checked against the literal one in tests):

- (iv') sum_j t_{i,j} x_{i,j,b} <= y_b for all i, b: n^2 rows instead of n^2 p, tighter LP;
- Pareto-reduced allocations: only j = pmin_i or t_{i,j} < t_{i,j-1} (a j with
  t_{i,j} = t_{i,j-1} is dominated by j-1: same time, fewer processors; this also drops every
  j beyond the argmin j_0);
- symmetry breaking "pack b is opened by its smallest task b": x_{i,j,b} = 0 for b > i and
  sum_j x_{i,j,b} <= sum_j x_{b,j,b} for i > b;
- valid cut y_b >= sum_j t_{b,j} x_{b,j,b} is implied by (iv'); nothing else is added.

Backend: Pyomo's ``appsi_highs`` interface to HiGHS (highspy), ``mip_rel_gap = 0``,
``mip_abs_gap = 1e-6``, one thread. A time limit yields status ``feasible`` (with HiGHS's MIP
bound) or ``no_solution``, never ``optimal``.
"""

from __future__ import annotations

import logging
import time

import pyomo.environ as pe

from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.common import make_payload
from resilsched.models.coschedule.setpart import quiet_stdout
from resilsched.solution import Solution, Status


def allowed_procs(inst: CoscheduleInstance, pareto: bool) -> list[list[int]]:
    """Per task, the processor counts modelled: all j >= pmin_i, or the Pareto-reduced ones."""
    out = []
    for i in range(inst.n):
        js = [inst.pmin[i]]
        for j in range(inst.pmin[i] + 1, inst.p + 1):
            if not pareto or inst.t(i, j) < inst.t(i, j - 1):
                js.append(j)
        out.append(js)
    return out


def build_model(inst: CoscheduleInstance, strong: bool = False) -> pe.ConcreteModel:
    """The Pyomo model (1.12), literal or strong (see module docstring)."""
    n, p, k = inst.n, inst.p, inst.k
    js = allowed_procs(inst, pareto=strong)
    idx = [(i, j, b) for i in range(n) for j in js[i] for b in range(n) if not strong or b <= i]
    m = pe.ConcreteModel(name="kinp-ilp-strong" if strong else "kinp-ilp")
    m.X = pe.Set(initialize=idx, dimen=3, ordered=True)
    m.B = pe.RangeSet(0, n - 1)
    m.x = pe.Var(m.X, within=pe.Binary)
    m.y = pe.Var(m.B, within=pe.NonNegativeReals)
    by_b: dict[int, list[tuple[int, int, int]]] = {b: [] for b in range(n)}
    by_i: dict[int, list[tuple[int, int, int]]] = {i: [] for i in range(n)}
    by_ib: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for key in idx:
        i, _, b = key
        by_b[b].append(key)
        by_i[i].append(key)
        by_ib.setdefault((i, b), []).append(key)
    t = {(i, j): float(inst.t(i, j)) for i in range(n) for j in js[i]}
    m.obj = pe.Objective(expr=sum(m.y[b] for b in range(n)), sense=pe.minimize)
    m.assign = pe.Constraint(range(n), rule=lambda m, i: sum(m.x[e] for e in by_i[i]) == 1)
    m.ktasks = pe.Constraint(range(n), rule=lambda m, b: sum(m.x[e] for e in by_b[b]) <= k)
    m.pprocs = pe.Constraint(range(n), rule=lambda m, b: sum(e[1] * m.x[e] for e in by_b[b]) <= p)
    if strong:
        m.cost = pe.Constraint(list(by_ib), rule=lambda m, i, b: sum(
            t[e[0], e[1]] * m.x[e] for e in by_ib[i, b]) <= m.y[b])
        sym = [(i, b) for (i, b) in by_ib if i > b]
        m.opened = pe.Constraint(sym, rule=lambda m, i, b: sum(
            m.x[e] for e in by_ib[i, b]) <= sum(m.x[e] for e in by_ib[b, b]))
    else:
        m.cost = pe.Constraint(idx, rule=lambda m, i, j, b: t[i, j] * m.x[i, j, b] <= m.y[b])
    return m


def _solve(inst: CoscheduleInstance, strong: bool, time_limit: float | None) -> Solution:
    from pyomo.contrib.appsi.base import TerminationCondition
    from pyomo.contrib.appsi.solvers import Highs

    method = "kinp-ilp-strong" if strong else "kinp-ilp"
    t0 = time.perf_counter()
    m = build_model(inst, strong)
    opt = Highs()
    opt.config.load_solution = False
    opt.config.stream_solver = False
    if time_limit is not None:
        opt.config.time_limit = max(1e-3, time_limit - (time.perf_counter() - t0))
    opt.highs_options = {"mip_rel_gap": 0.0, "mip_abs_gap": 1e-6, "threads": 1,
                         "output_flag": False}
    logging.getLogger("pyomo.contrib.appsi").setLevel(logging.ERROR)
    with quiet_stdout():
        res = opt.solve(m)
    wall = time.perf_counter() - t0
    bound = res.best_objective_bound
    bound = None if bound is None or bound != bound or abs(bound) == float("inf") else bound
    if res.best_feasible_objective is None:
        status = (Status.INFEASIBLE if res.termination_condition == TerminationCondition.infeasible
                  else Status.NO_SOLUTION)
        return Solution(None, bound, status, method, "highs", wall)
    res.solution_loader.load_vars()
    packs: dict[int, list[int]] = {}
    procs: dict[int, list[int]] = {}
    for (i, j, b) in m.X:
        if m.x[i, j, b].value is not None and m.x[i, j, b].value > 0.5:
            packs.setdefault(b, []).append(i)
            procs.setdefault(b, []).append(j)
    keys = sorted(packs)
    optimal = res.termination_condition == TerminationCondition.optimal
    # the ILP's own allocation may be non-greedy within a pack; Algorithm 1 re-allocates (never
    # worse), so the objective is the exact cost of the packs found.
    payload = make_payload(inst, [packs[b] for b in keys])
    obj = sum((d["time"] for d in payload["packs"]), 0)
    if optimal:
        bound = obj if bound is None else min(bound, obj)
    return Solution(obj, bound, Status.OPTIMAL if optimal else Status.FEASIBLE, method, "highs",
                    wall, payload=payload)


def solve_ilp(inst: CoscheduleInstance, scenario=None, time_limit: float | None = None) -> Solution:
    """The literal ILP (1.12) of Theorem 1.5."""
    return _solve(inst, strong=False, time_limit=time_limit)


def solve_ilp_strong(inst: CoscheduleInstance, scenario=None,
                     time_limit: float | None = None) -> Solution:
    """The strong ILP: (iv'), Pareto-reduced allocations and symmetry breaking."""
    return _solve(inst, strong=True, time_limit=time_limit)
