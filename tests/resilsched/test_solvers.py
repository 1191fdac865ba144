"""The solver runner (`resilsched.solvers`): one worker rule, one meaning of ``deterministic``,
time limits, and the mapping of CP-SAT's and HiGHS's answers to the toolkit's statuses."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from resilsched import solvers
from resilsched.options import SolveOptions
from resilsched.solution import Status

cp_model = pytest.importorskip("ortools.sat.python.cp_model")
highspy = pytest.importorskip("highspy")

# a small 0/1 knapsack with two capacity rows, solved by brute force below
VALUES = [23, 31, 29, 44, 53, 38, 63, 85, 89, 82, 17, 41, 27, 36, 58, 49]
WEIGHTS = [[12, 7, 11, 8, 9, 16, 20, 21, 25, 19, 5, 13, 9, 10, 17, 15],
           [9, 14, 8, 12, 15, 6, 18, 17, 24, 23, 7, 10, 12, 9, 13, 16]]
CAPACITY = [80, 85]


def _brute_knapsack() -> int:
    x = np.array(list(itertools.product((0, 1), repeat=len(VALUES))))
    ok = np.all(x @ np.array(WEIGHTS).T <= np.array(CAPACITY), axis=1)
    return int((x[ok] @ np.array(VALUES)).max())


OPTIMUM = _brute_knapsack()


def _cpsat_knapsack() -> cp_model.CpModel:
    m = cp_model.CpModel()
    x = [m.new_bool_var(f"x{i}") for i in range(len(VALUES))]
    for row, cap in zip(WEIGHTS, CAPACITY, strict=True):
        m.add(sum(w * xi for w, xi in zip(row, x, strict=True)) <= cap)
    m.maximize(sum(v * xi for v, xi in zip(VALUES, x, strict=True)))
    return m


def _highs_knapsack(h) -> None:
    """The same knapsack as a HiGHS MIP, minimising minus the value."""
    n = len(VALUES)
    h.addVars(n, np.zeros(n), np.ones(n))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), -np.array(VALUES, dtype=float))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                            np.array([highspy.HighsVarType.kInteger] * n))
    for row, cap in zip(WEIGHTS, CAPACITY, strict=True):
        h.addRow(-highspy.kHighsInf, float(cap), n, np.arange(n, dtype=np.int32),
                 np.array(row, dtype=float))


# --- the worker rule -------------------------------------------------------------------------
@pytest.mark.parametrize("options, cp_sat", [
    ({}, solvers.CP_SAT_WORKERS), ({"deterministic": True}, 1), ({"workers": 3}, 3),
    ({"workers": 3, "deterministic": True}, 3)])
def test_one_worker_rule(options, cp_sat):
    opts = SolveOptions(**options)
    assert solvers.threads(opts) == cp_sat
    assert solvers.threads(opts, "highs") == solvers.HIGHS_THREADS == 1
    with pytest.raises(ValueError, match="solver="):
        solvers.threads(opts, "gurobi")


# --- CP-SAT parameters -----------------------------------------------------------------------
@pytest.mark.parametrize("family", sorted(solvers.CP_SAT_UNITS_PER_SECOND))
@pytest.mark.parametrize("workers", [0, 1, 4])
def test_deterministic_budget_is_the_seconds_times_the_family_rate(family, workers):
    opts = SolveOptions(time_limit=8.0, deterministic=True, workers=workers, seed=11)
    params = solvers.cpsat_solver(opts, family, seconds=7.5, wall=9.25).parameters
    assert params.max_deterministic_time == solvers.CP_SAT_UNITS_PER_SECOND[family] * 7.5
    assert params.max_time_in_seconds == 9.25  # the wall clock: a safety net only
    assert params.num_workers == (workers or 1)
    assert params.interleave_search == (params.num_workers > 1)
    assert params.random_seed == 11


def test_the_certified_rates_are_unchanged():
    """The shipped certificates were solved with these budgets (decision L2)."""
    assert solvers.CP_SAT_UNITS_PER_SECOND == {"moldable": 0.001, "rigid": 0.02, "desktop": 1.0}


@pytest.mark.parametrize("seconds, wall, limit", [(3.0, None, 3.0), (3.0, 2.0, 2.0),
                                                  (None, 2.0, 2.0), (None, None, math.inf)])
def test_wall_clock_runs_stop_at_the_smaller_limit(seconds, wall, limit):
    params = solvers.cpsat_solver(SolveOptions(), "moldable", seconds=seconds,
                                  wall=wall).parameters
    assert params.max_time_in_seconds == limit
    assert params.max_deterministic_time == math.inf
    assert params.num_workers == solvers.CP_SAT_WORKERS and not params.interleave_search


def test_no_limit_and_the_models_own_parameters():
    opts = SolveOptions(deterministic=True)
    params = solvers.cpsat_solver(opts, "rigid", seconds=None, cp_model_presolve=False,
                                  cp_model_probing_level=0).parameters
    assert params.max_deterministic_time == math.inf and params.max_time_in_seconds == math.inf
    assert not params.cp_model_presolve and params.cp_model_probing_level == 0
    with pytest.raises(KeyError):
        solvers.cpsat_solver(opts, "no-such-family", seconds=1.0)


def test_the_moldable_model_keeps_its_certified_budget():
    """`cpsat-scenario` under the library's options (60 s, deterministic, one worker): 0.06
    deterministic units, the wall clock at 0.9 of the time left minus 0.05 s."""
    from resilsched.models.moldable import solve as moldable

    opts = moldable.MoldableOptions.of(60.0, {"deterministic": True, "workers": 1})
    opts.deadline.remaining = lambda: 10.0
    params = moldable._solver(opts, SimpleNamespace(intervals=2000)).parameters
    assert params.max_deterministic_time == 0.001 * 60.0
    assert params.max_time_in_seconds == pytest.approx(10.0 * 0.9 - 0.05)
    assert params.num_workers == 1 and not params.interleave_search
    assert params.cp_model_presolve and params.cp_model_probing_level == 0
    wall_clock = moldable.MoldableOptions.of(60.0, {})
    wall_clock.deadline.remaining = lambda: 10.0
    params = moldable._solver(wall_clock, SimpleNamespace(intervals=10)).parameters
    assert params.max_deterministic_time == math.inf and params.num_workers == 2



@pytest.mark.parametrize("workers", [0, 1, 2])
def test_the_rigid_model_keeps_its_certified_budget(workers):
    """The rigid CP-SAT search under ``deterministic=True`` (60 s, refutation share 0.9): 0.02
    units per second of the time limit's CP-SAT share, the safety net as its wall clock; a
    wall-clock run gets (1 - share) of the time left."""
    from resilsched.models.rigid import budget
    from resilsched.models.rigid import solve as rigid

    opts = rigid.RigidSolveOptions(time_limit=60.0, deterministic=True, workers=workers, seed=3)
    solver, run = rigid._cp_sat(cp_model.CpModel(), opts, 0.9)
    params = solver.parameters
    cp_sat_share = 60.0 * (1 - 0.9) * (1 - budget.ROOT_SHARE - budget.BUILD_SHARE)
    assert params.max_deterministic_time == pytest.approx(0.02 * cp_sat_share)
    assert 1.25 * 60.0 + 0.5 - 30.0 < params.max_time_in_seconds <= 1.25 * 60.0 + 0.5
    assert params.num_workers == (workers or 1) and params.random_seed == 3
    assert params.interleave_search == (params.num_workers > 1)
    assert run.status is Status.OPTIMAL and run.objective == 0.0  # the empty model
    wall_clock = rigid.RigidSolveOptions(time_limit=60.0, workers=workers)
    wall_clock.deadline.remaining = lambda: 10.0
    params = rigid._cp_sat(cp_model.CpModel(), wall_clock, 0.9)[0].parameters
    assert params.max_deterministic_time == math.inf
    assert params.max_time_in_seconds == pytest.approx(10.0 * (1 - 0.9))
    assert params.num_workers == (workers or 2) and not params.interleave_search

# --- CP-SAT answers --------------------------------------------------------------------------
def test_cpsat_optimal_is_the_brute_force_optimum():
    solver = solvers.cpsat_solver(SolveOptions(deterministic=True), "moldable", seconds=None)
    run = solvers.run_cpsat(solver, _cpsat_knapsack())
    assert run.status is Status.OPTIMAL and run.has_solution and run.reproducible
    assert run.objective == run.bound == OPTIMUM


def test_cpsat_feasible_keeps_a_valid_bound():
    solver = solvers.cpsat_solver(SolveOptions(deterministic=True), "moldable", seconds=None,
                                  stop_after_first_solution=True, cp_model_presolve=False)
    run = solvers.run_cpsat(solver, _cpsat_knapsack())
    assert run.status in (Status.FEASIBLE, Status.OPTIMAL) and run.has_solution
    assert run.objective <= OPTIMUM <= run.bound  # maximisation: the bound is above
    if run.status is Status.FEASIBLE:
        assert run.solver_status == "FEASIBLE"


def test_cpsat_infeasible_and_no_solution():
    m = cp_model.CpModel()
    x = m.new_int_var(0, 5, "x")
    m.add(x >= 7)
    m.minimize(x)
    run = solvers.run_cpsat(solvers.cpsat_solver(SolveOptions(), "rigid", seconds=5.0), m)
    assert run.status is Status.INFEASIBLE and run.objective is None and run.bound is None
    assert run.reproducible and not run.has_solution
    stopped = solvers.cpsat_solver(SolveOptions(deterministic=True), "rigid", seconds=None,
                                   wall=0.0)
    run = solvers.run_cpsat(stopped, _cpsat_knapsack())
    assert run.status is Status.NO_SOLUTION and run.solver_status == "UNKNOWN"
    assert not run.reproducible  # the wall clock stopped a deterministic run


def test_a_deterministic_limit_is_reproducible():
    runs = []
    for _ in range(2):
        solver = solvers.cpsat_solver(SolveOptions(deterministic=True), "desktop", seconds=1e-4)
        runs.append(solvers.run_cpsat(solver, _cpsat_knapsack()))
    assert all(r.reproducible for r in runs)
    assert runs[0].status is runs[1].status and runs[0].objective == runs[1].objective


# --- HiGHS -----------------------------------------------------------------------------------
def test_highs_options_and_instances():
    assert solvers.highs_options() == {"output_flag": False, "threads": 1}
    opts = solvers.highs_options(SolveOptions(seed=5, workers=8), solver="ipm")
    assert opts == {"output_flag": False, "threads": 1, "random_seed": 5, "solver": "ipm"}
    h = solvers.new_highs(opts, seconds=2.5)
    assert h.getOptionValue("threads")[1] == 1 and not h.getOptionValue("output_flag")[1]
    assert h.getOptionValue("random_seed")[1] == 5 and h.getOptionValue("solver")[1] == "ipm"
    assert h.getOptionValue("time_limit")[1] == 2.5
    for seconds, limit in ((None, math.inf), (math.inf, math.inf), (0.0, 1e-3), (4.0, 4.0)):
        solvers.set_time_limit(h, seconds)
        assert h.getOptionValue("time_limit")[1] == limit
    with pytest.raises(ValueError, match="thread"):
        solvers.new_highs({"threads": 2})


def test_highs_runs_whatever_workers_says():
    """HiGHS keeps one thread pool per process: a run asking for another thread count than
    the first run's fails (kError, no solve). The runner's HiGHS runs one thread whatever
    `workers` is (decision T26), so it solves after any other HiGHS run."""
    first = solvers.new_highs()
    first.addVars(1, np.zeros(1), np.ones(1))
    first.run()
    coschedule = pytest.importorskip("resilsched.models.coschedule.options")
    for opts in (SolveOptions(workers=4), coschedule.HighsOptions(workers=3)):
        settings = (opts.highs_settings() if hasattr(opts, "highs_settings")
                    else solvers.highs_options(opts))
        assert settings["threads"] == 1
        h = solvers.new_highs(settings)
        _highs_knapsack(h)
        run = solvers.run_highs(h, quiet=True)
        assert run.status is Status.OPTIMAL and run.objective == run.bound == -OPTIMUM


def test_highs_lp_infeasible_and_limits():
    lp = solvers.new_highs()
    lp.addVars(2, np.zeros(2), np.array([3.5, 2.5]))
    lp.changeColsCost(2, np.arange(2, dtype=np.int32), np.array([-1.0, -1.0]))
    lp.addRow(-highspy.kHighsInf, 4.2, 2, np.arange(2, dtype=np.int32), np.ones(2))
    run = solvers.run_highs(lp)
    assert run.status is Status.OPTIMAL and run.objective == pytest.approx(-4.2)
    assert run.bound == run.objective  # an LP's bound is its optimum (not mip_dual_bound 0)
    lp.addRow(5.0, highspy.kHighsInf, 2, np.arange(2, dtype=np.int32), np.ones(2))
    run = solvers.run_highs(lp)
    assert run.status is Status.INFEASIBLE and run.objective is None and run.bound is None
    mip = solvers.new_highs({"mip_max_improving_sols": 1, "presolve": "off"})
    _highs_knapsack(mip)
    run = solvers.run_highs(mip, quiet=True)
    assert run.has_solution and run.bound <= -OPTIMUM <= run.objective  # minimisation
    stopped = solvers.new_highs()
    _highs_knapsack(stopped)
    stopped.setOptionValue("time_limit", 0.0)  # below set_time_limit's 1 ms
    run = solvers.run_highs(stopped, quiet=True)
    assert run.status is Status.NO_SOLUTION and run.solver_status == "Time limit reached"
    assert run.objective is None and run.bound is None and not run.reproducible


def test_quiet_stdout_silences_file_descriptor_one():
    code = ("import os\nfrom resilsched.solvers import quiet_stdout\n"
            "with quiet_stdout():\n    os.write(1, b'debug line of a C library\\n')\n"
            "print('kept')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout == "kept\n"
