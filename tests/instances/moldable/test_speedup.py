"""Speedup formulas, extremes, Pareto fronts and the instance JSON contract (spec 000 §1.3)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched.errors import InvalidInstance
from resilsched.instances.moldable import (
    Amdahl,
    Communication,
    Mix,
    MoldableInstance,
    Power,
    Roofline,
    Table,
    pareto_front_of,
)
from resilsched.instances.moldable.generators import PAPER_MODELS, paper_jobs

W = st.floats(1.0, 1e6)
PS = st.integers(1, 300)


@settings(max_examples=40, deadline=None)
@given(W, st.floats(0, 1), PS)
def test_amdahl_is_monotonic(w, gamma, P):
    assert Amdahl(w, gamma).is_monotonic(P)


@settings(max_examples=40, deadline=None)
@given(W, st.floats(0, 1), PS)
def test_power_is_monotonic_up_to_rounding(w, delta, P):
    job = Power(w, delta)
    t = job.table(P)
    a = t * np.arange(1, P + 1)
    assert np.all(np.diff(t) <= 1e-12 * t[:-1])
    assert np.all(np.diff(a) >= -1e-12 * a[:-1])


@settings(max_examples=40, deadline=None)
@given(W, st.integers(1, 50), PS)
def test_roofline_area_constant_up_to_pbar(w, pbar, P):
    job = Roofline(w, pbar)
    for p in range(1, P + 1):
        expect = w if p <= pbar else p * w / pbar
        assert job.area(np.array([p]))[0] == pytest.approx(expect, rel=1e-12)
    assert job.argmin_time(P) == min(pbar, P)
    assert job.argmin_area(P) == 1


@settings(max_examples=40, deadline=None)
@given(W, st.floats(0, 20), PS)
def test_communication_area(w, c, P):
    job = Communication(w, c)
    ps = np.arange(1, P + 1)
    assert np.allclose(job.area(ps), w + ps * (ps - 1) * c, rtol=1e-12)


def test_scalar_time_is_exact():
    assert Roofline(7, 3).time(2) == Fraction(7, 2)
    assert Communication(10, Fraction(1, 2)).time(4) == Fraction(10, 4) + Fraction(3, 2)
    assert Amdahl(8, Fraction(1, 4)).time(3) == Fraction(8) * (Fraction(3, 4) / 3 + Fraction(1, 4))
    assert Mix(10, Fraction(1, 5), 2, 1).time(4) == Fraction(8, 2) + 2 + 3
    for job in (Roofline(7, 3), Communication(10, Fraction(1, 2)), Mix(10, Fraction(1, 5), 2, 1),
                Amdahl(8, Fraction(1, 4)), Power(9, Fraction(1, 2))):
        for p in range(1, 7):
            assert float(job.time(p)) == pytest.approx(float(job.t(np.array([p]))[0]), rel=1e-12)


def _brute_front(ts):
    return [p for p in range(1, len(ts) + 1) if all(ts[p - 1] < ts[q - 1] for q in range(1, p))]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=12))
def test_pareto_front_matches_brute_force(ts):
    assert pareto_front_of(np.array(ts, dtype=float)).tolist() == _brute_front(ts)


def test_pareto_front_drops_dominated():
    job = Table((10, 6, 6, 7, 3))
    assert job.pareto_front(5).tolist() == [1, 2, 5]


@pytest.mark.parametrize("model", PAPER_MODELS)
def test_paper_generators_respect_ranges(model):
    jobs = paper_jobs(model, 200, 1)
    for job in jobs:
        assert 5000 <= float(job.w) <= 4e6
        if model == "roofline":
            assert 100 <= job.pbar <= 4000
        if model == "communication":
            assert 1 <= job.c <= 16
        if model == "amdahl":
            assert 0 <= job.gamma <= 0.1
        if model == "mix":
            assert 3 <= job.c <= 48 and 100 <= job.pbar <= 4000
        if model == "power":
            assert 0 <= job.delta <= 1
    again = [j.to_dict() for j in paper_jobs(model, 5, 7)]
    assert [j.to_dict() for j in paper_jobs(model, 5, 7)] == again


def test_json_round_trip():
    inst = MoldableInstance(4, (Roofline(3, 2), Communication(10, Fraction(1, 2)), Amdahl(5, 0.1),
                                Mix(9, Fraction(1, 3), 3, 1), Power(8, 0.5), Table((4, 3, 2, 2))),
                            name="x", lam=1e-3)
    d = json.loads(json.dumps(inst.to_dict()))
    assert d["family"] == "moldable" and d["format_version"] == 1
    back = MoldableInstance.from_dict(d)
    assert back.to_dict() == inst.to_dict()
    assert np.array_equal(back.T, inst.T)


@pytest.mark.parametrize("job, message", [
    ({"model": "amdahl", "w": 3, "gamma": 1.5}, "jobs[0].gamma=1.5 must be in [0, 1]"),
    ({"model": "roofline", "w": 3}, "jobs[0].pbar: is required for model 'roofline'"),
    ({"model": "warp", "w": 3}, "jobs[0].model"),
    ({"model": "communication", "w": -1, "c": 1}, "jobs[0].w=-1 must be > 0"),
    ({"model": "table", "t": [3, 2]}, "jobs[0].t"),
    ({"model": "power", "w": 2, "delta": "x"}, "jobs[0].delta"),
])
def test_invalid_jobs_name_the_field(job, message):
    with pytest.raises(InvalidInstance) as err:
        MoldableInstance.from_dict({"family": "moldable", "format_version": 1, "P": 3,
                                    "jobs": [job]})
    assert str(err.value).startswith(message)


def test_invalid_instance_fields():
    with pytest.raises(InvalidInstance, match="^P="):
        MoldableInstance.from_dict({"P": 0, "jobs": [{"model": "power", "w": 1, "delta": 0}]})
    with pytest.raises(InvalidInstance, match="^family"):
        MoldableInstance.from_dict({"family": "rigid", "P": 2, "jobs": []})
    with pytest.raises(InvalidInstance, match="^failures"):
        MoldableInstance.from_dict({"P": 2, "jobs": [{"model": "power", "w": 1, "delta": 0}],
                                    "failures": [0, 1]})
