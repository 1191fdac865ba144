"""One-worker theorems, certified by the HiGHS QP (spec 003 §2.1-§2.3, §1.5, §7 tests 1-3)."""

import numpy as np
import pytest

from resilsched.bounds.worksharing import one_worker_limit, thm1_sandwich
from resilsched.heuristics.worksharing.one_worker import (
    thm2_free_linear,
    thm3_equal_chunks,
    thm4_charged_linear,
)
from resilsched.instances.worksharing import ExponentialRisk, LinearRisk, WeibullRisk
from resilsched.instances.worksharing.evaluate import PieceSchedule, expected_work
from resilsched.models.worksharing.highs_qp import qp_certificate, qp_certificate_batch

THM2_VECTORS = [  # (n, W, kappa) -> W_dpl, chunk, E
    ((1, 1, 1), (0.5, 0.5, 0.25)),
    ((3, 0.5, 1), (0.5, 1 / 6, 1 / 3)),
    ((3, 2, 1), (0.75, 0.25, 0.375)),
    ((10, 0.9, 1), (0.9, 0.09, 0.4545)),
    ((4, 3, 0.5), (1.6, 0.4, 0.8)),
    ((6, 10, 0.5), (12 / 7, 2 / 7, 6 / 7)),
]

THM4_VECTORS = [  # (n, W, kappa, eps) -> n1, n2, m, W_dpl, first chunks, E
    ((5, 3, 1, 0.1), (4, 8, 4, 0.6, [0.3, 0.2, 0.1, 0.0], 0.25)),
    ((5, 0.5, 1, 0.1), (4, 3, 3, 0.5, [0.26667, 0.16667, 0.06667], 0.2433333)),
    ((100, 1, 1, 0.01), (13, 14, 13, 0.8635714, [0.126429, 0.116429], 0.41066071)),
    ((100, 0.1, 1, 0.01), (13, 5, 5, 0.1, [0.04, 0.03, 0.02, 0.01, 0.0], 0.0915)),
    ((8, 1, 2, 0.02), (6, 10, 6, 0.3685714, [0.111429], 0.16548571)),
    ((3, 2, 0.5, 0.05), (8, 9, 3, 1.425, [0.525, 0.475, 0.425], 0.678125)),
]


@pytest.mark.parametrize("args, expected", THM2_VECTORS)
def test_thm2_vectors(args, expected):
    n, W, kappa = args
    s = thm2_free_linear(W, 1 / kappa, n)
    assert np.allclose([s.W_dpl, s.chunks[0], s.expected], expected, atol=1e-12)
    assert len(s.chunks) == n and np.allclose(s.chunks, s.chunks[0])


def test_thm2_closed_vs_evaluator_vs_qp():
    worst_eval = 0.0
    problems, closed = [], []
    for n in range(1, 11):
        for W in (0.05, 0.3, 0.8, 1.5, 3.0):
            for kappa in (0.5, 1.0, 2.0):
                X = 1 / kappa
                s = thm2_free_linear(W, X, n)
                E = expected_work(s.schedule(W), LinearRisk(X), 0.0)
                worst_eval = max(worst_eval, abs(E - s.expected))
                if n in (1, 2, 3, 5, 10):
                    problems.append((W, X, 0.0, n))
                    closed.append(s.expected)
    certs = [c[0] for c in qp_certificate_batch(problems)]
    assert worst_eval <= 1e-12
    assert max(abs(a - b) for a, b in zip(certs, closed, strict=True)) <= 1e-6


def test_thm2_facts():
    X = 1.0
    r = LinearRisk(X)
    for W, w1 in ((0.2, 0.05), (0.7, 0.3)):  # splitting always helps: E(Σ2) - E(Σ1) = kappa w1 w2
        e1 = expected_work(thm3_equal_chunks(W, 1), r)
        e2 = expected_work(PieceSchedule(W, np.array([w1, W - w1]), (np.arange(2),)), r)
        assert abs(e1 - (W - W * W)) < 1e-15
        assert abs(e2 - e1 - w1 * (W - w1)) < 1e-15
    assert abs(thm2_free_linear(5.0, X, 4).expected - 4 * X / (2 * 5)) < 1e-12
    vals = [thm2_free_linear(0.8, X, n).expected for n in range(1, 50)]
    assert all(b >= a for a, b in zip(vals, vals[1:], strict=False))
    assert vals[-1] <= one_worker_limit(0.8, LinearRisk(X)) + 1e-15


