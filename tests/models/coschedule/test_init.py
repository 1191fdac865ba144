"""Exact models agree with independent oracles (spec 001 §7 tests 3-6).

Oracle: the subset DP over partitions (`solve_enumeration`), plus closed forms for k = 1 and the
no-speedup case. Integer times, so every comparison is exact.
"""

from __future__ import annotations

import pytest

from resilsched.bounds.coschedule import lb_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.enumeration import solve_enumeration
from resilsched.models.coschedule.ilp import solve_ilp, solve_ilp_strong
from resilsched.models.coschedule.matching import BACKENDS, have_rustworkx, solve_matching
from resilsched.models.coschedule.setpart.branchprice.solve import solve_setpart_bp
from resilsched.models.coschedule.setpart.colgen.solve import solve_setpart_cg
from resilsched.models.coschedule.setpart.full import solve_setpart_full
from resilsched.solution import Status
from resilsched.validation.packs import check_packs
from tests.support.coschedule.helpers import opt, tiny

FAST = {"setpart-cg": solve_setpart_cg, "setpart-full": solve_setpart_full,
        "setpart-bp": solve_setpart_bp}


def _check(inst, sol, expected):
    assert sol.status is Status.OPTIMAL, sol
    assert sol.objective == expected
    assert check_packs(inst, sol.payload) == expected
    assert sol.bound <= expected + 1e-6


@pytest.mark.parametrize("seed", range(25))
def test_setpart_models_equal_enumeration(seed):
    n, p, k = 4 + seed % 6, 3 + seed % 6, 1 + seed % 4
    inst = tiny(seed, n, p, min(k, p), pmin=seed % 4 == 3)
    expected = opt(inst)
    for solve in FAST.values():
        _check(inst, solve(inst, None, time_limit=30), expected)


@pytest.mark.parametrize("seed", range(4))
def test_setpart_models_on_float_amdahl(seed):
    inst = tiny(seed, 9, 16, 3, kind="amdahl")
    expected = float(opt(inst))
    for solve in FAST.values():
        sol = solve(inst, None, time_limit=30)
        assert sol.status is Status.OPTIMAL
        assert sol.objective == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("seed,n", [(0, 4), (1, 5), (2, 5)])
def test_paper_ilp_equals_strong_ilp_equals_enumeration(seed, n):
    inst = tiny(seed, n, 5, 3, pmin=seed == 2)
    expected = opt(inst)
    _check(inst, solve_ilp(inst, None, time_limit=60), expected)
    _check(inst, solve_ilp_strong(inst, None, time_limit=60), expected)


@pytest.mark.parametrize("seed", range(4))
def test_strong_ilp_equals_enumeration_n7(seed):
    inst = tiny(100 + seed, 6 + seed % 2, 5, 2 + seed % 2)
    _check(inst, solve_ilp_strong(inst, None, time_limit=60), opt(inst))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_paper_ilp_equals_enumeration_n6_n7(seed):
    inst = tiny(200 + seed, 6 + seed % 2, 5, 2 + seed % 2)
    expected = opt(inst)
    _check(inst, solve_ilp(inst, None, time_limit=300), expected)
    _check(inst, solve_ilp_strong(inst, None, time_limit=300), expected)


def test_time_limit_is_never_optimal():
    inst = tiny(5, 9, 16, 3, kind="amdahl")
    sol = solve_ilp(inst, None, time_limit=0.5)
    assert sol.status in (Status.FEASIBLE, Status.NO_SOLUTION)
    if sol.objective is not None:
        assert sol.bound is None or sol.bound <= sol.objective + 1e-6


@pytest.mark.parametrize("seed", range(12))
def test_k2_matching_equals_ilp_equals_enumeration(seed):
    n = 3 + seed % 6  # odd and even n
    inst = tiny(300 + seed, n, 2 + seed % 5, 2, pmin=seed % 3 == 2)
    expected = opt(inst)
    backends = [b for b in BACKENDS if b != "rustworkx" or have_rustworkx()]
    for b in backends:
        _check(inst, solve_matching(inst, backend=b), expected)
    if seed < 3:
        _check(inst, solve_ilp_strong(inst, None, time_limit=60), expected)
    if seed == 0:
        _check(inst, solve_ilp(inst, None, time_limit=60), expected)


def test_2in2_is_max_of_single_processor_times():
    inst = CoscheduleInstance(p=2, k=2, times=((7, 4), (5, 3), (6, 6)))
    # options: {0,1} on 1+1 -> 7, then 2 alone on 2 -> 6: 13; {0,2}: 7 + 3 = 10; {1,2}: 6 + 4 = 10
    assert solve_matching(inst).objective == 10 == opt(inst)


@pytest.mark.parametrize("seed", range(6))
def test_k1_closed_form(seed):
    inst = tiny(400 + seed, 5, 4 + seed, 1)
    expected = sum(inst.t(i, inst.p) for i in range(inst.n))
    assert opt(inst) == expected
    for solve in (*FAST.values(), solve_matching, solve_ilp_strong):
        _check(inst, solve(inst, None, time_limit=30), expected)


@pytest.mark.parametrize("seed", range(8))
def test_no_speedup_oracle(seed):
    inst = tiny(500 + seed, 4 + seed % 4, 3 + seed % 4, 1 + seed % 3, kind="nospeedup")
    a = sorted((inst.t(i, 1) for i in range(inst.n)), reverse=True)
    expected = sum(a[::inst.k])  # packs of the k largest, in order
    assert opt(inst) == expected == lb_packs(inst)
    for solve in FAST.values():
        _check(inst, solve(inst, None, time_limit=30), expected)
    if inst.k <= 2:
        _check(inst, solve_matching(inst), expected)


