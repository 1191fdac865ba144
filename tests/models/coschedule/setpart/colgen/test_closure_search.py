"""The exact closure search of `setpart-cg` (`closure_search`, C kernel `sp_search`, decision C28)
against the enumeration optimum and HiGHS.

Its bound is the cut master's Lagrangian identity, valid for *any* duals (mu >= 0, sigma <= 0):
with random duals the search over every pack must still return the optimum. With the LP's
duals a cutoff round either finds the optimum below the cutoff or proves the cutoff a bound.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from resilsched.heuristics.coschedule import make_packs
from resilsched.models.coschedule import _cclosure
from resilsched.models.coschedule.setpart.colgen import closure_rounds, closure_search
from resilsched.models.coschedule.setpart.colgen import solve as setpart_cg
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.models.coschedule.setpart.full import solve_setpart_full
from resilsched.models.coschedule.setpart.master import min_packs
from resilsched.models.coschedule.setpart.pool import build_pool
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt, root, tiny

pytestmark = pytest.mark.skipif(_cclosure.lib() is None, reason="C kernels not built")


def _cut_hits(pack, triples):
    return [q for q, t in enumerate(triples) if len(set(t).intersection(pack)) >= 2]


def _random_duals(inst, pool, rng):
    """Arbitrary duals (pi free, mu >= 0, sigma <= 0 on random triples) and their rcs."""
    scale = float(np.max(pool.costs[1]))
    pi = rng.uniform(-0.2, 0.6, inst.n) * scale
    mu = float(rng.uniform(0, 0.3)) * scale
    triples = [tuple(sorted(rng.choice(inst.n, 3, replace=False).tolist())) for _ in range(12)]
    sigma = -rng.uniform(0, 0.2, len(triples)) * scale
    rcs = {}
    for s, arr in pool.packs.items():
        rc = pool.costs[s] - pi[arr].sum(axis=1) - mu
        for r, pack in enumerate(arr.tolist()):
            rc[r] -= sum(sigma[q] for q in _cut_hits(pack, triples))
        rcs[s] = rc
    dual = float(pi.sum()) + mu * min_packs(inst) + float(sigma.sum())
    return rcs, closure_search.Duals(dual, mu, min_packs(inst), triples, sigma, inst.k)


@pytest.mark.parametrize("seed", range(30))
def test_search_with_any_duals_finds_the_optimum(seed):
    rng = np.random.default_rng(seed)
    inst = tiny(2000 + seed, 8 + seed % 5, 8, 2 + seed % 3, pmin=seed % 4 == 3,
                kind="amdahl" if seed % 2 else "integer")
    pool = build_pool(inst)
    rcs, duals = _random_duals(inst, pool, rng)
    every = {s: np.ones(len(c), bool) for s, c in pool.costs.items()}
    res = closure_search.search(pool, every, rcs, duals, float("inf"), 0.0)
    assert res.complete and res.packs is not None
    found = make_packs(inst, res.packs)
    assert check_packs(inst, found) == found.makespan
    assert float(found.makespan) == pytest.approx(float(opt(inst)), rel=1e-9)
    assert res.cost == pytest.approx(float(found.makespan), rel=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_cutoff_round_finds_the_optimum_or_proves_its_cutoff(seed):
    inst = tiny(2100 + seed, 10 + seed % 4, 8, 3 + seed % 2,
                kind="amdahl" if seed % 2 else "integer")
    best = float(opt(inst))
    pool, master, cg = root(inst)
    duals = closure_rounds.search_duals(inst, cg, master)
    assert duals is not None
    slack = (inst.n - 1) * min(0.0, cg.min_rc)
    gap = best - cg.dual - slack
    outcomes = set()
    for share in (0.0, 0.3, 0.6, 1.0, 1.5):
        delta = share * gap + (1e-6 * best if share > 1 else 0.0)  # the LP may be tight
        keep = {s: cg.rcs[s] <= delta for s in cg.rcs}
        thr = cg.dual + delta + slack
        res = closure_search.search(pool, keep, cg.rcs, duals, thr, 0.0)
        assert res.complete
        if res.packs is not None:
            outcomes.add("found")
            value = float(make_packs(inst, res.packs).makespan)
            assert value < thr
            assert value == pytest.approx(best, rel=1e-9)
        else:
            outcomes.add("bound")
            assert thr <= best + 1e-6
    assert "found" in outcomes  # delta = 1.5 x the gap holds the optimum


def test_many_words_against_highs():
    """n = 70 (two 64-bit words per pack), k = 2: the search over every pack with the LP's
    duals equals HiGHS's set-partitioning optimum."""
    inst = tiny(2200, 70, 8, 2, kind="amdahl")
    pool, master, cg = root(inst)
    duals = closure_rounds.search_duals(inst, cg, master)
    every = {s: np.ones(len(c), bool) for s, c in pool.costs.items()}
    res = closure_search.search(pool, every, cg.rcs, duals, float("inf"), 30.0)
    assert res.complete
    ref = solve_setpart_full(inst, None, time_limit=60)
    assert ref.status is Status.OPTIMAL
    found = make_packs(inst, res.packs)
    assert float(found.makespan) == pytest.approx(float(ref.objective), abs=2e-6)


