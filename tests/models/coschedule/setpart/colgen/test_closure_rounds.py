"""`setpart-cg`'s LP dive and cutoff closure rounds against the enumeration optimum (C26, C27).

The dive is a heuristic: its packs partition the tasks and cost no less than the optimum. The
cutoff rounds are a proof: forced to start from a tiny closure, they must still end optimal
with the enumeration's makespan, and every bound a round claims must stay <= the optimum.
"""

from __future__ import annotations

import pytest

from resilsched.deadline import Deadline
from resilsched.heuristics.coschedule import make_packs
from resilsched.models.coschedule.setpart.colgen import closure_rounds
from resilsched.models.coschedule.setpart.colgen import solve as setpart_cg
from resilsched.models.coschedule.setpart.colgen.lp_dive import lp_dive
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt, root, tiny


@pytest.mark.parametrize("seed", range(8))
def test_lp_dive_partitions_the_tasks_above_the_optimum(seed):
    inst = tiny(1200 + seed, 9 + seed % 4, 8, 2 + seed % 3,
                kind="amdahl" if seed % 2 else "integer")
    pool, master, cg = root(inst)
    ncols = len(master.cols)
    for rank in (0, 1):
        packs = lp_dive(pool, master, Deadline(None), rank=rank)
        assert packs is not None
        assert sorted(i for b in packs for i in b) == list(range(inst.n))
        found = make_packs(inst, packs)
        assert check_packs(inst, found) == found.makespan
        assert float(found.makespan) >= float(opt(inst)) - 1e-9
        assert float(found.makespan) >= cg.lb - 1e-6
    assert len(master.cols) == ncols  # the template master is left untouched


def test_lp_dive_stops_at_the_deadline():
    inst = tiny(1300, 12, 8, 3, kind="amdahl")
    pool, master, _ = root(inst)
    assert lp_dive(pool, master, Deadline(0.0)) is None


@pytest.mark.parametrize("seed", range(8))
def test_cutoff_rounds_equal_enumeration(seed, monkeypatch):
    """One-pack first closures force cutoff rounds (no direct full closure)."""
    monkeypatch.setattr(setpart_cg, "CUTOFF_CLOSURE_COLUMNS", 1)
    monkeypatch.setattr(setpart_cg, "DIRECT_FULL_COLUMNS", 0)
    monkeypatch.setattr(closure_rounds, "DELTA_GROWTH", 1.2)
    inst = tiny(1400 + seed, 10 + seed % 3, 8, 3, kind="amdahl" if seed % 2 else "integer")
    best = float(opt(inst))
    sol = solve_setpart_cg(inst, None, time_limit=60)
    assert sol.status is Status.OPTIMAL
    assert float(sol.objective) == pytest.approx(best, rel=1e-9)
    assert check_packs(inst, sol.payload) == sol.objective
    rounds = [r for r in sol.info["closure_rounds"] if r.get("cutoff") is not None]
    for r in rounds:
        if r["complete"] and not r["found_below"]:
            # no partition below the cutoff: the cutoff is a lower bound
            assert r["cutoff"] <= best + 1e-6
        if r["found_below"]:
            assert float(r["ub"]) == pytest.approx(best, rel=1e-9)


def test_cutoff_rounds_raise_the_bound_when_stopped(monkeypatch):
    """Rounds that complete without a partition below the cutoff raise the bound, which
    must stay <= the optimum even when a later round is cut short."""
    inst = tiny(1500, 12, 8, 3, kind="amdahl")
    pool, master, cg = root(inst)
    best = make_packs(inst, [(i,) for i in range(inst.n)])  # a poor incumbent
    rounds: list = []
    packs, proven, lb = closure_rounds.cutoff_rounds(
        inst, cg, pool, master, best, None, 1e-3, lambda ub: cg.closure_gap(ub) + 1e-7,
        Deadline(60), {}, rounds)
    assert proven
    assert float(packs.makespan) == pytest.approx(float(opt(inst)), rel=1e-9)
    assert lb is None or lb <= float(opt(inst)) + 1e-6
    assert all(r.get("complete") for r in rounds)


def test_pair_splits_cover_every_two_part_partition():
    from resilsched.models.coschedule.setpart.colgen.pair_exchange import _splits

    six = list(_splits((0, 1, 2, 3, 4, 5), 3))
    assert len(six) == 10 and all(len(a) == 3 and len(b) == 3 for a, b in six)
    four = list(_splits((0, 1, 2, 3), 4))
    assert ((0, 1, 2, 3),) in four
    assert len(four) == 1 + 7  # the merge, and the 2^3 - 1 splits into two non-empty packs


@pytest.mark.parametrize("seed", range(6))
def test_pair_exchanges_never_worsen_and_stay_above_the_optimum(seed):
    import numpy as np

    from resilsched.models.coschedule.setpart.colgen.pair_exchange import improve

    inst = tiny(1600 + seed, 9 + seed % 4, 8, 2 + seed % 3, pmin=seed % 3 == 2,
                kind="amdahl" if seed % 2 else "integer")
    order = np.random.default_rng(seed).permutation(inst.n).tolist()
    start = [tuple(order[q:q + 1]) for q in range(inst.n)]  # singletons: always feasible
    before = make_packs(inst, start)
    out = improve(inst, start)
    assert sorted(i for b in out for i in b) == list(range(inst.n))
    after = make_packs(inst, out)
    assert check_packs(inst, after) == after.makespan
    assert float(opt(inst)) - 1e-9 <= float(after.makespan) <= float(before.makespan)


def test_some_cutoff_round_raises_the_bound(monkeypatch):
    """The bound-raising branch (a completed round with no partition below its cutoff) is
    exercised, and its cutoff is <= the optimum."""
    monkeypatch.setattr(setpart_cg, "CUTOFF_CLOSURE_COLUMNS", 1)
    monkeypatch.setattr(setpart_cg, "DIRECT_FULL_COLUMNS", 0)
    monkeypatch.setattr(setpart_cg, "DIVES", 0)
    monkeypatch.setattr(setpart_cg, "_polish", lambda inst, packs, deadline: packs)
    raised = 0
    for seed in range(6):
        inst = tiny(1700 + seed, 11, 8, 3, kind="amdahl")
        best = float(opt(inst))
        sol = solve_setpart_cg(inst, None, time_limit=60)
        assert sol.status is Status.OPTIMAL
        assert float(sol.objective) == pytest.approx(best, rel=1e-9)
        for r in sol.info["closure_rounds"]:
            if r.get("cutoff") is not None and r["complete"] and not r["found_below"]:
                raised += 1
                assert r["cutoff"] <= best + 1e-6
    assert raised >= 1
