"""The schedule improvement of the rigid exact models (models/rigid/improve.py, decision R30):
every schedule passes the family's validator, the serial scheme reaches the brute-force optimum
over all orders, a pass never lengthens a schedule, the window rounds never return a longer or
an invalid schedule nor one below a proven optimum, and the phase keeps the time limit; the C
serial scheme gives the Python one's starts, and the restarts and pulled attempts of decision
R34 keep all of the above."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings

from resilsched import engine
from resilsched.deadline import Deadline
from resilsched.instances.failures import Scenario, sample_scenarios
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.synthetic import uniform_rigid
from resilsched.models.rigid import cserial, improve, solve_failure_free, solve_scenario
from resilsched.models.rigid.greedy import greedy_upper_bound, makespan_of
from resilsched.models.rigid.scaling import scale_scenario
from resilsched.schedule import Attempt, Schedule
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.cases import random_scenario, random_tiny
from tests.support.rigid.oracle import brute_force_makespan
from tests.support.rigid.strategies import tiny_cases


def _check(inst: RigidInstance, sc: Scenario, starts: list[list[int]]) -> int:
    """Validate integer start times (scale 1) with the family's validator; the makespan."""
    attempts = [Attempt(j, k + 1, s, s + inst.jobs[j].t, inst.jobs[j].p, k < sc.failures[j])
                for j, row in enumerate(starts) for k, s in enumerate(row)]
    sched = Schedule(tuple(attempts), max(a.end for a in attempts))
    validate_rigid_schedule(inst, sc, sched)
    return sched.makespan


def _orders(m: tuple[int, ...]):
    """Every distinct order listing job j m_j times."""
    base = [j for j, mj in enumerate(m) for _ in range(mj)]
    return set(itertools.permutations(base))


def test_serial_scheme_over_all_orders_reaches_the_optimum():
    rng = np.random.default_rng(11)
    for _ in range(60):
        inst, sc = random_tiny(rng, max_attempts=6)
        data = scale_scenario(inst, sc)
        best = min(_check(inst, sc, improve.serial_schedule(data, order))
                   for order in _orders(data.m))
        opt, _ = brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs], sc.failures)
        assert best == opt


def test_schedules_are_valid_and_passes_never_lengthen():
    rng = np.random.default_rng(5)
    for i in range(40):
        inst, sc = random_scenario(rng, (4, 40), (3, 14), 30)
        data = scale_scenario(inst, sc)
        noise = (1.0 + rng.random(data.n)).tolist()
        ks = improve.knapsack_list(data, float(i % 4), noise, float(i % 3))
        mk = _check(inst, sc, ks)
        _check(inst, sc, improve.mirrored(data, ks))
        assert makespan_of(data, improve.mirrored(data, ks)) == mk
        fb_mk, fb = improve.forward_backward(data, ks)
        assert _check(inst, sc, fb) == fb_mk <= mk


def test_improve_schedule_is_valid_bounded_and_seeded():
    rng = np.random.default_rng(8)
    for _ in range(15):
        inst, sc = random_tiny(rng, max_attempts=8)
        data = scale_scenario(inst, sc)
        greedy = greedy_upper_bound(data)
        mk, starts, _ = improve.improve_schedule(data, greedy, 0, max_rounds=30, seed=3)
        opt, _ = brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs], sc.failures)
        assert opt <= _check(inst, sc, starts) == mk <= greedy[0]
        assert improve.improve_schedule(data, greedy, 0, max_rounds=30, seed=3)[:2] == (mk, starts)


def test_improve_stops_at_the_bound_and_at_the_deadline():
    inst = uniform_rigid(3, n=60, p=(50, 2000), t=(100, 20000), P=10000)
    data = scale_scenario(inst, Scenario.failure_free(inst.n))
    greedy = greedy_upper_bound(data)
    mk, _, rounds = improve.improve_schedule(data, greedy, greedy[0] + 1)
    assert rounds == 0 and mk <= greedy[0]
    start = time.perf_counter()
    improve.improve_schedule(data, greedy, 0, Deadline(0.5))
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("limit", [0.5, pytest.param(6.0, marks=pytest.mark.slow)])
@pytest.mark.parametrize("qbar", [0.0, 0.3])
def test_paper_size_solve_keeps_the_limit_and_beats_the_greedy(qbar, limit):
    """At 0.5 s the improvement phase uses the time; at 6 s (``-m slow``) the CP-SAT phase
    runs after it."""
    inst = uniform_rigid(7)  # the paper's distribution: n = 100, P = 10000
    sc = sample_scenarios(inst.q(qbar), 1, 1)[0]
    data = scale_scenario(inst, sc)
    start = time.perf_counter()
    sol = solve_scenario(inst, sc, time_limit=limit)
    assert time.perf_counter() - start < limit * 1.25 + 1
    assert sol.status.value == "feasible" and sol.bound <= sol.objective
    assert sol.objective * data.scale <= greedy_upper_bound(data)[0]
    assert sol.info["seconds"]["improve"] > 0
    validate_rigid_schedule(inst, sc, sol.payload.schedule)


def test_deterministic_improvement_repeats():
    """1 s is enough for every phase (the improvement, then CP-SAT) to run."""
    inst = uniform_rigid(4, n=40)
    runs = [solve_failure_free(inst, time_limit=1, deterministic=True) for _ in range(2)]
    assert runs[0].objective == runs[1].objective


