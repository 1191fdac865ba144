"""R-LIST-0/1/Q (spec 002 §4): invariants read from the attempt log, hand examples of the
reservation semantics (A2, A3), and the availability profile.
"""

from __future__ import annotations

import numpy as np
import pytest

from resilsched.heuristics.rigid import PRIORITIES
from resilsched.heuristics.rigid.rlist import Profile
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.heuristic_cases import (
    CASES,
    RESERVATION_OPTIONS,
    event_times,
    simulate,
    state_after_pass,
    static_order,
)

# -- R-LIST invariants --------------------------------------------------------------------------

@pytest.mark.parametrize("priority", [p for p in PRIORITIES if p != "Random"])
def test_rlist0_is_work_conserving_after_each_pass(priority):
    for inst, sc in CASES:
        sched = simulate(inst, sc, "R-LIST-0", priority).schedule
        for e in event_times(sched):
            if e >= sched.makespan:
                continue
            free, queued = state_after_pass(inst, sched, e)
            assert all(inst.jobs[j].p > free for j in queued), (e, free, queued)


def test_rlist0_greedy_scan_follows_priority_order():
    """At each pass the started jobs are exactly the greedy scan of Q in priority order."""
    for inst, sc in CASES:
        for priority in ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "LJF"):
            order = static_order(inst, priority)
            sched = simulate(inst, sc, "R-LIST-0", priority).schedule
            for e in event_times(sched):
                if e >= sched.makespan:
                    continue
                started = {a.job for a in sched.attempts if a.start == e}
                still_running = [a for a in sched.attempts if a.start < e < a.end]
                free = inst.P - sum(a.p for a in still_running)
                finished = {a.job for a in sched.attempts if not a.failed and a.end <= e}
                busy = {a.job for a in still_running}
                expect = set()
                for j in order:
                    if j in finished or j in busy:
                        continue
                    if inst.jobs[j].p <= free:
                        expect.add(j)
                        free -= inst.jobs[j].p
                assert started == expect, (priority, e)


@pytest.mark.parametrize("heuristic", ["R-LIST-1", "R-LIST-Q"])
@pytest.mark.parametrize("options", RESERVATION_OPTIONS)
def test_reservation_head_never_fits_after_a_pass(heuristic, options):
    """After each pass the highest-priority queued job does not fit the free processors.

    This is the fact Proposition 1's proof uses (spec 002 §6.1); with running attempts only,
    usage never rises, so a head job that fits now would have been reserved "now".
    """
    for inst, sc in CASES:
        for priority in ("LPT", "HPA", "LA", "LJF", "SPT"):
            order = static_order(inst, priority)
            sched = simulate(inst, sc, heuristic, priority, **options).schedule
            for e in event_times(sched):
                if e >= sched.makespan:
                    continue
                free, queued = state_after_pass(inst, sched, e)
                if queued:
                    head = min(queued, key=order.index)
                    assert inst.jobs[head].p > free, (priority, e, head, free)


def test_reservation_protects_the_head_job():
    """Greedy vs EASY vs conservative on a hand example (P = 3, SPT order A, B, D, C).

    A (p=2, t=4), B (p=3, t=5), D (p=1, t=8), C (p=1, t=10), no failure.

    - R-LIST-0: A, D at 0; C at 4 (B does not fit); B only at 14 when C ends: makespan 19.
    - R-LIST-1: A (head) and D at 0; at 4 the head B is reserved at 8 (when D ends) and C
      would delay it: B [8, 13], C [13, 23]: makespan 23.
    - R-LIST-Q: at 0 B is reserved at 4 and D, C get reservations at 9: only A starts; then
      B [4, 9], D [9, 17], C [9, 19]: makespan 19.
    """
    inst = RigidInstance.build(3, [(2, 4), (3, 5), (1, 10), (1, 8)])
    sc = Scenario((0, 0, 0, 0))
    starts = {}
    for h in ("R-LIST-0", "R-LIST-1", "R-LIST-Q"):
        res = simulate(inst, sc, h, "SPT")
        validate_rigid_schedule(inst, sc, res.schedule)
        starts[h] = ({a.job: a.start for a in res.schedule.attempts}, res.objective)
    assert starts["R-LIST-0"] == ({0: 0, 3: 0, 2: 4, 1: 14}, 19)
    assert starts["R-LIST-1"] == ({0: 0, 3: 0, 1: 8, 2: 13}, 23)
    assert starts["R-LIST-Q"] == ({0: 0, 1: 4, 3: 9, 2: 9}, 19)


