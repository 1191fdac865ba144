"""The registered worksharing heuristics of spec 003 §3.5-§3.6.

Every heuristic has the family's heuristic signature ``fn(instance, scenario=None,
priority=None, *, seed=0, **params) -> HeuristicResult``; its parameters are the fields of its
params class (`resilsched.heuristics.worksharing.params`: ``n``, ``lam``, ``chunk_search``,
``chunk_rule``), checked here against the instance. The objective is the expected work
E[W_cmp] of the schedule (exact evaluator, §1.4) and the payload a `Plan`. The group
heuristics are the instances of one `GroupHeuristic`, one per chart (§3.3a-f).

The worksharing family has no failure scenario and no priority rule: both arguments are ignored.
``seed`` drives `random_rep` only.

>>> from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
>>> r = no_rep(WorksharingInstance(2.0, 2, LinearRisk(1.0), 0.0), n=2)
>>> r.objective, r.schedule.chunk_counts  # chunks [0,.5] [1,1.5] on P1, [.5,1] [1.5,2] on P2
(0.5, (4,))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance, InvalidOption
from resilsched.heuristics.worksharing.charts import (
    chart_cyclic,
    chart_fat_snake,
    chart_mirror,
    chart_reverse,
    chart_snake,
)
from resilsched.heuristics.worksharing.params import (
    ChunkParams,
    GroupParams,
    NoRepParams,
    RepParams,
)
from resilsched.heuristics.worksharing.partition import default_lambda, maxsl_of
from resilsched.heuristics.worksharing.plan import Plan
from resilsched.heuristics.worksharing.schedules import (
    GREEDY,
    NO_REP_RULES,
    ChartRule,
    brute_plan,
    chart_rule,
    cyclic_rep_plan,
    group_plan,
    no_rep_plan,
    random_rep_plan,
)
from resilsched.instances.worksharing.evaluate import expected_work
from resilsched.numeric import strict_int
from resilsched.solution import HeuristicResult

#: largest schedule an explicit ``n`` may ask for: n W p chunk entries over all workers
MAX_ENTRIES = 20_000_000
#: most workers a heuristic schedules (the automatic chunk counts give up to 4000 chunk
#: entries per worker; the paper's experiments have p <= 100)
MAX_WORKERS = 10_000


def _size(instance) -> None:
    """Instances whose schedules cannot be built in reasonable time and memory are refused."""
    if instance.workers > MAX_WORKERS:
        raise InvalidInstance("workers", f"{instance.workers} exceeds the {MAX_WORKERS} workers "
                                         "the worksharing heuristics schedule")


def _chunks(instance, n: float) -> float | None:
    """``n`` checked at the boundary: None (automatic) for 0, else a positive finite number
    whose schedule fits in `MAX_ENTRIES` (the instance's size is checked too)."""
    _size(instance)
    if isinstance(n, bool) or not isinstance(n, (int, float)) or not math.isfinite(n) or n < 0:
        raise InvalidOption("--param n", f"{n!r} must be a finite number >= 0 "
                                           "(0 = automatic)")
    if n == 0:
        return None
    entries = n * instance.W * instance.workers
    if entries > MAX_ENTRIES:
        raise InvalidOption("--param n", f"{n!r} chunks per unit of work cut W={instance.W} "
                                           f"on {instance.workers} workers into about "
                                           f"{entries:.3g} chunk entries (at most {MAX_ENTRIES})")
    return float(n)


def _lambda(instance, lam: float) -> float | None:
    """``lam`` checked at the boundary: None (the default) for 0, else in (0, 1] with a largest
    slice maxsl > 0."""
    if (isinstance(lam, bool) or not isinstance(lam, (int, float)) or not math.isfinite(lam)
            or not 0 <= lam <= 1):
        raise InvalidOption("--param lam", f"{lam!r} must be in (0, 1] (0 = default)")
    if lam == 0:
        return None
    if not maxsl_of(instance.risk, lam) > 0:
        default = default_lambda(instance.risk)
        raise InvalidOption("--param lam", f"{lam!r} gives a largest slice of 0 under this "
                                             f"risk (the default is {default})")
    return float(lam)


def _result(instance, plan: Plan) -> HeuristicResult:
    return HeuristicResult(
        objective=expected_work(plan.schedule, instance.risk, instance.eps),
        heuristic=plan.name,
        schedule=plan,
        extra={"chunk_counts": [int(c) for c in plan.chunk_counts]},
    )


@dataclass(frozen=True)
class GroupHeuristic:
    """A group heuristic: the §3.1 partition, then in every coterie the group schedule of one
    chart (§3.3a-e; None: the greedy chart, §3.3f, §3.6), with its params `GroupParams`;
    ``thm4_single``: Theorem 4's (Theorem 2's) chunks on single-worker slices (§6 Q3)."""

    name: str
    chart: Callable[[int, int], np.ndarray] | None = None
    thm4_single: bool = False

    def __call__(self, instance, scenario: Any = None, priority: str | None = None, *,
                 seed: int = 0, **params: Any) -> HeuristicResult:
        p = GroupParams(**params)
        if p.chunk_search not in ("grid", "binary"):
            raise InvalidOption("--param chunk_search",
                                f"{p.chunk_search!r} is not grid or binary")
        rule: ChartRule = GREEDY if self.chart is None else chart_rule(self.chart)
        plan = group_plan(instance, rule, n=_chunks(instance, p.n),
                          lam=_lambda(instance, p.lam), thm4_single=self.thm4_single,
                          name=self.name, chunk_search=p.chunk_search)
        return _result(instance, plan)


#: Σ_greedy: §3.1 partition, greedy group chart in every coterie (§3.3f, §3.4, §3.6)
greedy = GroupHeuristic("greedy")
#: Σ_greedy with Theorem 4's (Theorem 2's) chunks on single-worker slices (§6 Q3)
greedy_thm4 = GroupHeuristic("greedy-thm4", thm4_single=True)
group_cyclic = GroupHeuristic("group-cyclic", chart_cyclic)  # §3.3a
group_reverse = GroupHeuristic("group-reverse", chart_reverse)  # §3.3b
group_mirror = GroupHeuristic("group-mirror", chart_mirror)  # §3.3c
group_snake = GroupHeuristic("group-snake", chart_snake)  # §3.3d
group_fat_snake = GroupHeuristic("group-fat-snake", chart_fat_snake)  # §3.3e


def brute(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
          **params: Any) -> HeuristicResult:
    """Σ_brute: the whole workload replicated on every worker, chunks in order (§3.5)."""
    p = ChunkParams(**params)
    return _result(instance, brute_plan(instance, n=_chunks(instance, p.n)))


def no_rep(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
           **params: Any) -> HeuristicResult:
    """Σ_no-rep: round robin without replication (§3.5); ``chunk_rule`` chooses N when
    ``n = 0`` (`NO_REP_RULES`, decision WS-20)."""
    p = NoRepParams(**params)
    if p.chunk_rule not in NO_REP_RULES:
        raise InvalidOption("--param chunk_rule",
                            f"{p.chunk_rule!r} is not one of {', '.join(NO_REP_RULES)}")
    return _result(instance, no_rep_plan(instance, n=_chunks(instance, p.n), rule=p.chunk_rule))


def cyclic_rep(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
               **params: Any) -> HeuristicResult:
    """Σ_cyclic-rep: round robin continued to a local load of maxsl (§3.5, §6 Q11)."""
    p = RepParams(**params)
    return _result(instance, cyclic_rep_plan(instance, n=_chunks(instance, p.n),
                                             lam=_lambda(instance, p.lam)))


def random_rep(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
               **params: Any) -> HeuristicResult:
    """Σ_random-rep: random distinct chunks up to a local load of maxsl, seeded (§6 Q12)."""
    p = RepParams(**params)
    seed = strict_int(seed, "--seed", error=InvalidOption)
    return _result(instance, random_rep_plan(instance, n=_chunks(instance, p.n), seed=seed,
                                             lam=_lambda(instance, p.lam)))
