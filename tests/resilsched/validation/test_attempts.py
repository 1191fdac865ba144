"""The independent schedule validator catches every rule of spec 002 §2 it is meant to check."""

from fractions import Fraction

import pytest

from resilsched.errors import InvalidSchedule
from resilsched.instances.rigid import RigidInstance
from resilsched.schedule import Attempt, Schedule
from resilsched.validation import validate_rigid_schedule

INST = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)])  # split-vs-merged instance, spec 002 §11.2
SCEN = INST.scenario([1, 0, 0])


def good() -> list[Attempt]:
    # OPT = 3: A1 [0,1], L1 [0,2], L2 [1,3], A2 [2,3]
    return [
        Attempt(0, 1, 0, 1, 1, True),
        Attempt(1, 1, 0, 2, 1, False),
        Attempt(2, 1, 1, 3, 1, False),
        Attempt(0, 2, 2, 3, 1, False),
    ]


def test_accepts_the_optimal_split_schedule():
    validate_rigid_schedule(INST, SCEN, Schedule(tuple(good()), 3))


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda a: a[:3], "attempts"),  # missing attempt
        (lambda a: [*a[:3], Attempt(0, 2, 2, 3, 1, True)], "failed"),  # last attempt marked failed
        (
            lambda a: [a[0], a[1], a[2], Attempt(0, 2, 0, 1, 1, False)],
            "starts at 0 before",
        ),  # overlap chain
        (
            lambda a: [a[0], a[1], Attempt(2, 1, 0, 2, 1, False), a[3]],
            "capacity",
        ),  # 3 jobs at time 1
        (lambda a: [a[0], a[1], Attempt(2, 1, 1, 4, 1, False), a[3]], "lasts"),  # wrong duration
        (lambda a: [a[0], a[1], Attempt(2, 1, 1, 3, 2, False), a[3]], "allowed"),  # wrong p
    ],
)
def test_rejects_broken_schedules(mutate, message):
    with pytest.raises(InvalidSchedule, match=message):
        validate_rigid_schedule(INST, SCEN, Schedule(tuple(mutate(good())), 3))


def test_rejects_wrong_makespan():
    with pytest.raises(InvalidSchedule, match="makespan"):
        validate_rigid_schedule(INST, SCEN, Schedule(tuple(good()), 4))


def test_back_to_back_attempts_share_processors_exactly_in_fractions():
    inst = RigidInstance.build(1, [(1, Fraction(1, 3))])
    sc = inst.scenario([2])
    third = Fraction(1, 3)
    atts = tuple(Attempt(0, k, (k - 1) * third, k * third, 1, k < 3) for k in (1, 2, 3))
    validate_rigid_schedule(inst, sc, Schedule(atts, 1))


def test_float_tolerance_at_shared_boundaries():
    inst = RigidInstance.build(1, [(1, 0.1), (1, 0.2)])
    sc = inst.scenario([0, 0])
    atts = (
        Attempt(0, 1, 0.0, 0.1, 1, False),
        Attempt(1, 1, 0.1 + 1e-15, 0.1 + 1e-15 + 0.2, 1, False),
    )
    validate_rigid_schedule(inst, sc, Schedule(atts, 0.1 + 1e-15 + 0.2))
