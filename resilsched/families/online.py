"""Registration of the online family (issue 26): the expected makespan of online policies of
rigid jobs.

The problem of spec 002 §1.4-§1.5 in expectation: rigid jobs whose attempts fail with
probability q_j (`resilsched.instances.rigid.online`), scheduled online (a failure is known
when its attempt ends); minimise E[makespan] over the policies. An instance holds its failure
model, not a scenario.

- heuristics: the rigid heuristics with their default options, each as the policy it is
  (`resilsched.models.online.heuristics`); the objective is its exact expected makespan and the
  solution its decision table, checked by `resilsched.validation.online`;
- exact model ``online-optimal``: the optimal online policy (`resilsched.models.online`), the
  gap reference, so a gap is a heuristic's distance to the best online policy;
- bounds: ``E-clairvoyant``, the clairvoyant optimum averaged over the scenarios (the low end
  of its enumerated interval): its ratio to the reference is one minus the value of
  clairvoyance, what no online policy can avoid; ``E-L``, the Jensen bound.

The ratio guarantees of the rigid heuristics hold scenario by scenario against T_OPT(f), hence
E[T_H] <= c E[T_OPT(f)] <= c E[T_online-OPT]: they are checked here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resilsched.bounds.rigid import greedy_ratio, reservation_ljf_ratio
from resilsched.errors import InvalidInstance
from resilsched.heuristics.rigid import PRIORITIES
from resilsched.heuristics.rigid.priorities import check_priority
from resilsched.instances.rigid.online import PRESETS, OnlineRigidInstance
from resilsched.models.online.expectation import clairvoyant_expectation
from resilsched.models.online.heuristics import rigid_policy
from resilsched.models.online.policy import MAX_NODES, policy_table
from resilsched.models.online.problem import rigid_problem
from resilsched.models.online.solve import (
    REFUSE_FACTOR,
    OnlineOptions,
    check_rigid,
    check_size,
    jensen_bound,
    solve_rigid,
)
from resilsched.plugin import Bound, Case, ExactModel, Family, Generator, Heuristic
from resilsched.solution import HeuristicResult

#: the most scenarios `E-clairvoyant` enumerates (each one a clairvoyant solve)
CLAIRVOYANT_SCENARIOS = 300


def _smoke_suite() -> list[Case]:
    _, make = PRESETS["smoke"]
    return [Case(inst.name, inst, None) for inst in make(0, None)]


def _no_scenario(scenario: Any) -> None:
    if scenario is not None and any(getattr(scenario, "failures", ())):
        raise InvalidInstance("failures", "an online instance is scored in expectation "
                              "over its failure model, not on one scenario")


def _policy_heuristic(name: str) -> Callable[..., HeuristicResult]:
    def run(instance: OnlineRigidInstance, scenario: Any = None, priority: str | None = None,
            *, seed: int = 0) -> HeuristicResult:
        _no_scenario(scenario)
        problem = rigid_problem(instance.rigid, instance.q)
        check_size(problem, REFUSE_FACTOR * MAX_NODES, "a heuristic's policy is evaluated "
                   "exactly on small instances")
        policy = rigid_policy(problem, name, priority, seed)
        table = policy_table(policy)
        return HeuristicResult(objective=table.value, heuristic=name,
                               priority=check_priority(priority or "LPT"), schedule=table,
                               extra={"states": len(table.table)})
    run.__name__ = name.lower().replace("-", "_")
    run.__doc__ = (f"{name} as an online policy: its exact expected makespan and decision "
                   "table (issue 26).")
    return run


def _validate(case: Case, result: HeuristicResult) -> None:
    from resilsched.validation.online import validate_policy

    inst = case.instance
    table = result.schedule
    validate_policy(inst.P, [[(job.p, job.t)] for job in inst.jobs], inst.q, table.rows(),
                    result.objective, table.memory)


def _greedy_guarantee(instance: OnlineRigidInstance, priority: str | None):
    """Proposition 2 scenario by scenario, hence in expectation."""
    return greedy_ratio(instance.P)


def _reservation_guarantee(instance: OnlineRigidInstance, priority: str | None):
    """Proposition 1 (LJF, HPA) scenario by scenario, hence in expectation."""
    return reservation_ljf_ratio(instance.P) if priority in ("LJF", "HPA") else None


def clairvoyant_bound(instance: OnlineRigidInstance, scenario: Any = None):
    """E[T_OPT(f)], the clairvoyant optimum averaged over the scenarios: the low end of its
    enumerated interval (at most `CLAIRVOYANT_SCENARIOS` scenarios, each solved by
    ``cpsat-scenario``; `resilsched.models.online.expectation`), <= E[T_online-OPT]."""
    _no_scenario(scenario)
    return clairvoyant_expectation(instance.rigid, instance.q,
                                   max_scenarios=CLAIRVOYANT_SCENARIOS, time_limit=2.0).low


def expected_l_bound(instance: OnlineRigidInstance, scenario: Any = None):
    """max(max_j t_j / (1 - q_j), sum_j a_j / (1 - q_j) / P) <= E[L(f)] <= E[T_OPT(f)]."""
    _no_scenario(scenario)
    return jensen_bound(rigid_problem(instance.rigid, instance.q))


def _build() -> Family:
    fam = Family(
        name="online",
        spec="002",
        sense="min",
        objective_name="expected makespan",
        objective_unit="s",
        from_dict=OnlineRigidInstance.from_dict,
        smoke_suite=_smoke_suite,
        default_exact="online-optimal",
        validate=_validate,
    )
    described = {
        "R-LIST-0": ("greedy list scheduling (m = 0)", _greedy_guarantee),
        "R-LIST-1": ("one reservation, fresh at each event (m = 1)", _reservation_guarantee),
        "R-LIST-Q": ("a reservation for every queued job, fresh (m = |Q|)",
                     _reservation_guarantee),
        "R-SHELF-B": ("shelves with backfilling (b = 1)", None),
        "R-SHELF-NB": ("shelves without backfilling (b = 0)", None),
        "R-SHELFFILL-B": ("shelves refilled with failed jobs (b = 1)", None),
        "R-SHELFFILL-NB": ("shelves refilled with failed jobs (b = 0)", None),
    }
    for name, (what, guarantee) in described.items():
        fam.add(Heuristic(name, _policy_heuristic(name),
                          f"{what} as an online policy: exact expected makespan",
                          priorities=PRIORITIES, default_priority="LPT", guarantee=guarantee))
    fam.add(ExactModel("online-optimal", solve_rigid, "the optimal online policy: exact "
                       "E[T_online-OPT] and its decision table (issue 26)",
                       options=OnlineOptions,
                       check=check_rigid))
    fam.add(Bound("E-clairvoyant", clairvoyant_bound, "E[T_OPT(f)], the clairvoyant optimum "
                  "averaged over the scenarios (enumerated, low end): bound/reference = 1 - "
                  "the value of clairvoyance"))
    fam.add(Bound("E-L", expected_l_bound, "max(max t_j/(1-q_j), sum a_j/(1-q_j)/P), "
                  "the Jensen bound of E[L(f)] (spec 002 §1.3)"))
    for name, (description, make) in PRESETS.items():
        fam.add(Generator(name, make, description))
    return fam


FAMILY = _build()
