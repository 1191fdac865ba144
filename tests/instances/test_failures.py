"""Failure model of spec 002 §1.2 and §8.3: calibration, sampling, exact scenario probabilities."""

import math
from fractions import Fraction

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import (
    Scenario,
    enumerate_scenarios,
    expected_failures,
    failure_probabilities,
    lambda_from_qbar,
    q_from_qbar,
    sample_failures,
    scenario_probability,
    truncated_mass,
)


def test_lambda_qbar_round_trip_and_closed_form():
    areas = [10.0, 200.0, 3000.0, 45.5]
    qbar = 0.3
    lam = lambda_from_qbar(qbar, areas)
    abar = sum(areas) / len(areas)
    assert math.isclose(1 - math.exp(-lam * abar), qbar, rel_tol=1e-12)
    q = q_from_qbar(areas, qbar)
    expected = [1 - (1 - qbar) ** (a / abar) for a in areas]
    assert np.allclose(q, expected, rtol=1e-12)
    assert np.allclose(expected_failures(q), np.exp(lam * np.array(areas)) - 1, rtol=1e-10)


def test_qbar_zero_gives_no_failures():
    q = q_from_qbar([1.0, 5.0], 0.0)
    assert np.all(q == 0)
    assert np.all(sample_failures(q, 100, 1) == 0)


def test_sampling_is_deterministic_and_unbiased():
    q = failure_probabilities([1.0, 2.0, 4.0], 0.2)
    a = sample_failures(q, 20000, np.random.default_rng(42))
    b = sample_failures(q, 20000, 42)
    assert np.array_equal(a, b)
    mean = a.mean(axis=0)
    se = a.std(axis=0) / math.sqrt(len(a))
    assert np.all(np.abs(mean - expected_failures(q)) < 4 * se)


def test_exact_scenario_probabilities_sum_to_one_minus_truncated_mass():
    q = [Fraction(1, 3), Fraction(1, 5)]
    total = sum(p for _, p in enumerate_scenarios(q, 6))
    assert total + truncated_mass(q, 6) == 1
    # closed form of the mass with sum f <= 0: (1 - q1)(1 - q2)
    assert scenario_probability(q, [0, 0]) == Fraction(2, 3) * Fraction(4, 5)
    scen = [s.failures for s, _ in enumerate_scenarios(q, 2)]
    assert scen == [(0, 0), (0, 1), (1, 0), (0, 2), (1, 1), (2, 0)]


def test_scenario_parsing_errors_name_the_field():
    assert Scenario.parse("0, 2,1", 3).failures == (0, 2, 1)
    with pytest.raises(InvalidInstance, match=r"failures\[1\]=-2 must be >= 0"):
        Scenario.parse("0,-2,1", 3)
    with pytest.raises(InvalidInstance, match=r"failures\[0\]='x' is not an integer"):
        Scenario.parse("x,1", 2)
    with pytest.raises(InvalidInstance, match="has 2 entries but the instance has 3 jobs"):
        Scenario.parse([0, 1], 3)


def test_truncated_expectation_matches_the_geometric_closed_form():
    # one job, one processor, t = 1: T = f + 1, so E[T] = 1 / (1 - q) exactly
    from resilsched.instances.failures import truncated_expectation

    q = [Fraction(1, 4)]
    partial, mass, tail = truncated_expectation(q, 30, lambda s: s.failures[0] + 1)
    assert mass + tail == 1 and tail == Fraction(1, 4) ** 31
    # the missing part is sum_{f > 30} (f + 1) q^f (1 - q) = q^31 (32 - 31 q) / (1 - q)
    missing = Fraction(1, 4) ** 31 * (32 - 31 * Fraction(1, 4)) / (1 - Fraction(1, 4))
    assert partial + missing == Fraction(4, 3)


def test_sampling_refuses_scenarios_that_cannot_finish():
    from resilsched.instances.failures import (
        MAX_ATTEMPTS,
        MAX_EXPECTED_ATTEMPTS,
        sample_scenarios,
    )

    # job 2 expects 1 / (1 - q) = 1e7 attempts: no draw, the error names the job
    q = [0.1, 0.2, 1 - 1e-7]
    with pytest.raises(InvalidInstance, match=r"^jobs\[2\]: fails with probability q=0\.9999999"):
        sample_failures(q, 1, 0)
    with pytest.raises(InvalidInstance, match=r"^jobs\[0\]: .*inf expected attempts"):
        sample_failures([1.0, 0.5], 1, 0)
    # the boundary (--qbar) uses the tighter per-scenario cap
    q = [1 - 1 / (0.6 * MAX_ATTEMPTS)] * 2  # 1.2 * MAX_ATTEMPTS expected in all
    assert 1.2 * MAX_ATTEMPTS < MAX_EXPECTED_ATTEMPTS
    assert sample_failures(q, 1, 0).shape == (1, 2)
    with pytest.raises(InvalidInstance, match=f"at most {MAX_ATTEMPTS}"):
        sample_scenarios(q, 1, 0)
    assert sample_scenarios([0.3, 0.5], 2, 0)[0].attempts >= 2


@pytest.mark.parametrize(("values", "message"), [
    (-1, "failures=-1 must be a list of failure counts"),
    (1e308, r"failures=1e\+308 must be a list"),
    ({"a": 1}, "must be a list"),
    (["5", 0], r"failures\[0\]='5' is not an integer"),
    ([True, 0], r"failures\[0\]=True is not an integer"),
    ([float("nan"), 0], r"failures\[0\]=nan is not an integer"),
    ([1e29, 0], r"failures\[0\]=1e\+29 failures exceed the maximum"),
    ([60_000, 60_000], r"failures: has 120002 attempts in all \(at most 100000\)"),
    ("0,x", r"failures\[1\]='x' is not an integer"),
    ("0," + "9" * 50, r"failures\[1\]='9999"),
])
def test_scenario_parse_refuses_wrong_types_and_sizes(values, message):
    with pytest.raises(InvalidInstance, match=message):
        Scenario.parse(values, 2)
    assert Scenario.parse("3, 4", 2).failures == (3, 4)
    assert Scenario.parse([3.0, np.int64(4)], 2).failures == (3, 4)
