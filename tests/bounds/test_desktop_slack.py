"""LB_slack (bounds/desktop_slack.py, decision D-26): never above a proven optimum, its
certificate recomputed independently, and what it gains over LB_cap at scale."""


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resilsched.bounds.desktop import lb_cap, lower_bound
from resilsched.bounds.desktop_slack import _Relaxation, lb_slack
from resilsched.deadline import Deadline
from resilsched.heuristics.desktop import build
from resilsched.instances.desktop import DesktopInstance
from resilsched.instances.desktop.generators import synthetic_instance
from resilsched.models.desktop import cpsat
from resilsched.registry import get_family
from resilsched.solution import Status
from tests.support.desktop.cases import library_optima, random_instance, tiny_with_optimum
from tests.thorough import examples


def test_below_brute_force_on_tiny_instances():
    checked = raised = 0
    for seed, rule, inst, expect in tiny_with_optimum(60):
        value = lb_slack(inst)
        assert lower_bound(inst, None, rule) <= value <= expect, seed
        checked += 1
        raised += value > lower_bound(inst, None, rule)
    assert checked >= 35 and raised >= 1


def test_below_the_certified_optima_of_the_library():
    cases = library_optima()
    raised = 0
    for name, inst, opt in cases:
        value = lb_slack(inst)
        assert lower_bound(inst) <= value <= opt, name
        raised += value > lower_bound(inst)
    assert len(cases) == 100 and raised >= 5


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.booleans())
def test_below_the_cpsat_optimum_on_random_instances(seed, rule):
    inst = random_instance(np.random.default_rng(seed), rule)
    sol = cpsat.solve(inst, time_limit=20, workers=1)
    if sol.status is not Status.OPTIMAL:
        return
    assert lb_slack(inst) <= sol.objective
    for classes in (1, 2, 3):
        assert lb_slack(inst, classes=classes) <= sol.objective


def _scalar_certificate(inst: DesktopInstance, rule: bool, starts: list[int], lam: int,
                        W: list[float]) -> tuple[float, float]:
    """F_lam(W) and G(W) from the definitions, one interval and one job at a time."""
    T = inst.durations
    order = [int(j) for j in inst.order]
    bounds_ = starts + [inst.n]
    cls = {order[r]: c for c in range(len(starts)) for r in range(bounds_[c], bounds_[c + 1])}
    G = sum(W[cls[j]] * min(int(T[i, j]) / float(inst.machines[i].b) for i in range(inst.m))
            for j in range(inst.n))
    F = 0.0
    for i, mach in enumerate(inst.machines):
        for k in range(mach.K):
            w = min(mach.a[k], lam - mach.q[k])
            if w <= 0:
                continue
            prev = min([mach.a[k - d] for d in (1, 2) if k - d >= 0], default=10**18)
            best = 0.0
            for c, r in enumerate(starts):
                t = int(T[i, order[r]])
                fits = 2 * t <= w and t <= prev if rule else t <= w
                if fits:
                    room = (w - t) if rule else w
                    best = max(best, W[c] * room / float(mach.b))
            F += best
    return F, G


def test_certificate_equals_its_scalar_definition():
    rng = np.random.default_rng(5)
    for trial in range(30):
        rule = trial % 2 == 0
        inst = random_instance(rng, rule)
        rel = _Relaxation(inst, rule, 3)
        starts = rel.starts.tolist()
        W = np.sort(rng.random(len(starts)))
        for lam in rng.integers(1, int((rel.q + rel.a).max()) + 5, 4).tolist():
            _, v = rel.values(lam)
            F = float(np.maximum(0.0, (v * W).max(axis=1, initial=0.0)).sum())
            F0, G0 = _scalar_certificate(inst, rule, starts, lam, W.tolist())
            assert np.isclose(F, F0, rtol=1e-12, atol=1e-9)
            assert np.isclose(float(W @ rel.D), G0, rtol=1e-8)


def test_tighter_than_lb_cap_on_the_small_preset_and_below_the_heuristics():
    inst = synthetic_instance(50, 1000, 7, 107)
    cap = lb_cap(inst)
    value = lb_slack(inst)
    best = min(build(inst, g, "LPT", True)[0].horizon for g in ("GreedySlack", "DAslack"))
    assert value <= best
    assert value >= 1.05 * cap  # the slack of every used interval, which LB_cap charges tmin


def test_a_spent_deadline_returns_the_start():
    inst = synthetic_instance(20, 300, 3, 103)
    start = lower_bound(inst)
    assert lb_slack(inst, deadline=Deadline(0.0), start=start) == start


