"""Instances and risk functions of the worksharing family (spec 003 §1.2, §1.3, §4.3)."""

import json

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.worksharing import (
    EmpiricalRisk,
    ExponentialRisk,
    LinearRisk,
    WeibullRisk,
    WorksharingInstance,
    risk_from_dict,
)
from resilsched.instances.worksharing.generators import (
    TRACES,
    e5_configs,
    random_instances,
    synthetic_trace,
    synthetic_trace_samples,
)

RISKS = [LinearRisk(2.0), ExponentialRisk(0.7), WeibullRisk(2.0, 1.5),
         EmpiricalRisk((0.5, 1.0, 2.0, 2.0, 4.0))]


def test_json_round_trip():
    d = {"family": "worksharing", "format_version": 1, "W": 2.5, "workers": 3,
         "risk": {"kind": "linear", "X": 1.0}, "epsilon": 0.01, "max_chunks": 7}
    inst = WorksharingInstance.from_dict(json.loads(json.dumps(d)))
    assert inst.W == 2.5 and inst.workers == 3 and inst.risk == LinearRisk(1.0)
    assert inst.eps == 0.01 and inst.max_chunks == 7
    assert WorksharingInstance.from_dict(inst.to_dict()) == inst
    for r in RISKS:
        back = risk_from_dict(json.loads(json.dumps(r.to_dict())))
        t = np.linspace(0, 5, 41)
        assert np.allclose(back.cdf(t), r.cdf(t))


@pytest.mark.parametrize("patch, message", [
    ({"risk": {"kind": "linear", "X": -1}}, "risk.X=-1 must be > 0"),
    ({"W": 0}, "W=0 must be > 0"),
    ({"workers": 0}, "workers=0 must be a positive integer"),
    ({"workers": 1.5}, "workers=1.5 must be a positive integer"),
    ({"epsilon": -0.1}, "epsilon=-0.1 must be >= 0"),
    ({"risk": {"kind": "pareto"}}, "risk.kind"),
    ({"risk": {"kind": "empirical", "samples": [1, -2]}}, "risk.samples[1]=-2"),
    ({"family": "rigid"}, "family"),
    ({"format_version": 2}, "format_version"),
    ({"max_chunks": 0}, "max_chunks=0"),
])
def test_validation_errors(patch, message):
    d = {"family": "worksharing", "format_version": 1, "W": 1, "workers": 2,
         "risk": {"kind": "linear", "X": 1}, "epsilon": 0}
    d.update(patch)
    with pytest.raises(InvalidInstance) as e:
        WorksharingInstance.from_dict(d)
    assert message in str(e.value)


def test_missing_field():
    with pytest.raises(InvalidInstance, match="risk"):
        WorksharingInstance.from_dict({"W": 1, "workers": 1})


@pytest.mark.parametrize("risk", RISKS, ids=lambda r: r.kind)
def test_risk_cdf_matches_sampling(risk):
    rng = np.random.default_rng(5)
    x = risk.sample(rng, 200_000)
    for t in (0.3, 0.9, 1.7):
        emp = np.mean(x < t)
        assert abs(emp - float(risk.cdf(t))) < 5 * np.sqrt(0.25 / x.size)


@pytest.mark.parametrize("risk", RISKS, ids=lambda r: r.kind)
def test_cdf_integral_and_inverse(risk):
    a, b = 0.1, 2.3
    ts = np.linspace(a, b, 400_001)
    num = np.trapezoid(risk.cdf(ts), ts)
    assert abs(risk.cdf_integral(a, b) - num) < 1e-4
    for lam in (0.2, 0.5, 0.9):
        t = risk.inv(lam)
        assert float(risk.cdf(t + 1e-9)) >= lam - 1e-9


def test_linear_and_exponential_facts():
    assert LinearRisk(2.0).inv(1.0) == 2.0
    assert np.isclose(ExponentialRisk(1.0).inv(0.5), np.log(2))  # maxsl = X ln 2 (§3.1)
    assert float(LinearRisk(1.0).cdf(3.0)) == 1.0


def test_empirical_risk_is_strict_step():
    r = EmpiricalRisk((1.0, 2.0, 2.0, 4.0))  # normalised: .25 .5 .5 1
    assert float(r.cdf(0.5)) == 0.25  # #{< 0.5} = 1 (0.25 only)
    assert float(r.cdf(0.25)) == 0.0
    assert float(r.cdf(1.0)) == 0.75
    assert r.horizon == 1.0


def test_synthetic_traces():
    for tid, (_, count, _, _) in TRACES.items():
        s = synthetic_trace_samples(tid)
        assert s.size == count and s.max() == 1.0 and s.min() > 0
    assert np.array_equal(synthetic_trace_samples(3), synthetic_trace_samples(3))
    med = {t: np.median(synthetic_trace_samples(t)) for t in TRACES}
    assert abs(med[5] - 0.5) < 0.1  # Princeton ~ uniform
    assert max(med[1], med[2]) < 0.05 < min(med[0], med[3], med[7])  # skewed vs "a lot of work"
    assert synthetic_trace(5).cdf(0.5) > 0.3


def test_generators():
    assert len(e5_configs()) == 760
    a, b = random_instances(3, 5), random_instances(3, 5)
    assert [x.to_dict() for x in a] == [x.to_dict() for x in b]


@pytest.mark.parametrize("risk", RISKS, ids=lambda r: r.kind)
def test_tail_integral_is_expected_excess(risk):
    x = risk.sample(np.random.default_rng(8), 400_000)
    for eps in (0.0, 0.05):
        v = np.maximum(x - eps, 0.0)
        assert abs(v.mean() - risk.tail_integral(eps)) <= 4 * v.std() / np.sqrt(v.size)
