"""The pack-pricing oracle, the closure enumeration, the exact cover and ``setpart-bp`` with
``pricing=oracle`` against brute force (issue 15, decision C22).

Oracles: every pack listed by `itertools.combinations` and costed by Algorithm 1; every
partition of a tiny set system; the subset DP over partitions (`solve_enumeration`) and the
set-partitioning MIP over every pack (`setpart-full`).
"""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.coschedule import optimal_pack
from resilsched.instances.coschedule import CoscheduleInstance, random_instance
from resilsched.models.coschedule.setpart.branchprice.exact_cover import cheapest_cover
from resilsched.models.coschedule.setpart.branchprice.pricing_oracle import PackOracle
from resilsched.models.coschedule.setpart.branchprice.solve import solve_setpart_bp
from resilsched.models.coschedule.setpart.full import solve_setpart_full
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt, tiny


def _instance(seed: int) -> CoscheduleInstance:
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(2, 8)), int(rng.integers(1, 7))
    k = int(rng.integers(1, p + 1))
    inst = random_instance(rng, n, p, k, kind="integer" if seed % 2 else "amdahl")
    if seed % 3 == 0:
        pmin = tuple(int(x) for x in rng.integers(1, min(p, 2) + 1, size=n))
        inst = CoscheduleInstance(p=inst.p, k=inst.k, times=inst.times, pmin=pmin)
    return inst


def _all_packs(inst: CoscheduleInstance, branches=()):
    """(pack, float cost) of every pack the branching decisions allow."""
    out = []
    for s in range(1, inst.k + 1):
        for b in itertools.combinations(range(inst.n), s):
            if sum(inst.pmin[i] for i in b) > inst.p:
                continue
            if any((i in b) != (j in b) if together else (i in b and j in b)
                   for i, j, together in branches):
                continue
            out.append((b, float(optimal_pack(inst, b)[0])))
    return out


def _duals(inst: CoscheduleInstance, rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-0.2, 1.0, inst.n) * inst.matrix()[:, -1] * rng.uniform(0.3, 1.5)


@pytest.mark.parametrize("seed", range(60))
def test_oracle_min_reduced_cost_equals_brute_force(seed):
    inst = _instance(seed)
    rng = np.random.default_rng(seed + 1)
    pi = _duals(inst, rng)
    mu = float(rng.uniform(-1, 3)) if seed % 4 == 0 else 0.0
    branches = []
    for _ in range(int(rng.integers(0, 3)) if inst.n > 1 else 0):
        i, j = rng.choice(inst.n, 2, replace=False)
        branches.append((int(i), int(j), bool(rng.integers(0, 2))))
    packs = _all_packs(inst, branches)
    rc = {b: c - pi[list(b)].sum() - mu for b, c in packs}
    expected = min([0.0, *rc.values()])
    res = PackOracle(inst).price(pi, mu, branches, count=5)
    assert res.exact
    assert res.min_rc == pytest.approx(expected, abs=1e-9)
    for b, c in zip(res.packs, res.costs, strict=True):
        assert b in rc, (b, branches)  # an allowed pack, ascending tasks
        assert c == pytest.approx(float(optimal_pack(inst, b)[0]))
        assert rc[b] < 0
    if expected < -1e-9:
        assert res.packs and min(rc[b] for b in res.packs) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_enumeration_lists_every_pack_below_delta_once(seed):
    inst = _instance(seed)
    rng = np.random.default_rng(seed + 2)
    pi = _duals(inst, rng)
    delta = float(rng.uniform(0, 0.5)) * float(inst.matrix()[:, -1].max())
    want = {b: c for b, c in _all_packs(inst) if c - pi[list(b)].sum() <= delta - 1e-9}
    packs, costs, gains = PackOracle(inst).enumerate_below(pi, 0.0, delta, 10**6)
    assert len(packs) == len(set(packs))
    got = dict(zip(packs, costs, strict=True))
    assert set(want) <= set(got)
    for b, c, g in zip(packs, costs, gains, strict=True):
        assert c == pytest.approx(float(optimal_pack(inst, b)[0]))
        assert g == pytest.approx(float(pi[list(b)].sum()))
        assert c - g <= delta + 1e-9


def test_enumeration_refuses_beyond_its_limit():
    inst = random_instance(0, 12, 8, 8)
    pi = inst.matrix()[:, -1]
    assert PackOracle(inst).enumerate_below(pi, 0.0, 1e9, 10) is None


@pytest.mark.parametrize("seed", range(30))
def test_cheapest_cover_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    packs = sorted({tuple(sorted(rng.choice(n, int(rng.integers(1, n + 1)), replace=False)
                                 .tolist())) for _ in range(int(rng.integers(3, 25)))})
    rcs = rng.uniform(0, 1, len(packs)).tolist()
    budget = float(rng.uniform(0.5, 3))
    best = None
    for r in range(1, n + 1):
        for combo in itertools.combinations(range(len(packs)), r):
            tasks = [i for c in combo for i in packs[c]]
            if sorted(tasks) == list(range(n)):
                value = sum(rcs[c] for c in combo)
                if value <= budget and (best is None or value < best):
                    best = value
    chosen, done = cheapest_cover(n, packs, rcs, budget)
    assert done
    if best is None:
        assert chosen is None
    else:
        assert sorted(i for c in chosen for i in packs[c]) == list(range(n))
        assert sum(rcs[c] for c in chosen) == pytest.approx(best)


@pytest.mark.parametrize("seed", range(16))
def test_oracle_branch_and_price_equals_enumeration(seed):
    n, p = 4 + seed % 5, 3 + seed % 5
    k = p if seed % 2 == 0 else 1 + seed % p
    inst = tiny(seed, n, p, k, pmin=seed % 4 == 3)
    expected = opt(inst)
    sol = solve_setpart_bp(inst, None, time_limit=30, pricing="oracle")
    assert sol.status is Status.OPTIMAL
    assert sol.objective == expected and check_packs(inst, sol.payload) == expected
    assert sol.info["pricing"] == "oracle"


@pytest.mark.parametrize("seed", range(3))
def test_oracle_branch_and_price_equals_full_pool_p_in_p(seed):
    inst = random_instance(seed, 12, 6, 6, kind="amdahl")
    full = solve_setpart_full(inst, None, time_limit=60)
    sol = solve_setpart_bp(inst, None, time_limit=60, pricing="oracle")
    assert full.status is Status.OPTIMAL and sol.status is Status.OPTIMAL
    assert float(sol.objective) == pytest.approx(float(full.objective), rel=1e-9)


def test_auto_pricing_uses_the_oracle_when_the_pool_is_too_large():
    inst = random_instance(1, 24, 16, 16, kind="amdahl")  # C(24, <=16) ~ 1.6e7 packs
    sol = solve_setpart_bp(inst, None, time_limit=20)
    assert sol.info["pricing"] == "oracle"
    assert float(sol.bound) <= float(sol.objective)
    with pytest.raises(InvalidInstance):
        solve_setpart_bp(inst, None, time_limit=5, pricing="pool")


def test_oracle_time_limit_on_a_large_p_in_p_instance():
    inst = random_instance(0, 200, 16, 16, kind="amdahl")
    messages: list[str] = []
    t0 = time.perf_counter()
    sol = solve_setpart_bp(inst, None, time_limit=0.4, pricing="oracle",
                           progress=messages.append)
    assert time.perf_counter() - t0 <= 1.25 * 0.4 + 1.0, messages
    assert sol.status in (Status.FEASIBLE, Status.OPTIMAL)
    assert float(sol.bound) <= float(sol.objective)
    assert check_packs(inst, sol.payload) == sol.objective
