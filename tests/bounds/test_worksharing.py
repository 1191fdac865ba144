"""Bounds, the certified model and the registry entry (spec 003 §2, §3.5, §7)."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched.bounds.worksharing import (
    limit_bound,
    omniscient_bound,
    omniscient_discretised,
    omniscient_linear_exact,
    union_bound,
)
from resilsched.instances.worksharing import LinearRisk, WeibullRisk, WorksharingInstance
from resilsched.instances.worksharing.evaluate import (
    expected_work,
    omniscient_work,
    sample_taus,
)
from resilsched.models.worksharing.solve import solve
from resilsched.registry import get_family
from resilsched.solution import Status
from tests.support.worksharing.helpers import BASELINES, GROUP_HEURISTICS, plan
from tests.thorough import examples


@pytest.mark.parametrize("W, p, eps", [(1.0, 1, 0.0), (2.5, 4, 0.01), (1.2, 3, 0.3)])
def test_omniscient_exact_vs_monte_carlo(W, p, eps):
    risk = LinearRisk(1.0)
    x = omniscient_work(W, eps, sample_taus(risk, p, 200_000, np.random.default_rng(9)))
    ex = omniscient_linear_exact(W, p, 1.0, eps)
    assert abs(x.mean() - ex) <= 4 * x.std() / np.sqrt(x.size)
    assert omniscient_discretised(W, p, risk, eps) >= ex - 1e-12


def test_omniscient_closed_cases():
    assert abs(omniscient_linear_exact(1.0, 1, 1.0, 0.0) - 0.5) < 1e-15
    assert abs(omniscient_linear_exact(10.0, 4, 1.0, 0.0) - 2.0) < 1e-15  # E[S] when W >= p X
    assert omniscient_linear_exact(1.0, 3, 1.0, 1.0) == 0.0


@settings(max_examples=examples(25), deadline=None)
@given(W=st.floats(0.2, 3.0), p=st.integers(1, 4), eps=st.sampled_from([0.0, 0.01, 0.05]),
       X=st.floats(0.5, 2.0))
def test_bounds_dominate_heuristics_and_models(W, p, eps, X):
    inst = WorksharingInstance(W, p, LinearRisk(X), eps, max_chunks=6 if eps == 0 else None)
    ub = min(omniscient_bound(inst), limit_bound(inst))
    sol = solve(inst, certify=False)  # certificates: test_one_worker, test_two_worker
    assert sol.objective <= sol.bound + 1e-9
    assert sol.bound <= union_bound(inst) + 1e-9 or sol.status is Status.OPTIMAL
    for name in ("greedy", "no-rep", "cyclic-rep", "brute"):
        E = expected_work(plan(name, inst).schedule, inst.risk, inst.eps)
        assert E <= ub + 1e-9
        assert E <= sol.bound + 1e-9
        if sol.status is Status.OPTIMAL:
            assert E <= sol.objective + 1e-9


def test_solve_statuses():
    lin = LinearRisk(1.0)
    assert solve(WorksharingInstance(2.0, 1, lin, 0.0, max_chunks=3)).status is Status.OPTIMAL
    s = solve(WorksharingInstance(2.0, 1, lin, 0.0))  # no cap: sup not attained
    assert s.status is Status.FEASIBLE and abs(s.bound - 0.5) < 1e-12
    s = solve(WorksharingInstance(5.0, 2, lin, 0.0, max_chunks=4))
    assert s.status is Status.OPTIMAL and abs(s.objective - 0.8) < 1e-12  # n/(n+1) X
    s = solve(WorksharingInstance(4.0, 3, lin, 0.05))  # W >= p W_dpl*: disjoint Theorem 4
    from resilsched.heuristics.worksharing.one_worker import thm4_charged_linear

    assert s.status is Status.OPTIMAL
    assert abs(s.objective - 3 * thm4_charged_linear(1e9, 1.0, 0.05).expected) < 1e-12
    s = solve(WorksharingInstance(0.7, 2, lin, 0.0, max_chunks=1))
    assert s.status is Status.OPTIMAL and abs(s.objective - 0.455) < 1e-12
    s = solve(WorksharingInstance(1.5, 2, lin, 0.0, max_chunks=30))
    assert s.status is Status.FEASIBLE and s.objective <= s.bound
    s = solve(WorksharingInstance(2.0, 4, WeibullRisk(2.0), 0.01))
    assert s.status is Status.FEASIBLE
    ref = omniscient_bound(WorksharingInstance(2.0, 4, WeibullRisk(2.0), 0.01))
    assert abs(s.bound - ref) < 1e-12


def test_family_registration_and_smoke():
    fam = get_family("worksharing")
    assert fam.sense == "max" and fam.default_exact in fam.exact
    assert set(GROUP_HEURISTICS + BASELINES) <= set(fam.heuristics)
    cases = fam.smoke_suite()
    assert 5 <= len(cases) <= 8
    statuses = []
    for case in cases:
        sol = fam.exact[fam.default_exact].solve(case.instance, None, time_limit=10.0)
        statuses.append(sol.status)
        assert sol.objective <= sol.bound + 1e-12
        for b in fam.bounds.values():
            assert b.compute(case.instance, None) >= sol.objective - 1e-9
        for h in fam.heuristics.values():
            r = h.run(case.instance, None, None, seed=0)
            fam.validate(case, r)
            json.dumps(r.to_dict())
            assert r.objective <= sol.bound + 1e-9
            if sol.status is Status.OPTIMAL:
                assert r.objective <= sol.objective + 1e-9
        json.dumps(sol.to_dict())
    assert statuses.count(Status.OPTIMAL) >= 3 and Status.FEASIBLE in statuses
    inst = cases[0].instance
    assert fam.from_dict(json.loads(json.dumps(inst.to_dict()))) == inst
    for g in fam.generators.values():
        assert len(g.generate(1, 3)) == 3


def test_validator_rejects_a_wrong_objective():
    from resilsched.errors import InvalidSchedule
    from resilsched.solution import HeuristicResult

    fam = get_family("worksharing")
    case = fam.smoke_suite()[4]
    r = fam.heuristics["greedy"].run(case.instance, None, None, seed=0)
    bad = HeuristicResult(r.objective * 1.01, r.heuristic, None, r.schedule)
    with pytest.raises(InvalidSchedule):
        fam.validate(case, bad)


@settings(max_examples=examples(15), deadline=None)
@given(W=st.floats(0.2, 3.0), p=st.integers(1, 4), eps=st.sampled_from([0.0, 0.01, 0.05]),
       kind=st.sampled_from(["exponential", "weibull", "empirical"]))
def test_bounds_dominate_under_other_risks(W, p, eps, kind):
    from resilsched.instances.worksharing import ExponentialRisk
    from resilsched.instances.worksharing.generators import synthetic_trace

    risk = {"exponential": ExponentialRisk(1.0), "weibull": WeibullRisk(1.5, 1.0),
            "empirical": synthetic_trace(7)}[kind]
    inst = WorksharingInstance(W, p, risk, eps)
    sol = solve(inst)
    assert sol.objective <= sol.bound + 1e-9
    ub = omniscient_bound(inst)
    for name in ("greedy", "no-rep", "cyclic-rep"):
        E = expected_work(plan(name, inst).schedule, inst.risk, inst.eps)
        assert E <= ub + 1e-9 and E <= limit_bound(inst) + 1e-9
