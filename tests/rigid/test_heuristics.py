"""Rigid heuristics and the event engine (spec 002 §2-§5, §11.5 items 7-8).

Every schedule made here goes through `resilsched.validation.validate_rigid_schedule`. The
invariant checks re-derive the rules of each heuristic from the attempt log alone (which jobs
were queued, which processors were free), so they do not trust the simulator's own state.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resilsched.bounds.rigid import lower_bound, t_max, total_area
from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.heuristics.engine import run_engine
from resilsched.heuristics.rigid import HEURISTICS, PRIORITIES, makespan, simulate
from resilsched.heuristics.rigid.priorities import make_queue, priority_keys
from resilsched.heuristics.rigid.rlist import Profile
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.schedule import Schedule
from resilsched.validation import validate_attempts, validate_rigid_schedule

from .strategies import tiny_cases

RESERVATION_OPTIONS = [
    {},
    {"classic_easy": True},
    {"persistent_reservations": True},
    {"classic_easy": True, "persistent_reservations": True},
]


def random_case(rng: np.random.Generator, *, fractions: bool = False, n_max: int = 8,
                P_max: int = 8, f_max: int = 3):
    """A small random instance (exact times) and scenario."""
    P = int(rng.integers(1, P_max + 1))
    n = int(rng.integers(1, n_max + 1))
    jobs = []
    for _ in range(n):
        p = int(rng.integers(1, P + 1))
        t = int(rng.integers(1, 7))
        if fractions:
            t = Fraction(t, int(rng.integers(1, 4)))
        jobs.append((p, t))
    f = tuple(int(x) for x in rng.integers(0, f_max + 1, size=n))
    return RigidInstance.build(P, jobs), Scenario(f)


CASES = [random_case(np.random.default_rng(s), fractions=s % 2 == 1) for s in range(24)]


def static_order(instance: RigidInstance, priority: str) -> list[int]:
    keys = priority_keys(instance.p, instance.t, priority, P=instance.P)
    return sorted(range(instance.n), key=keys.__getitem__)


def event_times(schedule: Schedule) -> list:
    return sorted({0} | {a.end for a in schedule.attempts})


def state_after_pass(instance: RigidInstance, schedule: Schedule, e):
    """(free processors, queued jobs) right after the pass at time e, from the log alone."""
    running = [a for a in schedule.attempts if a.start <= e < a.end]
    free = instance.P - sum(a.p for a in running)
    busy = {a.job for a in running}
    finished = {a.job for a in schedule.attempts if not a.failed and a.end <= e}
    queued = [j for j in range(instance.n) if j not in busy and j not in finished]
    return free, queued


# -- validity, lower bound, fast path ---------------------------------------------------------

@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_every_priority_gives_valid_schedules(heuristic):
    for inst, sc in CASES:
        L = lower_bound(inst, sc)
        for priority in PRIORITIES:
            res = simulate(inst, sc, heuristic, priority, seed=7)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert res.objective == res.schedule.makespan
            assert res.objective >= L
            assert res.heuristic == heuristic and res.priority == priority
            assert makespan(inst, sc, heuristic, priority, seed=7) == res.objective


@pytest.mark.parametrize("heuristic", ["R-LIST-1", "R-LIST-Q"])
@pytest.mark.parametrize("options", RESERVATION_OPTIONS)
def test_reservation_options_valid_and_fast_path_agrees(heuristic, options):
    for inst, sc in CASES:
        for priority in ("LPT", "HPA", "Random", "LJF"):
            res = simulate(inst, sc, heuristic, priority, seed=3, **options)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert makespan(inst, sc, heuristic, priority, seed=3, **options) == res.objective


def test_fast_path_equals_simulate_on_float_instances():
    rng = np.random.default_rng(2024)
    for _ in range(6):
        n, P = 30, 1000
        p = rng.integers(5, 201, size=n)
        t = rng.uniform(100, 20000, size=n)
        inst = RigidInstance.build(P, [(int(a), float(b)) for a, b in zip(p, t, strict=True)])
        f = rng.geometric(0.6, size=n) - 1
        sc = Scenario(tuple(int(x) for x in f))
        for h in HEURISTICS:
            for pr in ("LPT", "LA", "SPT", "Random", "LJF"):
                res = simulate(inst, sc, h, pr, seed=11)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert makespan(inst, f, h, pr, seed=11) == res.objective
        for opts in ({"redraw_on_failure": True}, {"ljf_secondary": "Random"}):
            pr = "Random" if "redraw_on_failure" in opts else "LJF"
            for h in ("R-LIST-0", "R-LIST-Q", "R-SHELFFILL-B"):
                res = simulate(inst, sc, h, pr, seed=5, **opts)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert makespan(inst, f, h, pr, seed=5, **opts) == res.objective


def test_float_and_exact_times_give_the_same_makespan():
    for inst, sc in CASES[::2]:  # integer times
        as_float = RigidInstance.build(inst.P, [(j.p, float(j.t)) for j in inst.jobs])
        for h in HEURISTICS:
            exact = simulate(inst, sc, h, "LA").objective
            approx = simulate(as_float, sc, h, "LA")
            validate_rigid_schedule(as_float, sc, approx.schedule)
            assert approx.objective == pytest.approx(exact, rel=1e-12)


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
    kept = simulate(inst, sc, "R-LIST-1", "HPA", persistent_reservations=True)
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
                == simulate(inst, q, "R-LIST-Q", "LPT", persistent_reservations=True).schedule)


# -- shelves -------------------------------------------------------------------------------------

def expected_shelf(inst: RigidInstance, queued_in_order: list[int], backfill: bool) -> list[int]:
    members, width = [], 0
    for j in queued_in_order:
        if width + inst.jobs[j].p <= inst.P:
            members.append(j)
            width += inst.jobs[j].p
        elif not backfill:
            break
    return members


@pytest.mark.parametrize("heuristic", ["R-SHELF-B", "R-SHELF-NB", "R-SHELFFILL-B",
                                       "R-SHELFFILL-NB"])
@pytest.mark.parametrize("priority", [p for p in PRIORITIES if p != "Random"])
def test_shelf_invariants(heuristic, priority):
    fill = "FILL" in heuristic
    backfill = heuristic.endswith("-B")
    for inst, sc in CASES:
        res = simulate(inst, sc, heuristic, priority)
        sched = res.schedule
        validate_rigid_schedule(inst, sc, sched)
        shelves = res.extra["shelves"]
        order = static_order(inst, priority)
        assert shelves[0]["start"] == 0
        assert shelves[-1]["end"] == sched.makespan
        for a, b in zip(shelves, shelves[1:], strict=False):
            assert b["start"] == a["end"]  # next shelf starts exactly at T_i
        by_job = {j: sched.attempts_of(j) for j in range(inst.n)}
        for sh in shelves:
            s, T, members = sh["start"], sh["end"], sh["jobs"]
            assert sum(inst.jobs[j].p for j in members) <= inst.P
            assert T == s + max(inst.jobs[j].t for j in members)
            # queue at the shelf boundary = unfinished jobs, in priority order
            finished = {a.job for a in sched.attempts if not a.failed and a.end <= s}
            queued = [j for j in order if j not in finished]
            assert members == expected_shelf(inst, queued, backfill)
            for j in members:  # all members start together
                assert any(a.start == s for a in by_job[j])
        for a in sched.attempts:
            sh = next(x for x in shelves if x["start"] <= a.start < x["end"])
            assert a.end <= sh["end"]
            if a.start == sh["start"]:
                assert a.job in sh["jobs"]
                continue
            # started inside a shelf: must be a refill of a member, right after its failure
            assert fill, f"{heuristic}: job {a.job} started inside a shelf at {a.start}"
            prev = by_job[a.job][a.k - 2]
            assert a.job in sh["jobs"] and prev.failed and prev.end == a.start
        if fill:  # every failure that can be refilled is refilled at once
            for a in sched.attempts:
                if not a.failed:
                    continue
                sh = next(x for x in shelves if x["start"] < a.end <= x["end"])
                nxt = by_job[a.job][a.k]
                if a.end + inst.jobs[a.job].t <= sh["end"]:
                    assert nxt.start == a.end


def test_shelffill_equals_shelf_without_failures():
    for inst, _ in CASES:
        ff = Scenario.failure_free(inst.n)
        for b in ("B", "NB"):
            for pr in ("LPT", "LA", "SPT"):
                assert (simulate(inst, ff, f"R-SHELF-{b}", pr).objective
                        == simulate(inst, ff, f"R-SHELFFILL-{b}", pr).objective)


@pytest.mark.parametrize("b", ["NB", "B"])
def test_failure_free_lpt_shelf_within_nfdh_bound(b):
    """R-SHELF-NB-LPT is NFDH: T <= t_max + 2A/P (spec 002 §6.5, [INFERRED]); the same argument
    holds for R-SHELF-B-LPT (each next shelf's first job did not fit beside the members scanned
    before it, all at least as tall)."""
    rng = np.random.default_rng(99)
    for _ in range(40):
        inst, _ = random_case(rng, fractions=True, n_max=12, P_max=10)
        ff = Scenario.failure_free(inst.n)
        res = simulate(inst, ff, f"R-SHELF-{b}", "LPT")
        validate_rigid_schedule(inst, ff, res.schedule)
        assert res.objective <= t_max(inst, ff) + 2 * Fraction(total_area(inst, ff), inst.P)


# -- closed-form cases -------------------------------------------------------------------------

def test_everything_runs_at_once_when_all_jobs_fit():
    """sum p_j <= P: every R-LIST variant achieves t_max(f) (each job's attempts back to back)."""
    rng = np.random.default_rng(5)
    for _ in range(10):
        n = int(rng.integers(1, 7))
        inst = RigidInstance.build(50, [(int(rng.integers(1, 8)), int(rng.integers(1, 9)))
                                        for _ in range(n)])
        sc = Scenario(tuple(int(x) for x in rng.integers(0, 4, size=n)))
        for h in ("R-LIST-0", "R-LIST-1", "R-LIST-Q", "R-SHELFFILL-NB"):
            res = simulate(inst, sc, h, "SPT")
            validate_rigid_schedule(inst, sc, res.schedule)
            if h.startswith("R-LIST"):
                assert res.objective == t_max(inst, sc)


def test_full_width_jobs_run_one_after_another():
    """p_j = P for all j: every heuristic's makespan is sum_j (f_j+1) t_j = A(f)/P."""
    rng = np.random.default_rng(8)
    for _ in range(8):
        n = int(rng.integers(1, 6))
        inst = RigidInstance.build(3, [(3, Fraction(int(rng.integers(1, 9)), 2))
                                       for _ in range(n)])
        sc = Scenario(tuple(int(x) for x in rng.integers(0, 3, size=n)))
        for h in HEURISTICS:
            res = simulate(inst, sc, h, "Random", seed=1)
            validate_rigid_schedule(inst, sc, res.schedule)
            assert res.objective == Fraction(total_area(inst, sc), 3)


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


# -- errors ----------------------------------------------------------------------------------------

def test_unknown_names_and_options_raise():
    inst, sc = CASES[0]
    with pytest.raises(InvalidInstance, match="heuristic.*choose from"):
        simulate(inst, sc, "R-LIST-2")
    with pytest.raises(InvalidInstance, match="priority.*choose from"):
        simulate(inst, sc, "R-LIST-0", "HPF")
    with pytest.raises(InvalidInstance, match="options"):
        simulate(inst, sc, "R-LIST-0", "LPT", classic_easy=True)
    with pytest.raises(InvalidInstance, match="failures"):
        simulate(inst, Scenario((0,) * (inst.n + 1)), "R-LIST-0")
    with pytest.raises(InvalidInstance, match="failures"):
        makespan(inst, [0] * (inst.n + 1), "R-LIST-1", "LPT")
    assert simulate(inst, sc, "r-list-0", "lpt").heuristic == "R-LIST-0"


# -- engine reuse (moldable-style policy) --------------------------------------------------------

class _MoreProcessorsOnRetry:
    """Toy moldable policy: attempt k of job j runs on min(k, P) processors, t_j(p) = w_j / p."""

    def __init__(self, n: int, P: int):
        self.queue = list(range(n))
        self.P = P
        self.k = [1] * n

    def on_completions(self, t, completed, state):
        for j, failed in completed:
            if failed:
                self.k[j] += 1
                self.queue.append(j)

    def decide(self, t, state):
        out, free = [], state.free
        for j in list(self.queue):
            p = min(self.k[j], self.P)
            if p <= free:
                out.append((j, p))
                free -= p
                self.queue.remove(j)
        return out


def test_engine_supports_a_new_allocation_per_attempt():
    w = [Fraction(6), Fraction(4), Fraction(3)]
    f = (2, 1, 0)
    P = 3
    res = run_engine(P, f, lambda j, p: w[j] / p, _MoreProcessorsOnRetry(3, P))
    sched = Schedule(res.attempts, res.makespan)
    validate_attempts(sched, P, f, duration=lambda j, p: w[j] / p,
                      allowed_p=lambda j, p: 1 <= p <= P)
    assert [a.p for a in sched.attempts_of(0)] == [1, 2, 3]
    assert res.attempt_count == sum(f) + 3


class _Greedy:
    def __init__(self, n, p):
        self.n, self.p = n, p
        self.queue = list(range(n))

    def on_completions(self, t, completed, state):
        self.queue += [j for j, failed in completed if failed]

    def decide(self, t, state):
        out = [(j, self.p) for j in self.queue]
        self.queue = []
        return out


def test_engine_rejects_bad_policies():
    with pytest.raises(InvalidSchedule, match="free processors"):
        run_engine(2, (0, 0, 0), lambda j, p: 1, _Greedy(3, 1))  # third job over-subscribes

    class Lazy(_Greedy):
        def decide(self, t, state):
            return []

    with pytest.raises(InvalidSchedule, match="deadlock"):
        run_engine(2, (0,), lambda j, p: 1, Lazy(1, 1))


def test_engine_batches_simultaneous_completions():
    """A1: both completions at t = 2 are seen before the one pass at t = 2."""
    seen = []

    class Spy(_Greedy):
        def on_completions(self, t, completed, state):
            seen.append((t, completed))
            super().on_completions(t, completed, state)

    run_engine(2, (0, 1), lambda j, p: 2, Spy(2, 1))
    assert seen == [(2, [(0, False), (1, True)]), (4, [(1, False)])]


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


# -- guarantees against L(f) (the proofs only use L(f) <= OPT) ----------------------------------

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cases(), st.sampled_from(PRIORITIES), st.integers(0, 3))
def test_greedy_within_2_minus_1_over_P_of_L(case, priority, seed):
    """P T_G <= (2P - 1) L(f): Prop. 2's proof (spec 002 §6.2) bounds T_G using only
    A(f) <= P OPT and T_1 <= t_max(f) <= OPT, so it holds with L(f) in place of OPT."""
    inst, sc = case
    res = simulate(inst, sc, "R-LIST-0", priority, seed=seed)
    validate_rigid_schedule(inst, sc, res.schedule)
    assert inst.P * res.objective <= (2 * inst.P - 1) * lower_bound(inst, sc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_cases(), st.sampled_from(["R-LIST-1", "R-LIST-Q"]),
       st.sampled_from(["LJF", "HPA"]), st.sampled_from(RESERVATION_OPTIONS),
       st.sampled_from(["LPT", "SPT", "Random"]), st.integers(0, 3))
