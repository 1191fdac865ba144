"""Processor allocations of the moldable family (spec 000 §3.2, §3.3, §3.5).

- `lpa` — Algorithm 2 (Local Processor Allocation): per job, the p minimising
  r(a_j(p)/a_min,j, t_j(p)/t_min,j) of Eq. 10, scanning p = 1..P ascending with a strict ``<``
  (the smallest p wins ties, spec §7 item 3). O(nP), vectorised over an n x P table.
- `lpa_proof` — the explicit allocations of the proofs of Thms 1-6 (§3.3, App. A-B, with the
  mix-model erratum p' = ceil((w'+d')/(sqrt(w') + d')) and the cap at P).
- `mintime` / `minarea` — argmin_p t_j(p) / a_j(p), smallest p on ties (§3.5).

>>> from resilsched.instances.moldable import MoldableInstance, Roofline, Amdahl
>>> inst = MoldableInstance(8, (Roofline(12, 3), Amdahl(8, 0.25)))
>>> lpa(inst).tolist()
[3, 2]
"""

from __future__ import annotations

import math

import numpy as np

from resilsched.bounds.moldable import r_alpha_beta
from resilsched.instances.moldable.speedup import Amdahl, Communication, Mix, Power, Roofline

#: rows of the n x P table processed at once (bounds the temporary memory)
CHUNK = 64


def lpa_ratios(instance, rows: slice | None = None) -> np.ndarray:
    """r_j(p) = r(alpha_j(p), beta_j(p)) for every job and p (Eq. 10 inside Algorithm 2)."""
    T = instance.T if rows is None else instance.T[rows]
    ps = np.arange(1, instance.P + 1, dtype=float)
    A = T * ps
    alpha = A / A.min(axis=1, keepdims=True)
    beta = T / T.min(axis=1, keepdims=True)
    return r_alpha_beta(alpha, beta, instance.P)


def lpa(instance, rtol: float = 0.0) -> np.ndarray:
    """Algorithm 2: p_j = first p (ascending) with the smallest r_j(p) (strict ``<``).

    ``rtol`` > 0 (spec §7 item 3, default 0 = exact) treats values within a relative rtol of
    the minimum as ties, and the smallest such p wins.
    """
    out = np.empty(instance.n, dtype=np.int64)
    for lo in range(0, instance.n, CHUNK):
        r = lpa_ratios(instance, slice(lo, lo + CHUNK))
        if rtol > 0:
            best = r.min(axis=1, keepdims=True)
            out[lo:lo + CHUNK] = np.argmax(r <= best * (1 + rtol), axis=1) + 1
        else:
            out[lo:lo + CHUNK] = np.argmin(r, axis=1) + 1
    return out


def lpa_job_ratios(instance, p) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-job (alpha_j, beta_j, r_j) of an allocation p (one processor count per job)."""
    p = np.asarray(p, dtype=np.int64)
    T = instance.T
    idx = np.arange(instance.n)
    t = T[idx, p - 1]
    tmin = T.min(axis=1)
    amin = (T * np.arange(1, instance.P + 1)).min(axis=1)
    alpha = t * p / amin
    beta = t / tmin
    return alpha, beta, r_alpha_beta(alpha, beta, instance.P)


def mintime(instance) -> np.ndarray:
    """MINTIME (SET): p_j = smallest argmin_p t_j(p) (§3.5)."""
    return np.argmin(instance.T, axis=1).astype(np.int64) + 1


#: relative tolerance of MINAREA's arg-min: p (w / p) is not exactly w in floating point
AREA_RTOL = 1e-12


def minarea(instance, rtol: float = AREA_RTOL) -> np.ndarray:
    """MINAREA: p_j = smallest p with a_j(p) <= (1 + rtol) min_p a_j(p) (§3.5).

    The tolerance makes the paper's "one processor for all jobs" hold for roofline, whose area
    is constant up to pbar in exact arithmetic but jitters by one ulp in floats.
    """
    out = np.empty(instance.n, dtype=np.int64)
    ps = np.arange(1, instance.P + 1)
    for lo in range(0, instance.n, CHUNK):
        A = instance.T[lo:lo + CHUNK] * ps
        best = A.min(axis=1, keepdims=True)
        out[lo:lo + CHUNK] = np.argmax(A <= best * (1.0 + rtol), axis=1) + 1
    return out


# ---------------------------------------------------------------------------------------------
# Proof allocations (§3.3)
# ---------------------------------------------------------------------------------------------
def _argmin_time_upto(job, cap: int) -> int:
    t = job.t(np.arange(1, cap + 1))
    return int(np.argmin(t)) + 1


def _communication_proof(w: float, c: float, P: int) -> int:
    """App. A: the rule of Thm 2 (cases 1, 2.1-2.3, 3 with Eq. 12)."""
    if c == 0:
        return P
    h = 0.5 * math.sqrt(w / c)
    if h > P:
        return P
    if h < 1.5:
        pstar = math.sqrt(w / c)
        ps = np.arange(1, P + 1, dtype=float)
        pmin = int(np.argmin(w / ps + (ps - 1) * c)) + 1
        if pmin == 1:
            return 1
        if pstar <= 2:
            return 1
        return min(2, P)
    q = math.floor(h)
    return min(P, q if h - q <= 0.2 else q + 1)


def _mix_proof(job: Mix, P: int) -> int:
    """App. B with the erratum p' = ceil((w'+d')/(sqrt(w')+d')) and the cap at P (§3.3)."""
    cap = int(min(P, math.floor(float(job.pbar))))
    form = job.analysis_form()
    if form is None:  # c = 0: roofline + Amdahl; fastest p up to the cap
        return _argmin_time_upto(job, max(cap, 1))
    wp, dp = form
    if wp <= 1:
        return 1
    pp = math.ceil((wp + dp) / (math.sqrt(wp) + dp))
    if pp <= cap:
        return pp
    return _argmin_time_upto(job, max(cap, 1))


def proof_allocation(job, P: int) -> int:
    """The allocation used by the proof of the theorem for `job`'s model (§3.3)."""
    if isinstance(job, Roofline):
        return int(min(P, math.floor(float(job.pbar))))
    if isinstance(job, Communication):
        return _communication_proof(float(job.w), float(job.c), P)
    if isinstance(job, Amdahl):
        g = float(job.gamma)
        if g == 0:
            return P
        return int(min(P, math.ceil(float(job.w_par) / float(job.w_seq))))
    if isinstance(job, Mix):
        return _mix_proof(job, P)
    if isinstance(job, Power):
        return int(max(1, min(P, round(P ** float(job.delta)))))
    return max(1, math.isqrt(P))  # monotonic / table: floor(sqrt P) (Thm 6)


def lpa_proof(instance) -> np.ndarray:
    """`proof_allocation` for every job (the ``LPA-PROOF`` heuristic)."""
    return np.array([proof_allocation(job, instance.P) for job in instance.jobs], dtype=np.int64)