def test_window_recreate_is_valid_and_keeps_the_order_outside_the_window():
    rng = np.random.default_rng(21)
    for i in range(40):
        inst, sc = random_scenario(rng, (4, 40), (3, 14), 30)
        data = scale_scenario(inst, sc)
        base = greedy_upper_bound(data)[1]
        mk = makespan_of(data, base)
        at = int(rng.integers(0, mk))
        until = at + int(rng.integers(1, mk + 1))
        noise = (1.0 + rng.random(data.n)).tolist()
        new = improve.window_recreate(data, base, at, until, float(i % 4), noise, float(i % 3))
        _check(inst, sc, new)
        assert [len(row) for row in new] == list(data.m)
        # an empty window re-places every attempt in its order: the left-justified schedule
        same = improve.window_recreate(data, base, at, at, 0.0, noise, 0.0)
        assert same == improve.serial_schedule(data, improve._order(data, base, False))


def test_window_rounds_never_lengthen_and_are_seeded():
    inst = uniform_rigid(5, n=45, p=(50, 2000), t=(100, 20000), P=10000)
    sc = sample_scenarios(inst.q(0.3), 1, 2)[0]
    data = scale_scenario(inst, sc)
    greedy = greedy_upper_bound(data)
    # stall_rounds=3: the first stage stops after 3 rounds without progress, then windows
    runs = [improve.improve_schedule(data, greedy, 0, seed=4, max_rounds=60, stall_rounds=3)
            for _ in range(2)]
    mk, starts, rounds = runs[0]
    assert runs[1] == runs[0] and rounds > 3
    assert makespan_of(data, starts) == mk <= greedy[0]
    validate_rigid_schedule(inst, sc, _scaled_schedule(inst, sc, data, starts))


def _scaled_schedule(inst: RigidInstance, sc: Scenario, data, starts) -> Schedule:
    """The schedule of scaled integer starts in the instance's unit (exact fractions)."""
    from fractions import Fraction

    attempts = [Attempt(j, k + 1, Fraction(s, data.scale),
                        Fraction(s, data.scale) + inst.jobs[j].t, inst.jobs[j].p,
                        k < sc.failures[j])
                for j, row in enumerate(starts) for k, s in enumerate(row)]
    return Schedule(tuple(attempts), max(a.end for a in attempts))


@pytest.mark.parametrize("restart", [None, 3])  # restart=3: decision R34's restarts too
@settings(max_examples=40, deadline=None)
@given(tiny_cases())
def test_window_rounds_never_go_below_the_cp_sat_optimum(restart, case):
    inst, sc = case
    data = scale_scenario(inst, sc)
    opt = solve_scenario(inst, sc)
    assert opt.status.value == "optimal"
    greedy = greedy_upper_bound(data)
    # the bound 0 and stall_rounds=2 reach the window stage on every instance that it can improve
    mk, starts, _ = improve.improve_schedule(data, greedy, 0, seed=1, max_rounds=40,
                                             stall_rounds=2, restart=restart)
    assert opt.objective * data.scale <= mk <= greedy[0]
    validate_rigid_schedule(inst, sc, _scaled_schedule(inst, sc, data, starts))


built = pytest.mark.skipif(not engine.available("_improve"), reason="compiled scheme not built")


@built
def test_c_serial_scheme_gives_the_python_starts():
    rng = np.random.default_rng(31)
    for _ in range(60):
        inst, sc = random_scenario(rng, (4, 40), (3, 14), 30)
        data = scale_scenario(inst, sc)
        order = [j for j, mj in enumerate(data.m) for _ in range(mj)]
        for _ in range(5):
            order = rng.permutation(order).tolist()
            assert cserial.serial(data, order) == improve.serial_python(data, order)


def test_python_engine_runs_the_python_scheme():
    inst, sc = random_scenario(np.random.default_rng(2), (4, 10), (3, 6), 10)
    data = scale_scenario(inst, sc)
    order = [j for j, mj in enumerate(data.m) for _ in range(mj)]
    with engine.use("python"):
        assert cserial.serial(data, order) is None
        assert improve.serial_schedule(data, order) == improve.serial_python(data, order)


def test_pulled_attempts_are_rebuilt_in_the_window():
    rng = np.random.default_rng(23)
    for i in range(40):
        inst, sc = random_scenario(rng, (4, 40), (3, 14), 30)
        data = scale_scenario(inst, sc)
        base = greedy_upper_bound(data)[1]
        mk = makespan_of(data, base)
        at = int(rng.integers(0, mk))
        until = at + int(rng.integers(1, mk // 2 + 2))
        noise = (1.0 + rng.random(data.n)).tolist()
        extra = improve._pull(data, base, until, rng)
        later = {j for j, row in enumerate(base) if any(s >= until for s in row)}
        assert set(extra) <= later and len(set(extra)) == len(extra) <= improve._PULL
        new = improve.window_recreate(data, base, at, until, float(i % 4), noise, float(i % 3),
                                      sorted(later)[:3])
        _check(inst, sc, new)
        assert [len(row) for row in new] == list(data.m)


def test_restarts_are_seeded_never_lengthen_and_keep_the_deadline():
    inst = uniform_rigid(6, n=45, p=(50, 2000), t=(100, 20000), P=10000)
    sc = sample_scenarios(inst.q(0.3), 1, 3)[0]
    data = scale_scenario(inst, sc)
    greedy = greedy_upper_bound(data)
    # restart=5: several runs from the incumbent within 150 rounds
    runs = [improve.improve_schedule(data, greedy, 0, seed=2, max_rounds=150, stall_rounds=3,
                                     restart=5) for _ in range(2)]
    mk, starts, rounds = runs[0]
    assert runs[1] == runs[0] and rounds == 150
    assert makespan_of(data, starts) == mk <= greedy[0]
    validate_rigid_schedule(inst, sc, _scaled_schedule(inst, sc, data, starts))
    start = time.perf_counter()
    improve.improve_schedule(data, greedy, 0, Deadline(0.4), restart=improve.RESTART_STALL)
    assert time.perf_counter() - start < 1.5

