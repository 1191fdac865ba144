"""Registration of the rigid-job family (spec 002): heuristics, exact models, bounds, presets.

Every entry points at the function itself: the heuristics of `resilsched.heuristics.rigid`
(each with its batch engine, `resilsched.heuristics.rigid.many`, and its params class in
`resilsched.heuristics.rigid.params`), the models of `resilsched.models.rigid` (options
`RigidSolveOptions`), the bounds of `resilsched.bounds.rigid`, the presets of
`resilsched.instances.rigid.presets`, the SWF reader, and the reproduction
`resilsched.reproduce.rigid` (imported when it runs).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from resilsched.bounds.rigid import (
    big_jobs_bound,
    greedy_ratio,
    lower_bound,
    reservation_ljf_ratio,
)
from resilsched.heuristics.rigid import PRIORITIES, many
from resilsched.heuristics.rigid import params as P
from resilsched.instances.failures import Scenario, sample_scenarios
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.presets import PRESETS
from resilsched.instances.rigid.swf import read_swf
from resilsched.models.online.solve import OnlineOptions, check_rigid, solve_rigid
from resilsched.models.rigid import (
    RigidSolveOptions,
    solve_failure_free,
    solve_scenario,
    solve_scenario_merged,
)
from resilsched.plugin import (
    Bound,
    Case,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.schedule import makespan_of
from resilsched.solution import HeuristicResult


def _smoke_suite() -> list[Case]:
    _, make = PRESETS["smoke"]
    return [Case(inst.name or f"smoke-{i}", inst, inst.scenario())
            for i, inst in enumerate(make(0, None))]


def _scenario(instance: RigidInstance, failures: Any) -> Scenario:
    """The boundary check of a scenario (length, integers >= 0); None: the stored one."""
    return instance.scenario(failures)


def _sample(instance: RigidInstance, qbar: float, seed: int) -> Scenario:
    return sample_scenarios(instance.q(qbar), 1, seed)[0]


def _validate(case: Case, result: HeuristicResult) -> None:
    from resilsched.validation import validate_rigid_schedule

    validate_rigid_schedule(case.instance, case.scenario, result.schedule)


def _greedy_guarantee(instance: RigidInstance, priority: str | None) -> Fraction:
    """Proposition 2: GREEDY (R-LIST-0) is a (2 - 1/P)-approximation with any priority."""
    return greedy_ratio(instance.P)


def _reservation_guarantee(instance: RigidInstance, priority: str | None) -> Fraction | None:
    """Proposition 1: RESERVATION (R-LIST-1, R-LIST-Q) with LJF is a (3 - 4/(P+1))-approximation;
    HPA is an LJF order (spec 002 §3). Proven for the default fresh-round reservations (and
    persistent ones); the gap harness runs the default. With ``reservations="fixed"`` it does
    not hold for R-LIST-1 (docs/decisions.md R21)."""
    return reservation_ljf_ratio(instance.P) if priority in ("LJF", "HPA") else None


def _heuristic(name: str, batch: many.Batch, description: str, options: type,
               guarantee: Callable[[RigidInstance, str | None], Any] | None = None) -> Heuristic:
    """The entry of ``batch.run``, whose batch engine is `batch`."""
    # ``record=False`` is the fast path of experiments (the makespan only), not a parameter
    return Heuristic(name, batch.run, description, priorities=PRIORITIES, default_priority="LPT",
                     guarantee=guarantee, options=options, key_priorities=True,
                     fast_path={"record": False}, batch=batch)


def _build() -> Family:
    fam = Family(
        name="rigid",
        spec="002",
        sense="min",
        objective_name="makespan",
        objective_unit="s",
        from_dict=RigidInstance.from_dict,
        smoke_suite=_smoke_suite,
        default_exact="cpsat-scenario",
        readers={".swf": read_swf},
        scenario=_scenario,
        sample_scenario=_sample,
        validate=_validate,
        objective=lambda case, schedule: makespan_of(schedule),
        reproduction=Reproduction(
            "resilsched.reproduce.rigid",
            "spec 002: Figs. 4-8, Table 1, Proposition 3 (CSV, PNG, summary.md in results/rigid/)",
        ),
    )
    for heuristic in (
        _heuristic("R-LIST-0", many.R_LIST_0, "greedy list scheduling with backfilling, no "
                   "reservation (Algorithm 1, m = 0)", P.RigidParams, _greedy_guarantee),
        _heuristic("R-LIST-1", many.R_LIST_1, "list scheduling with one reservation, EASY-like "
                   "backfilling (Algorithm 1, m = 1)", P.ReservationParams,
                   _reservation_guarantee),
        _heuristic("R-LIST-Q", many.R_LIST_Q, "list scheduling with a reservation for every "
                   "queued job, conservative (m = |Q|)", P.ReservationParams,
                   _reservation_guarantee),
        _heuristic("R-SHELF-B", many.R_SHELF_B, "shelves with backfilling, first-fit "
                   "(Algorithm 2, b = 1)", P.RigidParams),
        _heuristic("R-SHELF-NB", many.R_SHELF_NB, "shelves without backfilling, next-fit "
                   "(Algorithm 2, b = 0)", P.RigidParams),
        _heuristic("R-SHELFFILL-B", many.R_SHELFFILL_B, "shelves with in-shelf re-execution of "
                   "failed jobs, b = 1 (Algorithm 3)", P.ShelfFillParams),
        _heuristic("R-SHELFFILL-NB", many.R_SHELFFILL_NB, "shelves with in-shelf re-execution "
                   "of failed jobs, b = 0 (Algorithm 3)", P.ShelfFillParams),
    ):
        fam.add(heuristic)
    fam.add(ExactModel("cpsat-scenario", solve_scenario, "CP-SAT clairvoyant optimum T_OPT(f): "
                       "one interval per attempt (spec 002 §11.2)", options=RigidSolveOptions))
    fam.add(ExactModel("cpsat-failure-free", solve_failure_free, "CP-SAT failure-free optimum "
                       "P|size_j|C_max (ignores the scenario)", options=RigidSolveOptions,
                       ignores_scenario=True))
    fam.add(ExactModel("cpsat-merged", solve_scenario_merged, "merged-job shortcut: an UPPER "
                       "bound on T_OPT(f), not exact (spec 002 §11.2)",
                       options=RigidSolveOptions))
    fam.add(ExactModel("online-optimal", solve_rigid, "the optimal online policy's expected "
                       "makespan E[T_online-OPT] over the failure model (--qbar Q), exact, with "
                       "its decision table (issue 26; small instances)", options=OnlineOptions,
                       check=check_rigid))
    fam.add(Bound("L", lower_bound,
                  "L(f) = max(t_max(f), A(f)/P), the paper's normaliser (spec 002 §7)"))
    fam.add(Bound("LB-big", big_jobs_bound,
                  "sum of (f_j+1) t_j over jobs with p_j > P/2 (non-paper, spec 002 §7)"))
    for name, (description, make) in PRESETS.items():
        fam.add(Generator(name, make, description))
    return fam


FAMILY = _build()