def test_reservation_ljf_within_3_minus_4_over_P_plus_1_of_L(case, heuristic, priority,
                                                              options, secondary, seed):
    """(P + 1) T_R <= (3P - 1) L(f) for RESERVATION with LJF (or HPA, a special case of LJF):
    Prop. 1's proof (spec 002 §6.1) uses only A(f) <= P OPT and T_1 <= OPT."""
    inst, sc = case
    extra = {"ljf_secondary": secondary} if priority == "LJF" else {}
    res = simulate(inst, sc, heuristic, priority, seed=seed, **options, **extra)
    validate_rigid_schedule(inst, sc, res.schedule)
    assert (inst.P + 1) * res.objective <= (3 * inst.P - 1) * lower_bound(inst, sc)


def test_fast_path_equals_simulate_on_a_paper_size_set():
    """n = 100, p ~ U{50..2000}, t ~ U[100, 20000], P = 10000, q-bar = 0.3 (spec 002 §8.2)."""
    rng = np.random.default_rng(77)
    p = rng.integers(50, 2000, size=100, endpoint=True)
    t = rng.uniform(100, 20000, size=100)
    inst = RigidInstance.build(10000, [(int(a), float(b)) for a, b in zip(p, t, strict=True)])
    q = inst.q(0.3)
    for row in rng.geometric(1 - q, size=(2, 100)) - 1:
        sc = Scenario(tuple(int(x) for x in row))
        L = lower_bound(inst, sc)
        for h in HEURISTICS:
            for pr in ("LPT", "LA"):
                res = simulate(inst, sc, h, pr)
                validate_rigid_schedule(inst, sc, res.schedule)
                assert res.objective >= L * (1 - 1e-12)
                assert makespan(inst, row, h, pr) == res.objective
