"""One pack (spec 001 §2.2, §7 test 1): Algorithm 1 = DP = brute force; vectorised = Algorithm 1."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from resilsched.heuristics.coschedule.onepack import (
    optimal_pack,
    optimal_pack_dp,
    pack_costs_vectorized,
    pair_cost_matrix,
)
from tests.support.coschedule.helpers import optimal_pack_brute, tiny


@pytest.mark.parametrize("seed", range(60))
def test_algorithm1_equals_dp_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 5))
    p = int(rng.integers(k, 11))
    inst = tiny(seed, k, p, k, pmin=bool(seed % 3 == 0))
    tasks = list(range(k))
    greedy, sigma = optimal_pack(inst, tasks)
    dp, sigma_dp = optimal_pack_dp(inst, tasks)
    brute, _ = optimal_pack_brute(inst, tasks)
    assert greedy == dp == brute
    if greedy != float("inf"):
        assert sum(sigma) <= p and sum(sigma_dp) <= p
        assert max(inst.t(i, s) for i, s in zip(tasks, sigma, strict=True)) == greedy
        assert all(s >= inst.pmin[i] for i, s in zip(tasks, sigma, strict=True))


def test_infeasible_pack_when_pmin_exceeds_p():
    inst = tiny(3, 2, 3, 2, pmin=False)
    from resilsched.instances.coschedule import CoscheduleInstance
    inst = CoscheduleInstance(p=3, k=2, times=inst.times, pmin=(2, 2))
    assert optimal_pack(inst, [0, 1])[0] == float("inf")
    assert optimal_pack_dp(inst, [0, 1])[0] == float("inf")


@pytest.mark.parametrize("seed", range(8))
def test_vectorised_algorithm1_and_pair_matrix(seed):
    inst = tiny(seed, 7, 9, 3, kind="amdahl" if seed % 2 else "integer", pmin=seed % 3 == 1)
    mat, pmin = inst.matrix(), np.asarray(inst.pmin)
    for s in (1, 2, 3):
        packs = np.array(list(itertools.combinations(range(inst.n), s)))
        costs, sigma = pack_costs_vectorized(mat, pmin, inst.p, packs)
        for row, c in zip(packs, costs, strict=True):
            ref = optimal_pack_dp(inst, list(row))[0]
            assert c == pytest.approx(float(ref), rel=1e-12)
    w = pair_cost_matrix(inst)
    for i, j in itertools.combinations(range(inst.n), 2):
        assert w[i, j] == pytest.approx(float(optimal_pack_dp(inst, [i, j])[0]), rel=1e-12)
    for i in range(inst.n):
        assert w[i, i] == float(inst.t(i, inst.p))
