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

Backend: Pyomo's ``appsi_highs`` interface to HiGHS (highspy) with the solver runner's HiGHS
options (`resilsched.solvers.highs_options`: silent, one thread, the seed), ``mip_rel_gap = 0``,
``mip_abs_gap = 1e-6``. Building the Pyomo model is part of the time limit
(decision C16): model building and solving run together in a forked child killed when the
time is spent (`hardlimit`; building alone takes ~25 s at n = 80, p = 16). A time limit yields
status ``feasible`` with the best packs known (HiGHS's, or PACK-APPROX's when the child found
none or was killed) and the best bound (HiGHS's MIP bound or the combined pack bound), never
``optimal``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from resilsched.heuristics.coschedule import make_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.answer import best_bound, fallback, finish, makespan_unit
from resilsched.models.coschedule.hardlimit import PhaseTimeout, preload, run_limited
from resilsched.models.coschedule.options import HighsOptions
from resilsched.solution import Solution, Status
from resilsched.solvers import quiet_stdout

if TYPE_CHECKING:
    import pyomo.environ as pe


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
    import pyomo.environ as pe  # 1.5 s to import: only when a model is built
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


@dataclass(frozen=True)
class IlpRun:
    """What the child returns: the packs found (task lists, or None), HiGHS's bound (None when
    unknown), and whether HiGHS proved optimality / infeasibility."""

    packs: list[list[int]] | None
    bound: float | None
    optimal: bool
    infeasible: bool


def _build_and_solve(inst: CoscheduleInstance, strong: bool, settings: dict[str, Any],
                     end: float) -> IlpRun:
    """Build the Pyomo model and solve it with HiGHS until `end` (time.monotonic)."""
    from pyomo.contrib.appsi.base import TerminationCondition
    from pyomo.contrib.appsi.solvers import Highs

    m = build_model(inst, strong)
    opt = Highs()
    opt.config.load_solution = False
    opt.config.stream_solver = False
    left = end - time.monotonic()
    if left != float("inf"):
        opt.config.time_limit = max(1e-3, left)
    opt.highs_options = {**settings, "mip_rel_gap": 0.0, "mip_abs_gap": 1e-6}
    logging.getLogger("pyomo.contrib.appsi").setLevel(logging.ERROR)
    with quiet_stdout():
        res = opt.solve(m)
    bound = res.best_objective_bound
    bound = None if bound is None or bound != bound or abs(bound) == float("inf") else bound
    if res.best_feasible_objective is None:
        return IlpRun(None, bound, False,
                      res.termination_condition == TerminationCondition.infeasible)
    res.solution_loader.load_vars()
    packs: dict[int, list[int]] = {}
    for (i, _j, b) in m.X:
        if m.x[i, _j, b].value is not None and m.x[i, _j, b].value > 0.5:
            packs.setdefault(b, []).append(i)
    optimal = res.termination_condition == TerminationCondition.optimal
    return IlpRun([packs[b] for b in sorted(packs)], bound, optimal, False)


def _solve(inst: CoscheduleInstance, strong: bool, time_limit: float | None,
           options: dict[str, Any]) -> Solution:
    method = "kinp-ilp-strong" if strong else "kinp-ilp"
    opts = HighsOptions.of(time_limit, options)
    unit = makespan_unit(inst)
    best, lb = fallback(inst)
    info: dict[str, Any] = {"heuristic_ub": best.makespan}
    proven = False
    opts.say("building and solving the Pyomo model")
    preload(("pyomo.environ", "pyomo.contrib.appsi.solvers"), opts.deadline.remaining())
    budget = opts.deadline.remaining()
    end = time.monotonic() + budget
    try:
        run = run_limited(lambda: _build_and_solve(inst, strong, opts.highs_settings(), end),
                          budget)
    except PhaseTimeout:
        opts.say("time limit: answering with PACK-APPROX's packs and the pack bound")
        info["killed"] = True
        return finish(inst, opts, method, "highs", best, lb, False, info, unit)
    if run.infeasible:  # cannot happen for a valid instance; kept honest
        return Solution(None, None, Status.INFEASIBLE, method, "highs", opts.deadline.elapsed())
    if run.packs is not None:
        # the ILP's own allocation may be non-greedy within a pack; Algorithm 1 re-allocates
        # (never worse), so the objective is the exact cost of the packs found.
        found = make_packs(inst, run.packs)
        if run.optimal or found.makespan < best.makespan:
            best = found
        proven = run.optimal
    lb = best_bound(lb, run.bound)
    return finish(inst, opts, method, "highs", best, lb, proven, info, unit)


def solve_ilp(instance: CoscheduleInstance, scenario=None, *, time_limit: float | None = None,
              **options: Any) -> Solution:
    """The literal ILP (1.12) of Theorem 1.5. Options: `HighsOptions`."""
    return _solve(instance, strong=False, time_limit=time_limit, options=options)


def solve_ilp_strong(instance: CoscheduleInstance, scenario=None, *,
                     time_limit: float | None = None, **options: Any) -> Solution:
    """The strong ILP: (iv'), Pareto-reduced allocations and symmetry breaking.
    Options: `HighsOptions`."""
    return _solve(instance, strong=True, time_limit=time_limit, options=options)
