"""R-LIST-1/Q with fixed reservations (``reservations="fixed"``, issue 14, spec 002 §4.3 A3):
hand examples worked out by hand, an independent reference on random instances, the validator
on random instances and scenarios (exact and float times), and the parameter's boundary.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.scenarios import scenario_matrix
from resilsched.instances.rigid.synthetic import paper_sets
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.fixed_reference import simulate_fixed
from tests.support.rigid.heuristic_cases import makespan, random_case, simulate, static_order

MODES = ("fresh", "persistent", "fixed")


def starts(result):
    return {(a.job, a.k): a.start for a in result.schedule.attempts}


def test_rlist_q_failed_job_waits_behind_older_reservations():
    """P = 2, HPA order J0, J1, J2 (all p = 1): J0 (t=5, fails once), J1 (t=6), J2 (t=2).

    At 0 J0 and J1 start and J2 is reserved at 5 (J0's end). Fixed: at 5 J0 fails, J2 starts
    on its reservation, so J0 waits for J1's end: J0 [6, 11), makespan 11. Fresh (and
    persistent, which cancels on the failure): the pass at 5 reserves J0 first, which starts
    at once; J2 waits for J1: J2 [6, 8), makespan 10.
    """
    inst = RigidInstance.build(2, [(1, 5), (1, 6), (1, 2)])
    sc = Scenario((1, 0, 0))
    res = {m: simulate(inst, sc, "R-LIST-Q", "HPA", reservations=m) for m in MODES}
    for r in res.values():
        validate_rigid_schedule(inst, sc, r.schedule)
    assert starts(res["fixed"]) == {(0, 1): 0, (1, 1): 0, (2, 1): 5, (0, 2): 6}
    assert res["fixed"].objective == 11
    for m in ("fresh", "persistent"):
        assert starts(res[m]) == {(0, 1): 0, (1, 1): 0, (0, 2): 5, (2, 1): 6}
        assert res[m].objective == 10


def test_rlist_1_reservations_accumulate_and_survive_a_failure():
    """P = 4, HPA order J2 (p=3, t=5, fails once), J0 (p=2, t=1), J1 (p=2, t=2), J3 (p=1, t=3).

    At 0 J2 starts and J3 backfills [0, 3). At 3 the head J0 is reserved at 5 (J2's end). At 5
    J2 fails. Fixed: J0 starts on its reservation [5, 6); J2, back at the head, is reserved at
    6 (J0's end) and J1 would delay it; at 6 J2 starts and the head J1 is reserved at 11:
    makespan 13. Fresh and persistent (the failure cancels J0's reservation): J2 restarts at
    once [5, 10), then J0 [10, 11) and J1 [10, 12): makespan 12.
    """
    inst = RigidInstance.build(4, [(2, 1), (2, 2), (3, 5), (1, 3)])
    sc = Scenario((0, 0, 1, 0))
    res = {m: simulate(inst, sc, "R-LIST-1", "HPA", reservations=m) for m in MODES}
    for r in res.values():
        validate_rigid_schedule(inst, sc, r.schedule)
    assert starts(res["fixed"]) == {(2, 1): 0, (3, 1): 0, (0, 1): 5, (2, 2): 6, (1, 1): 11}
    assert res["fixed"].objective == 13
    for m in ("fresh", "persistent"):
        assert starts(res[m]) == {(2, 1): 0, (3, 1): 0, (2, 2): 5, (0, 1): 10, (1, 1): 10}
        assert res[m].objective == 12


def test_float_times_give_the_exact_schedule():
    """The hand examples with times scaled by 0.1 (floats, compared with the 1e-9 tolerance)."""
    for P, jobs, f, h, expect in (
        (2, [(1, 5), (1, 6), (1, 2)], (1, 0, 0), "R-LIST-Q", 11),
        (4, [(2, 1), (2, 2), (3, 5), (1, 3)], (0, 0, 1, 0), "R-LIST-1", 13),
    ):
        exact = RigidInstance.build(P, jobs)
        scaled = RigidInstance.build(P, [(p, 0.1 * t) for p, t in jobs])
        sc = Scenario(f)
        a = simulate(exact, sc, h, "HPA", reservations="fixed")
        b = simulate(scaled, sc, h, "HPA", reservations="fixed")
        validate_rigid_schedule(scaled, sc, b.schedule)
        assert b.objective == pytest.approx(expect / 10, rel=1e-9)
        assert starts(b) == pytest.approx({k: v / 10 for k, v in starts(a).items()}, rel=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_matches_the_independent_reference(seed):
    """Start times and makespans equal the reference simulator's (exact, int and Fraction)."""
    rng = np.random.default_rng(1000 + seed)
    for i in range(20):
        inst, sc = random_case(rng, fractions=i % 2 == 1, n_max=8, P_max=8, f_max=3)
        jobs = [(j.p, j.t) for j in inst.jobs]
        for priority in ("LPT", "HPA", "SPT", "LA"):
            order = static_order(inst, priority)
            for name, m in (("R-LIST-1", 1), ("R-LIST-Q", "Q")):
                res = simulate(inst, sc, name, priority, reservations="fixed")
                ref_starts, ref_makespan = simulate_fixed(inst.P, jobs, list(sc.failures),
                                                          order, m)
                assert starts(res) == ref_starts, (seed, i, priority, name)
                assert res.objective == ref_makespan


@pytest.mark.parametrize("name", ["R-LIST-1", "R-LIST-Q"])
def test_validator_accepts_every_schedule(name):
    """Random small instances (every priority, classic EASY on and off) and a paper-size set
    with drawn scenarios; the fast path gives the same makespan."""
    rng = np.random.default_rng(7)
    for i in range(30):
        inst, sc = random_case(rng, fractions=i % 3 == 0, f_max=4)
        for priority in ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "LJF", "Random"):
            for easy in (False, True):
                res = simulate(inst, sc, name, priority, seed=i, reservations="fixed",
                               classic_easy=easy)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert res.objective == makespan(inst, sc, name, priority, seed=i,
                                                 reservations="fixed", classic_easy=easy)
    inst = paper_sets(3, 1)[0]  # n = 100, P = 10000, float times
    for row in scenario_matrix(inst, 0.3, 2, seed=5):
        sc = Scenario(tuple(int(x) for x in row))
        res = simulate(inst, sc, name, "LPT", reservations="fixed")
        validate_rigid_schedule(inst, sc, res.schedule)


def test_without_failures_fixed_is_persistent():
    """With no failure nothing is ever cancelled, so "fixed" and "persistent" coincide."""
    rng = np.random.default_rng(3)
    for _ in range(40):
        inst, _ = random_case(rng)
        sc = Scenario.failure_free(inst.n)
        for name in ("R-LIST-1", "R-LIST-Q"):
            assert (simulate(inst, sc, name, "LPT", reservations="fixed").schedule
                    == simulate(inst, sc, name, "LPT", reservations="persistent").schedule)


def test_former_flag_means_persistent_and_bad_modes_are_refused():
    inst = RigidInstance.build(4, [(2, 1), (2, 2), (3, 5), (1, 3)])
    sc = Scenario((0, 0, 1, 0))
    old = simulate(inst, sc, "R-LIST-1", "HPA", persistent_reservations=True)
    new = simulate(inst, sc, "R-LIST-1", "HPA", reservations="persistent")
    assert old.schedule == new.schedule
    assert new.extra["options"] == {"reservations": "persistent"}
    assert "options" not in simulate(inst, sc, "R-LIST-1", "HPA").extra
    with pytest.raises(InvalidInstance, match="reservations"):
        simulate(inst, sc, "R-LIST-1", "HPA", reservations="sticky")
    with pytest.raises(InvalidInstance, match="persistent_reservations.*fixed"):
        simulate(inst, sc, "R-LIST-Q", "HPA", reservations="fixed", persistent_reservations=True)


def test_exact_arithmetic_is_kept():
    inst = RigidInstance.build(3, [(2, Fraction(1, 3)), (2, Fraction(1, 2)), (1, Fraction(5, 7))])
    res = simulate(inst, [2, 0, 1], "R-LIST-Q", "LPT", reservations="fixed")
    validate_rigid_schedule(inst, inst.scenario([2, 0, 1]), res.schedule)
    assert isinstance(res.objective, Fraction)
    assert all(isinstance(a.start, (int, Fraction)) for a in res.schedule.attempts)


def test_proposition_1_does_not_hold_with_fixed_reservations():
    """R-LIST-1 + LJF with fixed reservations breaks 3 - 4/(P+1) (docs/decisions.md R21).

    P = 6. L (p=5, t=2) fails 3 times; E (p=1, t=1); S1, S2, S3 (p=2, t=40, 41, 42); LJF puts
    L first and orders the small jobs by SPT (Proposition 1 allows any order of small jobs).
    At 1 (E ends) S1, the head, is reserved at 2. At 2 L fails: S1 starts on its reservation and
    L, which cannot run beside it (5 + 2 > 6), is reserved at 42; at 42 S2 is reserved after L's
    attempt, at 44, where L fails again, and so on: L [0,2) S1 [2,42) L [42,44) S2 [44,85)
    L [85,87) S3 [87,129) L [129,131): makespan 131. OPT = 50: every S overlaps no attempt of L,
    so OPT >= 4 x 2 + 42, and the fresh-round schedule (L's chain, then the three S together)
    reaches it. 131/50 = 2.62 > 17/7. Every further failure of L paired with one more S adds
    about one S's length, so the ratio is unbounded in P.
    """
    inst = RigidInstance.build(6, [(5, 2), (1, 1), (2, 40), (2, 41), (2, 42)])
    sc = Scenario((3, 0, 0, 0, 0))
    fixed = simulate(inst, sc, "R-LIST-1", "LJF", reservations="fixed", ljf_secondary="SPT")
    fresh = simulate(inst, sc, "R-LIST-1", "LJF", ljf_secondary="SPT")
    for r in (fixed, fresh):
        validate_rigid_schedule(inst, sc, r.schedule)
    assert starts(fixed) == {(0, 1): 0, (1, 1): 0, (2, 1): 2, (0, 2): 42, (3, 1): 44,
                             (0, 3): 85, (4, 1): 87, (0, 4): 129}
    assert fixed.objective == 131 and fresh.objective == 50
    opt = 4 * 2 + 42  # lower bound of the docstring, reached by the fresh-round schedule
    P = inst.P
    assert (P + 1) * fixed.objective > (3 * P - 1) * opt  # Eq. 9 broken
    assert (P + 1) * fresh.objective <= (3 * P - 1) * opt
