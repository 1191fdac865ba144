"""Heuristics: partition, baselines, granularity (spec 003 §3)."""

import numpy as np
import pytest

from resilsched.heuristics.worksharing.partition import Coterie, partition
from resilsched.heuristics.worksharing.schedules import (
    GREEDY,
    argmax_int,
    coterie_expected,
    cyclic_rep_plan,
    no_rep_plan,
)
from resilsched.instances.worksharing import ExponentialRisk, LinearRisk, WorksharingInstance
from resilsched.instances.worksharing.evaluate import expected_work
from resilsched.instances.worksharing.generators import synthetic_trace
from tests.support.worksharing.helpers import BASELINES, GROUP_HEURISTICS, plan


def test_partition_cases():
    assert partition(10.0, 4, 1.0) == [Coterie(1, 1.0)] * 4  # A
    assert partition(0.8, 4, 1.0) == [Coterie(4, 0.8)]  # B: slice W (erratum)
    cots = partition(3.5, 5, 1.0)  # C: q = 4, one coterie of 2 (sl+ = 1.4 > X, kept), three of 1
    assert sorted((c.g, round(c.sl, 12)) for c in cots) == [(1, 0.7), (1, 0.7), (1, 0.7), (2, 1.4)]
    for W, p in ((2.5, 7), (7.5, 25), (13.0, 50)):
        cots = partition(W, p, 1.0)
        assert sum(c.g for c in cots) == p
        assert abs(sum(c.sl for c in cots) - W) < 1e-12


def test_cyclic_rep_equals_no_rep_when_chunks_multiple_of_p():
    inst = WorksharingInstance(3.0, 3, LinearRisk(1.0), 0.01)
    a, b = cyclic_rep_plan(inst, n=4), no_rep_plan(inst, n=4)  # N = 12 = 4p
    assert [s.tolist() for s in a.schedule.seqs] == [s.tolist() for s in b.schedule.seqs]
    small = WorksharingInstance(1.5, 3, LinearRisk(1.0), 0.01)
    c = cyclic_rep_plan(small, n=10 / 3)  # N = 5, omega = 0.3: k = 3 slots per worker, 9 > 5
    assert [s.tolist() for s in c.schedule.seqs] == [[0, 3, 1], [1, 4, 2], [2, 0, 3]]


def test_brute_realised_formula():
    inst = WorksharingInstance(2.0, 3, LinearRisk(1.0), 0.01)
    built = plan("brute", inst, n=10)
    assert len({s.tobytes() for s in built.schedule.seqs}) == 1
    N = 20
    omega = 2.0 / N
    k = np.arange(1, N + 1)
    E = omega * np.sum(1 - np.minimum(1, k * (omega + 0.01)) ** 3)
    assert abs(expected_work(built.schedule, inst.risk, inst.eps) - E) < 1e-12


@pytest.mark.parametrize("name", GROUP_HEURISTICS + BASELINES)
def test_heuristics_respect_max_chunks(name):
    inst = WorksharingInstance(1.5, 3, LinearRisk(1.0), 0.0, max_chunks=4)
    built = plan(name, inst, None, seed=2)
    assert max(len(s) for s in built.schedule.seqs) <= 4
    assert all(len(set(s.tolist())) == len(s) for s in built.schedule.seqs)


def test_group_granularity_is_best_on_its_search_range():
    risk = LinearRisk(1.0)
    f = [coterie_expected(GREEDY, 3, 0.9, N, risk, 0.01) for N in range(1, 200)]
    best = argmax_int(lambda N: coterie_expected(GREEDY, 3, 0.9, N, risk, 0.01), 199)
    assert f[best - 1] >= max(f) - 1e-12


def test_argmax_int_unimodal():
    for peak in (1, 7, 150, 999):
        assert argmax_int(lambda x, p=peak: -abs(x - p), 1000) == peak


def test_greedy_beats_no_rep_with_replication_potential():
    for W, p in ((2.0, 10), (5.0, 25)):
        inst = WorksharingInstance(W, p, LinearRisk(1.0), 0.001)
        g = expected_work(plan("greedy", inst).schedule, inst.risk, inst.eps)
        nr = expected_work(plan("no-rep", inst).schedule, inst.risk, inst.eps)
        assert g > nr