@pytest.fixture(scope="module")
def registered_103():
    """(instance 20 x 300 of seeds 3 and 103, its LB_slack without a deadline as the family's
    registered bound computes it: ``lb_slack(instance, None)``), computed once."""
    fam = get_family("desktop")
    assert "LB_slack" in fam.bounds
    inst = synthetic_instance(20, 300, 3, 103)
    return inst, fam.bounds["LB_slack"].compute(inst, None)


def test_registered_and_used_by_the_model(registered_103):
    inst, value = registered_103
    sol = cpsat.solve(inst, time_limit=30, workers=1, max_vars=1)  # the model is not built
    assert sol.status is Status.FEASIBLE and sol.bound >= value > lb_cap(inst)
    assert sol.info["lower_bound"] == sol.bound


def test_a_finite_deadline_runs_the_lp_in_a_child_with_the_same_bound(registered_103):
    from resilsched.models.desktop.common import _limited

    inst, unlimited = registered_103  # lb_slack(inst): the registered bound is that call
    assert lb_slack(inst, deadline=Deadline(60.0)) == unlimited > lb_cap(inst)
    assert lb_slack(inst, deadline=Deadline(60.0), runner=_limited) == unlimited


def _scalar_coupled(inst: DesktopInstance, rel: _Relaxation, lam: int, W: np.ndarray,
                    groups: int) -> float:
    """F^c_lam(W) from its definition (D-28): every sequence of heads of every machine."""
    from itertools import product

    L = W.size
    size = min(groups, L)
    first = sorted({(g * L) // size for g in range(size)})
    group = [max(g for g, f in enumerate(first) if f <= c) for c in range(L)]
    total = 0.0
    for i, mach in enumerate(inst.machines):
        t = [int(x) for x in rel.head[i]]
        opened = [k for k in range(mach.K) if mach.q[k] < lam]
        best = 0.0
        for heads in product(range(L + 1), repeat=len(opened)):  # 0: empty, c + 1: class c
            value, ok = 0.0, True
            for k, h in enumerate(heads):
                nxt = [x for x in heads[k + 1:k + 3] if x]
                tau = t[first[max(group[x - 1] for x in nxt)]] if nxt else 0
                a = mach.a[k]
                if not h:
                    ok = a >= tau
                else:
                    w = min(a, lam - mach.q[k])
                    prev = min([mach.a[k - d] for d in (1, 2) if k - d >= 0], default=10**18)
                    th = t[h - 1]
                    cap = min(w - th, a - max(th, tau))
                    ok = 2 * th <= w and th <= prev and cap >= th
                    value += W[h - 1] * cap / float(mach.b)
                if not ok:
                    break
            if ok:
                best = max(best, value)
        total += best
    return total


def test_coupled_certificate_equals_its_scalar_definition_and_never_exceeds_f():
    rng = np.random.default_rng(11)
    for _ in range(25):
        inst = random_instance(rng, True)
        rel = _Relaxation(inst, True, 3)
        W = np.sort(rng.random(rel.D.size))
        for lam in rng.integers(1, int((rel.q + rel.a).max()) + 5, 3).tolist():
            _, v = rel.values(lam)
            F = float(np.maximum(0.0, (v * W).max(axis=1, initial=0.0)).sum())
            for groups in (1, 2, 3):
                Fc = rel.coupled(lam, W, groups)
                assert np.isclose(Fc, _scalar_coupled(inst, rel, lam, W, groups), rtol=1e-12,
                                  atol=1e-9)
                assert Fc <= F + 1e-9


def test_coupled_certificate_proves_more_somewhere():
    rng = np.random.default_rng(12)
    stronger = 0
    for _ in range(60):
        inst = random_instance(rng, True)
        rel = _Relaxation(inst, True, 3)
        W = np.sort(rng.random(rel.D.size))
        for lam in range(1, int((rel.q + rel.a).max()) + 2):
            stronger += rel.certifies(lam, W, coupled=True) and not rel.certifies(lam, W)
    assert stronger >= 1


def test_coupled_lb_slack_below_the_cpsat_optimum_where_it_binds():
    """Instances where the neighbours matter: a long interval after a short one; LB_slack
    (with the coupled pass) stays at or below CP-SAT's proven optimum."""
    rng = np.random.default_rng(13)
    checked = 0
    for _ in range(25):
        inst = random_instance(rng, True)
        sol = cpsat.solve(inst, time_limit=20, workers=1)
        if sol.status is not Status.OPTIMAL:
            continue
        assert lb_slack(inst) <= sol.objective
        for classes in (2, 3, 8):
            assert lb_slack(inst, classes=classes) <= sol.objective
        checked += 1
    assert checked >= 15
