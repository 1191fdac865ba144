"""Exact expected makespans on a tiny instance by truncated scenario enumeration (spec 002 §1.4,
§11.2): E[L(f)] <= E_clairvoyant = sum_f Q(f) T_OPT(f) <= E[T_ALG] for every heuristic, and the
R-LIST-0 guarantee carries over to expectations (Eq. 8)."""

from fractions import Fraction

from resilsched.bounds.rigid import greedy_ratio, lower_bound
from resilsched.instances.failures import truncated_expectation
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import solve_scenario
from tests.support.rigid.heuristic_cases import HEURISTICS, simulate

INSTANCE = RigidInstance.build(3, [(2, 3), (1, 2), (2, 1), (1, 4)])
Q = [Fraction(1, 5), Fraction(1, 10), Fraction(1, 20), Fraction(1, 8)]
MAX_FAILURES = 3


def expectation(value):
    partial, mass, tail = truncated_expectation(Q, MAX_FAILURES, value)
    assert 0 < tail < Fraction(1, 50)  # the truncation is reported and small
    return partial


def test_expected_clairvoyant_optimum_is_sandwiched():
    def t_opt(scenario):
        sol = solve_scenario(INSTANCE, scenario, time_limit=10)
        assert sol.is_optimal
        return sol.objective

    e_opt = expectation(t_opt)
    e_lower = expectation(lambda s: lower_bound(INSTANCE, s))
    assert e_lower <= e_opt
    for name in HEURISTICS:
        e_alg = expectation(lambda s, name=name: simulate(INSTANCE, s, name, "LPT").objective)
        assert e_opt <= e_alg, name
        if name == "R-LIST-0":
            assert e_alg <= greedy_ratio(INSTANCE.P) * e_opt  # Eq. (8) from Prop. 2