def test_enumeration_rejects_large_n():
    from resilsched.errors import InvalidInstance
    inst = tiny(1, 17, 4, 2)
    with pytest.raises(InvalidInstance):
        solve_enumeration(inst)


def test_matching_rejects_k3():
    from resilsched.errors import InvalidInstance
    with pytest.raises(InvalidInstance, match="k=3"):
        solve_matching(tiny(1, 5, 4, 3))


@pytest.mark.parametrize("seed", range(6))
def test_lp_edge_elimination_keeps_the_optimum(seed):
    inst = tiny(600 + seed, 12 + seed, 8, 2, kind="amdahl" if seed % 2 else "integer")
    ref = solve_matching(inst, backend="networkx", prune="off")
    for backend in [b for b in ("networkx", "rustworkx") if b != "rustworkx" or have_rustworkx()]:
        sol = solve_matching(inst, backend=backend, prune="on")
        assert float(sol.objective) == pytest.approx(float(ref.objective), rel=1e-12)
        assert check_packs(inst, sol.payload) == sol.objective


@pytest.mark.parametrize("seed", range(6))
def test_setpart_cg_closure_rounds_equal_enumeration(seed, monkeypatch):
    """Tiny first rounds force several closure rounds; the result must stay exact."""
    from resilsched.models.coschedule.setpart.colgen import solve as setpart_cg

    monkeypatch.setattr(setpart_cg, "FIRST_CLOSURE_COLUMNS", 1)
    # no LP dive, no pair exchanges, no LNS: the early round and the closure rounds must find it
    monkeypatch.setattr(setpart_cg, "DIVES", 0)
    monkeypatch.setattr(setpart_cg, "_polish", lambda inst, packs, deadline: packs)
    inst = tiny(800 + seed, 10 + seed % 3, 8, 3, kind="amdahl" if seed % 2 else "integer")
    sol = solve_setpart_cg(inst, None, time_limit=60, lns=False)
    assert len(sol.info["closure_rounds"]) >= 1
    assert sol.status is Status.OPTIMAL
    assert float(sol.objective) == pytest.approx(float(opt(inst)), rel=1e-9)
    assert check_packs(inst, sol.payload) == sol.objective


@pytest.mark.parametrize("seed", range(6))
def test_cuts_raise_the_lp_bound_but_never_above_opt(seed):
    """LP with pack-count and subset-row cuts: >= the plain LP, <= the enumeration optimum;
    reduced costs priced over the pool equal HiGHS's column duals (sign conventions)."""
    import numpy as np

    from resilsched.deadline import Deadline
    from resilsched.models.coschedule.setpart.colgen import root_lp
    from resilsched.models.coschedule.setpart.master import Master, min_packs, singletons
    from resilsched.models.coschedule.setpart.pool import build_pool
    from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts

    inst = tiny(900 + seed, 11, 8, 3, kind="amdahl")
    pool = build_pool(inst)
    single = singletons(inst)
    plain = Master(inst.n)
    plain.add(*single)
    lp_plain = root_lp.column_generation(pool, plain, Deadline(None)).lb
    master = Master(inst.n, min_packs(inst), SubsetRowCuts(inst.n, pool.packs))
    master.add(*single)
    cg = root_lp.root_relaxation(pool, master, Deadline(None))
    assert lp_plain - 1e-7 <= cg.lb <= float(opt(inst)) + 1e-7
    assert cg.lb == pytest.approx(master.h.getInfo().objective_function_value, abs=1e-7)
    col_dual = np.array(master.h.getSolution().col_dual)
    where = {tuple(int(x) for x in row): (s, r) for s in pool.packs
             for r, row in enumerate(pool.packs[s])}
    for c, b in enumerate(master.cols):
        s, r = where[b]
        assert cg.rcs[s][r] == pytest.approx(col_dual[c], abs=1e-7)


def test_subset_row_separation_finds_the_odd_triangle():
    import numpy as np

    from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts

    packs = {2: np.array([(0, 1), (0, 2), (1, 2), (2, 3)], dtype=np.int32)}
    cuts = SubsetRowCuts(4, packs)
    found = cuts.separate([((0, 1), 0.5), ((0, 2), 0.5), ((1, 2), 0.5), ((3,), 1.0)])
    assert found == [(0, 1, 2)]
    q = cuts.add((2, 1, 0))
    assert cuts.cuts_of((0, 2)) == [q] and cuts.cuts_of((2, 3)) == []
    assert sorted(cuts.members[q][2].tolist()) == [0, 1, 2]
    assert cuts.separate([((0, 1), 0.5), ((0, 2), 0.5), ((1, 2), 0.5)]) == []


def test_setpart_time_limit_is_honest():
    inst = tiny(11, 40, 16, 4, kind="amdahl")
    for solve in (solve_setpart_cg, solve_setpart_bp):
        sol = solve(inst, None, time_limit=0.3)
        if sol.status is not Status.OPTIMAL:
            assert sol.status in (Status.FEASIBLE, Status.NO_SOLUTION)
        if sol.objective is not None and sol.bound is not None:
            assert sol.bound <= float(sol.objective) * (1 + 1e-9)
            assert check_packs(inst, sol.payload) == sol.objective
