"""Two-worker theorems (spec 003 §2.4-§2.7, §7 tests 3-6)."""

import numpy as np
import pytest

from resilsched.bounds.worksharing import thm1_sandwich, thm8_limit
from resilsched.instances.worksharing import ExponentialRisk, LinearRisk
from resilsched.instances.worksharing.evaluate import IntervalSchedule, expected_work
from resilsched.models.worksharing.two_worker import (
    algorithm1,
    single_chunk_enumeration,
    single_chunk_value,
    thm6_mirrored,
    thm7_single_chunk,
    thm7_value,
    thm8_value_large,
)

LIN = LinearRisk(1.0)


@pytest.mark.parametrize("W", [0.05, 0.3, 0.5, 0.62, 0.9, 1.0, 1.4, 2.5])
def test_thm7_closed_vs_evaluator_vs_enumeration(W):
    E = thm7_value(W, 1.0)
    assert abs(expected_work(thm7_single_chunk(W, 1.0), LIN) - E) < 1e-12
    cert, a, b = single_chunk_enumeration(W, LIN, step=1e-3)
    assert cert <= E + 1e-12  # nothing (symmetric or not) beats Theorem 7
    assert E - cert <= 1e-6  # and the enumeration reaches it


def test_single_chunk_value_is_the_evaluator():
    rng = np.random.default_rng(0)
    for _ in range(30):
        W = float(rng.uniform(0.2, 2.0))
        a, b = rng.uniform(0, W, 2)
        o = max(0.0, a + b - W)
        iv = IntervalSchedule(W, [[[(0.0, a)]], [[(W - b, W)]]]) if o > 0 else \
            IntervalSchedule(W, [[[(0.0, a)]], [[(a, a + b)]]])
        for risk in (LIN, ExponentialRisk(0.7)):
            assert abs(float(single_chunk_value(a, b, W, risk)) - expected_work(iv, risk)) < 1e-12


def test_thm7_continuity():
    for W0 in (0.5, 1.0):
        assert abs(thm7_value(W0 - 1e-9, 1.0) - thm7_value(W0 + 1e-9, 1.0)) < 1e-8
    assert abs(0.5 - 0.5 ** 3 - (0.5 - 0.5 ** 2 / 2)) < 1e-15  # W - k^2 W^3 = W - k W^2/2 at X/2


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10])
def test_alg1_exact_large_workload(n):
    """Theorem 8 case 1 with the erratum: n/(n+1) X, not (1 - 1/n) X."""
    for W in (2.0, 2.5, 7.0):
        E = expected_work(algorithm1(W, 1.0, n), LIN)
        assert abs(E - thm8_value_large(1.0, n)) < 1e-12
    assert abs(thm8_value_large(1.0, n) - (1 - 1 / n)) > 1e-3


@pytest.mark.parametrize("W", [0.3, 0.7, 1.0, 1.2, 1.5, 1.9])
def test_alg1_limits(W):
    gaps = [thm8_limit(W, 1.0) - expected_work(algorithm1(W, 1.0, n), LIN)
            for n in (30, 300, 3000)]
    assert all(g >= -1e-12 for g in gaps)
    assert gaps[2] < 1e-3 and gaps[2] < gaps[1] < gaps[0]


def test_spec_convergence_values():
    assert abs(expected_work(algorithm1(0.7, 1.0, 10), LIN) - 0.62454) < 5e-6
    assert abs(expected_work(algorithm1(1.5, 1.0, 30), LIN) - 0.94469) < 5e-6
    assert abs(thm8_limit(1.0, 1.0) - 5 / 6) < 1e-15 and abs(thm8_limit(2.0, 1.0) - 1) < 1e-12


def test_alg1_small_n_fallback():
    """§6 Q17: X < W < 2X with n < 3 still deploys work."""
    for n in (1, 2):
        assert expected_work(algorithm1(1.5, 1.0, n), LIN) > 0


def test_thm6_mirrored_is_alg1_for_small_workloads():
    for W in (0.4, 1.0):
        a = expected_work(thm6_mirrored(W, 7), LIN)
        b = expected_work(algorithm1(W, 1.0, 7), LIN)
        assert abs(a - b) < 1e-12


def test_thm1_sandwich_two_workers():
    """Sanity (not a proof): Algorithm-1 schedules under charged initiation stay in the band."""
    for W, n, eps in ((0.7, 6, 0.01), (1.5, 9, 0.005)):
        Ef = expected_work(algorithm1(W, 1.0, n), LIN, 0.0)
        Ec = expected_work(algorithm1(W, 1.0, n), LIN, eps)
        lo, hi = thm1_sandwich(Ef, n, eps)
        assert lo - 1e-12 <= Ec <= hi + 1e-12


def test_thm6_converges_for_arbitrary_risk():
    """Theorem 6: the mirrored equal-chunk schedules converge (Cauchy) under any risk."""
    from resilsched.bounds.worksharing import omniscient_bound
    from resilsched.instances.worksharing import WeibullRisk, WorksharingInstance

    for risk in (ExponentialRisk(1.0), WeibullRisk(2.0)):
        vals = [expected_work(thm6_mirrored(1.3, n), risk) for n in (250, 500, 1000, 2000)]
        assert abs(vals[3] - vals[2]) < abs(vals[1] - vals[0]) + 1e-12
        assert abs(vals[3] - vals[2]) < 1e-3
        assert max(vals) <= omniscient_bound(WorksharingInstance(1.3, 2, risk, 0.0)) + 1e-12
