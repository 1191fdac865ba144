"""The worksharing family's exact / certified models (spec 003 §2, §7).

``certified`` (`solve`) dispatches, first match wins (linear risk unless said otherwise;
n = ``max_chunks``):

1. p = 1, linear: Theorem 2 (eps = 0) or Theorem 4 (eps > 0), certified by the HiGHS QP over
   m <= min(n, qp_max_chunks) chunks; status ``optimal`` (needs n when eps = 0, else the sup
   over n is the unattained limit: status ``feasible`` with n = 1000 and bound = the limit).
2. any p, linear, W >= p W_dpl* where W_dpl* is the one-worker optimal deployment with an
   unbounded workload: p disjoint one-worker optimal schedules are optimal (union bound: each
   worker's own contribution is a one-worker schedule, E <= p E_1*); this contains Theorem 8's
   case W >= 2X (value n/(n+1) X, erratum). Status ``optimal``.
3. p = 2, linear, n = 1, eps = 0: Theorem 7, certified by dense enumeration of all single-chunk
   schedules (`single_chunk_enumeration`); status ``optimal``.
4. p = 2, linear: Algorithm 1(n') with the best n' <= n (exact evaluator), status ``feasible``,
   bound = min(Theorem 8 limit, omniscient bound, static bound).
5. p = 1, other risks: Theorem 3's equal chunks with the best chunk count; p = 2, other
   risks: Theorem 6's mirrored equal chunks; p >= 3: the greedy group heuristic. Status
   ``feasible``, bound = the omniscient bound (the family's reference where no exact model
   applies), and the static bound too under linear risk.
In 4 and 5 with p = 2, the greedy group schedule replaces the model's when it is better; in 4
and 5 with linear risk (p >= 2), so does the static-types schedule (`static_types`: a type LP
over the chunks of the static bound `resilsched.bounds.worksharing_static`, eps > 0, at most
`MAX_STATIC_CHUNKS` chunks), docs/decisions.md WS-18, WS-19.

The time limit bounds the whole call: the chunk-count searches and the greedy reference stop
with the best count seen when their share of the time runs out, the certificates (QP scan,
enumeration) cover what they reached (``certified_up_to_m`` says how far), the static bound's
search of c and the type LP's pricing stop at theirs, and the other bounds are of bounded
cost (`resilsched.bounds.worksharing`). The schedule returned has at most
``max_entries`` chunk entries over all workers (by default 5000 per second of time limit, what
a caller can print in time; time is set aside for it before the QP certificate). A proven
optimum with more (Theorem 4 with a tiny eps has ~sqrt(2X/eps) chunks) is not returned as
such: the best schedule within that size is, with status ``feasible`` and the optimum as its
bound (``capped_from`` gives the optimum's chunk count). The bound of an
``optimal`` solution is the proven optimum (closed form) raised to the numerical certificate
when the certificate is (within its tolerance) higher.

``qp-one-worker`` (`solve_qp_one_worker`) is the bare HiGHS QP: ``optimal`` only when it
covered every useful chunk count (at most n, and m eps <= X), else ``feasible`` with the
one-worker limit as its bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.bounds.worksharing import limit_bound, omniscient_bound, one_worker_limit
from resilsched.bounds.worksharing_static import StaticDual, static_dual
from resilsched.errors import InvalidInstance
from resilsched.heuristics.worksharing.budget import Budget
from resilsched.heuristics.worksharing.one_worker import (
    OneWorkerSolution,
    thm2_free_linear,
    thm3_equal_chunks,
    thm4_charged_linear,
)
from resilsched.heuristics.worksharing.schedules import GREEDY, argmax_int, group_plan, n_max
from resilsched.instances.worksharing.evaluate import PieceSchedule, expected_work
from resilsched.instances.worksharing.risk import LinearRisk
from resilsched.models.worksharing.highs_qp import qp_scan
from resilsched.models.worksharing.payload import CertifiedPayload, QPPayload
from resilsched.models.worksharing.static_types import StaticSchedule, static_schedule
from resilsched.models.worksharing.two_worker import (
    algorithm1,
    single_chunk_enumeration,
    thm6_mirrored,
    thm7_single_chunk,
    thm7_value,
)
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status

FREE_DEFAULT_N = 1000
#: most chunks per worker the static schedule may have (its type LP has one row per chunk)
MAX_STATIC_CHUNKS = 1000
#: time set aside per chunk entry of the schedule returned, for the caller to print it (the
#: CLI's indented JSON takes up to ~50 us per entry on a loaded machine)
OUTPUT_SECONDS_PER_ENTRY = 5e-5
_QP_HELP = {"low": 1, "high": 5000,
            "help": "largest chunk count the HiGHS QP certificate covers (spec 003 §7)"}


@dataclass(frozen=True)
class CertifiedOptions(SolveOptions):
    """Options of the ``certified`` model (the `SolveOptions` and its own knobs); ``workers``
    and ``seed`` change nothing (the QP and the searches are sequential and deterministic)."""

    certify: bool = field(default=True, metadata={
        "help": "run the numerical certificates (HiGHS QP, enumeration) in the time left"})
    qp_max_chunks: int = field(default=200, metadata=_QP_HELP)
    max_entries: int = field(default=0, metadata={
        "low": 0, "high": 10_000_000,
        "help": "largest schedule returned, in chunk entries over all workers (0: 5000 per "
                "second of time limit, 2000 to 100000); a larger optimum becomes the bound of "
                "the best smaller schedule (status feasible)"})

    @property
    def entries(self) -> int:
        """The effective `max_entries`: what can be printed within the time limit."""
        if self.max_entries:
            return self.max_entries
        if self.time_limit is None:
            return 100_000
        return int(min(100_000, max(2_000, 5_000 * self.time_limit)))


@dataclass(frozen=True)
class QPOptions(SolveOptions):
    """Options of the ``qp-one-worker`` model."""

    qp_max_chunks: int = field(default=200, metadata=_QP_HELP)


class _Run:
    """One ``certified`` call: the instance, the options, the budget and the phases' times."""

    def __init__(self, inst, opts: CertifiedOptions):
        self.inst, self.opts = inst, opts
        self.budget = Budget.of(opts)
        self.phases: dict[str, float] = {}
        self.cut: list[str] = []
        self._bounds: float | None = None
        self._dual: StaticDual | None = None

    def phase(self, name: str, seconds: float) -> None:
        self.phases[name] = round(self.phases.get(name, 0.0) + seconds, 6)

    def search(self, name: str, f, hi: int, share: float, unit: float = 1.0) -> int:
        """`argmax_int` of f over 1..hi in `share` of the remaining budget."""
        self.opts.say(f"{name}: searching the chunk count in 1..{hi}")
        t0, budget = time.perf_counter(), self.budget.share(share)
        best = argmax_int(f, max(1, hi), budget=budget, unit=unit)
        self.phase(name, time.perf_counter() - t0)
        if budget.expired():
            self.cut.append(name)
        return best

    def greedy(self, share: float):
        """The greedy group schedule within `share` of the budget and `max_entries`."""
        self.opts.say("greedy reference: group schedule")
        t0, budget = time.perf_counter(), self.budget.share(share)
        cap = max(1, self.opts.entries // self.inst.workers)
        plan = group_plan(self.inst, GREEDY, budget=budget, chunk_cap=cap)
        E = expected_work(plan.schedule, self.inst.risk, self.inst.eps)
        self.phase("greedy reference", time.perf_counter() - t0)
        if budget.expired():
            self.cut.append("greedy reference")
        return plan, E

    def bound(self) -> float:
        """min(limit bound, omniscient bound, static bound), all of bounded cost."""
        if self._bounds is None:
            self.opts.say("bounds: limit and omniscient")
            t0 = time.perf_counter()
            self._bounds = min(limit_bound(self.inst), omniscient_bound(self.inst))
            self.phase("bounds", time.perf_counter() - t0)
            dual = self.dual()
            if dual is not None:
                self._bounds = min(self._bounds, dual.value)
        return self._bounds

    def has_dual(self) -> bool:
        """Whether the static bound applies: linear risk and at least two workers."""
        return isinstance(self.inst.risk, LinearRisk) and self.inst.workers >= 2

    def dual(self) -> StaticDual | None:
        """The static bound (linear risk, p >= 2; `resilsched.bounds.worksharing_static`),
        computed once; its scan stops at the deadline (every value it saw is a bound), and
        with ``deterministic=True`` it runs on a grid sized by the time limit alone."""
        inst = self.inst
        if self._dual is None and self.has_dual():
            self.opts.say("static bound: prices phi_c and the one-worker chunk program")
            t0 = time.perf_counter()
            kwargs: dict[str, Any] = {"deadline": self.opts.deadline}
            if self.opts.deterministic:
                cells = _deterministic_cells(self.opts.time_limit)
                kwargs = {"search_cells": cells, "final_cells": 10 * cells}
            self._dual = static_dual(inst.W, inst.workers, inst.risk.X, inst.eps, **kwargs)
            self.phase("static bound", time.perf_counter() - t0)
        return self._dual

    def static(self, share: float) -> StaticSchedule | None:
        """The schedule of the static bound (eps > 0, at most `MAX_STATIC_CHUNKS` chunks, the
        instance's max_chunks and max_entries), its type LP within `share` of the budget."""
        inst, dual = self.inst, self.dual()
        if dual is None or inst.eps <= 0 or not 0 < len(dual.chunk_ends) <= min(
                MAX_STATIC_CHUNKS, inst.max_chunks or MAX_STATIC_CHUNKS):
            return None
        self.opts.say(f"static schedule: type LP over {len(dual.chunk_ends)} chunks")
        t0 = time.perf_counter()
        budget = self.budget.share(share)
        out = static_schedule(inst.W, inst.workers, inst.risk, inst.eps, dual.chunk_ends,
                              budget, self.opts.entries)
        self.phase("static schedule", time.perf_counter() - t0)
        if out is not None and not out.converged:
            self.cut.append("static schedule")
        return out

    def done(self, obj: float, bound: float, status: Status, model: str, solver: str,
             schedule, facts: dict[str, Any] | None = None) -> Solution:
        info: dict[str, Any] = {"phases": self.phases}
        if self.cut:
            info["stopped_by_time_limit"] = self.cut
        return Solution(objective=float(obj), bound=float(bound), status=status,
                        method="certified", solver=solver,
                        wall_time=self.opts.deadline.elapsed(),
                        payload=CertifiedPayload(model, schedule, facts or {}), info=info)


def _one_worker_linear(W: float, X: float, eps: float, n: int | None) -> OneWorkerSolution:
    """Theorem 4 (eps > 0) or Theorem 2 (eps = 0, n required) with at most n chunks."""
    return thm4_charged_linear(W, X, eps, n) if eps > 0 else thm2_free_linear(W, X, n)


def _disjoint(W: float, p: int, chunks) -> PieceSchedule:
    one = np.asarray(chunks, dtype=float)
    one = one[one > 0]
    k = len(one)
    seqs = tuple(np.arange(j * k, (j + 1) * k) for j in range(p))
    return PieceSchedule(W, np.tile(one, p), seqs)


def solve(instance, scenario: Any = None, *, time_limit: float | None = None,
          **options) -> Solution:
    """Certified optimum where a theorem applies, else the best model schedule and a bound.

    ``certify=False`` skips the numerical certificates (HiGHS QP, enumeration); the status is
    still ``optimal`` where a theorem proves it. The worksharing family has no scenario.
    """
    opts = CertifiedOptions.of(time_limit, options)
    run = _Run(instance, opts)
    risk, p = instance.risk, instance.workers
    if p > opts.entries:
        raise InvalidInstance("workers", f"{p} workers need more chunk entries than "
                                         f"max_entries={opts.entries} (--param max_entries)")
    if isinstance(risk, LinearRisk):
        if p == 1 and (instance.eps > 0 or instance.max_chunks is not None):
            return _theorem_one_worker(run)
        if p == 1:
            return _theorem2_unbounded(run)
        if instance.eps > 0 or instance.max_chunks is not None:
            sol = _disjoint_optimum(run)
            if sol is not None:
                return sol
        if p == 2 and instance.max_chunks == 1 and instance.eps == 0:
            return _theorem7(run)
        if p == 2:
            return _algorithm1(run)
    if p == 1:
        return _theorem3(run)
    if p == 2:
        return _theorem6(run)
    plan, E = run.greedy(0.3 if run.has_dual() else 0.8)
    return _best_with_static(run, E, "greedy-reference", "heuristic", plan.schedule,
                             _plan_facts(plan))


def _plan_facts(plan) -> dict[str, Any]:
    return {"heuristic": plan.name, "chunk_counts": [int(c) for c in plan.chunk_counts],
            "coteries": [{"g": c.g, "sl": c.sl} for c in plan.coteries]}


def _theorem_one_worker(run: _Run) -> Solution:
    """Case 1: Theorem 4 (eps > 0) or Theorem 2 (eps = 0, n given), QP-certified."""
    inst, opts = run.inst, run.opts
    W, X, eps, n = inst.W, inst.risk.X, inst.eps, inst.max_chunks
    name = "theorem4" if eps > 0 else "theorem2"
    opts.say(f"{name}: closed form")
    t0 = time.perf_counter()
    sol = _one_worker_linear(W, X, eps, n)
    m_opt = sol.nonzero()
    capped = m_opt > opts.entries
    best = _one_worker_linear(W, X, eps, opts.entries) if capped else sol
    sched = best.schedule(W)
    E = expected_work(sched, inst.risk, eps) if capped else sol.expected
    run.phase("closed form", time.perf_counter() - t0)
    facts: dict[str, Any] = {"n": n}
    cert = sol.expected
    m_cap = min(n if n is not None else opts.qp_max_chunks, opts.qp_max_chunks)
    if opts.certify and not run.budget.expired():
        opts.say(f"certificate: HiGHS QP over 1..{m_cap} chunks")
        t0 = time.perf_counter()
        reserve = OUTPUT_SECONDS_PER_ENTRY * len(sched.sizes)
        scan = qp_scan(W, X, eps, m_cap, run.budget.share(0.75, reserve))
        run.phase("qp certificate", time.perf_counter() - t0)
        if not scan.complete:
            run.cut.append("qp certificate")
        cert = scan.value
        facts.update({"qp_value": scan.value, "qp_chunks": scan.m,
                      "certified_up_to_m": scan.covered})
    facts.update({"chunks": np.asarray(best.chunks).tolist(), "W_dpl": best.W_dpl, **best.info})
    if capped:
        facts["capped_from"] = m_opt
        return run.done(E, max(sol.expected, cert, E), Status.FEASIBLE, name, "closed-form",
                        sched, facts)
    return run.done(sol.expected, max(sol.expected, cert), Status.OPTIMAL, name,
                    "closed-form+highs-qp" if "qp_value" in facts else "closed-form",
                    sched, facts)


def _theorem2_unbounded(run: _Run) -> Solution:
    """p = 1, eps = 0, no cap: the sup over n is a limit (docs/decisions.md WS-2)."""
    inst = run.inst
    n = min(FREE_DEFAULT_N, run.opts.entries)
    sched = thm2_free_linear(inst.W, inst.risk.X, n).schedule(inst.W)
    E = expected_work(sched, inst.risk, inst.eps)
    return run.done(E, limit_bound(inst), Status.FEASIBLE, "theorem2", "closed-form", sched,
                    {"n": n})


def _disjoint_optimum(run: _Run) -> Solution | None:
    """Case 2: p disjoint one-worker optima when W >= p W_dpl* (docs/decisions.md WS-6)."""
    inst, opts = run.inst, run.opts
    W, p, X, eps, n = inst.W, inst.workers, inst.risk.X, inst.eps, inst.max_chunks
    one = _one_worker_linear(math.inf, X, eps, n)
    if not (one.W_dpl > 0 and W >= p * one.W_dpl * (1 + 1e-12)):
        return None
    opts.say("disjoint one-worker optima")
    m_opt = one.nonzero()
    cap = max(1, opts.entries // p)
    best = _one_worker_linear(math.inf, X, eps, cap) if m_opt > cap else one
    sched = _disjoint(W, p, best.chunks)
    E = expected_work(sched, inst.risk, eps)
    if m_opt > cap:
        return run.done(E, max(E, p * one.expected), Status.FEASIBLE, "disjoint-one-worker",
                        "closed-form", sched, {"n": n, "capped_from": m_opt})
    return run.done(E, max(E, p * one.expected), Status.OPTIMAL, "disjoint-one-worker",
                    "closed-form", sched, {"n": n})


def _theorem7(run: _Run) -> Solution:
    """Case 3: Theorem 7, two workers, one chunk each, free initiation."""
    inst, opts = run.inst, run.opts
    W, X = inst.W, inst.risk.X
    sched = thm7_single_chunk(W, X)
    E = thm7_value(W, X)
    facts: dict[str, Any] = {}
    cert = E
    if opts.certify and not run.budget.expired():
        opts.say("certificate: enumeration of single-chunk schedules")
        t0 = time.perf_counter()
        cert, a, b = single_chunk_enumeration(W, inst.risk)
        run.budget.spend(1_000_000)  # about the grid's size
        run.phase("enumeration", time.perf_counter() - t0)
        facts = {"enumeration_value": cert, "enumeration_sizes": [a, b]}
    elif opts.certify:
        run.cut.append("enumeration")
    return run.done(E, max(E, cert), Status.OPTIMAL, "theorem7",
                    "closed-form+enumeration" if facts else "closed-form", sched, facts)


def _algorithm1(run: _Run) -> Solution:
    """Case 4: Algorithm 1(n') with the best n' <= n, or the greedy schedule if better."""
    inst = run.inst
    W, X, eps, risk, n = inst.W, inst.risk.X, inst.eps, inst.risk, inst.max_chunks
    hi = min(n if n is not None else FREE_DEFAULT_N, n_max(W, eps), run.opts.entries // 2)
    best_n = run.search("algorithm1", lambda k: expected_work(algorithm1(W, X, k), risk, eps),
                        hi, 0.4, unit=2)
    sched = algorithm1(W, X, best_n)
    E = expected_work(sched, risk, eps)
    return _best_with_greedy(run, E, "algorithm1", sched, {"n": best_n})


def _theorem3(run: _Run) -> Solution:
    """Case 5, p = 1: Theorem 3's equal chunks, best count; bound = one-worker limit."""
    inst = run.inst
    W, eps, risk, n = inst.W, inst.eps, inst.risk, inst.max_chunks
    hi = min(n or n_max(W, eps), n_max(W, eps), run.opts.entries)
    best_n = run.search("theorem3", lambda k: expected_work(thm3_equal_chunks(W, k), risk, eps),
                        hi, 0.8)
    sched = thm3_equal_chunks(W, best_n)
    E = expected_work(sched, risk, eps)
    bound = min(one_worker_limit(W, risk, eps), run.bound())
    return run.done(E, bound, Status.FEASIBLE, "theorem3", "closed-form", sched, {"n": best_n})


def _theorem6(run: _Run) -> Solution:
    """Case 5, p = 2: Theorem 6's mirrored equal chunks, best count, or the greedy schedule."""
    inst = run.inst
    W, eps, risk, n = inst.W, inst.eps, inst.risk, inst.max_chunks
    hi = min(n or n_max(W, eps), n_max(W, eps), run.opts.entries // 2)
    best_n = run.search("theorem6", lambda k: expected_work(thm6_mirrored(W, k), risk, eps),
                        hi, 0.4, unit=2)
    sched = thm6_mirrored(W, best_n)
    E = expected_work(sched, risk, eps)
    return _best_with_greedy(run, E, "theorem6", sched, {"n": best_n})


def _best_with_greedy(run: _Run, E: float, model: str, sched, facts: dict) -> Solution:
    """Feasible two-worker answer: the model schedule, the greedy group schedule or the static
    schedule, the best."""
    plan, Eg = run.greedy(0.3 if run.has_dual() else 0.8)
    if Eg > E:
        facts = {**_plan_facts(plan), model: {"objective": E, **facts}}
        E, model, solver, sched = Eg, "greedy-reference", "heuristic", plan.schedule
    else:
        solver = "closed-form"
    return _best_with_static(run, E, model, solver, sched, facts)


def _best_with_static(run: _Run, E: float, model: str, solver: str, sched,
                      facts: dict) -> Solution:
    """The given schedule or the static one (`_Run.static`), the better, with the best bound."""
    bound = run.bound()
    static = run.static(0.9)
    dual = run.dual()
    if dual is not None:
        facts = {**facts, "static_c": dual.c}
    if static is not None:
        facts = {**facts, "static": {"chunks": static.chunks, "types": static.types,
                                     "lp_value": static.lp_value,
                                     "converged": static.converged}}
        if static.expected > E:
            return run.done(static.expected, bound, Status.FEASIBLE, "static-types", "type-lp",
                            static.schedule,
                            {**facts, "replaced": {"model": model, "objective": E}})
    return run.done(E, bound, Status.FEASIBLE, model, solver, sched, facts)


def _deterministic_cells(time_limit: float | None) -> int:
    """Cells of the static bound's c search under ``deterministic=True``: from the time limit
    alone (500 per second of limit, 200 to 4000), so the answer repeats on any machine."""
    if time_limit is None:
        return 4000
    return int(min(4000, max(200, 500 * time_limit)))


def solve_qp_one_worker(instance, scenario: Any = None, *, time_limit: float | None = None,
                        **options) -> Solution:
    """The bare HiGHS QP (p = 1, linear risk, max_chunks or eps > 0 required)."""
    opts = QPOptions.of(time_limit, options)
    inst = instance
    if inst.workers != 1 or not isinstance(inst.risk, LinearRisk) or (
            inst.eps == 0 and inst.max_chunks is None):
        return Solution(None, None, Status.NO_SOLUTION, "qp-one-worker", "highs-qp",
                        opts.deadline.elapsed(),
                        payload={"reason": "needs p = 1, linear risk and max_chunks or eps > 0"})
    W, X, eps, n = inst.W, inst.risk.X, inst.eps, inst.max_chunks
    m_cap = min(n, opts.qp_max_chunks) if n is not None else opts.qp_max_chunks
    opts.say(f"HiGHS QP over 1..{m_cap} chunks")
    scan = qp_scan(W, X, eps, m_cap, Budget.of(opts))
    # every useful count was solved: all of 1..n, or up to the first infeasible one
    proven = scan.exhausted or (scan.complete and n is not None and scan.covered >= n)
    payload = QPPayload(W, scan.w, scan.m, scan.covered)
    info = {"chunk_counts_solved": scan.covered}
    if proven:
        return Solution(scan.value, scan.value, Status.OPTIMAL, "qp-one-worker", "highs-qp",
                        opts.deadline.elapsed(), payload=payload, info=info)
    bound = max(scan.value, one_worker_limit(W, inst.risk, eps))
    return Solution(scan.value, bound, Status.FEASIBLE, "qp-one-worker", "highs-qp",
                    opts.deadline.elapsed(), payload=payload, info=info)
