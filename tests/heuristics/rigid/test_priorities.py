"""Priority rules (spec 002 §3, A5, A6, A16): orders, reinsertion at the original rank, seeds.
"""

from __future__ import annotations

import numpy as np

from resilsched.heuristics.rigid import PRIORITIES
from resilsched.heuristics.rigid.priorities import make_queue, priority_keys
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.heuristic_cases import CASES, HEURISTICS, simulate, static_order

# -- priorities ----------------------------------------------------------------------------------

def test_priority_keys_orders():
    inst = RigidInstance.build(10, [(2, 5), (6, 1), (3, 5), (8, 2), (1, 9)])
    order = {pr: static_order(inst, pr) for pr in PRIORITIES if pr != "Random"}
    assert order["LPT"] == [4, 0, 2, 3, 1]
    assert order["SPT"] == [1, 3, 0, 2, 4]
    assert order["HPA"] == [3, 1, 2, 0, 4]
    assert order["LPA"] == [4, 0, 2, 1, 3]
    assert order["LA"] == [3, 2, 0, 4, 1]  # areas 10, 6, 15, 16, 9
    assert order["SA"] == [1, 4, 0, 2, 3]
    # LJF: large = 2p >= P+1 = 11 -> p >= 6: jobs 3 (8), 1 (6); small by LPT
    assert order["LJF"] == [3, 1, 4, 0, 2]
    keys = priority_keys(inst.p, inst.t, "LJF", P=10, ljf_secondary="SPT")
    assert sorted(range(5), key=keys.__getitem__) == [3, 1, 0, 2, 4]


def test_failed_job_regains_its_rank():
    """The failed top-priority job is reinserted ahead of lower-priority waiting jobs.

    P = 2, LPT: J0 (p=2, t=3) fails once; J1 (p=1, t=2) and J2 (p=1, t=1) wait behind it.
    """
    inst = RigidInstance.build(2, [(2, 3), (1, 2), (1, 1)])
    sc = Scenario((1, 0, 0))
    for h in HEURISTICS:
        sched = simulate(inst, sc, h, "LPT").schedule
        validate_rigid_schedule(inst, sc, sched)
        assert [(a.start, a.end) for a in sched.attempts_of(0)] == [(0, 3), (3, 6)]


def test_random_priority_is_seeded():
    inst, sc = CASES[5]
    a = simulate(inst, sc, "R-LIST-0", "Random", seed=42)
    b = simulate(inst, sc, "R-LIST-0", "Random", seed=42)
    assert a.schedule == b.schedule
    q = make_queue(inst.p, inst.t, "Random", P=inst.P, seed=42)
    u = np.random.default_rng(42).random(inst.n)
    assert q.items == sorted(range(inst.n), key=lambda j: (u[j], j))
    many = {simulate(inst, sc, "R-LIST-0", "Random", seed=s).schedule for s in range(30)}
    assert len(many) > 1


def test_redraw_on_failure_draws_new_keys():
    q = make_queue([1] * 5, [1] * 5, "Random", P=5, seed=3, redraw_on_failure=True)
    rng = np.random.default_rng(3)
    u = list(rng.random(5))
    first = q.items[0]
    q.keep({first})
    q.push(first)
    u[first] = rng.random()
    assert q.items == sorted(range(5), key=lambda j: (u[j], j))
    # LJF with a Random secondary: large jobs keep their (0, -p, j) key
    q = make_queue([5, 1, 1], [1, 1, 1], "LJF", P=5, seed=0, redraw_on_failure=True,
                   ljf_secondary="Random")
    q.keep({0})
    q.push(0)
    assert q.items[0] == 0
