"""The exact-model contract of the moldable family (docs/architecture.md, `resilsched.plugin`).

Every phase under the deadline (wall time <= 1.25 limit + 1 s on paper-sized instances), an
honest answer when time runs out (feasible, LPA-LIST's schedule or better, a valid bound),
`optimal` only with a proof on the complete exact model, exact numbers on exact data,
reproducible deterministic runs, and the options checked at the boundary.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction

import numpy as np
import pytest

from resilsched.bounds.moldable import L_prime, L_star
from resilsched.errors import InvalidInstance
from resilsched.heuristics.moldable import lpa_list
from resilsched.instances.failures import Scenario, sample_scenarios
from resilsched.instances.moldable import MoldableInstance, Roofline
from resilsched.instances.moldable.generators import paper_instance, tiny_exact
from resilsched.models.moldable import solve_failure_free, solve_scenario
from resilsched.solution import Status
from resilsched.validation import validate_attempts
from tests.support.moldable.cases import random_failures, random_instance
from tests.support.moldable.oracle import brute_opt

#: the command's limit (the command does not wait it out: at 2 s the chains meet L' and prove
#: the optimum in ~0.1 s, the rest is reading the file)
LIMIT = 2.0
#: the paper-sized solve's limit: LPA-LIST's incumbent (n x P = 3.75e6 cells, ~0.2 s by its
#: estimate) runs only when its estimate is at most half of the time left, as do the chains
#: before it (~0.4 s by theirs). 1 s runs both on a quiet machine, but at a load above 6 on
#: two cores the root bound and the chains' first target take ~0.6 s and LPA-LIST is then
#: skipped (7 of 11 runs failed at 1 s and at 1.5 s); 2 s passed every run at that load
PAPER_LIMIT = 2.0


@pytest.fixture(scope="module", autouse=True)
def _warm_imports():
    """OR-Tools is imported on the first model built (and skipped when less than a second is
    left for it): import it before the clock of the tests, so that the paper-sized solve
    builds and searches its model whatever ran before it."""
    import ortools.sat.python.cp_model  # noqa: F401


def _within_limit(seconds: float, limit: float = LIMIT) -> bool:
    return seconds <= 1.25 * limit + 1.0


def _check_answer(inst, sc, sol) -> None:
    """A feasible schedule with its true makespan, a bound below it, no unproven optimum."""
    sched = sol.payload.schedule
    validate_attempts(sched, inst.P, sc.failures, inst.time, lambda j, p: 1 <= p <= inst.P)
    assert sol.objective == sched.makespan
    assert sol.bound <= sol.objective
    assert sol.bound >= L_prime(inst, sc) * (1 - 1e-12)


@pytest.mark.parametrize("model, failures", [("roofline", False), ("amdahl", True)])
def test_paper_sized_instance_within_the_limit(model, failures):
    inst = paper_instance(model, 1)  # n = 500, P = 7500: ~10^6 front points
    sc = (sample_scenarios(inst.q(), 1, 3)[0] if failures else inst.scenario())
    t0 = time.perf_counter()
    sol = solve_scenario(inst, sc, time_limit=PAPER_LIMIT, workers=2)
    assert _within_limit(time.perf_counter() - t0, PAPER_LIMIT)
    assert sol.status is Status.FEASIBLE
    assert sol.objective <= lpa_list(inst, sc).objective * (1 + 1e-12)
    _check_answer(inst, sc, sol)
    assert set(sol.info["phases"]) >= {"root_bound", "incumbent"}


def test_medium_complete_model_stopped_by_the_limit():
    inst = random_instance("amdahl", 40, 32, seed=1)
    sc = Scenario(tuple(random_failures(inst.n, 1, fmax=2)))
    t0 = time.perf_counter()
    sol = solve_scenario(inst, sc, time_limit=0.4, workers=2)
    assert _within_limit(time.perf_counter() - t0, 0.4)
    assert sol.status in (Status.FEASIBLE, Status.OPTIMAL)
    if sol.status is Status.OPTIMAL:
        assert sol.bound == sol.objective
    _check_answer(inst, sc, sol)


def test_cli_solve_of_a_paper_instance_within_the_limit(run, tmp_path):
    inst = paper_instance("mix", 2)
    path = tmp_path / "paper.json"
    path.write_text(json.dumps(inst.to_dict()))
    t0 = time.perf_counter()
    code, out, _ = run("solve", path, "--time-limit", str(LIMIT), "--json", "-q")
    assert code == 0
    assert _within_limit(time.perf_counter() - t0)
    d = json.loads(out)
    # the chains (M28) may meet L' and prove the optimum; on a loaded machine 2 s may end with
    # no schedule yet, never without the bound
    assert isinstance(d["bound"], float)
    if d["status"] == "no_solution":
        assert d["objective"] is None
    else:
        assert d["status"] in ("feasible", "optimal") and d["bound"] <= d["objective"]
        assert isinstance(d["objective"], float)
    if d["status"] == "optimal":
        assert d["bound"] == d["objective"]


def test_restricted_model_is_never_optimal_and_its_bound_is_L_prime():
    for seed in range(3):
        inst = tiny_exact(seed, 3, 4, "amdahl")
        sc = Scenario((1, 0, 1))
        opt = brute_opt(inst, sc.failures)
        full = solve_scenario(inst, sc, time_limit=10, workers=1)
        assert full.status is Status.OPTIMAL and full.objective == opt
        small = solve_scenario(inst, sc, time_limit=10, workers=1, max_intervals=6)
        assert small.payload.info["model"] == "restricted"
        assert small.status is Status.FEASIBLE
        assert small.objective >= opt and small.bound == L_prime(inst, sc) <= opt
        _check_answer(inst, sc, small)


def test_no_incumbent_and_no_model_is_no_solution_with_a_bound():
    inst = random_instance("mix", 6, 5, seed=2)
    sc = Scenario((3, 0, 2, 1, 0, 0))
    sol = solve_scenario(inst, sc, time_limit=5, incumbent=False, max_intervals=5)
    assert sol.status is Status.NO_SOLUTION and sol.objective is None
    assert sol.bound == L_prime(inst, sc)
    assert "exceed max_intervals" in sol.payload["info"]["model"]


def test_exact_numbers_on_exact_data():
    inst = MoldableInstance(4, (Roofline(6, 2), Roofline(5, 4)))
    sol = solve_scenario(inst, inst.scenario([0, 1]), time_limit=10, workers=1)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == Fraction(17, 4) and sol.bound == Fraction(17, 4)
    d = sol.to_dict()
    assert d["objective"] == 4.25 and d["objective_exact"] == "17/4"
    assert d["bound"] == 4.25 and d["bound_exact"] == "17/4"
    ff = solve_failure_free(inst, inst.scenario([0, 1]), time_limit=10, workers=1)
    assert ff.objective == 3 and isinstance(ff.objective, int)  # both jobs on 2 processors
    assert L_prime(inst) == 3 and isinstance(L_prime(inst), int)


def test_registered_bounds_are_valid_and_exact_on_exact_data():
    for k, model in enumerate(["roofline", "communication", "amdahl", "mix", "table"]):
        inst = tiny_exact(k, 3, 3, model)
        for sc in (Scenario((0, 0, 0)), Scenario((1, 0, 1)), Scenario((0, 2, 0))):
            opt = brute_opt(inst, sc.failures)
            lp, ls = L_prime(inst, sc), L_star(inst, sc)
            assert isinstance(lp, (int, Fraction))
            assert lp <= opt and ls <= opt * (1 + 1e-12)
            assert ls >= lp


def test_deterministic_runs_are_reproducible():
    inst = random_instance("amdahl", 12, 8, seed=1)
    sc = Scenario(tuple(random_failures(inst.n, 1, fmax=2)))
    runs = [solve_scenario(inst, sc, time_limit=3, deterministic=True) for _ in range(2)]
    if not all(r.payload.info.get("reproducible") for r in runs):
        pytest.skip("the wall-clock safety net fired first (machine too loaded)")
    a, b = (r.to_dict() for r in runs)
    assert a["objective"] == b["objective"]
    assert a["solution"]["schedule"] == b["solution"]["schedule"]


@pytest.mark.parametrize("options, message", [
    ({"max_intervals": 0}, "--param max_intervals=0 must be in"),
    ({"workers": -1}, "--param workers=-1 must be in"),
    ({"deterministic": "yes"}, "must be true or false"),
    ({"eps": 0.3}, "--param eps: is not a parameter of cpsat-scenario"),
])
def test_bad_options_are_one_line_errors(options, message):
    from resilsched.registry import get_family

    inst = MoldableInstance(2, (Roofline(2, 2),))
    model = get_family("moldable").exact["cpsat-scenario"]  # the registry names the model
    with pytest.raises(InvalidInstance, match=message):
        model(inst, time_limit=1, **options)


@pytest.mark.parametrize("limit", [float("nan"), float("inf"), 1e-6, -1])
def test_bad_time_limits_are_refused(limit):
    inst = MoldableInstance(2, (Roofline(2, 2),))
    with pytest.raises(InvalidInstance, match="time_limit"):
        solve_scenario(inst, time_limit=limit)


def test_no_time_limit_and_progress_messages():
    inst = tiny_exact(2, 3, 3, "mix")
    said: list[str] = []
    sol = solve_scenario(inst, Scenario((0, 1, 0)), progress=said.append)
    assert sol.status is Status.OPTIMAL
    assert said[0] == "root bound L'" and any(s.startswith("CP-SAT search") for s in said)
    assert np.isfinite(float(sol.objective))
