"""R-SHELF and R-SHELFFILL (spec 002 §5): shelf invariants read from the attempt log, the NFDH
bound, and closed-form cases every heuristic must get right.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from resilsched.bounds.rigid import t_max, total_area
from resilsched.heuristics.rigid import PRIORITIES
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid.heuristic_cases import (
    CASES,
    HEURISTICS,
    random_case,
    simulate,
    static_order,
)

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
