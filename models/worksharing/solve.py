"""The worksharing family's exact / certified model (spec 003 §2, §7), as a registry `solve`.

Dispatch, first match wins (linear risk unless said otherwise; n = ``max_chunks``):

1. p = 1, linear: Theorem 2 (eps = 0) or Theorem 4 (eps > 0), certified by the HiGHS QP over
   m <= min(n, 200) chunks; status ``optimal`` (needs n when eps = 0, else the sup over n is
   the unattained limit: status ``feasible`` with n = 1000 and bound = the limit).
2. any p, linear, W >= p W_dpl* where W_dpl* is the one-worker optimal deployment with an
   unbounded workload: p disjoint one-worker optimal schedules are optimal (union bound: each
   worker's own contribution is a one-worker schedule, E <= p E_1*); this contains Theorem 8's
   case W >= 2X (value n/(n+1) X, erratum). Status ``optimal``.
3. p = 2, linear, n = 1, eps = 0: Theorem 7, certified by dense enumeration of all single-chunk
   schedules (`single_chunk_enumeration`); status ``optimal``.
4. p = 2, linear: Algorithm 1(n') with the best n' <= n (exact evaluator), status ``feasible``,
   bound = min(Theorem 8 limit, omniscient bound).
5. p = 1, other risks: Theorem 3's equal chunks with the best chunk count; p = 2, other
   risks: Theorem 6's mirrored equal chunks; p >= 3: the greedy group heuristic. Status
   ``feasible``, bound = the omniscient bound (the family's reference where no exact model
   applies).

The bound of an ``optimal`` solution is the proven optimum (closed form) raised to the
numerical certificate when the certificate is (within its tolerance) higher.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from resilsched.bounds.worksharing import limit_bound, omniscient_bound, one_worker_limit
from resilsched.heuristics.worksharing.schedules import argmax_int, group_schedule, n_max
from resilsched.instances.worksharing.risk import LinearRisk
from resilsched.models.worksharing.evaluate import PieceSchedule, expected_work
from resilsched.models.worksharing.one_worker import (
    qp_certificate,
    thm2_free_linear,
    thm3_equal_chunks,
    thm4_charged_linear,
)
from resilsched.models.worksharing.two_worker import (
    algorithm1,
    single_chunk_enumeration,
    thm6_mirrored,
    thm7_single_chunk,
    thm7_value,
)
from resilsched.solution import Solution, Status

CERT_M_MAX = 200
FREE_DEFAULT_N = 1000


def _one_worker_linear(W: float, X: float, eps: float, n: int | None):
    """(solution, n used, proven) for one worker under linear risk."""
    if eps > 0:
        return thm4_charged_linear(W, X, eps, n), n, True
    if n is None:
        return thm2_free_linear(W, X, FREE_DEFAULT_N), FREE_DEFAULT_N, False
    return thm2_free_linear(W, X, n), n, True


def _disjoint(W: float, p: int, chunks: tuple[float, ...]) -> PieceSchedule:
    sizes = np.array([c for c in chunks if c > 0] * p)
    k = len(sizes) // p if p else 0
    seqs = tuple(np.arange(j * k, (j + 1) * k) for j in range(p))
    return PieceSchedule(W, sizes, seqs)


def solve(inst, scenario: Any = None, time_limit: float | None = None,
          certify: bool = True) -> Solution:
    """Certified optimum where a theorem applies, else the best model schedule and a bound.

    ``certify=False`` skips the numerical certificates (HiGHS QP, enumeration); the status is
    still ``optimal`` where a theorem proves it.
    """
    t0 = time.perf_counter()
    risk, eps, p, W, n = inst.risk, inst.eps, inst.workers, inst.W, inst.max_chunks

    def done(obj, bound, status, method, solver, payload):
        return Solution(objective=float(obj), bound=float(bound), status=status,
                        method="certified", solver=solver,
                        wall_time=time.perf_counter() - t0,
                        payload={"model": method, **payload})

    if isinstance(risk, LinearRisk):
        X = risk.X
        if p == 1:
            sol, n_used, proven = _one_worker_linear(W, X, eps, n)
            sched = sol.schedule(W)
            E = expected_work(sched, risk, eps)
            if not proven:
                return done(E, limit_bound(inst), Status.FEASIBLE, "theorem2", "closed-form",
                            {"n": n_used, "schedule": sched.to_dict()})
            m_cap = min(n if n is not None else CERT_M_MAX, CERT_M_MAX)
            cert, m_star, _ = (qp_certificate(W, X, eps, m_cap) if certify
                               else (sol.expected, len(sol.chunks), None))
            name = "theorem4" if eps > 0 else "theorem2"
            return done(sol.expected, max(sol.expected, cert), Status.OPTIMAL, name,
                        "closed-form+highs-qp",
                        {"n": n_used, "qp_value": cert, "qp_chunks": m_star,
                         "certified_up_to_m": m_cap, "chunks": list(sol.chunks),
                         "W_dpl": sol.W_dpl, **sol.info, "schedule": sched.to_dict()})
        if eps > 0 or n is not None:
            one, n_used, _ = _one_worker_linear(float("inf"), X, eps, n)
            if one.W_dpl > 0 and W >= p * one.W_dpl * (1 + 1e-12):
                sched = _disjoint(W, p, one.chunks)
                E = expected_work(sched, risk, eps)
                return done(E, max(E, p * one.expected), Status.OPTIMAL, "disjoint-one-worker",
                            "closed-form", {"n": n_used, "schedule": sched.to_dict()})
        if p == 2:
            if n == 1 and eps == 0:
                sched2 = thm7_single_chunk(W, X)
                E = thm7_value(W, X)
                cert, a, b = (single_chunk_enumeration(W, risk) if certify
                              else (E, float("nan"), float("nan")))
                return done(E, max(E, cert), Status.OPTIMAL, "theorem7", "closed-form+enumeration",
                            {"enumeration_value": cert, "enumeration_sizes": [a, b],
                             "schedule": sched2.to_dict()})
            hi = min(n if n is not None else FREE_DEFAULT_N, n_max(W, eps))
            best_n = argmax_int(lambda k: expected_work(algorithm1(W, X, k), risk, eps), hi)
            sched2 = algorithm1(W, X, best_n)
            E = expected_work(sched2, risk, eps)
            bound = min(limit_bound(inst), omniscient_bound(inst))
            return _best_with_greedy(inst, done, E, bound, "algorithm1",
                                     {"n": best_n, "schedule": sched2.to_dict()})
    if p == 1:
        hi = min(n or n_max(W, eps), n_max(W, eps))
        best_n = argmax_int(lambda k: expected_work(thm3_equal_chunks(W, k), risk, eps), hi)
        sched = thm3_equal_chunks(W, best_n)
        E = expected_work(sched, risk, eps)
        bound = min(one_worker_limit(W, risk, eps), omniscient_bound(inst))
        return done(E, bound, Status.FEASIBLE, "theorem3", "closed-form",
                    {"n": best_n, "schedule": sched.to_dict()})
    if p == 2:
        hi = min(n or n_max(W, eps), n_max(W, eps))
        best_n = argmax_int(lambda k: expected_work(thm6_mirrored(W, k), risk, eps), hi)
        sched = thm6_mirrored(W, best_n)
        E = expected_work(sched, risk, eps)
        return _best_with_greedy(inst, done, E, omniscient_bound(inst), "theorem6",
                                 {"n": best_n, "schedule": sched.to_dict()})
    plan = group_schedule(inst, "greedy")
    E = expected_work(plan.schedule, risk, eps)
    return done(E, omniscient_bound(inst), Status.FEASIBLE, "greedy-reference", "heuristic",
                {"schedule": plan.to_dict()})


def _best_with_greedy(inst, done, E: float, bound: float, model: str, payload: dict):
    """Feasible two-worker answer: the model schedule or the greedy group schedule, the better."""
    plan = group_schedule(inst, "greedy")
    Eg = expected_work(plan.schedule, inst.risk, inst.eps)
    if Eg > E:
        return done(Eg, bound, Status.FEASIBLE, "greedy-reference", "heuristic",
                    {"schedule": plan.to_dict(), model: {"objective": E, **payload}})
    return done(E, bound, Status.FEASIBLE, model, "closed-form", payload)


def solve_qp_one_worker(inst, scenario: Any = None, time_limit: float | None = None) -> Solution:
    """The bare HiGHS QP certificate (p = 1, linear risk, max_chunks or eps > 0 required)."""
    t0 = time.perf_counter()
    if inst.workers != 1 or not isinstance(inst.risk, LinearRisk) or (
            inst.eps == 0 and inst.max_chunks is None):
        return Solution(None, None, Status.NO_SOLUTION, "qp-one-worker", "highs-qp",
                        time.perf_counter() - t0,
                        payload={"reason": "needs p = 1, linear risk and max_chunks or eps > 0"})
    n = inst.max_chunks
    m_cap = min(n, CERT_M_MAX) if n is not None else CERT_M_MAX
    val, m, w = qp_certificate(inst.W, inst.risk.X, inst.eps, m_cap)
    return Solution(val, val, Status.OPTIMAL, "qp-one-worker", "highs-qp",
                    time.perf_counter() - t0,
                    payload={"chunks": [float(x) for x in w], "m": m, "certified_up_to_m": m_cap})
