"""Exact evaluator vs independent formulas and Monte Carlo (spec 003 §1.4, §2.8, §7 tests 7, 12)."""

import math

import numpy as np
import pytest

from resilsched.heuristics.worksharing.charts import (
    CHARTS,
    chart_positions,
    expand_chart,
    k_constant,
)
from resilsched.instances.worksharing import (
    EmpiricalRisk,
    ExponentialRisk,
    LinearRisk,
    WeibullRisk,
    WorksharingInstance,
)
from resilsched.instances.worksharing.evaluate import (
    IntervalSchedule,
    PieceSchedule,
    expected_work,
    monte_carlo,
    realised_work,
)
from tests.support.worksharing.helpers import BASELINES, GROUP_HEURISTICS, plan


def eq2(chunks, risk, eps):
    """Eq. (2) / its charged version, written independently."""
    total, t = 0.0, 0.0
    for i, w in enumerate(chunks, start=1):
        t = sum(chunks[:i]) + i * eps
        total += w * (1 - float(risk.cdf(t)))
    return total


@pytest.mark.parametrize("eps", [0.0, 0.03])
def test_one_worker_matches_eq2(eps):
    rng = np.random.default_rng(1)
    for risk in (LinearRisk(1.3), ExponentialRisk(0.8), WeibullRisk(1.7)):
        for _ in range(10):
            w = list(rng.uniform(0.01, 0.4, rng.integers(1, 7)))
            s = PieceSchedule(5.0, np.array(w), (np.arange(len(w)),))
            assert abs(expected_work(s, risk, eps) - eq2(w, risk, eps)) < 1e-12


def test_pieces_and_intervals_agree():
    rng = np.random.default_rng(2)
    for _ in range(20):
        N, p = int(rng.integers(2, 9)), int(rng.integers(1, 4))
        sizes = rng.uniform(0.05, 0.3, N)
        seqs = tuple(rng.permutation(N)[: rng.integers(1, N + 1)] for _ in range(p))
        s = PieceSchedule(float(sizes.sum()), sizes, seqs)
        for risk in (LinearRisk(1.0), WeibullRisk(2.0)):
            a = expected_work(s, risk, 0.02)
            b = expected_work(s.to_intervals(), risk, 0.02)
            assert abs(a - b) < 1e-12


def test_first_occurrence_and_overlapping_chunks():
    r = LinearRisk(1.0)
    # worker 1 runs <0,.4> then <.2,.6>: x in (.2,.4) is decided by the first chunk (T=.4)
    iv = IntervalSchedule(1.0, [[[(0.0, 0.4)], [(0.2, 0.6)]]])
    exp = 0.4 * (1 - 0.4) + 0.2 * (1 - 0.8)
    assert abs(expected_work(iv, r) - exp) < 1e-15
    # re-running the same piece later adds nothing
    s = PieceSchedule(1.0, np.array([0.3]), (np.array([0, 0]),))
    assert abs(expected_work(s, r) - 0.3 * 0.7) < 1e-15


def test_two_workers_product_rule():
    r = LinearRisk(1.0)
    iv = IntervalSchedule(1.0, [[[(0.0, 0.6)]], [[(0.3, 0.9)]]])
    exp = 0.3 * 0.4 + 0.3 * 0.4 + 0.3 * (1 - 0.36)
    assert abs(expected_work(iv, r) - exp) < 1e-15


def test_realised_work_by_hand():
    s = PieceSchedule(1.0, np.array([0.2, 0.3, 0.5]), (np.array([0, 1, 2]), np.array([2, 1])))
    # worker 0 ends chunks at .2 .5 1.0 ; worker 1 ends at .5 .8
    taus = np.array([[0.25, 0.1], [0.6, 0.9], [0.1, 0.55], [1.0, 0.0]])
    got = realised_work(s, 0.0, taus)
    assert np.allclose(got, [0.2, 1.0, 0.5, 1.0])


