"""Exact yardsticks against brute force, heuristics against them, the bound below everything,
and the time limits of the exact models."""

from __future__ import annotations

import time

import numpy as np
import pytest

from resilsched.bounds.malleable import fluid_bound
from resilsched.errors import InvalidInstance
from resilsched.heuristics.malleable import HEURISTICS, ff_endgreedy, ff_endlocal, ff_noredist
from resilsched.instances.malleable import Formulas, paper_instance, tiny_instance
from resilsched.models.malleable import solve_faultfree, solve_static
from resilsched.models.malleable.yardstick import solve_yardstick
from resilsched.solution import Status
from tests.support.malleable.oracle import faultfree_brute, static_brute

TINY = [(s, n, p) for s, (n, p) in enumerate([(2, 6), (2, 8), (3, 8), (3, 10), (2, 12),
                                              (3, 12), (4, 10), (4, 12)])]


@pytest.mark.parametrize("seed, n, p", TINY)
def test_static_optimal_equals_brute_force(seed, n, p):
    for inst in (tiny_instance(seed, n, p), tiny_instance(seed, n, p, faulty=False)):
        F = Formulas(inst)
        want = static_brute(inst, lambda i, k, F=F: float(F.t_r(np.array([i]), k, 1.0)[0]))
        sol = solve_static(inst)
        assert sol.status is Status.OPTIMAL and sol.objective == pytest.approx(want, rel=1e-12)
        assert sum(sol.payload.sigma) <= p and all(k % 2 == 0 for k in sol.payload.sigma)


def test_static_optimal_where_1_7_fails():
    """The floor in N^ff makes t^R non-monotone (spec §1.5): the threshold search stays exact."""
    inst = paper_instance(4, 3, 400, mtbf_years=5, downtime=3600)
    F = Formulas(inst)
    vals = F.t_r(np.arange(3)[:, None], np.arange(2, 401, 2)[None, :], 1.0)
    assert np.any(np.diff(vals, axis=1) > 0)  # (1.7) is violated
    best = np.inf
    for a in range(2, 397, 2):
        for b in range(2, 399 - a, 2):
            c = 400 - a - b  # giving the rest to the third never hurts it
            c = c - c % 2
            best = min(best, max(vals[0, a // 2 - 1], vals[1, b // 2 - 1],
                                 vals[2, :c // 2].min()))
    assert solve_static(inst).objective == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("seed, n, p", TINY[:7])
def test_faultfree_optimal_equals_brute_force(seed, n, p):
    inst = tiny_instance(seed, n, p, faulty=False)
    sol = solve_faultfree(inst)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(faultfree_brute(inst), rel=1e-9)
    assert max(sol.payload.finish) == pytest.approx(sol.objective, rel=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_heuristics_are_never_below_the_yardsticks(seed):
    inst = tiny_instance(100 + seed, 2 + seed % 3, 8 + 2 * (seed % 3))
    ff = inst.replace(mtbf=None)
    opt = solve_faultfree(ff).objective
    static_ff = solve_static(ff).objective
    bound = fluid_bound(inst)
    assert bound <= opt * (1 + 1e-12) <= static_ff * (1 + 1e-12)
    assert static_ff <= solve_static(inst).objective * (1 + 1e-12)
    for h in (ff_noredist, ff_endlocal, ff_endgreedy):
        assert h(inst).objective >= opt * (1 - 1e-9)
    assert ff_noredist(inst).objective == pytest.approx(static_ff, rel=1e-12)
    for h in HEURISTICS:  # every run, with failures or not, is above the fluid bound
        for s in range(3):
            assert h(inst, seed=s).objective >= bound


def test_yardstick_statuses():
    ff = tiny_instance(3, 3, 10, faulty=False)
    sol = solve_yardstick(ff)
    assert sol.status is Status.OPTIMAL and sol.objective == solve_faultfree(ff).objective
    faulty = tiny_instance(3, 3, 10)
    sol = solve_yardstick(faulty, seed=2)
    assert sol.status is Status.FEASIBLE and sol.bound == pytest.approx(fluid_bound(faulty))
    assert sol.objective >= sol.bound
    big = paper_instance(0, 20, 200, mtbf_years=None)
    sol = solve_yardstick(big)
    assert sol.status is Status.FEASIBLE and sol.bound <= sol.objective


def test_sizes_that_cannot_finish_are_refused():
    with pytest.raises(InvalidInstance, match="tiny"):
        solve_faultfree(tiny_instance(0, 6, 14, faulty=False))
    with pytest.raises(InvalidInstance, match="above its maximum"):
        solve_static(paper_instance(0, 2000, 40000))
    with pytest.raises(InvalidInstance, match="time_limit"):
        solve_static(tiny_instance(0, 2, 6), time_limit=float("inf"))


@pytest.mark.parametrize("solve, inst, limit", [
    (solve_faultfree, "tiny", 1.0),
    (solve_faultfree, "tiny", 0.05),
    (solve_static, "large", 0.3),
])
def test_time_limits_hold(solve, inst, limit):
    inst = (tiny_instance(11, 5, 24, faulty=False) if inst == "tiny"
            else paper_instance(0, 1500, 15000))
    t0 = time.perf_counter()
    sol = solve(inst, time_limit=limit)
    assert time.perf_counter() - t0 <= 1.25 * limit + 1.0
    assert sol.status in (Status.OPTIMAL, Status.FEASIBLE)
    assert sol.bound <= sol.objective * (1 + 1e-12)
    if sol.status is Status.FEASIBLE:
        assert sol.info.get("timed_out")


@pytest.mark.parametrize("years, D", [(100, 60), (5, 3600)])
def test_initial_allocation_is_static_optimal(years, D):
    """Spec §2.2 [INFERRED]: the lookahead greedy equals the even-allocation optimum, (1.7) or
    not; `noredist`'s initial allocation is that greedy."""
    from resilsched.heuristics.malleable import noredist

    for seed in range(3):
        inst = paper_instance(seed, 20, 900, mtbf_years=years, downtime=D)
        sigma = noredist(inst, seed=0).schedule.initial
        F = Formulas(inst)
        value = max(float(F.t_r(np.array([i]), k, 1.0)[0]) for i, k in enumerate(sigma))
        assert value == pytest.approx(solve_static(inst).objective, rel=1e-12)
