"""Registration of the moldable-job family (spec 000): heuristics, exact models, bounds, presets."""

from __future__ import annotations

from typing import Any

from resilsched.instances.failures import Scenario, sample_scenarios
from resilsched.instances.moldable import MoldableInstance
from resilsched.plugin import (
    Bound,
    Case,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.reproduce import moldable as reproduction
from resilsched.solution import HeuristicResult

PRIORITIES = ("LPT", "HPA", "LA")


def _smoke_suite() -> list[Case]:
    from resilsched.instances.moldable.presets import PRESETS

    _, make = PRESETS["smoke"]
    cases = [Case(inst.name, inst, inst.scenario()) for inst in make(0, None)]
    _, thm9 = PRESETS["thm9"]
    cases += [Case(inst.name, inst, inst.scenario()) for inst in thm9(0, 3)]
    return cases


def _scenario(instance: MoldableInstance, failures: Any) -> Scenario:
    return instance.scenario(failures)


def _sample(instance: MoldableInstance, qbar: float, seed: int) -> Scenario:
    """q_j = 1 - exp(-lambda w_j) with lambda calibrated so that the mean q_j is about q-bar."""
    return sample_scenarios(instance.q(instance.lambda_from_qbar(qbar)), 1, seed)[0]


def _validate(case: Case, result: HeuristicResult) -> None:
    """Independent schedule check, plus the certified Lemma 2 bound T <= r(alpha_g, beta_g) L'
    for the fixed-allocation LIST heuristics (spec 000 §3.1, §7 item 4)."""
    from resilsched.bounds.moldable import L_prime, certified_ratio
    from resilsched.errors import InvalidSchedule
    from resilsched.validation import validate_attempts

    inst = case.instance
    f = case.scenario.failures
    validate_attempts(
        result.schedule,
        inst.P,
        f,
        inst.duration,
        lambda j, p: isinstance(p, int) and 1 <= p <= inst.P,
    )
    alloc = result.extra.get("allocation")
    if alloc is not None and inst.P > 1:
        allocs = [[alloc[j]] * (f[j] + 1) for j in range(inst.n)]
        bound = certified_ratio(inst, case.scenario, allocs) * L_prime(inst, case.scenario)
        if float(result.objective) > bound * (1 + 1e-9):
            raise InvalidSchedule(f"{result.heuristic}: makespan {result.objective} exceeds the "
                                  f"certified Lemma 2 bound {bound}")


def _guarantee(name: str):
    def guarantee(instance: MoldableInstance, priority: str | None):
        """Thms 1-4 when every job follows one model (LPA-LIST / LPA-PROOF); None otherwise."""
        from resilsched.bounds.moldable import theorem_ratio

        if name not in ("LPA-LIST", "LPA-PROOF"):
            return None
        models = {job.model for job in instance.jobs}
        if len(models) != 1:
            return None
        model = models.pop()
        if model not in ("roofline", "communication", "amdahl", "mix"):
            return None
        return theorem_ratio(model, instance.P)

    return guarantee


def _heuristic(name: str, description: str) -> Heuristic:
    def run(
        instance: MoldableInstance, scenario: Scenario | None = None,
        priority: str | None = None, *, seed: int = 0, **params,
    ) -> HeuristicResult:
        from resilsched.heuristics.moldable import simulate

        return simulate(instance, scenario or instance.scenario(), name, priority or "LPT",
                        **params)

    return Heuristic(
        name,
        run,
        description,
        priorities=PRIORITIES,
        default_priority="LPT",
        guarantee=_guarantee(name),
        params=(),
    )


def _exact(name: str, function: str, description: str, uses_scenario: bool = True) -> ExactModel:
    def solve(instance: MoldableInstance, scenario: Scenario | None = None, *,
              time_limit: float | None = None, **options):
        from resilsched.models import moldable as models

        fn = getattr(models, function)
        if uses_scenario:
            return fn(instance, scenario or instance.scenario(), time_limit=time_limit)
        return fn(instance, time_limit=time_limit)

    return ExactModel(name, solve, description)


def _build() -> Family:
    from resilsched.bounds import moldable as bounds
    from resilsched.instances.moldable.presets import PRESETS

    fam = Family(
        name="moldable",
        spec="000",
        sense="min",
        objective_name="makespan",
        objective_unit="s",
        from_dict=MoldableInstance.from_dict,
        smoke_suite=_smoke_suite,
        default_exact="cpsat-scenario",
        scenario=_scenario,
        sample_scenario=_sample,
        validate=_validate,
        reproduction=Reproduction(
            reproduction.main,
            "spec 000: Table 1 and the sweeps (store in results/moldable/, --csv)",
        ),
    )
    for name, description in [
        ("LPA-LIST", "Local Processor Allocation (Algorithm 2) + LIST (Algorithm 1), §3.2"),
        ("BATCH-LIST", "doubling batches with MT-ALLOTMENT (eps=0.3, area_slack=1.1) + LIST, §3.4"),
        ("MINTIME", "p_j = argmin t_j(p) (SET) + LIST, §3.5"),
        ("MINAREA", "p_j = argmin p t_j(p) + LIST, §3.5"),
        ("LPA-PROOF", "the explicit allocations of the proofs of Thms 1-6 + LIST, §3.3"),
    ]:
        fam.add(_heuristic(name, description))
    fam.add(
        _exact(
            "cpsat-scenario",
            "solve_scenario",
            "CP-SAT clairvoyant optimum T_OPT(J,f), allocation chosen per attempt (§1.5)",
        )
    )
    fam.add(
        _exact(
            "cpsat-failure-free",
            "solve_failure_free",
            "CP-SAT failure-free moldable optimum (ignores the scenario)",
            uses_scenario=False,
        )
    )
    fam.add(
        Bound(
            "L'",
            lambda inst, sc: bounds.L_prime(inst, sc or inst.scenario()),
            "L'(J,f) = max(max (f_j+1) t_min, sum (f_j+1) a_min / P), the paper's "
            "normaliser (§2.2)",
        )
    )
    fam.add(
        Bound(
            "L*",
            lambda inst, sc: bounds.L_star(inst, sc or inst.scenario(), 10.0),
            "L*(J,f) = min over allocations of L (Eq. 8), HiGHS MILP / exact g=1 search (§2.3)",
        )
    )
    for name, (description, make) in PRESETS.items():
        fam.add(Generator(name, make, description))
    return fam


FAMILY = _build()
