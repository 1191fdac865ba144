"""Registration of the worksharing family (spec 003): heuristics, certified model, bounds, presets.

The objective is the expected work E[W_cmp] of a static schedule (maximised). Heuristic results
carry the schedule as pieces of the workload and per-worker chunk lists; the validator
re-evaluates it independently through the interval evaluator.
"""

from __future__ import annotations

from typing import Any

from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
from resilsched.plugin import (
    Bound,
    Case,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)
from resilsched.reproduce import worksharing as reproduction
from resilsched.solution import HeuristicResult

HEURISTICS: dict[str, str] = {
    "greedy": "Σ_greedy: §3.1 partition + greedy group chart, automatic chunk count (§3.3f, §3.4)",
    "greedy-thm4": "Σ_greedy with Theorem 4 (Theorem 2) chunks on single-worker slices (§6 Q3)",
    "group-cyclic": "group schedule with the cyclic chart (§3.3a)",
    "group-reverse": "group schedule with the reverse chart (§3.3b)",
    "group-mirror": "group schedule with the mirror chart (§3.3c)",
    "group-snake": "group schedule with the snake chart (§3.3d)",
    "group-fat-snake": "group schedule with the fat-snake chart (§3.3e)",
    "brute": "whole workload replicated on every worker, chunks in order (§3.5)",
    "no-rep": "round robin without replication (§3.5)",
    "cyclic-rep": "round robin continued to a local load of maxsl (§3.5, §6 Q11)",
    "random-rep": "random distinct chunks up to a local load of maxsl, seeded (§3.5, §6 Q12)",
}


def _smoke_suite() -> list[Case]:
    from resilsched.instances.worksharing.generators import synthetic_trace

    lin = LinearRisk(1.0)
    cases = [
        ("thm2-p1-W2-n3", WorksharingInstance(2.0, 1, lin, 0.0, max_chunks=3)),
        ("thm4-p1-W1-eps0.05", WorksharingInstance(1.0, 1, lin, 0.05)),
        ("thm7-p2-W0.7-n1", WorksharingInstance(0.7, 2, lin, 0.0, max_chunks=1)),
        ("disjoint-p2-W3-eps0.01", WorksharingInstance(3.0, 2, lin, 0.01)),
        ("omni-p3-W1.5-eps0.01", WorksharingInstance(1.5, 3, lin, 0.01)),
        ("omni-p4-W2.5-trace5", WorksharingInstance(2.5, 4, synthetic_trace(5), 0.01)),
    ]
    return [Case(name, inst) for name, inst in cases]


def _heuristic(name: str, description: str) -> Heuristic:
    def run(
        instance: WorksharingInstance, scenario: Any = None, priority: str | None = None,
        *, seed: int = 0,
    ) -> HeuristicResult:
        from resilsched.heuristics.worksharing.schedules import run_heuristic
        from resilsched.models.worksharing.evaluate import expected_work

        plan = run_heuristic(name, instance, None, seed)
        E = expected_work(plan.schedule, instance.risk, instance.eps)
        return HeuristicResult(
            objective=E,
            heuristic=name,
            priority=priority,
            schedule=plan.to_dict(),
            extra={"chunk_counts": plan.chunk_counts},
        )

    return Heuristic(name, run, description)


def _validate(case: Case, result: HeuristicResult) -> None:
    """Independent check: pieces inside [0, W] and disjoint, chunks valid, objective re-derived."""
    import math

    from resilsched.errors import InvalidSchedule
    from resilsched.models.worksharing.evaluate import IntervalSchedule, expected_work

    inst: WorksharingInstance = case.instance
    sched = result.schedule
    pieces = sched["pieces"]
    last = 0.0
    for a, b in pieces:
        if a < last - 1e-9 or b < a or b > inst.W * (1 + 1e-9) + 1e-12:
            raise InvalidSchedule(f"piece ({a}, {b}) overlaps or leaves [0, {inst.W}]")
        last = b
    workers = sched["workers"]
    if len(workers) != inst.workers:
        raise InvalidSchedule(f"{len(workers)} worker lists for {inst.workers} workers")
    for j, chunks in enumerate(workers):
        if inst.max_chunks is not None and len(chunks) > inst.max_chunks:
            raise InvalidSchedule(f"worker {j} has {len(chunks)} chunks > max_chunks")
        for ch in chunks:
            for c in ch:
                if not 0 <= c < len(pieces):
                    raise InvalidSchedule(f"worker {j} references piece {c}")
    iv = IntervalSchedule(
        inst.W, [[[tuple(pieces[c]) for c in ch] for ch in chunks] for chunks in workers]
    )
    E = expected_work(iv, inst.risk, inst.eps)
    if not math.isclose(E, result.objective, rel_tol=1e-9, abs_tol=1e-12):
        raise InvalidSchedule(f"objective {result.objective} but the schedule is worth {E}")


def _solve(instance: WorksharingInstance, scenario: Any = None, *,
           time_limit: float | None = None, **options):
    from resilsched.models.worksharing.solve import solve

    return solve(instance, scenario, time_limit)


def _solve_qp(instance: WorksharingInstance, scenario: Any = None, *,
              time_limit: float | None = None, **options):
    from resilsched.models.worksharing.solve import solve_qp_one_worker

    return solve_qp_one_worker(instance, scenario, time_limit)


def _bound(fn: str):
    def compute(instance: WorksharingInstance, scenario: Any = None):
        from resilsched.bounds import worksharing as b

        return getattr(b, fn)(instance)

    return compute


def _generator(fn: str):
    def generate(seed: int = 0, count: int | None = None):
        from resilsched.instances.worksharing import generators as g

        return getattr(g, fn)(seed, count)

    return generate


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
        reproduction=Reproduction(
            reproduction.main,
            "spec 003: Table 4, E1-E6, traces (CSV in worksharing_results/)",
        ),
    )
    for name, description in HEURISTICS.items():
        fam.add(_heuristic(name, description))
    fam.add(
        ExactModel(
            "certified",
            _solve,
            "Theorems 2/4 (HiGHS-QP certified), disjoint optimum, Theorem 7 "
            "(enumeration certified); else best model schedule + omniscient bound",
        )
    )
    fam.add(
        ExactModel(
            "qp-one-worker",
            _solve_qp,
            "HiGHS QP per chunk count, one worker, linear risk (spec 003 §2.3, §7)",
        )
    )
    fam.add(
        Bound(
            "omniscient",
            _bound("omniscient_bound"),
            "E[min(W, sum_j (tau_j - eps)^+)], exact for linear risk (spec 003 §3.5)",
        )
    )
    fam.add(
        Bound(
            "limit",
            _bound("limit_bound"),
            "min(W, p x one-worker limit) and Theorem 8's limit for p = 2 (spec 003 §2)",
        )
    )
    fam.add(
        Generator(
            "random", _generator("random_instances"), "small mixed instances, p = 1..4 (seeded)"
        )
    )
    fam.add(
        Generator(
            "paper-e5",
            _generator("e5_instances"),
            "E5 grid: p in {5,..,100}, W = 1..p, 4 eps values (760 configurations)",
        )
    )
    fam.add(
        Generator(
            "traces",
            _generator("trace_instances"),
            "synthetic stand-ins of the 8 availability traces (spec 003 §4.3)",
        )
    )
    return fam


FAMILY = _build()
