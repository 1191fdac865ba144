"""Registration of the moldable-job family (spec 000): heuristics, exact models, bounds, presets.

Every entry points at the function itself (`resilsched.heuristics.moldable`,
`resilsched.models.moldable`, `resilsched.bounds.moldable`; a fixed-allocation heuristic's
batch engine is its allocation rule, for `Simulator.makespans`); the scenario hooks check a scenario
once, here (at most `MAX_ATTEMPTS` attempts), and the code below them trusts it.
"""

from __future__ import annotations

from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario, sample_scenarios
from resilsched.instances.moldable import MoldableInstance
from resilsched.plugin import (
    Bound,
    Case,
    Construction,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.schedule import makespan_of
from resilsched.solution import HeuristicResult


def _smoke_suite() -> list[Case]:
    from resilsched.instances.moldable.presets import PRESETS

    _, make = PRESETS["smoke"]
    cases = [Case(inst.name, inst, inst.scenario()) for inst in make(0, None)]
    _, thm9 = PRESETS["thm9"]
    cases += [Case(inst.name, inst, inst.scenario()) for inst in thm9(0, 3)]
    return cases


#: most attempts sum_j (f_j + 1) a scenario may ask for (LIST simulates ~10^5 attempts a second)
MAX_ATTEMPTS = 10**6


def _checked(scenario: Scenario) -> Scenario:
    if scenario.attempts > MAX_ATTEMPTS:
        j = max(range(len(scenario.failures)), key=scenario.failures.__getitem__)
        raise InvalidInstance("failures", f"ask for {scenario.attempts} attempts in total "
                              f"(job {j}: {scenario.failures[j] + 1}); at most {MAX_ATTEMPTS}")
    return scenario


def _scenario(instance: MoldableInstance, failures: Any) -> Scenario:
    """The scenario of the command line (or the stored one), checked once here."""
    return _checked(instance.scenario(failures))


def _sample(instance: MoldableInstance, qbar: float, seed: int) -> Scenario:
    """q_j = 1 - exp(-lambda w_j) with lambda calibrated so that the mean q_j is about q-bar."""
    return _checked(sample_scenarios(instance.q(instance.lambda_from_qbar(qbar)), 1, seed)[0])


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


def _build() -> Family:
    from resilsched.bounds import moldable as bounds
    from resilsched.heuristics import moldable as heuristics
    from resilsched.heuristics.moldable.chains import chain_schedule
    from resilsched.heuristics.moldable.params import BatchParams
    from resilsched.instances.moldable.presets import PRESETS
    from resilsched.models import moldable as models

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
        objective=lambda case, schedule: makespan_of(schedule),
        reproduction=Reproduction(
            "resilsched.reproduce.moldable",
            "spec 000: Table 1 and Figs. 3-9 (CSV, summary.md, PNG in results/moldable/)",
        ),
    )
    others = {"priorities": heuristics.PRIORITIES, "default_priority": "LPT",
              "key_priorities": True}
    lpa = {**others, "guarantee": bounds.lpa_guarantee}
    fam.add(Heuristic(
        "LPA-LIST", heuristics.lpa_list,
        "Local Processor Allocation (Algorithm 2) + LIST (Algorithm 1), §3.2",
        batch=heuristics.lpa, **lpa))
    fam.add(Heuristic(
        "BATCH-LIST", heuristics.batch_list,
        "doubling batches allotted by MT-ALLOTMENT (eps=0.3, area_slack=1.1) + LIST, §3.4",
        options=BatchParams, **others))
    fam.add(Heuristic("MINTIME", heuristics.mintime_list,
                      "p_j = argmin t_j(p) (SET) + LIST, §3.5", batch=heuristics.mintime,
                      **others))
    fam.add(Heuristic("MINAREA", heuristics.minarea_list,
                      "p_j = argmin p t_j(p) + LIST, §3.5", batch=heuristics.minarea, **others))
    fam.add(Heuristic("LPA-PROOF", heuristics.lpa_proof_list,
                      "the explicit allocations of the proofs of Thms 1-6 + LIST, §3.3",
                      batch=heuristics.lpa_proof, **lpa))
    fam.add(ExactModel(
        "cpsat-scenario", models.solve_scenario,
        "CP-SAT clairvoyant optimum T_OPT(J,f), allocation chosen per attempt (§1.5); "
        "incumbent: the best of the hint, the chains and LPA-LIST; thinned fronts on large "
        "instances", options=models.MoldableOptions, warm_start=True))
    fam.add(ExactModel(
        "cpsat-failure-free", models.solve_failure_free,
        "CP-SAT failure-free moldable optimum (ignores the scenario)",
        options=models.MoldableOptions, ignores_scenario=True))
    from resilsched.models.online.solve import OnlineOptions, check_moldable, solve_moldable

    fam.add(ExactModel(
        "online-optimal", solve_moldable,
        "the optimal online policy's expected makespan E[T_online-OPT] over the failure model "
        "(--qbar Q or the instance's lambda), allocations on the time-Pareto fronts, exact "
        "(issue 26; small instances)", options=OnlineOptions,
                       check=check_moldable))
    fam.add(Bound(
        "L'", bounds.L_prime,
        "L'(J,f) = max(max (f_j+1) t_min, sum (f_j+1) a_min / P), the paper's normaliser "
        "(§2.2); exact on exact data"))
    fam.add(Bound(
        "L*", bounds.L_star,
        "L*(J,f) = min over allocations of L (Eq. 8): exact g=1 search, else HiGHS MILP "
        "(dual bound, 10 s), never below L' (§2.3)"))
    fam.add(Construction(
        "CHAINS", chain_schedule,
        "clairvoyant: each job's attempts back to back on one allocation, the chains "
        "list-scheduled for a target makespan from L' up (issue 23)"))
    for name, (description, make) in PRESETS.items():
        fam.add(Generator(name, make, description))
    return fam


FAMILY = _build()
