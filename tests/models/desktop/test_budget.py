"""``--time-limit`` bounds the whole desktop ``solve`` (decision D-25): every phase runs only when
its estimate fits, so a 1,000 x 10,000 instance (a fifth of the largest accepted) ends in time
with an honest answer."""

import json
import time

import pytest

from resilsched.instances.desktop.generators import synthetic_instance
from resilsched.models.desktop import cpsat, milp
from resilsched.models.desktop.budget import lb_cap_cost, variant_cost

#: seconds a phase may overrun its estimate on a loaded machine
SLACK = 0.6


@pytest.fixture(scope="module")
def big():
    return synthetic_instance(1000, 10_000, 0, 100, name="big")


def _fresh(inst):
    """The instance without its cached matrices and heuristic data (as read from a file)."""
    for key in list(inst.__dict__):
        if key.endswith("durations") or key.startswith("_heuristics") or key == "durations":
            del inst.__dict__[key]
    return inst


@pytest.fixture(scope="module")
def solved(big):
    """``solved(model, limit)``: (solution, seconds) of ``model.solve`` on the fresh instance
    under ``limit``, computed once per pair for the tests of this module."""
    done: dict = {}

    def _solved(model, limit: float):
        if (model, limit) not in done:
            inst = _fresh(big)
            start = time.perf_counter()
            sol = model.solve(inst, time_limit=limit)
            done[model, limit] = sol, time.perf_counter() - start
        return done[model, limit]

    return _solved


#: a limit with room for LB_cap (its estimate fits a quarter of it) and for the first heuristics
#: after it (their estimates fit a quarter of the time left), with a margin for a loaded machine
ROOMY = 3.0


@pytest.mark.parametrize("model, limit", [(cpsat, 0.3), (cpsat, ROOMY), (milp, 2.0)])
def test_solve_ends_within_its_limit_with_an_honest_answer(solved, model, limit):
    sol, seconds = solved(model, limit)
    assert seconds <= limit + SLACK
    assert sol.status.value in ("feasible", "no_solution") and sol.bound is not None
    assert sol.objective is None or sol.objective >= sol.bound
    assert "not built" in sol.info["model"]
    if sol.status.value == "feasible":
        assert sol.info["incumbent"] == sol.objective


def test_phases_are_skipped_when_their_estimate_does_not_fit(big, solved):
    inst = _fresh(big)
    assert lb_cap_cost(inst) > 0.25 * 0.3 and variant_cost(inst, "GreedySlack", "FFI") > 0.075
    sol, _ = solved(cpsat, 0.3)
    assert sol.status.value == "no_solution" and sol.info["incumbent"] is None
    assert "LB_cap skipped" in sol.info["lower_bound_note"]
    assert sol.info["x_variables_at_least"] > 300_000  # the default max_vars
    roomy, _ = solved(cpsat, ROOMY)
    assert roomy.bound > sol.bound and roomy.status.value == "feasible"  # LB_cap and heuristics


def test_cli_solve_time_limit_bounds_the_command(big, run, tmp_path):
    """1.5 s: the shortest limit at which a phase (LB_slack) runs after the command has read
    the file, so that the reading is counted against the limit with a phase using its share."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps(big.to_dict()))
    start = time.perf_counter()
    code, out, err = run("solve", path, "--time-limit", "1.5", "--json", "-q")
    assert code == 0, err
    assert time.perf_counter() - start <= 1.5 + SLACK
    d = json.loads(out)
    assert d["wall_time"] <= 1.5 + SLACK and d["status"] in ("feasible", "no_solution")


def test_model_pairs_and_size_are_the_admissible_ones_in_order():
    from resilsched.instances.desktop.presets import tiny_instance
    from resilsched.models.desktop.common import HorizonData, model_size

    for seed in range(30):
        inst = tiny_instance(seed, max_machines=3, max_intervals=6, max_jobs=7)
        for slack in (True, False):
            want = [(j, i, k) for i, mach in enumerate(inst.machines) for j in range(inst.n)
                    for k, a in enumerate(mach.a) if (2 if slack else 1) * inst.t(i, j) <= a]
            assert HorizonData.of(inst, slack).pairs == want
            assert model_size(inst, slack, 10**6, 1.0) == (len(want), True)
            lower, exact = model_size(inst, slack, 0, 1.0)
            assert lower <= len(want) and (exact or lower > 0)
