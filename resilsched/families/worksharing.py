"""Registration of the worksharing family (spec 003): heuristics, certified model, bounds, presets.

The objective is the expected work E[W_cmp] of a static schedule (maximised). Every entry points
at its function: the heuristics of `resilsched.heuristics.worksharing.run` (their params
classes, ``n``, ``lam`` and the chunk rules, in `resilsched.heuristics.worksharing.params`),
the models of
`resilsched.models.worksharing.solve` with their options classes, the bounds of
`resilsched.bounds.worksharing`. Heuristic results carry a `Plan` (pieces of the workload and
per-worker chunk lists); `resilsched.validation.worksharing` re-evaluates it independently.
"""

from __future__ import annotations

from typing import Any

from resilsched.bounds import worksharing as bounds
from resilsched.heuristics.worksharing import run
from resilsched.heuristics.worksharing.params import (
    ChunkParams,
    GroupParams,
    NoRepParams,
    RepParams,
)
from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
from resilsched.instances.worksharing import generators as gen
from resilsched.models.worksharing.solve import (
    CertifiedOptions,
    QPOptions,
    solve,
    solve_qp_one_worker,
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
from resilsched.solution import HeuristicResult

HEURISTICS = [
    ("greedy", run.greedy, GroupParams,
     "Σ_greedy: §3.1 partition + greedy group chart, automatic chunk count (§3.3f, §3.4)"),
    ("greedy-thm4", run.greedy_thm4, GroupParams,
     "Σ_greedy with Theorem 4 (Theorem 2) chunks on single-worker slices (§6 Q3)"),
    ("group-cyclic", run.group_cyclic, GroupParams,
     "group schedule with the cyclic chart (§3.3a)"),
    ("group-reverse", run.group_reverse, GroupParams,
     "group schedule with the reverse chart (§3.3b)"),
    ("group-mirror", run.group_mirror, GroupParams,
     "group schedule with the mirror chart (§3.3c)"),
    ("group-snake", run.group_snake, GroupParams, "group schedule with the snake chart (§3.3d)"),
    ("group-fat-snake", run.group_fat_snake, GroupParams,
     "group schedule with the fat-snake chart (§3.3e)"),
    ("brute", run.brute, ChunkParams,
     "whole workload replicated on every worker, chunks in order (§3.5)"),
    ("no-rep", run.no_rep, NoRepParams, "round robin without replication (§3.5)"),
    ("cyclic-rep", run.cyclic_rep, RepParams,
     "round robin continued to a local load of maxsl (§3.5, §6 Q11)"),
    ("random-rep", run.random_rep, RepParams,
     "random distinct chunks up to a local load of maxsl, seeded (§3.5, §6 Q12)"),
]


def _smoke_suite() -> list[Case]:
    lin = LinearRisk(1.0)
    cases = [
        ("thm2-p1-W2-n3", WorksharingInstance(2.0, 1, lin, 0.0, max_chunks=3)),
        ("thm4-p1-W1-eps0.05", WorksharingInstance(1.0, 1, lin, 0.05)),
        ("thm7-p2-W0.7-n1", WorksharingInstance(0.7, 2, lin, 0.0, max_chunks=1)),
        ("disjoint-p2-W3-eps0.01", WorksharingInstance(3.0, 2, lin, 0.01)),
        ("omni-p3-W1.5-eps0.01", WorksharingInstance(1.5, 3, lin, 0.01)),
        ("omni-p4-W2.5-trace5", WorksharingInstance(2.5, 4, gen.synthetic_trace(5), 0.01)),
    ]
    return [Case(name, inst) for name, inst in cases]


def _validate(case: Case, result: HeuristicResult) -> None:
    """Independent check: pieces, chunk lists and the expected work re-derived (spec §1.4)."""
    from resilsched.validation.worksharing import validate_worksharing_schedule

    validate_worksharing_schedule(case.instance, result.schedule, result.objective)


def _expected_work(case: Case, schedule: Any) -> float:
    """E[W_cmp] recomputed from the schedule alone (its pieces and chunks, spec §1.4)."""
    from resilsched.validation.worksharing import expected_work_of

    data = {**schedule.to_dict(), "W": float(case.instance.W)}
    return expected_work_of(data, case.instance.risk, float(case.instance.epsilon))


def _bound(fn):
    def compute(instance: WorksharingInstance, scenario: Any = None) -> float:
        return fn(instance)

    return compute


def _build() -> Family:
    fam = Family(
        name="worksharing",
        spec="003",
        sense="max",
        objective_name="expected_work",
        objective_unit="work units",
        from_dict=WorksharingInstance.from_dict,
        smoke_suite=_smoke_suite,
        default_exact="certified",
        validate=_validate,
        objective=_expected_work,
        reproduction=Reproduction(
            "resilsched.reproduce.worksharing",
            "spec 003: Tables 1, 3 and 4, E1-E6, traces (CSV in worksharing_results/)",
        ),
    )
    for name, fn, options, description in HEURISTICS:
        fam.add(Heuristic(name, fn, description, options=options))
    fam.add(ExactModel(
        "certified", solve,
        "Theorems 2/4 (HiGHS-QP certified), disjoint optimum, Theorem 7 (enumeration "
        "certified); else best model schedule + omniscient bound",
        options=CertifiedOptions,
    ))
    fam.add(ExactModel(
        "qp-one-worker", solve_qp_one_worker,
        "HiGHS QP per chunk count, one worker, linear risk (spec 003 §2.3, §7)",
        options=QPOptions,
    ))
    fam.add(Bound("omniscient", _bound(bounds.omniscient_bound),
                  "E[min(W, sum_j (tau_j - eps)^+)], exact for linear risk (spec 003 §3.5)"))
    fam.add(Bound("limit", _bound(bounds.limit_bound),
                  "min(W, p x one-worker limit) and Theorem 8's limit for p = 2 (spec 003 §2)"))
    fam.add(Bound("static", _bound(bounds.static_bound),
                  "Lagrangian bound on static schedules, prices phi_c (linear risk; else the "
                  "omniscient bound), issue 23"))
    fam.add(Generator("random", gen.random_instances, "small mixed instances, p = 1..4 (seeded)"))
    fam.add(Generator("library", gen.library_instances,
                      "100 small linear-risk instances (p 1..4) whose optimum the certified "
                      "model proves: the shipped library (resilsched library list)"))
    fam.add(Generator("paper-e5", gen.e5_instances,
                      "E5 grid: p in {5,..,100}, W = 1..p, 4 eps values (760 configurations)"))
    fam.add(Generator("traces", gen.trace_instances,
                      "synthetic stand-ins of the 8 availability traces (spec 003 §4.3)"))
    return fam


FAMILY = _build()
