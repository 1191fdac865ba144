"""Upper bounds on the optimal expected work of the worksharing family (spec 003 §2, §3.5, §7).

All bounds are >= E[W_cmp] of every static schedule (the family maximises):

- `omniscient_bound`: E[min(W, sum_j max(0, tau_j - eps))] (the omniscient reference of §3.5,
  §6 Q10). Any static schedule completes at most W units, and worker j completes at most
  tau_j - eps units of work (each completed chunk costs eps on top of its size), so the realised
  work of every schedule is at most this, trial by trial. Exact for linear risk (Irwin-Hall in
  exact rational arithmetic, K ~ Binomial(p, 1 - eps/X) workers with tau_j > eps, each
  contributing U(0, X - eps)) for at most `EXACT_OMNISCIENT_P` workers and
  `EXACT_OMNISCIENT_COST` big-integer terms (at most about 0.5 s); for other risks and larger
  linear instances each (tau_j - eps)^+ is rounded *up* to a grid of step W/M before an exact
  discrete convolution, which keeps it an upper bound (looser by at most p W/M).
- `one_worker_limit`: for one worker, a position x of the deployed work (in execution order)
  ends at T >= x + eps, so E <= integral_0^W (1 - Pr(x + eps)) dx (= W - kappa W^2/2 or X/2 for
  free linear risk, the n -> infinity limit of Theorem 2).
- `union_bound`: E <= min(W, p * one_worker_limit) (each worker's own contribution is a
  one-worker schedule).
- `thm8_limit` / `thm8_limit_bound`: two workers, linear risk: the limit of Algorithm 1 (§2.7),
  an upper bound on every finite-chunk schedule (free; charged through Theorem 1, E^c <= E^f)
  [I, §2.7 "Upper bounds"].
- `prop1_bound`: Proposition 1 for one coterie's chart (any chart, linear risk).
- `limit_bound`: the smallest of the applicable limits above (the registry's "limit");
- `static_bound`: the Lagrangian bound on static schedules of `resilsched.bounds.
  worksharing_static` (linear risk; issue 23), the registry's "static".
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from resilsched.bounds.worksharing_static import static_dual
from resilsched.instances.worksharing.risk import LinearRisk

#: largest exact omniscient computation: p workers and sum over K <= p of K (floor(min(w, K)) + 1)
#: big-integer terms (p = 100, W = 50: 0.16 s; p = 200: 0.8-1.6 s, p = 1000, W = 500: 234 s)
EXACT_OMNISCIENT_P = 120
EXACT_OMNISCIENT_COST = 500_000


def _irwin_hall_min(w: Fraction, K: int) -> Fraction:
    """E[min(w, S_K)], S_K = sum of K iid U(0,1), exactly."""
    if K == 0:
        return Fraction(0)
    if w >= K:
        return Fraction(K, 2)
    a, b = w.numerator, w.denominator
    s = 0
    for k in range(0, math.floor(w) + 1):
        s += (-1) ** k * math.comb(K, k) * (a - k * b) ** (K + 1)
    integral_F = Fraction(s, b ** (K + 1) * math.factorial(K + 1))
    return w - integral_F


def omniscient_linear_exact(W: float, p: int, X: float, eps: float) -> float:
    """E[min(W, sum_j (tau_j - eps)^+)] for tau_j ~ U(0, X) iid, exactly (then rounded)."""
    if eps >= X:
        return 0.0
    Xf, ef, Wf = Fraction(X), Fraction(eps), Fraction(W)
    L = Xf - ef
    q = L / Xf  # P(tau > eps)
    w = Wf / L
    total = Fraction(0)
    for K in range(1, p + 1):
        pk = math.comb(p, K) * q ** K * (1 - q) ** (p - K)
        total += pk * L * _irwin_hall_min(w, K)
    return float(total)


def omniscient_discretised(W: float, p: int, risk, eps: float, M: int = 4000) -> float:
    """Upper bound on E[min(W, sum_j (tau_j - eps)^+)] for any risk: round up to a W/M grid."""
    h = W / M
    k = np.arange(M + 1)
    # P(ceil(Y/h) <= k) >= P(Y <= k h) >= P(tau < k h + eps) = Pr(k h + eps): using the
    # smaller value puts mass on larger bins, i.e. a stochastically larger sum.
    cdf = np.asarray(risk.cdf(k[:-1] * h + eps), dtype=float)
    pmf = np.diff(np.concatenate([[0.0], cdf, [1.0]]))
    pmf = np.maximum(pmf, 0.0)

    def capped(x: np.ndarray) -> np.ndarray:
        out = x[: M + 1].copy()
        out[M] += x[M + 1:].sum()
        return out

    result = np.zeros(M + 1)
    result[0] = 1.0
    base, e = pmf, p
    while e:
        if e & 1:
            result = capped(np.convolve(result, base))
        e >>= 1
        if e:
            base = capped(np.convolve(base, base))
    return float(h * np.dot(k, result))


def exact_omniscient_cost(W: float, p: int, X: float, eps: float) -> int:
    """Big-integer terms of `omniscient_linear_exact` (its running time grows with this)."""
    if eps >= X:
        return 0
    w = W / (X - eps)
    if not math.isfinite(w):
        return EXACT_OMNISCIENT_COST + 1
    return sum(K * (math.floor(min(w, K)) + 1) for K in range(1, p + 1))


def omniscient_bound(inst) -> float:
    """The omniscient bound E[min(W, sum_j (tau_j - eps)^+)]: exact for linear risk when that
    is affordable (`EXACT_OMNISCIENT_P`, `EXACT_OMNISCIENT_COST`), else the discretised upper
    bound."""
    risk = inst.risk
    if isinstance(risk, LinearRisk) and inst.workers <= EXACT_OMNISCIENT_P and (
            exact_omniscient_cost(inst.W, inst.workers, risk.X, inst.eps)
            <= EXACT_OMNISCIENT_COST):
        return omniscient_linear_exact(inst.W, inst.workers, risk.X, inst.eps)
    return omniscient_discretised(inst.W, inst.workers, risk, inst.eps)


def one_worker_limit(W: float, risk, eps: float = 0.0) -> float:
    """integral_0^W (1 - Pr(x + eps)) dx: bound on any one-worker schedule."""
    return W - risk.cdf_integral(eps, W + eps)


def union_bound(inst) -> float:
    """min(W, p * one_worker_limit)."""
    return min(inst.W, inst.workers * one_worker_limit(inst.W, inst.risk, inst.eps))


def thm8_limit(W: float, X: float) -> float:
    """Limit of Algorithm 1 as n -> infinity (Theorem 8, derivation of §2.7).

    W <= X: W - kappa^2 W^3/6; X < W < 2X: 2W - X/3 - kappa W^2 + kappa^2 W^3/6; W >= 2X: X.
    An upper bound on every finite-chunk two-worker free-initiation schedule [I], and through
    Theorem 1 on charged ones too.
    """
    kappa = 1.0 / X
    if W <= X:
        return W - kappa ** 2 * W ** 3 / 6
    if W < 2 * X:
        return 2 * W - X / 3 - kappa * W ** 2 + kappa ** 2 * W ** 3 / 6
    return float(X)


def thm8_limit_bound(inst) -> float | None:
    """Theorem 8's limit for two workers under linear risk (None when it does not apply)."""
    if inst.workers != 2 or not isinstance(inst.risk, LinearRisk):
        return None
    return thm8_limit(inst.W, inst.risk.X)


def limit_bound(inst) -> float:
    """Smallest applicable limit: union bound, and Theorem 8's limit for p = 2 linear."""
    vals = [union_bound(inst)]
    t8 = thm8_limit_bound(inst)
    if t8 is not None:
        vals.append(t8)
    return min(vals)


def static_bound(inst) -> float:
    """The static bound min(W, min_c W v(c) + p X M(phi_c)) for linear risk
    (`resilsched.bounds.worksharing_static`); the omniscient bound for other risks."""
    if not isinstance(inst.risk, LinearRisk):
        return omniscient_bound(inst)
    return static_dual(inst.W, inst.workers, inst.risk.X, inst.eps).value


def prop1_bound(sl: float, n: int, g: int, kappa: float) -> float:
    """Proposition 1: E(sl, n, Σ) <= (1 - (sl kappa (n!)^(1/n) / n)^g) sl for any chart."""
    base = sl * kappa * math.exp(math.lgamma(n + 1) / n) / n
    return (1 - base ** g) * sl


def thm1_sandwich(E_free: float, n: int, eps: float) -> tuple[float, float]:
    """Theorem 1: E_n^f - n eps <= E_n^c <= E_n^f; returns (lower, upper)."""
    return E_free - n * eps, E_free
