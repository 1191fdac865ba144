"""The runtime executor (spec 004 §1.5, §7.3 item 3) and the exact worst-case disturbance."""

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop import build
from resilsched.heuristics.desktop.executor import execute, run
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.instances.desktop import DesktopInstance, Disturbance, Machine
from resilsched.instances.desktop.disturbance import delta_bounds
from resilsched.instances.desktop.presets import tiny_instance, x1
from resilsched.models.desktop.worst_case import worst_disturbance
from tests.support.desktop.cases import simulate


def _one_machine(a, u, p, e0=0):
    return DesktopInstance((Machine(1, e0, tuple(a), tuple(u)),), tuple(p), False)


def _alloc(inst, jobs, k=1):
    return DesktopSchedule({(0, k): tuple(jobs)}, 100, 0, False)


def test_x2_interrupted_job_restarts_from_scratch():
    """X2: unavailability [3, 5): job 4 is cut at 3 and completes at 9; then job 2 at 11."""
    inst = _one_machine([3, 40], [2, 5], [4, 2])
    far = np.full((1, 1), 10**15)
    done = execute(np.array([0]), [[4, 2]], np.hstack([[[3]], far]), np.hstack([[[5]], far]))
    assert done.tolist() == [[9, 11]]
    assert run(inst, _alloc(inst, [0, 1])).makespan == 11


def test_x2_completion_at_an_unavailability_start_counts():
    """Unavailability [4, 6) and a job of 4 from 0: it completes at 4 (A-16)."""
    inst = _one_machine([4, 40], [2, 5], [4])
    assert run(inst, _alloc(inst, [0])).makespan == 4


def test_x2_merging():
    """[10, 15) and [14, 20) merge into [10, 20)."""
    far = 10**15
    starts = np.array([[10, far]])
    ends = np.array([[20, far]])
    assert execute(np.array([9]), [[2]], starts, ends).tolist() == [[22]]
    inst = _one_machine([10, 4, 30], [5, 1, 1], [3])
    # unavailability 2 [19, 20) shifted by -5 to [14, 15), inside [10, 15): one period
    sched = _alloc(inst, [0])
    assert run(inst, sched, Disturbance(((0, -4, 0),))).makespan == 3


def test_executor_matches_the_event_oracle():
    """Random tiny schedules and admissible shifts: vectorised executor = unmerged oracle."""
    rng = np.random.default_rng(4)
    for seed in range(150):
        inst = tiny_instance(seed, slack_rule=False, max_intervals=5, max_jobs=6)
        try:
            sched, _ = build(inst, "DAslack", "FFI", False)
        except InvalidInstance:
            continue
        for _ in range(5):
            deltas = []
            for i in range(inst.m):
                lo, hi = delta_bounds(inst, i)
                deltas.append(tuple(int(rng.integers(a, b + 1)) for a, b in
                                    zip(lo, hi, strict=True)))
            dist = Disturbance(tuple(deltas))
            T = inst.durations
            queues = [[int(T[i, j]) for j in sched.queue(i)] for i in range(inst.m)]
            expect = max((max(c) for c in simulate(inst, queues, deltas) if c), default=0)
            assert run(inst, sched, dist).makespan == expect


def test_exact_worst_case_beats_every_sample_and_is_reached():
    rng = np.random.default_rng(5)
    for seed in range(25):
        inst = tiny_instance(seed, max_intervals=3, max_jobs=4)
        try:
            sched, _ = build(inst, "GreedySlack", "LPT", True)
        except InvalidInstance:
            continue
        worst = worst_disturbance(inst, sched)
        T = inst.durations
        queues = [[int(T[i, j]) for j in sched.queue(i)] for i in range(inst.m)]
        for _ in range(30):
            deltas = []
            for i in range(inst.m):
                lo, hi = delta_bounds(inst, i)
                deltas.append([int(rng.integers(a, b + 1)) for a, b in zip(lo, hi, strict=True)])
            got = max((max(c) for c in simulate(inst, queues, deltas) if c), default=0)
            assert got <= worst.makespan
        full = [list(d) + [0] * (m.K - len(d)) for d, m in zip(worst.deltas, inst.machines,
                                                                strict=True)]
        reached = max((max(c) for c in simulate(inst, queues, full) if c), default=0)
        assert reached == worst.makespan


def test_exact_worst_case_equals_enumeration_on_x1():
    inst = x1(False)
    sched = DesktopSchedule({(0, 1): (0, 1)}, 12, 12, False)
    best = 0
    for d1 in range(-10, 9):
        for d2 in range(-8, 13):
            for d3 in range(-12, 1):
                c = simulate(inst, [[4, 3]], [(d1, d2, d3)])[0]
                best = max(best, max(c))
    w = worst_disturbance(inst, sched)
    assert w.makespan == best == 15 and w.stability == 15 / 12


def test_worst_case_refuses_large_instances():
    inst = DesktopInstance((Machine(1, 0, (4000,) * 6, (10,) * 6),), (1900,) * 6, True)
    sched = DesktopSchedule({(0, 1): tuple(range(6))}, 10**6, 0, True)
    with pytest.raises(InvalidInstance, match="tiny"):
        worst_disturbance(inst, sched)
