"""Rigid heuristics (spec 002 §2-§5, §11.5 items 7-8): valid schedules for every heuristic and
priority, the fast path, float vs exact times, bad input, the guarantees against L(f).

Every schedule made here goes through `resilsched.validation.validate_rigid_schedule`.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resilsched.bounds.rigid import lower_bound
from resilsched.errors import InvalidInstance
from resilsched.families.rigid import FAMILY
from resilsched.heuristics.rigid import PRIORITIES
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.params import parse_params
from resilsched.registry import UnknownName
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.heuristic_cases import (
    CASES,
    HEURISTICS,
    RESERVATION_OPTIONS,
    makespan,
    simulate,
)
from tests.support.rigid.strategies import tiny_cases
from tests.thorough import examples

# -- validity, lower bound, fast path ---------------------------------------------------------

@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_every_priority_gives_valid_schedules(heuristic):
    for inst, sc in CASES:
        L = lower_bound(inst, sc)
        for priority in PRIORITIES:
            res = simulate(inst, sc, heuristic, priority, seed=7)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert res.objective == res.schedule.makespan
            assert res.objective >= L
            assert res.heuristic == heuristic and res.priority == priority
            assert makespan(inst, sc, heuristic, priority, seed=7) == res.objective


@pytest.mark.parametrize("heuristic", ["R-LIST-1", "R-LIST-Q"])
@pytest.mark.parametrize("options", RESERVATION_OPTIONS)
def test_reservation_options_valid_and_fast_path_agrees(heuristic, options):
    for inst, sc in CASES:
        for priority in ("LPT", "HPA", "Random", "LJF"):
            res = simulate(inst, sc, heuristic, priority, seed=3, **options)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert makespan(inst, sc, heuristic, priority, seed=3, **options) == res.objective


def test_fast_path_equals_simulate_on_float_instances():
    rng = np.random.default_rng(2024)
    for _ in range(6):
        n, P = 30, 1000
        p = rng.integers(5, 201, size=n)
        t = rng.uniform(100, 20000, size=n)
        inst = RigidInstance.build(P, [(int(a), float(b)) for a, b in zip(p, t, strict=True)])
        f = rng.geometric(0.6, size=n) - 1
        sc = Scenario(tuple(int(x) for x in f))
        for h in HEURISTICS:
            for pr in ("LPT", "LA", "SPT", "Random", "LJF"):
                res = simulate(inst, sc, h, pr, seed=11)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert makespan(inst, f, h, pr, seed=11) == res.objective
        for opts in ({"redraw_on_failure": True}, {"ljf_secondary": "Random"}):
            pr = "Random" if "redraw_on_failure" in opts else "LJF"
            for h in ("R-LIST-0", "R-LIST-Q", "R-SHELFFILL-B"):
                res = simulate(inst, sc, h, pr, seed=5, **opts)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert makespan(inst, f, h, pr, seed=5, **opts) == res.objective


def test_float_and_exact_times_give_the_same_makespan():
    for inst, sc in CASES[::2]:  # integer times
        as_float = RigidInstance.build(inst.P, [(j.p, float(j.t)) for j in inst.jobs])
        for h in HEURISTICS:
            exact = simulate(inst, sc, h, "LA").objective
            approx = simulate(as_float, sc, h, "LA")
            validate_rigid_schedule(as_float, sc, approx.schedule)
            assert approx.objective == pytest.approx(exact, rel=1e-12)


# -- errors ----------------------------------------------------------------------------------------

def test_unknown_names_and_options_raise():
    """Names and parameters are checked by the registry (``--param``), a scenario by the
    family's hook (or by the heuristic when it is given as a list from Python)."""
    inst, sc = CASES[0]
    with pytest.raises(UnknownName, match="heuristic.*choose from"):
        simulate(inst, sc, "R-LIST-2")
    with pytest.raises(InvalidInstance, match="priority.*choose from"):
        simulate(inst, sc, "R-LIST-0", "HPF")
    params = FAMILY.heuristics["R-LIST-0"].params
    with pytest.raises(InvalidInstance, match="classic_easy.*not a parameter of R-LIST-0"):
        parse_params(params, ["classic_easy=true"], "R-LIST-0")
    with pytest.raises(TypeError):
        simulate(inst, sc, "R-LIST-0", "LPT", classic_easy=True)
    with pytest.raises(InvalidInstance, match="failures"):
        FAMILY.scenario(inst, Scenario((0,) * (inst.n + 1)))
    with pytest.raises(InvalidInstance, match="failures"):
        simulate(inst, [0] * (inst.n + 1), "R-LIST-0")
    with pytest.raises(InvalidInstance, match="failures"):
        makespan(inst, [0] * (inst.n + 1), "R-LIST-1", "LPT")
    assert simulate(inst, sc, "r-list-0", "lpt").heuristic == "R-LIST-0"


