"""Lower bounds and ratio constants of the rigid family (spec 002 §1.3, §7)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from resilsched.bounds.rigid import (
    big_jobs_bound,
    greedy_ratio,
    lower_bound,
    reservation_ljf_ratio,
    shelf_lb_ratio,
    shelffill_lpt_lb,
    t_max,
    total_area,
)
from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.heuristic_cases import HEURISTICS, simulate


def test_bounds_on_a_hand_example():
    inst = RigidInstance.build(4, [(3, 2), (1, Fraction(5, 2)), (2, 1)])
    sc = Scenario((1, 0, 2))
    assert t_max(inst, sc) == 4  # max(2*2, 1*5/2, 3*1)
    assert total_area(inst, sc) == Fraction(12 + 5 / Fraction(2) + 6)  # 2*6 + 5/2 + 3*2
    assert total_area(inst, sc) == Fraction(41, 2)
    assert lower_bound(inst, sc) == Fraction(41, 8)
    assert isinstance(lower_bound(inst, sc), Fraction)
    assert lower_bound(inst) == max(Fraction(5, 2), Fraction(6 + Fraction(5, 2) + 2, 4))
    assert big_jobs_bound(inst, sc) == 4  # only job 0 has 2p > P
    assert big_jobs_bound(inst) == 2


def test_integer_bounds_stay_integers():
    inst = RigidInstance.build(2, [(2, 3), (2, 1)])
    assert lower_bound(inst, [0, 0]) == 4 and isinstance(lower_bound(inst, [0, 0]), int)
    assert lower_bound(inst, [1, 1]) == 8


def test_bounds_reject_wrong_scenario_length():
    inst = RigidInstance.build(2, [(1, 1)])
    with pytest.raises(InvalidInstance, match="failures"):
        lower_bound(inst, [0, 0])


def test_bounds_never_exceed_any_heuristic():
    rng = np.random.default_rng(31)
    for _ in range(40):
        P = int(rng.integers(1, 9))
        n = int(rng.integers(1, 8))
        inst = RigidInstance.build(P, [(int(rng.integers(1, P + 1)),
                                        Fraction(int(rng.integers(1, 9)), int(rng.integers(1, 4))))
                                       for _ in range(n)])
        sc = Scenario(tuple(int(x) for x in rng.integers(0, 3, size=n)))
        L, big = lower_bound(inst, sc), big_jobs_bound(inst, sc)
        for h in HEURISTICS:
            res = simulate(inst, sc, h, "LPT")
            validate_rigid_schedule(inst, sc, res.schedule)
            assert L <= res.objective
            assert big <= res.objective


def test_ratio_constants():
    assert greedy_ratio(1) == 1 and greedy_ratio(4) == Fraction(7, 4)
    assert reservation_ljf_ratio(1) == 1 and reservation_ljf_ratio(3) == 2
    assert reservation_ljf_ratio(7) == Fraction(5, 2)
    assert shelf_lb_ratio(1) == 1 and shelf_lb_ratio(4) == Fraction(25, 12)
    assert shelf_lb_ratio(10) == Fraction(7381, 2520)
    assert shelffill_lpt_lb(3, Fraction(1, 100)) == Fraction(450, 251)
    assert shelffill_lpt_lb(2, Fraction(0)) == Fraction(4, 3)
    for P in range(1, 30):
        assert greedy_ratio(P) < 2 and reservation_ljf_ratio(P) < 3
    with pytest.raises(InvalidInstance):
        greedy_ratio(0)
