"""Exact horizon models, bounds and their relation to the heuristics (spec 004 §7.1, §7.2,
§7.3 item 10)."""

import time

import numpy as np
import pytest

from resilsched.bounds.desktop import lb_big, lb_cap, lower_bound
from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import build
from resilsched.heuristics.desktop.policies import LOCAL
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance
from resilsched.instances.desktop.presets import tiny_instance, x1
from resilsched.models.desktop import cpsat, milp
from resilsched.solution import Status
from resilsched.validation.desktop import validate_desktop_schedule
from tests.support.desktop.cases import brute_force


@pytest.mark.parametrize("rule, value", [(True, 26), (False, 12)])
def test_x1_optimum(rule, value):
    for model in (cpsat, milp):
        sol = model.solve(x1(rule), time_limit=20, workers=1)
        assert sol.status is Status.OPTIMAL and sol.objective == value == sol.bound
        assert isinstance(sol.objective, int) and sol.payload.horizon == value


def _tiny(seed, rule):
    return tiny_instance(seed, slack_rule=rule, max_machines=2, max_intervals=3, max_jobs=4)


def test_models_equal_brute_force_and_bound_the_heuristics():
    """CP-SAT = MILP = enumeration; LB_big, LB_cap <= lambda* <= every variant's lambda."""
    checked = 0
    for seed in range(40):
        rule = seed % 3 != 0
        inst = _tiny(seed, rule)
        expect = brute_force(inst)
        a = cpsat.solve(inst, time_limit=20, workers=1)
        b = milp.solve(inst, time_limit=20, workers=1)
        if expect is None:
            assert a.status is Status.INFEASIBLE and b.status is Status.INFEASIBLE
            continue
        checked += 1
        assert a.status is Status.OPTIMAL and b.status is Status.OPTIMAL
        assert a.objective == b.objective == expect, seed
        validate_desktop_schedule(inst, a.payload, rule)
        validate_desktop_schedule(inst, b.payload, rule)
        assert lb_big(inst) <= expect and lb_cap(inst) <= expect
        assert lower_bound(inst) <= expect
        for g in ("GreedySlack", "DAslack"):
            for loc in LOCAL:
                try:
                    sched, _ = build(inst, g, loc, rule)
                except InvalidInstance:
                    continue
                assert sched.horizon >= expect and sched.H >= expect
    assert checked >= 25


def test_no_slack_optimum_is_below_the_slack_optimum():
    for seed in range(15):
        inst = _tiny(seed, True)
        with_rule = cpsat.solve(inst, time_limit=20, workers=1)
        without = cpsat.solve(inst.with_rule(False), time_limit=20, workers=1)
        if with_rule.status is Status.OPTIMAL:
            assert without.objective <= with_rule.objective


def test_bad_options_are_one_line_errors():
    with pytest.raises(InvalidInstance, match="max_vars"):
        cpsat.solve(x1(), time_limit=5, max_vars=0)
    with pytest.raises(InvalidInstance, match="time_limit"):
        milp.solve(x1(), time_limit=float("nan"))
    with pytest.raises(InvalidInstance, match="is not a parameter"):
        cpsat.solve(x1(), time_limit=5, nope=1)


@pytest.mark.parametrize("model", [cpsat, milp])
def test_time_limit_on_a_large_instance(model):
    """The whole call (bounds, incumbent, guard, search, checks) within 1.25 limit + 1 s."""
    inst = synthetic_instance(120, 2000, 0, 100, model=AvailabilityModel(span=12 * 86400))
    t0 = time.perf_counter()
    sol = model.solve(inst, time_limit=0.4)
    wall = time.perf_counter() - t0
    assert wall <= 1.25 * 0.4 + 1.0, wall
    assert sol.status in (Status.FEASIBLE, Status.NO_SOLUTION)
    if sol.objective is not None:
        assert sol.bound <= sol.objective
        validate_desktop_schedule(inst, sol.payload, True)


@pytest.mark.parametrize("model", [cpsat, milp])
def test_time_limit_while_searching(model):
    """A model that is built but not proved in time: FEASIBLE, bound <= objective."""
    rng = np.random.default_rng(0)
    machines = [(1 + int(rng.integers(0, 2)), 0, [int(x) for x in rng.integers(8, 40, 14)],
                 [int(x) for x in rng.integers(1, 9, 14)]) for _ in range(4)]
    inst = DesktopInstance.build(machines, [int(x) for x in rng.integers(1, 5, 45)])
    t0 = time.perf_counter()
    sol = model.solve(inst, time_limit=0.4, workers=1)
    assert time.perf_counter() - t0 <= 1.25 * 0.4 + 1.0
    assert sol.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert sol.bound <= sol.objective
    validate_desktop_schedule(inst, sol.payload, True)