def test_registered_parameters_are_the_functions_keywords():
    """`resilsched list` and ``--param`` see each heuristic's typed keyword arguments, the
    reservation options on R-LIST-1/Q only, the refill rule on R-SHELFFILL-B/NB only, and not
    the fast-path flag ``record``."""
    names = {h.name: [p.name for p in h.params] for h in FAMILY.heuristics.values()}
    for name, params in names.items():
        expected = ["redraw_on_failure", "ljf_secondary"]
        if name in ("R-LIST-1", "R-LIST-Q"):
            expected += ["classic_easy", "reservations", "persistent_reservations"]
        if name in ("R-SHELFFILL-B", "R-SHELFFILL-NB"):
            expected += ["fill"]
        assert params == expected, name
    secondary = next(p for p in FAMILY.heuristics["R-LIST-Q"].params if p.name == "ljf_secondary")
    assert secondary.choices == ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random")
    assert parse_params(FAMILY.heuristics["R-LIST-1"].params, ["classic_easy=true"],
                        "R-LIST-1") == {"classic_easy": True}
    mode = next(p for p in FAMILY.heuristics["R-LIST-1"].params if p.name == "reservations")
    assert mode.choices == ("fresh", "persistent", "fixed") and mode.default == "fresh"


# -- guarantees against L(f) (the proofs only use L(f) <= OPT) ----------------------------------

@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cases(), st.sampled_from(PRIORITIES), st.integers(0, 3))
def test_greedy_within_2_minus_1_over_P_of_L(case, priority, seed):
    """P T_G <= (2P - 1) L(f): Prop. 2's proof (spec 002 §6.2) bounds T_G using only
    A(f) <= P OPT and T_1 <= t_max(f) <= OPT, so it holds with L(f) in place of OPT."""
    inst, sc = case
    res = simulate(inst, sc, "R-LIST-0", priority, seed=seed)
    validate_rigid_schedule(inst, sc, res.schedule)
    assert inst.P * res.objective <= (2 * inst.P - 1) * lower_bound(inst, sc)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cases(), st.sampled_from(["R-LIST-1", "R-LIST-Q"]),
       st.sampled_from(["LJF", "HPA"]), st.sampled_from(RESERVATION_OPTIONS),
       st.sampled_from(["LPT", "SPT", "Random"]), st.integers(0, 3))
def test_reservation_ljf_within_3_minus_4_over_P_plus_1_of_L(case, heuristic, priority,
                                                              options, secondary, seed):
    """(P + 1) T_R <= (3P - 1) L(f) for RESERVATION with LJF (or HPA, a special case of LJF):
    Prop. 1's proof (spec 002 §6.1) uses only A(f) <= P OPT and T_1 <= OPT."""
    inst, sc = case
    extra = {"ljf_secondary": secondary} if priority == "LJF" else {}
    res = simulate(inst, sc, heuristic, priority, seed=seed, **options, **extra)
    validate_rigid_schedule(inst, sc, res.schedule)
    assert (inst.P + 1) * res.objective <= (3 * inst.P - 1) * lower_bound(inst, sc)


def test_fast_path_equals_simulate_on_a_paper_size_set():
    """n = 100, p ~ U{50..2000}, t ~ U[100, 20000], P = 10000, q-bar = 0.3 (spec 002 §8.2)."""
    rng = np.random.default_rng(77)
    p = rng.integers(50, 2000, size=100, endpoint=True)
    t = rng.uniform(100, 20000, size=100)
    inst = RigidInstance.build(10000, [(int(a), float(b)) for a, b in zip(p, t, strict=True)])
    q = inst.q(0.3)
    for row in rng.geometric(1 - q, size=(2, 100)) - 1:
        sc = Scenario(tuple(int(x) for x in row))
        L = lower_bound(inst, sc)
        for h in HEURISTICS:
            for pr in ("LPT", "LA"):
                res = simulate(inst, sc, h, pr)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert res.objective >= L * (1 - 1e-12)
                assert makespan(inst, row, h, pr) == res.objective
