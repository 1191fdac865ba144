"""Proposition 1 and fact F2 as property tests (spec 004 §2.1, §2.2, §7.3 items 4-5).

Under H1 (2 p_max <= a_min), any allocation respecting the slack rule, run without delay in
interval order, completes every job of machine i by e_i(k_last) (k_last: its last used
interval) under every admissible disturbance; F2 (conjectured in the spec, checked here) bounds
the worst completion by H(pi). The worst case is the exact one (`worst_disturbance`), plus
random and extreme shifts through the independent event oracle, with random orders inside the
intervals (A-14).
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import build
from resilsched.heuristics.desktop.policies import LOCAL
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop.disturbance import delta_bounds
from resilsched.instances.desktop.presets import tiny_instance, x1
from resilsched.models.desktop.worst_case import worst_disturbance
from resilsched.validation.desktop import allocation_horizon
from tests.support.desktop.cases import random_rule_allocation, simulate, tiny_h1

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _check_prop1(inst, sched, rng):
    assert inst.assumption_h1
    worst = worst_disturbance(inst, sched)
    H = allocation_horizon(inst, sched.intervals, True)
    for i, mach in enumerate(inst.machines):
        used = [k for (mi, k), js in sched.intervals.items() if mi == i and js]
        bound = mach.e[max(used)] if used else 0
        assert worst.machine_makespans[i] <= bound  # Proposition 1
    assert worst.makespan <= H  # F2
    T = inst.durations
    queues = [[int(T[i, j]) for j in sched.queue(i)] for i in range(inst.m)]
    for _ in range(20):  # random and extreme shifts through the event oracle
        deltas = []
        for i in range(inst.m):
            lo, hi = delta_bounds(inst, i)
            if rng.random() < 0.5:
                deltas.append([int(rng.choice([a, 0, b])) for a, b in zip(lo, hi, strict=True)])
            else:
                deltas.append([int(rng.integers(a, b + 1)) for a, b in zip(lo, hi, strict=True)])
        done = simulate(inst, queues, deltas)
        assert max((max(c) for c in done if c), default=0) <= worst.makespan


@SETTINGS
@given(st.integers(0, 10**6))
def test_proposition_1_random_slack_allocations(seed):
    rng = np.random.default_rng(seed)
    inst = tiny_h1(seed, max_k=3, max_jobs=4)
    alloc = random_rule_allocation(inst, rng)
    if alloc is None:
        return
    intervals = {ik: tuple(js) for ik, js in alloc.items()}
    h = allocation_horizon(inst, intervals, True)
    _check_prop1(inst, DesktopSchedule(intervals, h, h, True), rng)


@SETTINGS
@given(st.integers(0, 10**6), st.sampled_from(sorted(LOCAL)),
       st.sampled_from(["GreedySlack", "DAslack"]))
def test_proposition_1_heuristic_outputs(seed, local, global_policy):
    inst = tiny_h1(seed, max_k=3, max_jobs=4)
    try:
        sched, _ = build(inst, global_policy, local, True)
    except InvalidInstance:
        return
    _check_prop1(inst, sched, np.random.default_rng(seed))
    assert worst_disturbance(inst, sched).stability <= 1  # R7 on this instance


def test_no_slack_baselines_are_not_stable():
    """Spec 7.3 item 5: the simulator is not vacuous: no-slack schedules break sigma <= 1."""
    assert worst_disturbance(x1(False), build(x1(False), "GreedySlack", "LPT", False)[0]) \
        .stability > 1
    unstable = 0
    for seed in range(30):
        inst = tiny_instance(seed, slack_rule=False, max_intervals=3, max_jobs=4)
        try:
            sched, _ = build(inst, "DAslack", "FFD", False)
        except InvalidInstance:
            continue
        unstable += worst_disturbance(inst, sched).stability > 1
    assert unstable >= 5