def test_bit_masks_round_trip():
    members = np.array([[0, 63, 64], [5, 127, 130], [1, 2, 3]])
    masks = closure_search.bit_masks(members, 131)
    assert masks.shape == (3, 3)
    for row, mask in zip(members.tolist(), masks.tolist(), strict=True):
        value = sum(int(word) << (64 * q) for q, word in enumerate(mask))
        assert _cclosure.tasks_of(value) == tuple(row)


def test_a_stopped_search_claims_nothing():
    inst = tiny(2300, 60, 8, 3, kind="amdahl")
    pool, master, cg = root(inst)
    duals = closure_rounds.search_duals(inst, cg, master)
    every = {s: np.ones(len(c), bool) for s, c in pool.costs.items()}
    res = closure_search.search(pool, every, cg.rcs, duals, float("inf"), 0.0, node_limit=3)
    assert not res.complete


@pytest.mark.parametrize(("seed", "method"), list(itertools.product(range(4), ("search", "mip"))))
def test_setpart_cg_closures_agree(seed, method, monkeypatch):
    """Forced cutoff rounds, solved by the search or by HiGHS: the same optimum."""
    monkeypatch.setattr(setpart_cg, "CUTOFF_CLOSURE_COLUMNS", 1)
    monkeypatch.setattr(setpart_cg, "DIRECT_FULL_COLUMNS", 0)
    inst = tiny(2400 + seed, 12 + seed % 3, 8, 3 + seed % 2, kind="amdahl")
    sol = solve_setpart_cg(inst, None, time_limit=60, closure=method)
    assert sol.status is Status.OPTIMAL
    assert float(sol.objective) == pytest.approx(float(opt(inst)), rel=1e-9)
    assert float(sol.bound) <= float(sol.objective) + 1e-9
    kinds = {r.get("method") for r in sol.info["closure_rounds"] if "cutoff" in r}
    assert kinds == {method}


def test_a_search_out_of_memory_leaves_the_round_unproven(monkeypatch):
    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(setpart_cg, "CUTOFF_CLOSURE_COLUMNS", 1)
    monkeypatch.setattr(setpart_cg, "DIRECT_FULL_COLUMNS", 0)
    monkeypatch.setattr(closure_search, "search", no_memory)
    inst = tiny(2500, 14, 8, 3, kind="amdahl")
    sol = solve_setpart_cg(inst, None, time_limit=60)
    rounds = sol.info["closure_rounds"]
    assert rounds and rounds[-1]["complete"] is False
    assert sol.status is Status.FEASIBLE
    assert float(sol.bound) <= float(opt(inst)) + 1e-9 <= float(sol.objective) + 2e-9
    assert check_packs(inst, sol.payload) == sol.objective
