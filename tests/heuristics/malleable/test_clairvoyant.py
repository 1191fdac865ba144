"""The clairvoyant construction CLAIRVOYANT and the checkpoint-aware bound (decision MA-25):
valid runs, never below the bounds nor below proven optima, the bound never above any run and
below an independent brute force of its relaxation, and the portfolio's choice."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resilsched.bounds.malleable import checkpoint_bound, fluid_bound, upper_hull
from resilsched.errors import InvalidSchedule
from resilsched.heuristics.malleable import HEURISTICS, noredist
from resilsched.heuristics.malleable.clairvoyant import clairvoyant, static_allocation
from resilsched.instances.malleable import Formulas, paper_instance, tiny_instance
from resilsched.instances.malleable.traces import DrawnTrace, FailureTrace
from resilsched.models.malleable import solve_faultfree
from resilsched.portfolio import certified_solve
from resilsched.registry import get_family
from resilsched.validation import malleable as V
from resilsched.validation.malleable import validate_malleable_run
from tests.support.malleable.oracle import even_allocations, static_brute
from tests.thorough import examples

FAM = get_family("malleable")
REL = 1e-9
FAILURE_AWARE = [h for h in HEURISTICS if not h.__name__.startswith("ff_")]

sizes = st.sampled_from([(2, 4), (2, 6), (2, 8), (3, 6), (3, 8), (3, 10), (4, 8), (4, 12)])


def _busy_peak(phases) -> int:
    """The most processors the run's applications hold at once (ends before starts)."""
    events = sorted(e for ph in phases if ph[5] > ph[1]
                    for e in ((ph[1], 1, ph[3]), (ph[5], 0, -ph[3])))
    held = peak = 0
    for _, _, d in events:
        held += d
        peak = max(peak, held)
    return peak


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=sizes, trace_seed=st.integers(0, 50))
def test_construction_is_a_valid_run_above_the_bounds(seed, size, trace_seed):
    n, p = size
    inst = tiny_instance(seed, n, p)
    res = clairvoyant(inst, None, seed=trace_seed)
    run = res.schedule
    validate_malleable_run(inst, run, res.objective)
    idle = set(res.extra["idle_processors"])
    assert len(idle) <= p - 2 * n
    # the idle processors are never handed out, and none of their failures struck
    assert _busy_peak(run.phases) <= p - len(idle)
    on_working = {round(t, 6) for t, q in run.trace if q not in idle}
    struck = [ph[5] for ph in run.phases if ph[6] == "failure"]
    assert all(round(t, 6) in on_working for t in struck)
    # the same trace as the heuristics of that seed
    drawn = DrawnTrace(p, float(inst.mtbf), trace_seed).cursor()
    for t, q in run.trace:
        assert (t, q) == (drawn.time, drawn.proc)
        drawn.advance()
    assert res.objective >= checkpoint_bound(inst) * (1 - REL)
    assert checkpoint_bound(inst) >= fluid_bound(inst) * (1 - REL)
    if not struck:
        assert res.objective == pytest.approx(res.extra["planned_makespan"], rel=1e-12)


@pytest.mark.parametrize("seed, n, p", [(s, n, p) for s, (n, p) in enumerate(
    [(2, 6), (2, 8), (3, 8), (3, 10), (4, 10), (4, 12), (5, 12)])])
def test_fault_free_construction_is_above_the_proven_optimum(seed, n, p):
    inst = tiny_instance(seed, n, p, faulty=False)
    res = clairvoyant(inst)
    validate_malleable_run(inst, res.schedule, res.objective)
    opt = solve_faultfree(inst)
    assert opt.status.value == "optimal"
    assert res.objective >= opt.objective * (1 - REL)
    assert checkpoint_bound(inst) == fluid_bound(inst) <= opt.objective * (1 + REL)
    # no failure, no checkpoint: the static optimum of t (brute force)
    assert res.objective == pytest.approx(static_brute(inst, inst.time), rel=1e-12)


@pytest.mark.parametrize("seed, n, p", [(s, n, p) for s, (n, p) in enumerate(
    [(2, 6), (2, 10), (3, 8), (3, 12), (4, 12)])])
def test_static_allocation_equals_brute_force(seed, n, p):
    inst = tiny_instance(40 + seed, n, p)
    F = Formulas(inst)
    ks = np.arange(2, inst.p_even + 1, 2)

    def realized(i, k):
        return float(F.duration(np.array([i]), k, 1.0)[0])

    d = np.array([[realized(i, k) for k in ks] for i in range(n)])
    for cap in range(2 * n, p + 1, 2):
        value, sigma = static_allocation(d, ks, cap)
        assert sigma.sum() <= cap and max(realized(i, k) for i, k in enumerate(sigma)) == value
        want = min(max(realized(i, k) for i, k in enumerate(a))
                   for a in even_allocations(n, cap))
        assert value == pytest.approx(want, rel=1e-12)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=sizes)
def test_checkpoint_bound_is_below_every_run(seed, size):
    n, p = size
    inst = tiny_instance(seed, n, p)
    bound = checkpoint_bound(inst)
    assert bound >= fluid_bound(inst) * (1 - REL)
    for s in range(2):
        assert clairvoyant(inst, seed=s).objective >= bound * (1 - REL)
        for h in FAILURE_AWARE:
            for progress in ("clamp", "literal"):
                for end_mode in ("realized", "expected"):
                    res = h(inst, seed=s, progress=progress, end_mode=end_mode)
                    validate_malleable_run(inst, res.schedule, res.objective)
                    assert res.objective >= bound * (1 - REL), (h.__name__, progress)


