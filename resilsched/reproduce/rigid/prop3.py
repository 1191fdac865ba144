"""The numerics of §4.4 for Proposition 3 (spec 002 §6.3, A19): R-SHELF's expected makespan
ratio on the Proposition 3 instance with P = 10 under exponential errors.

Instance: P uniprocessor jobs on P processors, t_j = s / j (j = 1..P) for a time scale s; each
attempt of job j fails with probability q_j = 1 - exp(-lambda t_j) (a_j = t_j since p_j = 1), so
N_j = f_j + 1 attempts are geometric: P(N_j >= k) = q_j^(k-1). The paper reports "the expected
makespan ratio of R-SHELF is 1.00005 for lambda = 1e-7 and 1.07 for lambda = 1e-3" without the
time unit; the spec infers (A19) that s = 1000 (t_j = 1000/j) and the ratio of expectations
E[T_S] / E[T_OPT] reproduce both numbers. This module computes them exactly up to a truncation
below 1e-15 (no Monte Carlo), for both scales, plus the mean of the per-scenario ratios by Monte
Carlo for comparison.

- R-SHELF (either b, any priority: every pending job fits in a shelf of P processors): shelf k
  holds the k-th attempt of every job with N_j >= k and lasts t of its lowest index, so
  T_S = sum_j t_j max(0, N_j - max_{l<j} N_l), and
  E[T_S] = sum_k sum_i t_i q_i^(k-1) prod_{l<i} (1 - q_l^(k-1)).
- OPT: each job on its own processor, attempts back to back, T_OPT(f) = t_max(f) = max_j N_j t_j
  (the lower bound (5) is reached); E[T_OPT] = integral of P(max_j N_j t_j > x) dx, a finite sum
  over the breakpoints n t_j with exact rational breakpoints.
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction

import numpy as np

#: The paper's two numbers (§4.4): lambda -> expected makespan ratio of R-SHELF at P = 10.
PAPER_PROP3 = {1e-7: 1.00005, 1e-3: 1.07}
#: Time scales tried: t_j = 1/j as the instance is written, t_j = 1000/j (A19).
SCALES = (1, 1000)
TAIL = 1e-15


def _times(P: int, scale: int) -> list[Fraction]:
    return [Fraction(scale, j) for j in range(1, P + 1)]


def _probabilities(times: list[Fraction], lam: float) -> list[float]:
    return [-math.expm1(-lam * float(t)) for t in times]


def expected_shelf_makespan(times: list[Fraction], q: list[float]) -> float:
    """E[T_S] by the series of the module docstring (times decreasing in j)."""
    total = 0.0
    k = 1
    while True:
        term = 0.0
        below = 1.0  # prod_{l<i} P(N_l < k)
        for t, qi in zip(times, q, strict=True):
            reach = qi ** (k - 1)  # P(N_i >= k)
            term += float(t) * reach * below
            below *= 1.0 - reach
        total += term
        if term < TAIL * total:
            return total
        k += 1


def expected_optimum(times: list[Fraction], q: list[float]) -> float:
    """E[max_j N_j t_j]: t_1 plus the integral of P(max > x) over [t_1, inf), piecewise
    constant between the breakpoints n t_j (visited in increasing order with a heap)."""
    counts = [int(times[0] // t) for t in times]  # floor(t_1 / t_j): N_j <= counts[j] at x = t_1
    heap = [((c + 1) * t, j) for j, (c, t) in enumerate(zip(counts, times, strict=True))]
    heapq.heapify(heap)
    x = times[0]
    total = float(x)
    while True:
        cdf = 1.0
        for c, qi in zip(counts, q, strict=True):
            cdf *= 1.0 - qi ** c  # P(N_j <= c)
        nxt = heap[0][0]
        piece = (1.0 - cdf) * float(nxt - x)
        total += piece
        if 1.0 - cdf < TAIL * total / float(times[0]):
            return total
        while heap[0][0] == nxt:  # every job with a breakpoint at nxt moves on
            _, j = heapq.heappop(heap)
            counts[j] += 1
            heapq.heappush(heap, ((counts[j] + 1) * times[j], j))
        x = nxt


def shelf_makespans(times: list[Fraction], attempts: np.ndarray) -> np.ndarray:
    """T_S per row of an (scenarios, P) array of attempt counts N_j (module docstring)."""
    t = np.array([float(x) for x in times])
    before = np.maximum.accumulate(np.concatenate(
        [np.zeros((attempts.shape[0], 1)), attempts[:, :-1]], axis=1), axis=1)
    return (np.maximum(attempts - before, 0) * t).sum(axis=1)


def sample_ratio(times: list[Fraction], q: list[float], samples: int,
                 seed: int) -> tuple[float, float]:
    """Mean and standard error of T_S / T_OPT over `samples` drawn scenarios."""
    rng = np.random.default_rng(seed)
    n = rng.geometric(1.0 - np.asarray(q), size=(samples, len(q)))
    t = np.array([float(x) for x in times])
    ratio = shelf_makespans(times, n) / (n * t).max(axis=1)
    return float(ratio.mean()), float(ratio.std(ddof=1) / math.sqrt(samples))


def prop3_rows(P: int = 10, samples: int = 100_000, seed: int = 0) -> list[dict[str, float]]:
    """One row per (time scale, lambda): E[T_S], E[T_OPT], their ratio, the Monte Carlo mean of
    the per-scenario ratio with its standard error, and the paper's number."""
    rows = []
    for scale in SCALES:
        times = _times(P, scale)
        for lam, paper in PAPER_PROP3.items():
            q = _probabilities(times, lam)
            es, eo = expected_shelf_makespan(times, q), expected_optimum(times, q)
            mean, se = sample_ratio(times, q, samples, seed)
            rows.append({"P": P, "scale": scale, "lambda": lam, "E_TS": es, "E_TOPT": eo,
                         "ratio": es / eo, "mean_ratio": mean, "mean_ratio_se": se,
                         "samples": samples, "paper": paper})
    return rows


def prop3_markdown(rows: list[dict[str, float]]) -> str:
    from resilsched.reproduce.rigid.report import md_table

    body = [[f"t_j = {r['scale']}/j", f"{r['lambda']:g}", f"{r['E_TS']:.6f}",
             f"{r['E_TOPT']:.6f}", f"{r['ratio']:.7f}",
             f"{r['mean_ratio']:.5f} ± {r['mean_ratio_se']:.1e}", r["paper"]] for r in rows]
    return (f"Proposition 3 numerics (§4.4), P = {rows[0]['P']}: R-SHELF's expected makespan "
            "ratio, exact series (E[T_S] / E[T_OPT]) and Monte Carlo mean of T_S/T_OPT "
            f"({rows[0]['samples']} scenarios, ± one standard error)\n\n"
            + md_table(["times", "lambda", "E[T_S]", "E[T_OPT]", "E[T_S]/E[T_OPT]",
                        "mean T_S/T_OPT", "paper"], body))