def test_classic_easy_differs_from_position_based():
    """A2 on a hand example. P = 4, SPT order: J0 (p=1, t=3), J1 (p=4, t=4), J3 (p=2, t=4),
    J2 (p=2, t=8).

    Position-based m=1: J0 is the head and starts at 0, so its reservation is spent; J3
    backfills at [0, 4); J1 is reserved at 4 only when it becomes the head (at 3): J1 [4, 8),
    J2 [8, 16], makespan 16. Classic EASY: J0 starts, J1 (first job that cannot start) is
    reserved at 3, J3 would delay it and waits: J1 [3, 7), J3 [7, 11), J2 [7, 15], makespan 15.
    """
    inst = RigidInstance.build(4, [(1, 3), (4, 4), (2, 8), (2, 4)])
    sc = Scenario((0, 0, 0, 0))
    pos = simulate(inst, sc, "R-LIST-1", "SPT")
    easy = simulate(inst, sc, "R-LIST-1", "SPT", classic_easy=True)
    for r in (pos, easy):
        validate_rigid_schedule(inst, sc, r.schedule)
    assert {a.job: a.start for a in pos.schedule.attempts} == {0: 0, 3: 0, 1: 4, 2: 8}
    assert pos.objective == 16
    assert {a.job: a.start for a in easy.schedule.attempts} == {0: 0, 1: 3, 3: 7, 2: 7}
    assert easy.objective == 15


def test_persistent_reservations_accumulate():
    """A3 on a hand example. P = 4, HPA order J3 (p=3, t=4), J0 (p=2, t=4, fails once),
    J1 (p=2, t=5), J2 (p=1, t=1, fails once), J4 (p=1, t=6).

    Fresh rounds: at 2 the only reservation is J0's (at 4), so J4 backfills [2, 8); J0 [4, 8)
    fails and reruns [8, 12) beside J1 [8, 13): makespan 13. Persistent: at 2 J0 keeps its
    reservation and the next job J1 gets one too (at 4), which blocks J4; at 4 J4 is reserved
    at 8, cancelled when J0 fails at 8; J4 runs [9, 15): makespan 15.
    """
    inst = RigidInstance.build(4, [(2, 4), (2, 5), (1, 1), (3, 4), (1, 6)])
    sc = Scenario((1, 0, 1, 0, 0))
    fresh = simulate(inst, sc, "R-LIST-1", "HPA")
    kept = simulate(inst, sc, "R-LIST-1", "HPA", reservations="persistent")
    for r in (fresh, kept):
        validate_rigid_schedule(inst, sc, r.schedule)

    def starts(r):
        return {(a.job, a.k): a.start for a in r.schedule.attempts}

    assert fresh.objective == 13 and kept.objective == 15
    assert starts(fresh)[(4, 1)] == 2 and starts(fresh)[(1, 1)] == 8
    assert starts(kept)[(1, 1)] == 4 and starts(kept)[(4, 1)] == 9
    # R-LIST-Q: every job holds a reservation anyway, the two modes coincide
    for f in ((0, 0, 0, 0, 0), (1, 0, 1, 0, 0), (0, 2, 0, 3, 1)):
        q = Scenario(f)
        assert (simulate(inst, q, "R-LIST-Q", "LPT").schedule
                == simulate(inst, q, "R-LIST-Q", "LPT", reservations="persistent").schedule)


# -- availability profile ------------------------------------------------------------------------

def test_profile_queries_match_brute_force():
    rng = np.random.default_rng(17)
    for _ in range(200):
        P = int(rng.integers(1, 7))
        t0 = int(rng.integers(0, 3))
        running = []
        used = 0
        for _ in range(int(rng.integers(0, 4))):
            p = int(rng.integers(1, P + 1))
            if used + p <= P:
                running.append((t0 + int(rng.integers(1, 8)), p))
                used += p
        prof = Profile(t0, P, running, exact=True)
        usage = {x: sum(p for e, p in running if e > x) for x in range(t0, 60)}
        for _ in range(int(rng.integers(0, 4))):  # random reservations
            p = int(rng.integers(1, P + 1))
            d = int(rng.integers(1, 5))
            s = prof.earliest_fit(p, d)
            brute = next(x for x in range(t0, 60)
                         if all(usage[y] + p <= P for y in range(x, x + d)))
            assert s == brute
            prof.reserve(s, s + d, p)
            for y in range(s, s + d):
                usage[y] += p
        p = int(rng.integers(1, P + 1))
        d = int(rng.integers(1, 5))
        assert prof.fits_now(p, d) == all(usage[y] + p <= P for y in range(t0, t0 + d))
