"""The registered worksharing heuristics of spec 003 §3.5-§3.6, one function each.

Every function has the family's heuristic signature ``fn(instance, scenario=None,
priority=None, *, seed=0, <params>) -> HeuristicResult``; the objective is the expected work
E[W_cmp] of the schedule (exact evaluator, §1.4) and the payload a `Plan`. Parameters (typed
keyword-only arguments, ``--param NAME=VALUE`` on the command line):

- ``n``: chunks per unit of work (Section 6's n, §6 Q2); 0 chooses the chunk count of every
  slice by maximising the expected work (§3.4, §6 Q9);
- ``chunk_search`` (group heuristics, with ``n = 0``): ``grid`` (default) maximises the exact
  expected work over a geometric grid with refinement (§6 Q9); ``binary`` is the paper's own
  rule (§5.2.3): binary search over [1 .. X/eps] on Eq. 9, assuming unimodality
  (docs/decisions.md WS-17);
- ``chunk_rule`` (no-rep, with ``n = 0``): how no-rep's chunk count is chosen, ``grid``
  (default), ``binary``, ``per-worker`` or ``greedy`` (docs/decisions.md WS-20);
- ``lam``: the partition's lambda, the largest interruption probability accepted for one
  worker's load (§3.1; maxsl = Pr^-1(lambda)); 0 = 1 for risks with a finite horizon, 0.9
  otherwise (docs/decisions.md WS-3). Only the heuristics that use maxsl take it.

The worksharing family has no failure scenario and no priority rule: both arguments are ignored.
``seed`` drives `random_rep` only.

>>> from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
>>> r = no_rep(WorksharingInstance(2.0, 2, LinearRisk(1.0), 0.0), n=2)
>>> r.objective, r.schedule.chunk_counts  # chunks [0,.5] [1,1.5] on P1, [.5,1] [1.5,2] on P2
(0.5, (4,))
"""

from __future__ import annotations

import math
from typing import Any, Literal

