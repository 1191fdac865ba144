"""Registration of the malleable family (spec 001 §1.4-1.6, §3-5: resilient co-scheduling of
malleable applications with redistribution).

Instances: `resilsched.instances.malleable.MalleableInstance` (JSON contract in its module
docstring). A scenario is a failure trace ``[[time, processor], ...]`` (the instance's
``"failures"`` or ``--failures '[[t, q], ...]'``); without one, heuristics draw the trace from the
instance's mtbf with ``--seed`` (decision MA-3), and ``--qbar`` is refused. Heuristic results are
`RunPayload` runs, checked by `resilsched.validation.malleable`.

Exact models: ``yardstick`` (the gap report's reference: the fault-free optimum without failures,
the fluid bound with failures, decision MA-1), ``static-optimal`` and ``faultfree-optimal``.
Bounds: ``fluid`` (MA-7) and ``checkpoint`` (MA-25). Construction: ``CLAIRVOYANT`` (MA-25), a run
that reads the trace in advance, among the schedules of the portfolio of ``resilsched solve``.
The fault-free baselines ``FF-*`` are validated on every case of the gap report but scored only
on the fault-free ones (`another_problem`, decision MA-28).
"""

from __future__ import annotations

import numpy as np

from resilsched.bounds.malleable import checkpoint_bound, fluid_bound
from resilsched.errors import InvalidSchedule
from resilsched.heuristics import malleable as H
from resilsched.heuristics.malleable.clairvoyant import clairvoyant
from resilsched.heuristics.malleable.params import MalleableParams
from resilsched.instances.malleable import generators as G
from resilsched.instances.malleable.model import MalleableInstance
from resilsched.instances.malleable.traces import DrawnTrace, no_qbar, scenario_of
from resilsched.models.malleable.faultfree import FaultFreeOptions, PlanPayload, solve_faultfree
from resilsched.models.malleable.static import StaticOptions, solve_static
from resilsched.models.malleable.yardstick import YardstickOptions, solve_yardstick
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
from resilsched.validation.malleable import validate_malleable_run

#: (seed, n, p, faulty) of the smoke suite
SMOKE = ((201, 2, 8, False), (202, 3, 10, False), (203, 4, 12, False),
         (204, 2, 8, True), (205, 3, 10, True), (206, 4, 12, True))


def smoke_suite() -> list[Case]:
    """Three fault-free tiny instances (scored against the exact fault-free optimum) and three
    with a stored failure trace (scored against the fluid bound)."""
    cases = []
    for seed, n, p, faulty in SMOKE:
        inst = G.tiny_instance(seed, n, p, faulty=faulty, name=f"smoke-{seed}")
        if faulty:
            horizon = 3.0 * H.ff_noredist(inst).objective
            trace = DrawnTrace(inst.p, float(inst.mtbf), seed).prefix(horizon)
            inst = inst.replace(failures=tuple(zip(trace.times, trace.procs, strict=True)))
        label = "ff" if not faulty else "trace"
        cases.append(Case(f"malleable-s{seed}-n{n}-p{p}-{label}", inst, scenario_of(inst)))
    return cases


#: why a fault-free run of an instance with failures is not scored (decisions MA-27, MA-28)
FAULT_FREE_RUN = "fault-free baselines on cases with failures: another problem, decision MA-28"


def another_problem(case: Case, result) -> str | None:
    """Why `result` solves another problem than `case`'s, or None: a fault-free run of an
    instance with failures ignores the failures (decision MA-27 (b) lets only the registered
    baselines and ``faultfree-optimal`` plans make one; MA-28: the gap report validates such a
    run but does not score it against the case's reference).

    Parameters
    ----------
    case : Case
        The case the run was made on.
    result : HeuristicResult
        The run, its schedule a `RunPayload` (or None), or an exact model's solution as one
        (`resilsched.campaign.tasks`: its payload as the schedule): a `PlanPayload`, the plan
        of ``faultfree-optimal``, is fault-free by construction.

    Returns
    -------
    str or None
        `FAULT_FREE_RUN` for a fault-free run of an instance with failures, else None.
    """
    schedule = result.schedule
    fault_free = getattr(schedule, "fault_free", isinstance(schedule, PlanPayload))
    if fault_free and not case.instance.fault_free:
        return FAULT_FREE_RUN
    return None


def validate(case: Case, result) -> None:
    """Independent check of a simulated run and of its objective (the last end)."""
    if result.schedule is None:
        raise InvalidSchedule(f"{result.heuristic} returned no run")
    ok = {h.name for h in FAMILY.heuristics.values() if h.baseline and not h.plugin}
    if (another_problem(case, result) is not None
            and result.heuristic not in ok | {"faultfree-optimal"}):  # decision MA-27
        raise InvalidSchedule(f"{result.heuristic}: a fault-free run of an instance with "
                              "failures (only the registered baselines and faultfree-optimal)")
    validate_malleable_run(case.instance, result.schedule, result.objective, case.scenario)