@pytest.mark.parametrize("risk", [LinearRisk(1.0), ExponentialRisk(1.0),
                                  EmpiricalRisk(tuple(np.linspace(0.05, 1, 20)))],
                         ids=lambda r: r.kind)
def test_monte_carlo_agrees_with_exact_for_each_heuristic(risk):
    inst = WorksharingInstance(1.7, 3, risk, 0.02)
    rng = np.random.default_rng(11)
    for name in GROUP_HEURISTICS + BASELINES:
        sched = plan(name, inst, n=9, seed=1).schedule
        E = expected_work(sched, risk, inst.eps)
        m, se = monte_carlo(sched, risk, inst.eps, 40_000, rng)
        assert abs(m - E) <= 4 * se + 1e-12, (name, m, E, se)


def test_monte_carlo_interval_schedule():
    iv = IntervalSchedule(1.2, [[[(0.0, 0.5)], [(0.5, 0.9)]], [[(0.3, 1.2)], [(0.0, 0.3)]]])
    r = WeibullRisk(1.5, 1.0)
    E = expected_work(iv, r, 0.01)
    m, se = monte_carlo(iv, r, 0.01, 50_000, np.random.default_rng(3))
    assert abs(m - E) <= 4 * se


def eq7(C, sl, n, g, kappa):
    """Eq. (7) with a full execution chart C (g x n)."""
    return (1 - (1 / n) * (sl * kappa / n) ** g * sum(math.prod(int(C[i][j]) for i in range(g))
                                                      for j in range(n))) * sl


@pytest.mark.parametrize("chart", list(CHARTS))
def test_eq7_k_formula_and_charged_form(chart):
    rng = np.random.default_rng(4)
    kappa = 1.0
    for g in range(1, 7):
        for m in range(1, 9):
            n = g * m
            C = CHARTS[chart](g, m)
            seqs = expand_chart(C)
            sl = float(rng.uniform(0.05, 1.0)) * n / (n + 1)  # assumption (8): steps*omega <= X
            s = PieceSchedule(sl, np.full(n, sl / n), tuple(seqs))
            E = expected_work(s, LinearRisk(1 / kappa), 0.0)
            full = chart_positions(C, n).T  # g x n execution chart
            assert abs(E - eq7(full, sl, n, g, kappa)) < 1e-12
            K = k_constant(C)
            assert abs(E - (sl - K * (g / kappa) * (sl * kappa / n) ** (g + 1))) < 1e-12
            eps = 0.2 * (1 / n - sl / n) if sl < 1 else 0.0
            if eps > 0:
                Ec = expected_work(s, LinearRisk(1 / kappa), eps)
                closed = sl * (1 - (g * K / n) * (kappa * (sl / n + eps)) ** g)
                assert abs(Ec - closed) < 1e-12


@pytest.mark.parametrize("risk", [LinearRisk(1.0), ExponentialRisk(0.6), WeibullRisk(2.5, 0.8)],
                         ids=lambda r: r.kind)
def test_theorem9_identity(risk):
    """Eq. (9): E^c(sl) = sl/(sl + n eps) E^f(sl + n eps), any chart, any risk."""
    for chart in ("greedy", "snake", "reverse"):
        g, m, sl, eps = 3, 4, 0.7, 0.01
        n = g * m
        seqs = tuple(expand_chart(CHARTS[chart](g, m)))
        Ec = expected_work(PieceSchedule(sl, np.full(n, sl / n), seqs), risk, eps)
        big = sl + n * eps
        Ef = expected_work(PieceSchedule(big, np.full(n, big / n), seqs), risk, 0.0)
        assert abs(Ec - sl / big * Ef) < 1e-12


def test_charged_closed_form_spec_value():
    """§2.8: g = 4, n/g = 5, sl = 0.6, eps = 0.005, greedy -> 0.59560797."""
    C = CHARTS["greedy"](4, 5)
    s = PieceSchedule(0.6, np.full(20, 0.03), tuple(expand_chart(C)))
    assert abs(expected_work(s, LinearRisk(1.0), 0.005) - 0.59560797) < 5e-9
