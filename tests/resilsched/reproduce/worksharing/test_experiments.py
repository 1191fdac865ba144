"""Simulation experiments (spec 003 §4.2, §7 test 13)."""

import numpy as np
import pytest

from resilsched.instances.worksharing.generators import E_EPS, synthetic_trace
from resilsched.reproduce.worksharing.experiments import (
    E5_HEURISTICS,
    heuristics_named,
    run_config,
)


@pytest.mark.parametrize("p, W, eps", [(5, 2.0, 0.01), (10, 1.0, 0.001), (5, 5.0, 0.1)])
def test_ratios_never_exceed_the_omniscient_reference(p, W, eps):
    r = run_config(p, W, eps, heuristics_named(E5_HEURISTICS + ("random-rep",)), None,
                   trials=300, seed=1)
    for h, v in r.ratios.items():
        assert np.all(v <= 1 + 1e-9) and np.all(v >= 0), h
        alone = run_config(p, W, eps, heuristics_named([h]), None, 300, 1).ratios[h]
        assert abs(v.mean() - alone.mean()) < 1e-12


def test_trace_config_runs():
    r = run_config(5, 3.0, 0.001, heuristics_named(["greedy", "no-rep"]), None, trials=200, seed=0,
                   risk=synthetic_trace(5), trace_id=5)
    assert 0 < r.ratios["greedy"].mean() <= 1


@pytest.mark.slow
def test_e5_regression_reduced():
    """Reduced E5 (p in {5, 10, 25}, 1000 trials): no-rep ~ 0.800, greedy ~ 0.851 (spec §7)."""
    ratios = {"greedy": [], "no-rep": []}
    for p in (5, 10, 25):
        for W in range(1, p + 1):
            for eps in E_EPS:
                r = run_config(p, float(W), eps, heuristics_named(ratios), None, 1000, seed=0)
                for h in ratios:
                    ratios[h].append(r.ratios[h])
    assert abs(np.concatenate(ratios["no-rep"]).mean() - 0.800) <= 0.005
    assert abs(np.concatenate(ratios["greedy"]).mean() - 0.851) <= 0.005