def _paper(seed, count=None):
    rng_children = np.random.default_rng(seed).spawn(G.count_or_default(count, 1))
    return [G.paper_instance(c, 100, 5000, name=f"paper-s{seed}-{i}")
            for i, c in enumerate(rng_children)]


def _build() -> Family:
    fam = Family(
        name="malleable",
        spec="001",
        sense="min",
        objective_name="makespan",
        objective_unit="s",
        from_dict=MalleableInstance.from_dict,
        smoke_suite=smoke_suite,
        default_exact="yardstick",
        scenario=scenario_of,
        sample_scenario=no_qbar,
        validate=validate,
        another_problem=another_problem,
        objective=lambda case, run: max(run.finish),
        reproduction=Reproduction("resilsched.reproduce.malleable",
                                  "Figures 1.4-1.7 of the chapter (CSV + PNG)"),
    )
    # the fault-free runs of a faulty instance solve another problem: never an incumbent, not
    # scored by the gap report on a case with failures (`another_problem`, MA-28)
    for name, fn, text, baseline in (
        ("ENDLOCAL-SAF", H.endlocal_saf,
         "ENDLOCAL at ends + SHORTESTAPPLICATIONSFIRST at failures (§3.4, §3.6)", False),
        ("ENDLOCAL-IG", H.endlocal_ig,
         "ENDLOCAL at ends + ITERATEDGREEDY at failures (§3.4, §3.7)", False),
        ("ENDGREEDY-SAF", H.endgreedy_saf,
         "ENDGREEDY at ends + SHORTESTAPPLICATIONSFIRST at failures (§3.5, §3.6)", False),
        ("ENDGREEDY-IG", H.endgreedy_ig,
         "ENDGREEDY at ends + ITERATEDGREEDY at failures (§3.5, §3.7)", False),
        ("NOREDIST", H.noredist,
         "baseline: faulty, no redistribution (normalization of Figs. 1.5-1.7)", False),
        ("FF-NOREDIST", H.ff_noredist,
         "baseline: fault-free, no redistribution (normalization of Fig. 1.4)", True),
        ("FF-ENDLOCAL", H.ff_endlocal, "baseline: fault-free with ENDLOCAL at ends", True),
        ("FF-ENDGREEDY", H.ff_endgreedy,
         "baseline: fault-free with ENDGREEDY at ends (best case, A-19)", True),
    ):
        fam.add(Heuristic(name, fn, text, options=MalleableParams, baseline=baseline))

    fam.add(ExactModel(
        "yardstick", solve_yardstick,
        "reference of the gap report: fault-free optimum (tiny, no failures), else the best "
        "heuristic run with the fluid bound (status feasible)", options=YardstickOptions,
        draws_from_seed=True))
    fam.add(ExactModel(
        "static-optimal", solve_static,
        "optimal even allocation without redistribution, min max_i t^R_{i,sigma_i}(1) (Thm 1.4), "
        "threshold search exact without (1.7)", options=StaticOptions))
    fam.add(ExactModel(
        "faultfree-optimal", solve_faultfree,
        "fault-free optimum with redistribution at ends (Thm 1.7), branch and bound, n <= 5, "
        "p <= 24", options=FaultFreeOptions))

    fam.add(Bound("fluid", fluid_bound, "fluid bound: free continuous reallocation on the "
                                        "concave hull of 1/t_{i,k} (valid for every run)"))
    fam.add(Bound("checkpoint", checkpoint_bound,
                  "checkpoint-aware fluid bound: every phase after t = 0 pays C and its periods' "
                  "checkpoints, only the first phase's first period runs free (MA-25)"))
    fam.add(Construction(
        "CLAIRVOYANT", clairvoyant,
        "clairvoyant: the processors the trace fails before the end are kept idle, the others "
        "run the static optimum of the realized times (issue 23, MA-25)", seeded=True))

    fam.add(Generator("paper", _paper, "n = 100, p = 5000, (1.13) with m ~ U{1.5e6..2.5e6}, "
                                       "f = 0.08, MTBF 100 years, D = 60 s (§1.5.4)"))
    fam.add(Generator("tiny", lambda seed, count=None: G.generate(seed, count, kind="tiny"),
                      "n 2..4, p 6..12, integer tables, a few failures per run"))
    fam.add(Generator("library", G.library,
                      "the certified library malleable-small: 100 tiny instances, fault-free "
                      "(proven optima by faultfree-optimal) and one in 12 with failures and a "
                      "stored trace (fluid bound and best realized makespan)"))
    fam.add(Generator("tiny-fault-free",
                      lambda seed, count=None: G.generate(seed, count, kind="tiny", faulty=False),
                      "n 2..4, p 6..12, integer tables, mtbf null"))
    return fam


FAMILY = _build()
