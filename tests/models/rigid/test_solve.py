"""Exact CP-SAT models of the rigid family vs an independent brute force (spec 002 §11.2, §11.5).

Covers: failure-free and per-scenario optima = enumeration on many tiny random instances, the
strengthened model = the plain model = brute force, the split-vs-merged counterexample,
Propositions 3 and 4, the isolated-job reduction, scaling of rational and float times, honest
statuses under a time limit, and the validity of every returned schedule.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import (
    chain_area_bound,
    clique_chain_bound,
    compress_starts,
    configuration_lp_bound,
    conflict_cliques,
    dff_energy_bound,
    isolated_jobs,
    knapsack_max,
    lower_bound_scaled,
    minimal_forbidden_sets,
    place_isolated,
    scale_scenario,
    solve_failure_free,
    solve_scenario,
    solve_scenario_merged,
    split_isolated,
)
from resilsched.solution import Status
from resilsched.validation import validate_rigid_schedule
from tests.support.rigid import oracle
from tests.support.rigid.cases import random_tiny, schedule_from_payload


# --- oracle sanity -----------------------------------------------------------------------------
def test_oracle_on_hand_solved_instances():
    assert oracle.brute_force_makespan(2, [(1, 1), (1, 2), (1, 2)], [1, 0, 0])[0] == 3
    assert oracle.brute_force_makespan(2, [(1, 1), (2, 1), (1, 3)])[0] == 4
    assert oracle.brute_force_makespan(3, [(2, 2), (2, 2), (1, 4)])[0] == 4
    assert oracle.brute_force_makespan(1, [(1, 2), (1, 3)], [1, 0])[0] == 7


# --- CP-SAT = brute force ----------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_scenario_optimum_matches_brute_force(seed):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(12):
        inst, sc = random_tiny(rng)
        expected, _ = oracle.brute_force_makespan(
            inst.P, [(j.p, j.t) for j in inst.jobs], sc.failures
        )
        for strengthen, size in ((True, 3), (False, 0), (True, 4)):
            sol = solve_scenario(inst, sc, time_limit=20, workers=1, strengthen=strengthen,
                                 forbidden_set_size=size)
            assert sol.status is Status.OPTIMAL
            assert sol.objective == expected == sol.bound, (inst, sc, strengthen)
            sched = schedule_from_payload(sol)
            validate_rigid_schedule(inst, sc, sched)
            assert sched.makespan == expected


@pytest.mark.parametrize("seed", range(2))
def test_failure_free_optimum_matches_brute_force(seed):
    rng = np.random.default_rng(2000 + seed)
    for _ in range(15):
        inst, _ = random_tiny(rng)
        expected, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs])
        sol = solve_failure_free(inst, time_limit=20, workers=1)
        assert sol.status is Status.OPTIMAL and sol.objective == expected
        validate_rigid_schedule(inst, Scenario.failure_free(inst.n), schedule_from_payload(sol))


def test_strengthened_lower_bounds_never_exceed_brute_force():
    """The constant bounds fed to the model (L(f), cliques, DFF energy) are <= T_OPT(f)."""
    rng = np.random.default_rng(3000)
    for _ in range(60):
        inst, sc = random_tiny(rng, max_attempts=7)
        opt, _ = oracle.brute_force_makespan(inst.P, [(j.p, j.t) for j in inst.jobs], sc.failures)
        data = scale_scenario(inst, sc)
        assert lower_bound_scaled(data, strengthen=True) <= opt
        assert dff_energy_bound(data) <= opt
        assert configuration_lp_bound(data) <= opt


def test_configuration_lp_bound_dominates_chains_and_area():
    """The configuration LP contains L(f) and every clique chain (a feasible set holds at most one
    job of a conflict clique), and it is tight on a hand-solved case."""
    rng = np.random.default_rng(3100)
    for _ in range(40):
        inst, sc = random_tiny(rng, max_attempts=9)
        data = scale_scenario(inst, sc)
        cfg = configuration_lp_bound(data)
        assert cfg >= chain_area_bound(data)
        assert cfg >= clique_chain_bound(data)
    # Strictly better than L(f), cliques and DFF (failure-model benchmark case 7): P = 27, a chain
    # (10, 69) x 8 = 552, beside it (8, 78) x 6 and (16, 59) x 2, which do not fit together next
    # to it, and four jobs wider than 17 that never run beside it. The old bound is that chain
    # plus the four wide jobs; the LP also charges the competition for the spare 17 processors.
    inst = RigidInstance.build(27, [(10, 69), (8, 78), (16, 59), (23, 16), (24, 2), (27, 17),
                                    (27, 8)])
    data = scale_scenario(inst, Scenario((7, 5, 1, 3, 0, 0, 3)))
    old = max(chain_area_bound(data), clique_chain_bound(data), dff_energy_bound(data))
    assert old == 552 + 64 + 2 + 17 + 32
    assert configuration_lp_bound(data) > old


def test_knapsack_matches_enumeration():
    import itertools

    rng = np.random.default_rng(3200)
    for _ in range(50):
        n, cap = int(rng.integers(1, 8)), int(rng.integers(1, 20))
        w = [int(x) for x in rng.integers(1, 12, size=n)]
        v = [int(x) for x in rng.integers(0, 50, size=n)]
        best = max(sum(v[j] for j in K) for r in range(n + 1)
                   for K in itertools.combinations(range(n), r) if sum(w[j] for j in K) <= cap)
        value, chosen = knapsack_max(w, v, cap)
        assert value == best
        assert sum(w[j] for j in chosen) <= cap and sum(v[j] for j in chosen) == best


def test_identical_jobs_symmetry_breaking_is_harmless():
    """Many jobs with equal (p, t) and different f: the column ordering loses no optimum."""
    rng = np.random.default_rng(4000)
    for _ in range(12):
        P = int(rng.integers(2, 6))
        p, t = int(rng.integers(1, P + 1)), int(rng.integers(1, 4))
        jobs = [(p, t)] * 3 + [(int(rng.integers(1, P + 1)), int(rng.integers(1, 5)))]
        f = [int(rng.integers(0, 3)) for _ in jobs]
        while sum(f) + len(f) > 8:  # keep the brute force fast
            f[int(np.argmax(f))] -= 1
        inst, sc = RigidInstance.build(P, jobs), Scenario(tuple(f))
        expected, _ = oracle.brute_force_makespan(P, jobs, f)
        sol = solve_scenario(inst, sc, time_limit=20, workers=1)
        assert sol.is_optimal and sol.objective == expected
        validate_rigid_schedule(inst, sc, schedule_from_payload(sol))


def test_conflict_cliques_are_pairwise_conflicting_and_maximal():
    rng = np.random.default_rng(5000)
    for _ in range(50):
        P = int(rng.integers(1, 20))
        p = [int(rng.integers(1, P + 1)) for _ in range(int(rng.integers(1, 9)))]
        cliques = conflict_cliques(p, P)
        for c in cliques:
            assert all(p[a] + p[b] > P for a in c for b in c if a < b)
            outside = [k for k in range(len(p)) if k not in c]
            assert not any(all(p[k] + p[a] > P for a in c) for k in outside)


def test_minimal_forbidden_sets_are_minimal_and_complete():
    rng = np.random.default_rng(6000)
    for _ in range(40):
        P = int(rng.integers(1, 12))
        p = [int(rng.integers(1, P + 1)) for _ in range(int(rng.integers(1, 8)))]
        found = set(minimal_forbidden_sets(p, P, 3))
        for size in (2, 3):
            for S in itertools.combinations(range(len(p)), size):
                w = [p[j] for j in S]
                assert (S in found) == (sum(w) > P and sum(w) - min(w) <= P)


# --- paper and [OURS] instances ---------------------------------------------------------------
def test_split_vs_merged_counterexample():
    inst = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)])
    sc = Scenario((1, 0, 0))
    split = solve_scenario(inst, sc, time_limit=10, workers=1)
    merged = solve_scenario_merged(inst, sc, time_limit=10, workers=1)
    assert split.status is Status.OPTIMAL and split.objective == 3
    assert merged.objective == 4 and merged.status is Status.FEASIBLE  # an upper bound only
    validate_rigid_schedule(inst, sc, schedule_from_payload(split))
    validate_rigid_schedule(inst, sc, schedule_from_payload(merged))


@pytest.mark.parametrize("P", [2, 3, 4, 5])
def test_prop3_optimum_is_one_with_lcm_scale(P):
    inst = RigidInstance.build(P, [(1, Fraction(1, j)) for j in range(1, P + 1)])
    sc = Scenario(tuple(range(P)))
    sol = solve_scenario(inst, sc, time_limit=20, workers=1)
    assert sol.status is Status.OPTIMAL and sol.objective == 1 and sol.bound == 1
    assert sol.scale == np.lcm.reduce(np.arange(1, P + 1)) and sol.exact_scaling
    validate_rigid_schedule(inst, sc, schedule_from_payload(sol))


def test_prop4_optimum_below_certificate_p3():
    eps = Fraction(1, 100)
    P = 3
    jobs, fails = [], []
    for i in range(1, P + 1):
        jobs.append((1, Fraction(1, P ** (i - 1))))
        fails.append(P ** (i - 1) - 1)
        for _ in range((P - 1) * P ** (i - 1)):
            jobs.append((1, (1 + eps) / P**i))
            fails.append(0)
    inst, sc = RigidInstance.build(P, jobs), Scenario(tuple(fails))
    assert inst.n == 29 and sc.attempts == 39
    sol = solve_scenario(inst, sc, time_limit=30, workers=2)
    certificate = 1 + (1 + eps) * Fraction(P - 1, P)
    assert certificate == Fraction(251, 150)
    assert sol.objective is not None and sol.objective <= certificate
    assert sol.bound <= sol.objective
    validate_rigid_schedule(inst, sc, schedule_from_payload(sol))


def test_prop4_generator_when_available():
    adversarial = pytest.importorskip("resilsched.instances.rigid.adversarial")
    inst, sc, cert = adversarial.prop4_instance(3, Fraction(1, 100))
    sol = solve_scenario(inst, sc, time_limit=30, workers=2)
    assert sol.objective <= cert.makespan == Fraction(251, 150)


# --- scaling, statuses, errors -----------------------------------------------------------------
def test_exact_float_times_are_scaled_exactly():
    inst = RigidInstance.build(2, [(1, 0.5), (1, 1.25), (2, 0.25)])
    sol = solve_scenario(inst, Scenario((1, 0, 0)), time_limit=10, workers=1)
    assert sol.exact_scaling and sol.scale == 4 and sol.is_optimal
    # by hand: wide job [0, 0.25]; then 0.5+0.5 on one processor, 1.25 on the other -> 1.5
    assert sol.objective == Fraction(3, 2)


def test_inexact_float_times_are_flagged_and_never_optimal():
    inst = RigidInstance.build(2, [(1, 1 / 3), (1, 2 / 7), (2, 0.1 + 0.2)])
    sc = Scenario((1, 0, 0))
    sol = solve_scenario(inst, sc, time_limit=10, workers=1)
    assert not sol.exact_scaling and sol.status is Status.FEASIBLE and sol.scale == 10**6
    sched = schedule_from_payload(sol)
    validate_rigid_schedule(inst, sc, sched)  # rounding up keeps the real schedule feasible
    assert sol.objective == pytest.approx(sched.makespan)
    assert sol.bound <= sol.objective
    # the exact optimum is 2 * 1/3 + 0.3 = 29/30 (the wide job runs alone); rounding up on the
    # 1e-6 grid loses at most 1e-6 per attempt on the critical path
    assert 29 / 30 <= sol.objective <= 29 / 30 + 3e-6


def test_time_limit_is_never_reported_optimal():
    rng = np.random.default_rng(7)
    P = 40
    jobs = [(int(rng.integers(1, P + 1)), int(rng.integers(1, 101))) for _ in range(25)]
    f = [int(rng.integers(0, 4)) for _ in jobs]
    inst, sc = RigidInstance.build(P, jobs), Scenario(tuple(f))
    sol = solve_scenario(inst, sc, time_limit=0.01, workers=1)  # the shortest limit
    assert sol.status in (Status.FEASIBLE, Status.NO_SOLUTION)
    if sol.status is Status.FEASIBLE:
        assert sol.bound <= sol.objective


def test_wrong_scenario_length_is_rejected():
    """At the boundary: the family's scenario hook, or a list given to the model from Python
    (a `Scenario` object is trusted, as checked by that hook)."""
    from resilsched.families.rigid import FAMILY

    inst = RigidInstance.build(2, [(1, 1), (1, 2)])
    with pytest.raises(InvalidInstance):
        FAMILY.scenario(inst, Scenario((0, 0, 1)))
    with pytest.raises(InvalidInstance):
        solve_scenario(inst, [0])


def test_hint_is_used_as_horizon():
    inst = RigidInstance.build(2, [(1, 1), (1, 2), (1, 2)])
    sc = Scenario((1, 0, 0))
    hint = [[0, 2], [0], [1]]  # the optimal schedule of the spec
    sol = solve_scenario(inst, sc, time_limit=10, workers=1, hint=hint)
    assert sol.objective == 3 and sol.payload.info["horizon_scaled"] == 3


# --- the isolated-job reduction (decision R6) ---------------------------------------------------
def test_isolated_jobs_match_their_definition():
    rng = np.random.default_rng(4000)
    for _ in range(300):
        P = int(rng.integers(1, 30))
        p = [int(x) for x in rng.integers(1, P + 1, size=int(rng.integers(0, 7)))]
        expected = [j for j in range(len(p))
                    if len(p) > 1 and all(p[j] + p[k] > P for k in range(len(p)) if k != j)]
        assert isolated_jobs(p, P) == expected


def test_reduction_matches_brute_force_on_cases_with_isolated_jobs():
    """Tiny cases with at least one isolated job and one other job: the reduced model's optimum
    (isolated attempts first) equals the enumeration, and its schedule is valid."""
    rng = np.random.default_rng(4100)
    seen = 0
    while seen < 15:
        inst, sc = random_tiny(rng)
        iso = isolated_jobs(list(inst.p), inst.P)
        if not iso or len(iso) == inst.n:
            continue
        seen += 1
        expected, _ = oracle.brute_force_makespan(
            inst.P, [(j.p, j.t) for j in inst.jobs], sc.failures
        )
        sol = solve_scenario(inst, sc, time_limit=20, workers=1)
        assert sol.payload.info["isolated_jobs"] == iso
        assert sol.status is Status.OPTIMAL and sol.objective == expected == sol.bound
        validate_rigid_schedule(inst, sc, schedule_from_payload(sol))


def test_all_isolated_jobs_need_no_search():
    inst = RigidInstance.build(4, [(3, 2), (4, 1), (2, 5)])  # 3+2 > 4: every pair conflicts
    sc = Scenario((1, 0, 2))
    sol = solve_scenario(inst, sc, time_limit=5, workers=1)
    assert sol.status is Status.OPTIMAL and sol.objective == 2 * 2 + 1 + 3 * 5 == sol.bound
    validate_rigid_schedule(inst, sc, schedule_from_payload(sol))


def test_compressed_hint_stays_feasible():
    """A hint with isolated attempts in the middle: cut out, then placed first again."""
    inst = RigidInstance.build(4, [(4, 2), (1, 3), (1, 1)])  # job 0 is isolated
    sc = Scenario((1, 0, 0))
    data = scale_scenario(inst, sc)
    hint = [[3, 5], [0], [0]]  # job 0 runs in [3, 5) and [5, 7) after the others
    rest, kept = split_isolated(data, [0])
    assert kept == [1, 2] and rest.p == (1, 1)
    short = compress_starts(data, hint, [0])
    assert short == [[0], [0]]
    full = place_isolated(data, [0], kept, short)
    assert full == [[0, 2], [4], [4]]
    sol = solve_scenario(inst, sc, time_limit=5, workers=1, hint=hint)
    assert sol.status is Status.OPTIMAL and sol.objective == 7