def test_general_risk_greedy_and_random_rep_seeded():
    inst = WorksharingInstance(2.0, 5, synthetic_trace(0), 0.001)
    built = plan("greedy", inst)
    assert expected_work(built.schedule, inst.risk, inst.eps) > 0
    inst2 = WorksharingInstance(2.0, 4, ExponentialRisk(1.0), 0.01)
    a = plan("random-rep", inst2, n=10, seed=7).schedule.seqs
    b = plan("random-rep", inst2, n=10, seed=7).schedule.seqs
    assert all((x == y).all() for x, y in zip(a, b, strict=True))


def test_cyclic_fast_path_matches_naive_construction_and_evaluator():
    from resilsched.heuristics.worksharing.schedules import _cyclic_expected, _cyclic_seqs
    from resilsched.instances.worksharing.evaluate import PieceSchedule

    risk = LinearRisk(1.0)
    for W, p, N, k in ((1.5, 3, 5, 3), (2.0, 4, 6, 10), (1.0, 7, 30, 30), (3.0, 5, 12, 4)):
        naive = [[] for _ in range(p)]
        for t in range(p * k):
            if t % N not in naive[t % p]:
                naive[t % p].append(t % N)
        seqs = _cyclic_seqs(p, N, k)
        assert [s.tolist() for s in seqs] == naive
        s = PieceSchedule(W, np.full(N, W / N), seqs)
        assert abs(_cyclic_expected(W, p, N, k, risk, 0.01) - expected_work(s, risk, 0.01)) < 1e-12


def test_theorem4_option_for_single_worker_slices():
    """§6 Q3: with W >= pX each worker gets X; the Theorem-4 option is optimal per worker."""
    from resilsched.heuristics.worksharing.one_worker import thm4_charged_linear

    inst = WorksharingInstance(5.0, 3, LinearRisk(1.0), 0.02)
    a = plan("greedy-thm4", inst)
    b = plan("greedy", inst)
    Ea = expected_work(a.schedule, inst.risk, inst.eps)
    Eb = expected_work(b.schedule, inst.risk, inst.eps)
    assert abs(Ea - 3 * thm4_charged_linear(1.0, 1.0, 0.02).expected) < 1e-12
    assert Ea >= Eb - 1e-12


def test_binary_search_finds_the_maximum_of_unimodal_functions():
    from resilsched.heuristics.worksharing.schedules import argmax_binary

    for peak in (1, 2, 7, 50, 99, 100):
        assert argmax_binary(lambda x, c=peak: -abs(x - c), 100) == peak
    assert argmax_binary(lambda x: 1.0, 100) == 1  # flat: the smallest n
    bumpy = [0, 5, 1, 2, 3, 4, 3, 2, 1, 0]  # local maximum at 1, global at 5 (1-based x)
    x = argmax_binary(lambda x: bumpy[x - 1], len(bumpy))
    assert x in (2, 6)  # a local maximum (the paper's rule assumes unimodality)


def test_greedy_binary_chunk_search_is_a_local_maximum_of_eq9():
    """chunk_search='binary' (the paper's §5.2.3 rule): every slice's count N is a local
    maximum of the coterie's expected work on [1 .. X/eps]."""
    from resilsched.heuristics.worksharing.run import greedy

    for W, p, eps in ((2.0, 5, 0.001), (7.0, 25, 0.0001), (30.0, 100, 0.01), (0.5, 3, 0.05)):
        inst = WorksharingInstance(W, p, LinearRisk(1.0), eps)
        res = greedy(inst, chunk_search="binary")
        for cot, N in zip(res.schedule.coteries, res.schedule.chunk_counts, strict=True):
            f = [coterie_expected(GREEDY, cot.g, cot.sl, k, inst.risk, eps)
                 for k in (max(1, N - 1), N, min(N + 1, int(1 / eps)))]
            assert f[1] >= max(f[0], f[2]) - 1e-15
        assert res.objective == pytest.approx(expected_work(res.schedule.schedule, inst.risk,
                                                            eps), rel=1e-12)
    with pytest.raises(Exception, match="chunk_search"):
        greedy(WorksharingInstance(1.0, 2, LinearRisk(1.0), 0.01), chunk_search="linear")
