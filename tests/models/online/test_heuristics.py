"""The heuristics as online policies (issue 26): the same decisions as their own runs, exact
expected makespans inside the enumerated intervals of their runs, and never below the online
optimum; the clairvoyant expectation below the online optimum."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from resilsched.heuristics.moldable import PRIORITIES as MOLDABLE_PRIORITIES
from resilsched.heuristics.rigid import PRIORITIES
from resilsched.instances.failures import Scenario
from resilsched.instances.moldable import MoldableInstance
from resilsched.instances.moldable.speedup import Roofline, Table
from resilsched.instances.rigid import RigidInstance
from resilsched.models.online.expectation import (
    clairvoyant_expectation,
    failure_count_distribution,
    heuristic_expectation,
)
from resilsched.models.online.heuristics import (
    MOLDABLE_FIXED,
    RIGID,
    moldable_list_policy,
    rigid_policy,
)
from resilsched.models.online.policy import expected_makespan, replay
from resilsched.models.online.problem import rigid_problem
from resilsched.models.online.solve import solve_moldable, solve_rigid
from resilsched.registry import get_family

RIGID_FAMILY = get_family("rigid")
MOLDABLE_FAMILY = get_family("moldable")


def _random_instance(rng):
    n, P = int(rng.integers(2, 6)), int(rng.integers(2, 7))
    return RigidInstance.build(P, [(int(rng.integers(1, P + 1)), int(rng.integers(1, 6)))
                                   for _ in range(n)])


@pytest.mark.parametrize("heuristic", sorted(RIGID))
def test_rigid_policies_decide_as_the_heuristics_run(heuristic):
    """On random instances, priorities and scenarios, the policy's replay has the makespan of
    the heuristic's own run."""
    rng = np.random.default_rng(sum(map(ord, heuristic)))
    for trial in range(12):
        inst = _random_instance(rng)
        problem = rigid_problem(inst, [F(1, 5)] * inst.n)
        for prio in PRIORITIES:
            policy = rigid_policy(problem, heuristic, prio, seed=trial)
            for _ in range(3):
                f = tuple(int(x) for x in rng.integers(0, 3, inst.n))
                own = RIGID_FAMILY.heuristics[heuristic].run(inst, Scenario(f), prio,
                                                             seed=trial)
                assert replay(policy, f).makespan == own.objective, (inst, prio, f)


def test_exact_expectation_lies_in_the_enumerated_interval_of_the_runs():
    inst = RigidInstance.build(3, [(1, 2), (2, 3), (3, 1), (1, 1)])
    q = [F(1, 5), F(1, 4), F(1, 10), F(1, 3)]
    problem = rigid_problem(inst, q)
    for name, prio in (("R-LIST-0", "LPT"), ("R-LIST-1", "SPT"), ("R-SHELFFILL-NB", "HPA")):
        exact, _ = expected_makespan(rigid_policy(problem, name, prio))
        box = heuristic_expectation(RIGID_FAMILY, name, inst, q, prio, max_scenarios=400)
        assert box.method == "enumeration" and box.low <= exact <= box.high
        assert box.high - box.low < F(1, 100) * exact  # tight enough to be a check


INSTANCES = [
    RigidInstance.build(3, [(1, 2), (2, 3), (3, 1), (1, 1)]),
    RigidInstance.build(4, [(3, 2), (2, 2), (2, 1), (1, 3)]),
    RigidInstance.build(2, [(1, 1), (2, 2), (1, 3)]),
]


@pytest.mark.parametrize("index", range(len(INSTANCES)))
def test_every_heuristic_is_at_least_the_online_optimum(index):
    inst = INSTANCES[index]
    opt = solve_rigid(inst, qbar=0.3).objective
    problem = rigid_problem(inst, [F(float(x)) for x in inst.q(0.3)])
    values = {(h, p): expected_makespan(rigid_policy(problem, h, p))[0]
              for h in RIGID for p in PRIORITIES}
    assert min(values.values()) >= opt
    assert len(set(values.values())) > 1  # they differ: the check compares something


def test_a_history_dependent_heuristic_is_bounded_by_enumeration():
    """R-LIST-1 with fixed reservations (not a state function): its enumerated interval lies
    above the online optimum (its high end at least)."""
    inst = INSTANCES[1]
    q = [F(float(x)) for x in inst.q(0.2)]
    box = heuristic_expectation(RIGID_FAMILY, "R-LIST-1", inst, q, "HPA",
                                params={"reservations": "fixed"}, max_scenarios=300)
    assert box.high >= solve_rigid(inst, qbar=0.2).objective


def test_clairvoyance_is_worth_something_and_never_more_than_the_online_optimum():
    inst = INSTANCES[0]
    q = [F(float(x)) for x in inst.q(0.1)]
    clair = clairvoyant_expectation(inst, q, max_scenarios=400, time_limit=5.0)
    online = solve_rigid(inst, qbar=0.1).objective
    assert clair.low <= online
    assert clair.high < online  # here the clairvoyant optimum is strictly better
    failure_free = RIGID_FAMILY.exact["cpsat-scenario"].solve(
        inst, Scenario.failure_free(inst.n)).objective
    assert clair.low >= failure_free


def test_failure_count_distribution_sums_to_one_in_the_limit():
    q = [F(1, 3), F(1, 2)]
    dist = failure_count_distribution(q, 60)
    assert dist[0] == F(2, 3) * F(1, 2)
    assert 1 - sum(dist) < F(1, 10**15)


def _moldable():
    return MoldableInstance(4, (Table((6, 3, 3, 2)), Roofline(4, 2), Table((3, 2, 2, 2)),
                                Roofline(2, 1)), lam=0.05)


@pytest.mark.parametrize("heuristic", MOLDABLE_FIXED)
def test_moldable_list_policies_decide_as_the_heuristics_run(heuristic):
    inst = _moldable()
    q = [F(float(x)) for x in inst.q()]
    rng = np.random.default_rng(7)
    opt = solve_moldable(inst).objective
    for prio in MOLDABLE_PRIORITIES:
        policy = moldable_list_policy(inst, heuristic, prio, q)
        for _ in range(8):
            f = tuple(int(x) for x in rng.integers(0, 3, inst.n))
            own = MOLDABLE_FAMILY.heuristics[heuristic].run(inst, Scenario(f), prio)
            assert float(replay(policy, f).makespan) == pytest.approx(own.objective, rel=1e-9)
        assert expected_makespan(policy)[0] >= opt


def test_moldable_clairvoyant_and_heuristic_expectations_bracket_the_online_optimum():
    """Moldable: E[T_OPT(f)] (moldable cpsat-scenario per scenario) <= E[T_online-OPT] <=
    BATCH-LIST's enumerated interval (not a state function)."""
    inst = MoldableInstance(3, (Table((4, 2, 2)), Table((3, 2, 1)), Table((2, 2, 2))),
                            lam=0.05)
    q = [F(float(x)) for x in inst.q()]
    online = solve_moldable(inst)
    clair = clairvoyant_expectation(inst, q, max_scenarios=20, time_limit=5.0,
                                    policy=online.payload)
    assert clair.low <= online.objective and clair.high <= online.objective
    batch = heuristic_expectation(MOLDABLE_FAMILY, "BATCH-LIST", inst, q, "LPT",
                                  max_scenarios=20)
    assert batch.high >= online.objective and batch.low <= batch.high
