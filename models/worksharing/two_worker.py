"""Two-worker models (spec 003 §2.4-§2.7), with the spec's errata.

- `thm6_mirrored`: Theorem 6, any risk: both workers get the same n equal chunks of W, in
  mirrored orders (asymptotically optimal).
- `thm7_single_chunk` / `thm7_value`: Theorem 7, linear risk, one chunk per worker: whole W on
  both if W <= X/2 (E = W(1 - kappa^2 W^2)), halves if X/2 < W <= X (E = W - kappa W^2/2), halves
  of X if W > X (E = X/2).
- `single_chunk_enumeration`: the independent certificate of Theorem 7: a dense grid over all
  single-chunk schedules (sizes a, b, symmetric or not) with minimal overlap max(0, a+b-W) (the
  overlap should be minimal for any risk: dE/do = -(1-Pr(a))(1-Pr(b)) <= 0), then a local
  polishing grid around the best point.
- `algorithm1`: Algorithm 1(n) of §2.7, with §6 Q17 (X < W < 2X and n < 3: Theorem 7 for n = 1,
  the better of the single-chunk and disjoint Theorem-2 schedules for n = 2).
- `thm8_value_large` (W >= 2X, exact; [ERRATUM] n/(n+1) X, not (1 - 1/n) X); Theorem 8's limit,
  an upper bound, is `resilsched.bounds.worksharing.thm8_limit`.
"""

from __future__ import annotations

import numpy as np

from resilsched.heuristics.worksharing.one_worker import thm2_free_linear
from resilsched.instances.worksharing.evaluate import IntervalSchedule, PieceSchedule


def thm6_mirrored(W: float, n: int) -> PieceSchedule:
    """Theorem 6 (§2.5): W_{1,i} = W_{2,n-i+1} = <(i-1)W/n, iW/n>."""
    return PieceSchedule(W, np.full(n, W / n), (np.arange(n), np.arange(n)[::-1].copy()))


def thm7_value(W: float, X: float) -> float:
    """Theorem 7's optimal single-chunk value (the three regimes of §2.6)."""
    kappa = 1.0 / X
    if W <= X / 2:
        return W * (1 - kappa ** 2 * W ** 2)
    if W <= X:
        return W - kappa * W ** 2 / 2
    return X / 2


def thm7_single_chunk(W: float, X: float) -> IntervalSchedule:
    """Theorem 7 (§2.6): the optimal symmetric single-chunk schedule."""
    if W <= X / 2:
        return IntervalSchedule(W, [[[(0.0, W)]], [[(0.0, W)]]])
    if W <= X:
        return IntervalSchedule(W, [[[(0.0, W / 2)]], [[(W / 2, W)]]])
    return IntervalSchedule(W, [[[(0.0, X / 2)]], [[(X / 2, X)]]])


def single_chunk_value(a, b, W: float, risk, eps: float = 0.0):
    """E of the two-worker single-chunk schedule, sizes a, b, minimal overlap (vectorised)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    o = np.maximum(0.0, a + b - W)
    fa = np.where(a > 0, risk.cdf(a + eps), 1.0)
    fb = np.where(b > 0, risk.cdf(b + eps), 1.0)
    return (a - o) * (1 - fa) + (b - o) * (1 - fb) + o * (1 - fa * fb)


def single_chunk_enumeration(W: float, risk, eps: float = 0.0, step: float = 1e-3,
                             polish: int = 3) -> tuple[float, float, float]:
    """Best single-chunk two-worker schedule by dense enumeration: (E, a, b).

    The grid covers a, b in [0, min(W, horizon)] with the given step relative to that range
    (1e-3: 1001 x 1001 points, the endpoints included), then ``polish`` rounds of a 201 x 201
    grid of 1/50 of the previous step around the best.
    """
    hi = min(W, risk.horizon)
    k = int(np.ceil(1.0 / step))
    g = np.linspace(0.0, hi, k + 1)
    A, B = np.meshgrid(g, g, indexing="ij")
    E = single_chunk_value(A, B, W, risk, eps)
    i = np.unravel_index(np.argmax(E), E.shape)
    best = (float(E[i]), float(A[i]), float(B[i]))
    h = hi / k
    for _ in range(polish):
        h /= 50
        ga = np.clip(best[1] + h * np.arange(-100, 101), 0.0, hi)
        gb = np.clip(best[2] + h * np.arange(-100, 101), 0.0, hi)
        A, B = np.meshgrid(ga, gb, indexing="ij")
        E = single_chunk_value(A, B, W, risk, eps)
        i = np.unravel_index(np.argmax(E), E.shape)
        if E[i] > best[0]:
            best = (float(E[i]), float(A[i]), float(B[i]))
    return best


def algorithm1(W: float, X: float, n: int) -> IntervalSchedule:
    """Algorithm 1(n) of §2.7 (two workers, linear risk, at most n chunks per worker)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    if W >= 2 * X:
        z = n / (n + 1) * X
        w1 = [[((i - 1) / n * z, i / n * z)] for i in range(1, n + 1)]
        w2 = [[(W - i / n * z, W - (i - 1) / n * z)] for i in range(1, n + 1)]
        return IntervalSchedule(W, [w1, w2])
    if W <= X:
        chunks = [[((i - 1) / n * W, i / n * W)] for i in range(1, n + 1)]
        return IntervalSchedule(W, [chunks, chunks[::-1]])
    ell = n // 3
    if ell == 0:  # §6 Q17
        if n == 1:
            return thm7_single_chunk(W, X)
        s2 = thm2_free_linear(W / 2, X, n)
        z = s2.W_dpl
        disjoint = IntervalSchedule(W, [[[((i - 1) / n * z, i / n * z)] for i in range(1, n + 1)],
                                        [[(W - i / n * z, W - (i - 1) / n * z)]
                                         for i in range(1, n + 1)]])
        if 2 * s2.expected >= thm7_value(W, X):
            return disjoint
        return thm7_single_chunk(W, X)
    d = W - X
    w1 = [[((i - 1) / ell * d, i / ell * d)] for i in range(1, ell + 1)]
    w2 = [[(W - i / ell * d, W - (i - 1) / ell * d)] for i in range(1, ell + 1)]
    shared = [[(d + (i - 1) / (2 * ell) * (2 * X - W), d + i / (2 * ell) * (2 * X - W))]
              for i in range(1, 2 * ell + 1)]
    return IntervalSchedule(W, [w1 + shared, w2 + shared[::-1]])


def thm8_value_large(X: float, n: int) -> float:
    """Theorem 8 case 1 (W >= 2X), exact optimum with the erratum: n/(n+1) X."""
    return n / (n + 1) * X

