"""Property tests of the proven guarantees against the clairvoyant optimum (spec 002 §6.1, §6.2,
§11.5 items 1 and 2), in exact integer arithmetic.

T_OPT(f) comes from the CP-SAT attempt model (`solve_scenario`, itself checked against brute
force in test_exact.py) and must be proven optimal on these tiny instances:
n <= 6, P in 1..6, integer t in 1..6, p in 1..P, f in 0..2.

* Prop. 2 (GREEDY = R-LIST-0, any priority):   P * T_G <= (2P - 1) * T_OPT(f)  (Eq. 10)
* Prop. 1 (RESERVATION = R-LIST-1 / R-LIST-Q with LJF, also HPA, with fresh-round and
  persistent reservations, position-based or classic EASY, A2/A3):
                                               (P + 1) * T_R <= (3P - 1) * T_OPT(f)  (Eq. 9)
  Not with fixed reservations: test_fixed_reservations.py holds an instance that breaks it.
* every heuristic:                             L(f) <= T_OPT(f) <= T_ALG(f)
"""

from __future__ import annotations

import pytest

pytest.importorskip("ortools")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import given, settings  # noqa: E402

from resilsched.bounds.rigid import lower_bound  # noqa: E402
from resilsched.heuristics.rigid import PRIORITIES  # noqa: E402
from resilsched.instances.failures import Scenario  # noqa: E402
from resilsched.instances.rigid import RigidInstance  # noqa: E402
from resilsched.models.rigid import solve_scenario  # noqa: E402
from resilsched.solution import Status  # noqa: E402
from resilsched.validation import validate_rigid_schedule  # noqa: E402
from tests.support.rigid.heuristic_cases import HEURISTICS, simulate  # noqa: E402
from tests.support.rigid.strategies import tiny_cases  # noqa: E402
from tests.thorough import examples  # noqa: E402

RANDOM_SEEDS = (0, 1, 2)
RESERVATION_OPTIONS = (
    {},
    {"classic_easy": True},
    {"reservations": "persistent"},
    {"classic_easy": True, "reservations": "persistent"},
)
SETTINGS = settings(max_examples=examples(60), deadline=None, derandomize=True)


def optimum(inst: RigidInstance, sc: Scenario) -> int:
    sol = solve_scenario(inst, sc, time_limit=30, workers=1)
    assert sol.status is Status.OPTIMAL, "tiny instance not proven optimal"
    assert isinstance(sol.objective, int)
    return sol.objective


def runs(inst: RigidInstance, sc: Scenario, heuristic: str, priorities, options=None):
    """(priority, seed, makespan) of every run, each schedule validated."""
    options = options or {}
    for prio in priorities:
        for seed in RANDOM_SEEDS if prio == "Random" else (0,):
            res = simulate(inst, sc, heuristic, prio, seed=seed, **options)
            validate_rigid_schedule(inst, sc, res.schedule)
            yield prio, seed, res.objective


@SETTINGS
@given(tiny_cases())
def test_greedy_is_2_minus_1_over_P_approximation(case):
    inst, sc = case
    opt, P = optimum(inst, sc), inst.P
    for prio, seed, mk in runs(inst, sc, "R-LIST-0", PRIORITIES):
        assert P * mk <= (2 * P - 1) * opt, (prio, seed, mk, opt)


@SETTINGS
@given(tiny_cases())
def test_reservation_is_3_minus_4_over_P_plus_1_approximation(case):
    inst, sc = case
    opt, P = optimum(inst, sc), inst.P
    for heuristic in ("R-LIST-1", "R-LIST-Q"):
        for options in RESERVATION_OPTIONS:
            for prio, seed, mk in runs(inst, sc, heuristic, ("LJF", "HPA"), options):
                assert (P + 1) * mk <= (3 * P - 1) * opt, (heuristic, options, prio, seed, mk, opt)
            for seed in RANDOM_SEEDS:  # LJF with a random secondary order (A16)
                res = simulate(inst, sc, heuristic, "LJF", seed=seed, ljf_secondary="Random",
                               **options)
                assert (P + 1) * res.objective <= (3 * P - 1) * opt, (heuristic, options, seed)


@SETTINGS
@given(tiny_cases())
def test_lower_bound_below_optimum_below_every_heuristic(case):
    inst, sc = case
    opt = optimum(inst, sc)
    assert lower_bound(inst, sc) <= opt
    for heuristic in HEURISTICS:
        for prio, seed, mk in runs(inst, sc, heuristic, PRIORITIES):
            assert opt <= mk, (heuristic, prio, seed, mk, opt)