from resilsched.errors import InvalidInstance
from resilsched.heuristics.worksharing.charts import (
    chart_cyclic,
    chart_fat_snake,
    chart_mirror,
    chart_reverse,
    chart_snake,
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
from resilsched.solution import HeuristicResult

#: help of the parameters, for ``resilsched list`` (`resilsched.options.params_of`)
PARAM_HELP = {
    "n": "chunks per unit of work (spec 003 §6 Q2); 0 = chosen by maximising the expected work",
    "lam": "partition lambda in (0, 1] (spec 003 §3.1); 0 = 1 for a finite horizon, else 0.9",
    "chunk_search": "automatic chunk count of a slice (n = 0): grid = maximise the exact "
                    "expected work (spec 003 §6 Q9), binary = the paper's binary search over "
                    "[1 .. X/eps] (§5.2.3)",
    "chunk_rule": "no-rep's chunk count (n = 0): grid = maximise its expected work (spec 003 "
                  "§6 Q9), binary = the paper's binary search, per-worker = the same count on "
                  "every worker, greedy = greedy's chunk size (decision WS-20)",
}
#: how a group heuristic chooses its chunk counts when ``n = 0`` (`group_plan`)
ChunkSearch = Literal["grid", "binary"]
#: how no-rep chooses its chunk count when ``n = 0`` (`NO_REP_RULES`, decision WS-20)
NoRepRule = Literal["grid", "binary", "per-worker", "greedy"]
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
        raise InvalidInstance("--param n", f"{n!r} must be a finite number >= 0 "
                                           "(0 = automatic)")
    if n == 0:
        return None
    entries = n * instance.W * instance.workers
    if entries > MAX_ENTRIES:
        raise InvalidInstance("--param n", f"{n!r} chunks per unit of work cut W={instance.W} "
                                           f"on {instance.workers} workers into about "
                                           f"{entries:.3g} chunk entries (at most {MAX_ENTRIES})")
    return float(n)


def _lambda(instance, lam: float) -> float | None:
    """``lam`` checked at the boundary: None (the default) for 0, else in (0, 1] with a largest
    slice maxsl > 0."""
    if (isinstance(lam, bool) or not isinstance(lam, (int, float)) or not math.isfinite(lam)
            or not 0 <= lam <= 1):
        raise InvalidInstance("--param lam", f"{lam!r} must be in (0, 1] (0 = default)")
    if lam == 0:
        return None
    if not maxsl_of(instance.risk, lam) > 0:
        default = default_lambda(instance.risk)
        raise InvalidInstance("--param lam", f"{lam!r} gives a largest slice of 0 under this "
                                             f"risk (the default is {default})")
    return float(lam)


def _result(instance, plan: Plan) -> HeuristicResult:
    return HeuristicResult(
        objective=expected_work(plan.schedule, instance.risk, instance.eps),
        heuristic=plan.name,
        schedule=plan,
        extra={"chunk_counts": [int(c) for c in plan.chunk_counts]},
    )


def _group(instance, rule: ChartRule, name: str, n: float, lam: float,
           chunk_search: str, thm4_single: bool = False) -> HeuristicResult:
    if chunk_search not in ("grid", "binary"):
        raise InvalidInstance("--param chunk_search", f"{chunk_search!r} is not grid or binary")
    plan = group_plan(instance, rule, n=_chunks(instance, n), lam=_lambda(instance, lam),
                      thm4_single=thm4_single, name=name, chunk_search=chunk_search)
    return _result(instance, plan)


def greedy(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
           n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Σ_greedy: §3.1 partition, greedy group chart in every coterie (§3.3f, §3.4, §3.6)."""
    return _group(instance, GREEDY, "greedy", n, lam, chunk_search)


def greedy_thm4(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
                n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Σ_greedy with Theorem 4's (Theorem 2's) chunks on single-worker slices (§6 Q3)."""
    return _group(instance, GREEDY, "greedy-thm4", n, lam, chunk_search, thm4_single=True)


def group_cyclic(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
                 n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Group schedule with the cyclic chart (§3.3a)."""
    return _group(instance, chart_rule(chart_cyclic), "group-cyclic", n, lam, chunk_search)


def group_reverse(instance, scenario: Any = None, priority: str | None = None, *,
                  seed: int = 0, n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Group schedule with the reverse chart (§3.3b)."""
    return _group(instance, chart_rule(chart_reverse), "group-reverse", n, lam, chunk_search)


def group_mirror(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
                 n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Group schedule with the mirror chart (§3.3c)."""
    return _group(instance, chart_rule(chart_mirror), "group-mirror", n, lam, chunk_search)


def group_snake(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
                n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Group schedule with the snake chart (§3.3d)."""
    return _group(instance, chart_rule(chart_snake), "group-snake", n, lam, chunk_search)


def group_fat_snake(instance, scenario: Any = None, priority: str | None = None, *,
                    seed: int = 0, n: float = 0.0, lam: float = 0.0,
        chunk_search: ChunkSearch = "grid") -> HeuristicResult:
    """Group schedule with the fat-snake chart (§3.3e)."""
    return _group(instance, chart_rule(chart_fat_snake), "group-fat-snake", n, lam, chunk_search)


def brute(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
          n: float = 0.0) -> HeuristicResult:
    """Σ_brute: the whole workload replicated on every worker, chunks in order (§3.5)."""
    return _result(instance, brute_plan(instance, n=_chunks(instance, n)))


def no_rep(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
           n: float = 0.0, chunk_rule: NoRepRule = "grid") -> HeuristicResult:
    """Σ_no-rep: round robin without replication (§3.5); ``chunk_rule`` chooses N when
    ``n = 0`` (`NO_REP_RULES`, decision WS-20)."""
    if chunk_rule not in NO_REP_RULES:
        raise InvalidInstance("--param chunk_rule",
                              f"{chunk_rule!r} is not one of {', '.join(NO_REP_RULES)}")
    return _result(instance, no_rep_plan(instance, n=_chunks(instance, n), rule=chunk_rule))


def cyclic_rep(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
               n: float = 0.0, lam: float = 0.0) -> HeuristicResult:
    """Σ_cyclic-rep: round robin continued to a local load of maxsl (§3.5, §6 Q11)."""
    return _result(instance, cyclic_rep_plan(instance, n=_chunks(instance, n),
                                             lam=_lambda(instance, lam)))


def random_rep(instance, scenario: Any = None, priority: str | None = None, *, seed: int = 0,
               n: float = 0.0, lam: float = 0.0) -> HeuristicResult:
    """Σ_random-rep: random distinct chunks up to a local load of maxsl, seeded (§6 Q12)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInstance("--seed", f"{seed!r} must be an integer >= 0")
    return _result(instance, random_rep_plan(instance, n=_chunks(instance, n), seed=seed,
                                             lam=_lambda(instance, lam)))
