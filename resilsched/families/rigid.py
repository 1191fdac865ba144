"""Registration of the rigid-job family (spec 002): heuristics, models, bounds, presets."""

from __future__ import annotations

from typing import Any

from resilsched.instances.failures import Scenario, sample_scenarios
from resilsched.instances.rigid import RigidInstance
from resilsched.plugin import (
    Bound,
    Case,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.reproduce import rigid as reproduction
from resilsched.solution import HeuristicResult


def _smoke_suite() -> list[Case]:
    from resilsched.instances.rigid.presets import PRESETS

    _, make = PRESETS["smoke"]
    return [
        Case(inst.name or f"smoke-{i}", inst, inst.scenario())
        for i, inst in enumerate(make(0, None))
    ]


def _scenario(instance: RigidInstance, failures: Any) -> Scenario:
    return instance.scenario(failures)


def _sample(instance: RigidInstance, qbar: float, seed: int) -> Scenario:
    return sample_scenarios(instance.q(qbar), 1, seed)[0]


def _validate(case: Case, result: HeuristicResult) -> None:
    from resilsched.validation import validate_rigid_schedule

    validate_rigid_schedule(case.instance, case.scenario, result.schedule)


def _heuristic(name: str, description: str) -> Heuristic:
    from resilsched.bounds import rigid as bounds

    def run(
        instance: RigidInstance, scenario: Scenario | None = None, priority: str | None = None,
        *, seed: int = 0, **params,
    ) -> HeuristicResult:
        from resilsched.heuristics.rigid import simulate

        return simulate(instance, scenario or instance.scenario(), name, priority or "LPT",
                        seed=seed, **params)

    def guarantee(instance: RigidInstance, priority: str | None):
        # Proposition 2: GREEDY with any priority; Proposition 1: RESERVATION with LJF (HPA is
        # an LJF order, spec 002 §3).
        if name == "R-LIST-0":
            return bounds.greedy_ratio(instance.P)
        if name in ("R-LIST-1", "R-LIST-Q") and priority in ("LJF", "HPA"):
            return bounds.reservation_ljf_ratio(instance.P)
        return None

    from resilsched.heuristics.rigid import PRIORITIES

    return Heuristic(
        name,
        run,
        description,
        priorities=tuple(PRIORITIES),
        default_priority="LPT",
        guarantee=guarantee,
        params=(),
    )


def _exact(name: str, function: str, description: str, uses_scenario: bool = True) -> ExactModel:
    def solve(instance: RigidInstance, scenario: Scenario | None = None, *,
              time_limit: float | None = None, **options):
        from resilsched.models import rigid as models

        fn = getattr(models, function)
        if uses_scenario:
            return fn(instance, scenario or instance.scenario(), time_limit=time_limit)
        return fn(instance, time_limit=time_limit)

    return ExactModel(name, solve, description)


def _presets() -> list[Generator]:
    from resilsched.instances.rigid.presets import PRESETS

    return [Generator(name, make, description) for name, (description, make) in PRESETS.items()]


def _read_swf(path, **options) -> list[RigidInstance]:
    from resilsched.instances.rigid.swf import read_swf

    return read_swf(path, **options)


def _build() -> Family:
    from resilsched.bounds import rigid as bounds

    fam = Family(
        name="rigid",
        spec="002",
        sense="min",
        objective_name="makespan",
        objective_unit="s",
        from_dict=RigidInstance.from_dict,
        smoke_suite=_smoke_suite,
        default_exact="cpsat-scenario",
        readers={".swf": _read_swf},
        scenario=_scenario,
        sample_scenario=_sample,
        validate=_validate,
        reproduction=Reproduction(
            reproduction.main,
            "spec 002: Figs. 4-6 and Table 1 (CSV, PNG, summary.md in results/rigid/)",
        ),
    )
    for name, description in [
        (
            "R-LIST-0",
            "greedy list scheduling with backfilling, no reservation (Algorithm 1, m = 0)",
        ),
        (
            "R-LIST-1",
            "list scheduling with one reservation, EASY-like backfilling (Algorithm 1, m = 1)",
        ),
        (
            "R-LIST-Q",
            "list scheduling with a reservation for every queued job, conservative (m = |Q|)",
        ),
        ("R-SHELF-B", "shelves with backfilling, first-fit (Algorithm 2, b = 1)"),
        ("R-SHELF-NB", "shelves without backfilling, next-fit (Algorithm 2, b = 0)"),
        ("R-SHELFFILL-B", "shelves with in-shelf re-execution of failed jobs, b = 1 (Algorithm 3)"),
        (
            "R-SHELFFILL-NB",
            "shelves with in-shelf re-execution of failed jobs, b = 0 (Algorithm 3)",
        ),
    ]:
        fam.add(_heuristic(name, description))
    fam.add(
        _exact(
            "cpsat-scenario",
            "solve_scenario",
            "CP-SAT clairvoyant optimum T_OPT(f): one interval per attempt (spec 002 §11.2)",
        )
    )
    fam.add(
        _exact(
            "cpsat-failure-free",
            "solve_failure_free",
            "CP-SAT failure-free optimum P|size_j|C_max (ignores the scenario)",
            uses_scenario=False,
        )
    )
    fam.add(
        _exact(
            "cpsat-merged",
            "solve_scenario_merged",
            "merged-job shortcut: an UPPER bound on T_OPT(f), not exact (spec 002 §11.2)",
        )
    )
    fam.add(
        Bound(
            "L",
            lambda inst, sc: bounds.lower_bound(inst, sc or inst.scenario()),
            "L(f) = max(t_max(f), A(f)/P), the paper's normaliser (spec 002 §7)",
        )
    )
    fam.add(
        Bound(
            "LB-big",
            lambda inst, sc: bounds.big_jobs_bound(inst, sc or inst.scenario()),
            "sum of (f_j+1) t_j over jobs with p_j > P/2 (non-paper, spec 002 §7)",
        )
    )
    for gen in _presets():
        fam.add(gen)
    return fam


FAMILY = _build()
