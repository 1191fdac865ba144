"""BATCH-LIST and MT-ALLOTMENT (spec 000 §3.4, §3.7, Lemma 5, Thms 8-9)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from resilsched.bounds.moldable import L_star_g1, L_star_milp, theorem_ratio
from resilsched.heuristics.moldable import batch_list, lpa_list
from resilsched.heuristics.moldable.batch import BatchPlanner, order_attempts
from resilsched.heuristics.moldable.mt_allotment import AREA_TIE_RTOL, MTAllotment, _front
from resilsched.instances.failures import Scenario
from resilsched.instances.moldable import MoldableInstance, Roofline
from resilsched.instances.moldable.adversarial import thm9_instance
from resilsched.validation import validate_attempts
from tests.support.moldable.cases import random_failures, random_instance
from tests.support.moldable.oracle import brute_L_star


@pytest.mark.parametrize("model", ["roofline", "communication", "amdahl", "mix", "power", "table"])
def test_job_finishes_in_batch_ceil_log2(model):
    for seed in range(3):
        inst = random_instance(model, 12, 16, seed=seed)
        f = random_failures(inst.n, seed, fmax=9)
        res = batch_list(inst, Scenario(tuple(f)), "LPT")
        P = inst.P
        validate_attempts(res.schedule, P, f, inst.duration, lambda j, p, P=P: 1 <= p <= P)
        expect = [math.ceil(math.log2(fj + 2)) for fj in f]
        assert res.extra["batch_of_job"] == expect
        assert res.extra["batches"] == math.ceil(math.log2(max(f) + 2))


def _L(inst, jobs, alloc):
    t = inst.T[np.asarray(jobs)[:, None], alloc - 1]
    return max(float(t.sum(axis=1).max()), float((t * alloc).sum()) / inst.P)


@pytest.mark.parametrize("model", ["communication", "amdahl", "mix", "table"])
@pytest.mark.parametrize("g", [1, 2, 3, 4, 8])
def test_mt_allotment_guarantee_against_milp(model, g):
    eps, eps2 = 0.3, 0.03
    for seed in range(3):
        inst = random_instance(model, 6, 12, seed=seed + 10 * g)
        jobs = list(range(inst.n))
        res = MTAllotment(inst, eps, eps2, area_slack=1.0).solve(jobs, g)
        assert res.alloc.shape == (inst.n, g)
        assert res.L == pytest.approx(_L(inst, jobs, res.alloc))
        opt, bound, optimal, _ = L_star_milp(inst, [g] * inst.n)
        assert optimal
        assert res.L >= opt * (1 - 1e-9)
        assert res.L <= (1 + eps) * (1 + eps2) * opt * (1 + 1e-9)


def test_l_star_milp_matches_brute_force_and_g1_search():
    for seed in range(4):
        inst = random_instance(["amdahl", "table", "communication", "mix"][seed], 3, 4, seed)
        chains = [1 + (seed + j) % 2 for j in range(inst.n)]
        opt, _, optimal, allocs = L_star_milp(inst, chains)
        assert optimal
        assert opt == pytest.approx(brute_L_star(inst, chains), rel=1e-9)
        assert [len(a) for a in allocs] == chains
        g1 = L_star_g1(inst)[0]
        assert g1 == pytest.approx(brute_L_star(inst, [1] * inst.n), rel=1e-9)


def test_l_star_g1_on_larger_instances_equals_milp():
    for seed, model in enumerate(["amdahl", "mix", "power", "roofline"]):
        inst = random_instance(model, 20, 50, seed)
        val, alloc = L_star_g1(inst)
        assert val == pytest.approx(L_star_milp(inst, [1] * inst.n)[0], rel=1e-7)
        assert _L(inst, list(range(inst.n)), alloc[:, None]) == pytest.approx(val)


@pytest.mark.parametrize("K", [2, 3, 4, 5, 6])
def test_theorem9_ratio(K):
    """BATCH-LIST takes 1/2 + (K-2)/4 + 2^-K while OPT = 1/2: ratio K/2 + 2^(1-K) >= K/2."""
    inst = thm9_instance(K)
    res = batch_list(inst, inst.scenario(), "LPT")
    exact = Fraction(1, 2) + Fraction(K - 2, 4) + Fraction(1, 2**K)
    assert res.objective == float(exact)
    ratio = Fraction(res.objective) / Fraction(1, 2)
    assert ratio == Fraction(K, 2) + Fraction(2, 2**K)
    assert ratio >= Fraction(K, 2)
    fmax = max(inst.scenario().failures)
    assert math.ceil(math.log2(fmax + 2)) == K
    # LPA (any local allocation) is optimal here: the jobs run side by side
    assert lpa_list(inst, inst.scenario(), "LPT").objective == 0.5


def test_attempt_orders():
    a = np.array([[2, 5, 3]])
    assert order_attempts(a, "desc_p").tolist() == [[5, 3, 2]]
    assert order_attempts(a, "asc_p").tolist() == [[2, 3, 5]]
    assert order_attempts(a, "first_only").tolist() == [[2, 2, 2]]
    assert order_attempts(a, "dp_order").tolist() == [[2, 5, 3]]


def test_equal_areas_go_to_the_larger_p_whatever_the_float_noise():
    """Roofline areas p (w / p) = w for p <= pbar jitter by an ulp; the tie goes to pbar
    (decision M23), where an exact comparison picks p by the noise."""
    rng = np.random.default_rng(1)
    jobs = tuple(Roofline(float(rng.uniform(5000, 4e6)), int(rng.integers(100, 400)))
                 for _ in range(20))
    inst = MoldableInstance(1000, jobs)
    noisy = 0
    for j, job in enumerate(jobs):
        fr = _front(inst, j)
        assert (fr.p[fr.sufarg] == job.pbar).all()  # every threshold: the fastest equal area
        assert np.allclose(fr.sufmin, job.w, rtol=AREA_TIE_RTOL)
        exact = _front(inst, j, rtol=0.0)
        noisy += int((exact.p[exact.sufarg] != job.pbar).sum())
    assert noisy > 0  # the noise is real: without the tolerance other p win
    # distinct areas are never merged: on a strictly increasing area the fastest p of each
    # suffix is not chosen unless its area is the least
    inst2 = random_instance("communication", 6, 30, seed=4)
    for j in range(inst2.n):
        fr = _front(inst2, j)
        a = fr.t * fr.p
        for i in range(fr.p.size):
            assert a[fr.sufarg[i]] <= a[i:].min() * (1 + AREA_TIE_RTOL)
            assert fr.sufarg[i] >= i
        assert (np.diff(fr.sufmin) >= 0).all()  # h_j non-increasing, as _min_plus_square needs
    alloc = BatchPlanner(inst).allocation(np.arange(inst.n), 1)[:, 0]
    assert alloc.tolist() == [min(j.pbar, inst.P) for j in jobs]  # roofline's first batch


def test_batch_theorem8_bound_against_l_star():
    eps, eps2 = 0.3, 0.03
    for seed in range(4):
        inst = random_instance(["amdahl", "mix", "communication", "table"][seed], 8, 10, seed)
        f = random_failures(inst.n, seed, fmax=5)
        planner = BatchPlanner(inst, eps, eps2, area_slack=1.0)
        T, _ = planner.makespan(f)
        lstar, _, optimal, _ = L_star_milp(inst, [x + 1 for x in f])
        assert optimal
        bound = theorem_ratio("batch", inst.P, eps, max(f)) * (1 + eps2) * lstar
        assert T <= bound * (1 + 1e-9)


def test_each_batch_within_twice_its_L():
    inst = random_instance("mix", 10, 12, seed=3)
    f = random_failures(inst.n, 3, fmax=6)
    res = batch_list(inst, Scenario(tuple(f)), "LPT")
    atts = sorted(res.schedule.attempts, key=lambda a: a.start)
    # split by batch index: attempt number k of job j belongs to batch ceil(log2(k+1))
    for b in range(1, res.extra["batches"] + 1):
        mine = [a for a in atts if math.ceil(math.log2(a.k + 1)) == b]
        start = min(a.start for a in mine)
        length = max(a.end for a in mine) - start
        chains = {}
        for a in mine:
            chains.setdefault(a.job, []).append(a.p)
        t = [sum(inst.duration(j, p) for p in ps) for j, ps in chains.items()]
        area = sum(p * inst.duration(j, p) for j, ps in chains.items() for p in ps)
        assert length <= 2 * max(max(t), area / inst.P) * (1 + 1e-9)


def test_g1_exact_option_and_area_slack_options():
    inst = random_instance("amdahl", 10, 12, seed=2)
    f = random_failures(inst.n, 2, fmax=4)
    for opts in ({"g1_exact": True, "area_slack": 1.0}, {"area_slack": 1.0},
                 {"attempt_order": "first_only"}):
        res = batch_list(inst, Scenario(tuple(f)), "LA", **opts)
        validate_attempts(res.schedule, inst.P, f, inst.duration, lambda j, p: 1 <= p <= 12)
        assert res.extra["batch_of_job"] == [math.ceil(math.log2(x + 2)) for x in f]
        assert BatchPlanner(inst, **opts).makespan(f, "LA")[0] == res.objective
    first = BatchPlanner(inst, g1_exact=True).allocation(np.arange(inst.n), 1)[:, 0]
    assert _L(inst, list(range(inst.n)), first[:, None]) == pytest.approx(L_star_g1(inst)[0])


def test_l_star_milp_backends_agree():
    pytest.importorskip("scipy")  # optional second backend, not a dependency
    for seed in range(3):
        inst = random_instance(["mix", "table", "power"][seed], 6, 9, seed)
        chains = [1 + (seed + j) % 3 for j in range(inst.n)]
        a = L_star_milp(inst, chains, backend="highspy")
        b = L_star_milp(inst, chains, backend="scipy")
        assert a[2] and b[2]
        assert a[0] == pytest.approx(b[0], rel=1e-9)


@pytest.mark.parametrize("cost", [0, 10**9], ids=["per-row loop", "table"])
def test_min_plus_square_paths_agree(cost, monkeypatch):
    """Both paths of `_min_plus_square` (chosen by `TABLE_COST`) give the same floats and
    argmins as the direct table, on non-increasing rows with ties and leading infs."""
    from resilsched.heuristics.moldable import mt_allotment as mt

    rng = np.random.default_rng(5)
    monkeypatch.setattr(mt, "TABLE_COST", cost)
    for _ in range(100):
        K, m = int(rng.integers(1, 60)), int(rng.integers(1, 5))
        H = np.full((m, K + 1), np.inf)
        for r in range(m):
            first = int(rng.integers(1, K + 2))
            H[r, first:] = np.sort(rng.choice([0.5, 1.0, 2.0, rng.random()], K + 1 - first))[::-1]
        Hpad = np.concatenate([H, np.full((m, 1), np.inf)], axis=1)
        cand = H[:, :, None] + Hpad[:, mt._toeplitz(K)]
        want_arg = cand.argmin(axis=1)
        want = np.take_along_axis(cand, want_arg[:, None, :], axis=1)[:, 0, :]
        got, arg = mt._min_plus_square(H)
        assert np.array_equal(got, want) and np.array_equal(arg, want_arg)
