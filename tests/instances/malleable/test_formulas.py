"""The formulas of spec §3.1: limits, symmetry, j_max, the printed period, and a Monte Carlo
of one application against the closed form that matches the simulator's failure rule (A-5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from resilsched.heuristics.malleable import noredist
from resilsched.instances.malleable import (
    YEAR,
    Formulas,
    MalleableInstance,
    MalleableTask,
    paper_instance,
)
from tests.support.malleable.oracle import rc as rc_oracle


def one_app(t: float, m: float, mtbf, j: int = 2, D: float = 5.0, **kw) -> MalleableInstance:
    """One application whose time is t on every count (p = j)."""
    return MalleableInstance(p=j, tasks=(MalleableTask(m=m, t=tuple(t / 1 for _ in range(j))),),
                             mtbf=mtbf, downtime=D, **kw)


def test_tr_tends_to_the_fault_free_time_with_checkpoints():
    errors = []
    for mtbf in (1e8, 1e10, 1e12):
        F = Formulas(one_app(1e6, 2.0, mtbf))
        i, k = np.array([0]), 2
        c = float(F.ckpt(i, k)[0])
        w = float(F.tau(i, k)[0]) - c
        for a in (1.0, 0.37):
            n_ff = math.floor(a * 1e6 / w)
            assert n_ff >= 1 or mtbf > 1e11
            limit = a * 1e6 + n_ff * c
            errors.append(abs(float(F.t_r(i, k, a)[0]) / limit - 1.0))
    assert errors[-1] < errors[1] < errors[0] * 1.01 and errors[-1] < 1e-5


def test_fault_free_context_has_no_checkpoints():
    F = Formulas(one_app(100.0, 2.0, None))
    assert F.t_r(np.array([0]), 2, 0.4)[0] == pytest.approx(40.0)
    assert F.duration(np.array([0]), 2, 0.4)[0] == pytest.approx(40.0)
    assert F.done_running(np.array([0]), 2, 30.0)[0] == pytest.approx(0.3)


def test_rc_symmetric_zero_on_the_diagonal_and_1_9_for_growth():
    inst = paper_instance(0, 3, 64)
    inst = inst.replace(S=7.0, beta=0.25)
    F = Formulas(inst)
    for i in range(3):
        for j in range(2, 65, 2):
            assert F.rc(np.array([i]), j, j)[0] == 0.0
            for k in range(2, 65, 2):
                a = float(F.rc(np.array([i]), j, k)[0])
                assert a == pytest.approx(float(F.rc(np.array([i]), k, j)[0]))
                assert a == pytest.approx(rc_oracle(inst, i, j, k))
                if k > j:  # (1.9): S + max(j, k - j) (m / (j k bw) + beta)
                    m = inst.tasks[i].m
                    assert a == pytest.approx(7.0 + max(j, k - j) * (m / (j * k) + 0.25))


def test_fused_estimate_equals_its_parts():
    inst = paper_instance(2, 5, 400, mtbf_years=5, downtime=3600)
    F = Formulas(inst)
    i = np.repeat(np.arange(5), 20)
    j = np.tile(np.arange(2, 42, 2), 5)
    k = np.tile(np.arange(40, 0, -2), 5)
    a = np.linspace(0.05, 1, i.size)
    parts = F.rc(i, j, k) + F.ckpt_after(i, k) + F.t_r(i, k, a)
    assert np.allclose(F.move_then_run(i, j, k, a), parts, rtol=1e-13)


@pytest.mark.parametrize("years, D", [(100, 60), (5, 60), (5, 3600)])
def test_jmax_is_the_smallest_even_argmin_and_the_lazy_check_agrees(years, D):
    inst = paper_instance(1, 6, 2000, mtbf_years=years, downtime=D)
    F = Formulas(inst)
    ks = np.arange(2, 2001, 2)
    full = F.jmax
    for i in range(6):
        vals = [float(F.t_r(np.array([i]), int(k), 1.0)[0]) for k in ks]
        assert full[i] == ks[int(np.argmin(vals))]
    lazy = Formulas(inst)
    rng = np.random.default_rng(0)
    for _ in range(50):
        idx = rng.integers(0, 6, 4)
        k = 2 * rng.integers(1, 1001, 4)
        assert np.array_equal(lazy.exceeds_jmax(idx, k), k > full[idx])
    if D == 3600:  # spec §1.5 [DERIVED]: j* ~ 880 at D = 3600 s, MTBF 5 years
        assert 700 < full.min() and full.max() < 1100


def test_printed_period_and_overheads_match_the_spec():
    # spec §1.4 [DERIVED]: m = 2.5e6, j = 50: Young 29.66 days, printed 29.08 days
    task = (MalleableTask(m=2.5e6, f=0.08),)
    young = Formulas(MalleableInstance(p=100, tasks=task, mtbf=100 * YEAR, downtime=60))
    printed = Formulas(MalleableInstance(p=100, tasks=task, mtbf=100 * YEAR, downtime=60,
                                         period="as_printed"))
    i = np.array([0])
    assert young.tau(i, 50)[0] / 86400 == pytest.approx(29.66, abs=0.01)
    assert printed.tau(i, 50)[0] / 86400 == pytest.approx(29.08, abs=0.01)
    assert young.ckpt(i, 50)[0] / 3600 == pytest.approx(13.9, abs=0.05)
    ratio = young.t_r(i, 50, 1.0)[0] / young.t(i, 50)[0]
    assert 1.03 <= ratio <= 1.04
    five = Formulas(MalleableInstance(p=100, tasks=task, mtbf=5 * YEAR, downtime=60))
    assert 1.20 <= five.t_r(i, 50, 1.0)[0] / five.t(i, 50)[0] <= 1.23


def test_progress_literal_counts_a_partial_checkpoint_clamp_does_not():
    F = Formulas(one_app(1000.0, 20.0, 1e5))
    i = np.array([0])
    c, tau = float(F.ckpt(i, 2)[0]), float(F.tau(i, 2)[0])
    inside = tau - c / 2  # halfway through the first checkpoint
    lit = float(F.done_running(i, 2, inside, clamp=False)[0])
    cl = float(F.done_running(i, 2, inside, clamp=True)[0])
    assert lit == pytest.approx(inside / 1000.0)
    assert cl == pytest.approx((tau - c) / 1000.0) and cl < lit
    # outside checkpoints the two agree; a struck application keeps whole periods
    assert F.done_running(i, 2, 2 * tau + 1.0, False)[0] == pytest.approx(
        F.done_running(i, 2, 2 * tau + 1.0, True)[0])
    assert F.done_failed(i, 2, 2 * tau + 1.0)[0] == pytest.approx(2 * (tau - c) / 1000.0)


def test_monte_carlo_of_one_application_matches_the_simulator_rule_closed_form():
    """No failure during downtime or recovery (A-5): per segment T the expected time is
    (1/(lambda j) + D + R)(e^{lambda j T} - 1); (1.6) itself is within a few percent."""
    t, m, mtbf, D, j = 100.0, 4.0, 100.0, 5.0, 2
    inst = one_app(t, m, mtbf, j=j, D=D)
    F = Formulas(inst)
    i = np.array([0])
    c = float(F.ckpt(i, j)[0])
    tau = float(F.tau(i, j)[0])
    w = tau - c
    n = math.floor(t / w)
    last = t - n * w
    lam = j / mtbf
    closed = (1 / lam + D + c) * (n * math.expm1(lam * tau) + math.expm1(lam * last))
    runs = np.array([noredist(inst, seed=s).objective for s in range(1500)])
    mean, se = runs.mean(), runs.std(ddof=1) / math.sqrt(runs.size)
    assert abs(mean - closed) < 4 * se, (mean, closed, se)
    printed = float(F.t_r(i, j, 1.0)[0])
    assert printed > closed and printed / closed < 1.05


@pytest.mark.parametrize("period", ["young", "as_printed"])
def test_jmax_upper_bound_holds_and_cuts_large_platforms(period):
    """MA-20: the bound is >= the smallest argmin found by scanning every even count, and far
    below p where the downtime makes large counts slow."""
    rng = np.random.default_rng(5)
    for trial in range(12):
        years = float(rng.choice([1, 5, 100]))
        D = float(rng.choice([0, 5, 60, 3600]))
        inst = paper_instance(trial, 4, 20_000, mtbf_years=years, downtime=D, period=period)
        inst = inst.replace(beta=float(rng.choice([0.0, 0.5, 20.0])))
        F = Formulas(inst)
        upper = F.jmax_upper
        ks = np.arange(2, inst.p_even + 1, 2)
        scanned = [ks[int(np.argmin(F.t_r(np.full(ks.size, i), ks, 1.0)))] for i in range(4)]
        assert np.all(scanned <= upper) and np.all(upper <= inst.p_even)
        assert np.all(upper % 2 == 0) and np.array_equal(F.jmax, scanned)
    big = Formulas(paper_instance(0, 3, 10**7))  # j_max ~ 3e4 at D = 60 s, MTBF 100 years
    assert big.jmax_upper.max() < 2 * 10**5
    assert Formulas(paper_instance(0, 3, 10**7, downtime=0)).jmax_upper.min() == 10**7
