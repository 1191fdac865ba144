"""Held reservations under the float tolerance (spec 002 §4.3, decisions A3, R21, R27, R28).

With float times the engine groups completions within a relative 1e-9 and the availability
profile merges breakpoints within the same tolerance, but "within the tolerance" is not
transitive: a profile may merge two ends that the event loop does not group with the current
time. A reservation held from an earlier pass (persistent and fixed modes) at such a merged
breakpoint used to start as soon as its time came up to the tolerance, on processors still in
use (`InvalidSchedule`; the compiled core reported it as a deadlock), or drift past the last
completion (deadlock). R27 (persistent) and R28 (fixed): a held job whose time has come is
placed again at its earliest fit and starts only if it fits now; a pass leaving nothing running
cancels the holds. Each case runs the Python engine (the oracle) and both fast paths.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched import engine
from resilsched.heuristics.rigid import r_list_1, r_list_q
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.validation import validate_rigid_schedule
from tests.thorough import examples


def _check(fn, inst, sc, priority, **kw):
    """Run the Python engine (the oracle), validate its schedule and compare both fast paths
    (compiled core when built, pure Python) with its makespan, bit for bit."""
    ref = fn(inst, sc, priority, **kw)
    validate_rigid_schedule(inst, sc, ref.schedule)
    with engine.use("python"):
        assert fn(inst, sc, priority, record=False, **kw).objective == ref.objective
    fast = fn(inst, sc, priority, record=False, **kw).objective
    assert fast == ref.objective and type(fast) is type(ref.objective)
    return ref.objective


def test_minimal_r_list_q_instance():
    # At t = 2e6 job 0 fails, every hold is cancelled, and the profile merges the ends
    # 4000000.001 and 4000000.004 (0.003 apart): job 3 (p = P) is held at 4000000.001. Job 0
    # ends at 4e6, where the engine groups 4000000.001 but not 4000000.004 (0.004 apart, just
    # over the tolerance): job 3 was started with 3 free processors.
    inst = RigidInstance.build(4, [(1, 2000000.0), (1, 4000000.004), (1, 4000000.001),
                                   (4, 4000000.0)])
    sc = Scenario((1, 0, 0, 0))
    mk = _check(r_list_q, inst, sc, "LPT", reservations="persistent")
    # job 3 starts at the end of job 1 instead, as in fresh mode
    assert mk == _check(r_list_q, inst, sc, "LPT") == 4000000.004 + 4000000.0


def test_persistent_unreachable_hold_is_cancelled():
    # job 3 is held at 10000000.006 (the end of job 2's reservation at 8000000.003, which
    # started at 7999999.998): the last completion, 9999999.996, is more than the tolerance
    # before it and nothing runs any more (it used to deadlock); the pass cancels the hold
    inst = RigidInstance.build(6, [(1, 1000000.0), (1, 4000000.003), (4, 2000000.003),
                                   (4, 2000000.0), (5, 4000000.0), (2, 2999999.998)])
    sc = Scenario((3, 1, 0, 0, 0, 1))
    assert _check(r_list_q, inst, sc, "LPT", reservations="persistent") == 11999999.996


def test_minimal_r_list_1_instance():
    inst = RigidInstance.build(4, [(1, 2000000.004), (2, 3000000.008), (1, 3000000.006),
                                   (1, 4000000.004), (3, 3000000.0)])
    sc = Scenario((0, 1, 1, 0, 0))
    for mode in ("fresh", "persistent"):
        _check(r_list_1, inst, sc, "LPT", reservations=mode)


def test_fixed_mode_due_job_ends_at_its_real_end():
    # job 2 is held at 3e6 and starts at 2999999.998 (the same time up to the tolerance); its
    # window used to end at 3e6 + 1e6 in the profile instead of its real end, the jobs held
    # there drifted to 7000000.0 and no completion came close enough to start them (deadlock)
    inst = RigidInstance.build(2, [(1, 999999.998), (1, 2000000.0), (2, 1000000.0),
                                   (1, 3000000.0)])
    sc = Scenario((3, 0, 1, 1))
    assert _check(r_list_q, inst, sc, "LPT", reservations="fixed") == 7999999.992


def test_fixed_mode_unreachable_hold_is_cancelled():
    # job 4 is held at the end of job 5's reservation, 12000000.004; job 5 started early (up to
    # the tolerance) and ended at 12000000.0, grouped with the last completion 11999999.992,
    # from which 12000000.004 is just over the tolerance: nothing runs any more, so the pass
    # cancels the hold and job 4 starts now, at 11999999.991999999 (it used to deadlock)
    inst = RigidInstance.build(5, [(1, 1999999.996), (3, 4000000.0), (2, 2000000.0),
                                   (1, 999999.999), (2, 3000000.0), (4, 4000000.002),
                                   (1, 3000000.0)])
    sc = Scenario((1, 0, 0, 1, 0, 1, 1))
    assert _check(r_list_1, inst, sc, "LPT", reservations="fixed") == 14999999.991999999


# Draws of a near-tolerance stress run (run times k 1e6 plus offsets of 1e-4 to 4e-3) on which
# the fixed mode failed before R28, over-subscribing or deadlocking: (fn, priority, options, P,
# jobs, failures). Each moves a due reservation (the job does not fit now) or cancels the holds
# (nothing runs any more), some with Random or LJF keys redrawn on failure, which the compiled
# core must not redraw again when a cancelled hold goes back into the queue.
STRESS_FAILURES = [
    (r_list_1, "LJF", {}, 5, [(2, 2999999.999), (3, 3000000.0), (3, 3000000.004),
                              (1, 1000000.003), (3, 1999999.999), (4, 999999.998),
                              (1, 1999999.998)], (2, 0, 2, 1, 0, 0, 2)),
    (r_list_1, "Random", {"classic_easy": True, "redraw_on_failure": True, "seed": 1718}, 6,
     [(1, 999999.998), (5, 2000000.0001), (6, 999999.999), (1, 2999999.998), (5, 2000000.004),
      (5, 1000000.002), (2, 1999999.998)], (3, 2, 3, 3, 0, 2, 1)),
    (r_list_1, "HPA", {"classic_easy": True}, 5,
     [(2, 4000000.0001), (3, 2000000.004), (1, 1999999.999), (3, 1000000.004),
      (1, 2000000.003), (4, 2000000.0001)], (2, 3, 2, 2, 1, 2)),
    (r_list_q, "Random", {"redraw_on_failure": True, "seed": 7309}, 3,
     [(2, 3000000.0005), (3, 3000000.0005), (1, 999999.999), (2, 2000000.004),
      (2, 2000000.001), (1, 1000000.0001)], (1, 3, 0, 1, 1, 3)),
    (r_list_q, "LJF", {"redraw_on_failure": True, "seed": 6143}, 5,
     [(1, 2999999.998), (1, 1999999.999), (3, 2000000.003), (3, 2000000.002),
      (4, 2000000.003), (5, 3000000.0001)], (2, 1, 2, 2, 3, 0)),
    (r_list_q, "LA", {"classic_easy": True}, 4,
     [(3, 1999999.999), (4, 1000000.001), (1, 3999999.999), (1, 2000000.001),
      (1, 4000000.004), (2, 2000000.003)], (2, 1, 3, 1, 2, 0)),
    (r_list_q, "LPT", {}, 5, [(4, 4000000.004), (5, 2000000.0), (1, 4000000.0001),
                              (4, 2000000.0005), (1, 2000000.003)], (3, 3, 2, 1, 3)),
]


@pytest.mark.parametrize("case", STRESS_FAILURES, ids=lambda c: f"{c[0].__name__}-{c[1]}")
def test_fixed_mode_stress_failures_complete_and_validate(case):
    fn, priority, kw, P, jobs, f = case
    _check(fn, RigidInstance.build(P, jobs), Scenario(f), priority, reservations="fixed", **kw)


@st.composite
def near_tolerance_cases(draw):
    """Few jobs on few processors, run times k 1e6 plus offsets of the order of the
    tolerance (1e-9 k 1e6 absolute), failures: completions that the tolerance merges or not."""
    P = draw(st.integers(1, 6))
    n = draw(st.integers(1, 6))
    jobs = []
    for _ in range(n):
        k = draw(st.integers(1, 4))
        off = draw(st.sampled_from([0.0, 1e-4, 5e-4, 1e-3, 2e-3, 3e-3, 4e-3, -1e-3, -2e-3]))
        jobs.append((draw(st.integers(1, P)), k * 1e6 + off))
    f = tuple(draw(st.integers(0, 3)) for _ in range(n))
    return RigidInstance.build(P, jobs), Scenario(f)


@pytest.mark.parametrize("mode", ["fresh", "persistent", "fixed"])
@pytest.mark.parametrize("fn", [r_list_1, r_list_q], ids=lambda f: f.__name__)
@settings(max_examples=examples(150), deadline=None)
@given(case=near_tolerance_cases(), priority=st.sampled_from(["LPT", "LJF", "HPA"]),
       classic_easy=st.booleans())
def test_near_tolerance_runs_complete_and_validate(fn, mode, case, priority, classic_easy):
    inst, sc = case
    _check(fn, inst, sc, priority, reservations=mode, classic_easy=classic_easy)