def _brute_need(ks, t, tau, c, T, grid=801):
    """P_i(T) of the bound's relaxation (one first phase on k1 for y <= min(tau, T, t) at full
    speed, the rest on the concave majorant of rho s), by a grid over y: >= the true minimum."""
    s = 1.0 / t
    hk, hr = upper_hull(np.r_[0.0, ks], np.r_[0.0, tau / (tau + c) * s])
    keep = hr > np.maximum.accumulate(np.r_[-np.inf, hr[:-1]])
    hk, hr = hk[keep], hr[keep]

    def H(r):
        out = np.interp(np.maximum(r, 0.0), hr, hk)
        return np.where(r > hr[-1] * (1 + 1e-12), np.inf, np.where(r <= 0, 0.0, out))

    y = np.minimum(np.minimum(tau, T), t)[:, None] * np.linspace(0.0, 1.0, grid)[None, :]
    with np.errstate(all="ignore"):
        r = (1.0 - y * s[:, None]) / (T - y)
        rest = np.where(r <= 0, 0.0, (T - y) * H(r))
    return float(np.nanmin(ks[:, None] * y + rest))


@pytest.mark.parametrize("seed, n, p", [(7, 2, 8), (8, 3, 12), (9, 4, 16), (10, 3, 24)])
def test_checkpoint_bound_is_below_a_brute_force_of_its_relaxation(seed, n, p):
    """The bound is a dual value of an LP relaxation of the per-application problem, so it
    never exceeds the smallest T that the brute-force needs (a grid, >= the minimum) allow."""
    inst = paper_instance(seed, n, p, mtbf_years=0.05)
    F = Formulas(inst)
    ks = np.arange(2, inst.p_even + 1, 2)
    rows = [(ks.astype(float), F.t(np.full(ks.size, i), ks), F.tau(np.full(ks.size, i), ks),
             F.ckpt(np.full(ks.size, i), ks)) for i in range(n)]
    bound = checkpoint_bound(inst)
    assert bound > fluid_bound(inst) * (1 + 1e-6)  # it sees the checkpoints

    def feasible(T):
        return sum(_brute_need(*row, T) for row in rows) <= p * T

    lo, hi = fluid_bound(inst), 2.0 * bound
    assert feasible(hi)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if feasible(mid) else (mid, hi)
    assert bound <= hi * (1 + 1e-9)


def test_portfolio_takes_the_construction_and_the_bound():
    inst = paper_instance(7, 10, 500, mtbf_years=5)
    sol = certified_solve(FAM, inst, None, options={"seed": 2})
    assert sol.objective_source == "CLAIRVOYANT"
    assert sol.bound_source == "checkpoint"
    runs = {r["source"]: r for r in sol.info["portfolio"]["schedules"]}
    assert "error" not in runs["CLAIRVOYANT"]
    assert sol.objective == pytest.approx(runs["CLAIRVOYANT"]["objective"], rel=1e-12)
    assert sol.objective < min(r["objective"] for name, r in runs.items()
                               if name != "CLAIRVOYANT")
    assert sol.bound <= sol.objective
    # its trace is the one the heuristics read with the same seed
    want = FAM.heuristics["ENDGREEDY-SAF"].run(inst, None, None, seed=2).schedule.trace
    got = sol.schedule.trace
    assert got[:len(want)] == want[:len(got)]


def test_same_count_splits_with_literal_progress_are_refused():
    """A run that ends each period just before its checkpoint completes by a same-count
    'redistribution' (no event happens; literal progress counts the checkpoint as work) beats
    the single phase's t + N^ff C and nearly meets the bound's charge per application,
    t + (t / tau - 1) C (MA-25); the validator refuses it (MA-26: a redistribution changes the
    count, at an event)."""
    inst = paper_instance(1, 1, 50, mtbf_years=100)
    F = Formulas(inst)
    k, one = 50, np.array([0])
    t, c, tau = (float(f(one, k)[0]) for f in (F.t, F.ckpt, F.tau))
    phases, start, restart, alpha = [], 0.0, 0.0, 1.0
    while alpha * t > tau - 1e-3:
        end = restart + tau - 1e-3
        done = (tau - 1e-3) / t
        phases.append((0, start, restart, k, alpha, end, "redistributed", done))
        start, restart, alpha = end, end + c, alpha - done
    end = restart + alpha * t + np.floor(alpha * t / (tau - c)) * c
    phases.append((0, start, restart, k, alpha, float(end), "finished", alpha))
    base = noredist(inst, FailureTrace((), ()), progress="literal").schedule  # other fields
    split = dataclasses.replace(base, phases=tuple(phases), finish=(float(end),),
                                released=(float(end),), makespan=float(end))
    with pytest.raises(InvalidSchedule, match="same count"):
        validate_malleable_run(inst, split, float(end))
    moved = dataclasses.replace(split, phases=tuple(  # the same cuts with a count change
        ph[:3] + (k - 2 * (r % 2),) + ph[4:] for r, ph in enumerate(phases)))
    with pytest.raises(InvalidSchedule, match="no application ends and no failure strikes"):
        V._check_events(moved.phases)
    single = t + np.floor(t / (tau - c)) * c
    assert end < single * (1 - 1e-3)
    assert checkpoint_bound(inst) <= end <= (t + (t / tau - 1.0) * c) * (1 + 1e-3)