@pytest.mark.parametrize("args, expected", THM4_VECTORS)
def test_thm4_vectors(args, expected):
    n, W, kappa, eps = args
    n1, n2, m, W_dpl, chunks, E = expected
    s = thm4_charged_linear(W, 1 / kappa, eps, n)
    assert (s.info["n1"], s.info["n2"], s.info["m"]) == (n1, n2, m)
    assert abs(s.W_dpl - W_dpl) < 1e-7 and abs(s.expected - E) < 1e-7  # printed precision
    assert np.allclose(s.chunks[: len(chunks)], chunks, rtol=0, atol=5e-6)  # printed precision
    assert np.allclose(np.diff(s.chunks), -eps, atol=1e-12)  # steps of exactly eps
    assert abs(sum(s.chunks) - s.W_dpl) < 1e-12
    assert abs(expected_work(s.schedule(W), LinearRisk(1 / kappa), eps) - s.expected) < 1e-12


def test_thm4_vectors_vs_qp():
    problems = [(W, 1 / kappa, eps, min(n, 40)) for (n, W, kappa, eps), _ in THM4_VECTORS]
    for (_, expected), (cert, _, _) in zip(THM4_VECTORS, qp_certificate_batch(problems),
                                          strict=True):
        assert abs(cert - expected[-1]) < 1e-7  # printed precision of the spec's E


def test_thm4_grid_closed_vs_evaluator_vs_qp():
    worst_eval = 0.0
    problems, closed = [], []
    for kappa in (0.5, 1.0, 2.0):
        for eps in (0.1, 0.05, 0.02):
            for W in (0.05, 0.5, 3.0):
                for n in (1, 2, 3, 5, 8):
                    X = 1 / kappa
                    s = thm4_charged_linear(W, X, eps, n)
                    E = expected_work(s.schedule(W), LinearRisk(X), eps)
                    worst_eval = max(worst_eval, abs(E - s.expected))
                    problems.append((W, X, eps, n))
                    closed.append(s.expected)
    certs = [c[0] for c in qp_certificate_batch(problems)]
    assert worst_eval <= 1e-12
    assert max(abs(a - b) for a, b in zip(certs, closed, strict=True)) <= 1e-6


def test_thm4_more_chunks_do_not_help():
    s = thm4_charged_linear(1.0, 1.0, 0.01, None)
    assert s.info["m"] == min(s.info["n1"], s.info["n2"])
    assert abs(thm4_charged_linear(1.0, 1.0, 0.01, 500).expected - s.expected) < 1e-15
    assert thm4_charged_linear(1.0, 0.05, 0.1, 5).expected == 0.0  # X < eps


def test_qp_skips_chunk_counts_beyond_the_horizon():
    E, m, w = qp_certificate(1.0, 1.0, 0.3, 10)  # m eps <= X allows m <= 3 only
    assert m <= 3 and abs(E - thm4_charged_linear(1.0, 1.0, 0.3, 10).expected) < 1e-7


@pytest.mark.parametrize("case", [(3, 1, 1, 0.01), (10, 0.5, 1, 0.02), (5, 3, 2, 0.05),
                                  (20, 2, 1, 0.001)])
def test_thm1_sandwich_one_worker(case):
    n, W, kappa, eps = case
    Ef = thm2_free_linear(W, 1 / kappa, n).expected
    Ec = thm4_charged_linear(W, 1 / kappa, eps, n).expected
    lo, hi = thm1_sandwich(Ef, n, eps)
    assert lo - 1e-12 <= Ec <= hi + 1e-12


@pytest.mark.parametrize("risk", [ExponentialRisk(1.0), WeibullRisk(2.0), LinearRisk(1.0)],
                         ids=lambda r: r.kind)
def test_thm3_equal_chunks_converge(risk):
    """Theorem 3: E(Σ(n)) increases to the one-worker limit (gap O(1/n))."""
    W = 1.5
    lim = one_worker_limit(W, risk, 0.0)
    gaps = [lim - expected_work(thm3_equal_chunks(W, n), risk, 0.0) for n in (10, 100, 1000)]
    assert all(g >= -1e-12 for g in gaps)
    assert gaps[2] < gaps[1] < gaps[0] and gaps[2] < 2e-3
