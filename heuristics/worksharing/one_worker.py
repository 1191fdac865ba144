"""One-worker closed forms (spec 003 §2.1-§2.3): the optimal chunk schedules of Theorems 2 and 4
and Theorem 3's equal chunks. They live with the heuristics, the lowest layer that uses them
(`greedy-thm4` gives single-worker slices Theorem 4's chunks); the exact model
(`resilsched.models.worksharing`) builds on them and certifies them with a HiGHS QP.

- `thm2_free_linear`: Theorem 2, free initiation, linear risk, at most n chunks: n equal chunks
  of W_dpl = min(W, nX/(n+1)); E = W_dpl - (1 + 1/n) kappa W_dpl^2 / 2.
- `thm4_charged_linear`: Theorem 4, charged initiation (cost eps), linear risk: m = min(n, n1,
  n2) chunks decreasing by eps, W_dpl of Eq. 5, E of Eq. 6.
- `thm3_equal_chunks`: Theorem 3, any risk: all of W in n equal chunks (asymptotically optimal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from resilsched.instances.worksharing.evaluate import PieceSchedule


@dataclass(frozen=True)
class OneWorkerSolution:
    """A one-worker chunk schedule with its closed-form value.

    The m chunk sizes are first, first - step, ..., first - (m - 1) step (clipped at 0): equal
    chunks for Theorem 2, decreasing by eps for Theorem 4. They are built on demand
    (`chunks`), since m grows like sqrt(2X/eps) and may be astronomically large (eps = 1e-30
    gives ~1e15 chunks) where only the value is wanted.
    """

    m: int
    first: float
    step: float
    expected: float
    W_dpl: float
    info: dict = field(default_factory=dict)

    @property
    def chunks(self) -> np.ndarray:
        """The chunk sizes (an array of m floats; zero-size chunks included)."""
        return np.maximum(0.0, self.first - self.step * np.arange(self.m))

    def nonzero(self) -> int:
        """Number of chunks of positive size (the last one may be 0, §2.3 boundary cases)."""
        if self.m == 0:
            return 0
        return self.m if self.first - self.step * (self.m - 1) > 0 else self.m - 1

    def schedule(self, W: float) -> PieceSchedule:
        """The chunks as a schedule of `W`, zero-size chunks skipped (§1.3)."""
        sizes = np.asarray(self.chunks, dtype=float)
        sizes = sizes[sizes > 0]
        return PieceSchedule(W, sizes, (np.arange(len(sizes)),))


def thm2_free_linear(W: float, X: float, n: int) -> OneWorkerSolution:
    """Theorem 2 (§2.1): the unique optimal free-initiation schedule with at most n chunks."""
    if n < 1:
        raise ValueError("n must be >= 1")
    kappa = 1.0 / X
    W_dpl = min(W, n * X / (n + 1))
    E = W_dpl - 0.5 * (1 + 1 / n) * kappa * W_dpl ** 2
    return OneWorkerSolution(n, W_dpl / n, 0.0, E, W_dpl, {"n": n})


def _largest_m(limit: float, offset: int) -> int:
    """Largest integer m >= 0 with m (m + offset) / 2 <= limit (relative tolerance 1e-12,
    at most 1/4: exact squares computed in floating point count as squares).

    The float estimate is corrected by a few steps at most. Limits beyond 1e300 (X/eps with
    eps near the smallest float) are clipped to 1e300: m is then ~1.4e150 and everything
    computed from it stays finite.
    """
    limit = min(limit, 1e300)
    m = max(0, int((math.sqrt(1 + 8 * limit) - offset) / 2) + 1)
    tol = min(1e-12 * max(1.0, limit), 0.25)
    for _ in range(4):
        if m > 0 and m * (m + offset) / 2 > limit + tol:
            m -= 1
    for _ in range(4):
        if (m + 1) * (m + 1 + offset) / 2 <= limit + tol:
            m += 1
    return m


def thm4_n1_n2(W: float, X: float, eps: float) -> tuple[int, int]:
    """n1 = largest m with m(m+1)/2 <= X/eps; n2 = largest m with m(m-1)/2 <= W/eps (§6 Q18).

    An infinite W limits nothing: n2 = n1 + 1 then."""
    n1 = _largest_m(X / eps, 1)
    return n1, (_largest_m(W / eps, -1) if math.isfinite(W) else n1 + 1)


def thm4_charged_linear(W: float, X: float, eps: float, n: int | None = None) -> OneWorkerSolution:
    """Theorem 4 (§2.3): the optimal charged-initiation schedule with at most n chunks.

    ``n=None`` means unbounded (the optimum is reached for any n >= min(n1, n2)). Zero-size
    chunks (exact squares, §2.3 boundary cases) are kept in ``chunks`` but are skipped by
    `OneWorkerSolution.schedule`. When X < eps no chunk can ever complete and E = 0.
    """
    if eps <= 0:
        raise ValueError("eps must be > 0 (use thm2_free_linear for eps = 0)")
    kappa = 1.0 / X
    if X < eps:
        return OneWorkerSolution(0, 0.0, 0.0, 0.0, 0.0, {"n1": 0, "n2": 0, "m": 0})
    n1, n2 = thm4_n1_n2(W, X, eps)
    m = min(n1, n2) if n is None else min(n, n1, n2)
    W_dpl = min(W, m / (m + 1) * X - m * eps / 2)
    first = W_dpl / m + (m - 1) * eps / 2
    E = (W_dpl - (m + 1) / (2 * m) * kappa * W_dpl ** 2
         - (m + 1) / 2 * (W_dpl - (m - 1) * m / 12 * eps) * eps * kappa)
    return OneWorkerSolution(m, first, eps, E, W_dpl, {"n1": n1, "n2": n2, "m": m})


def thm3_equal_chunks(W: float, n: int) -> PieceSchedule:
    """Theorem 3 (§2.2): all of W in n equal chunks run in order (any risk function)."""
    return PieceSchedule(W, np.full(n, W / n), (np.arange(n),))


__all__ = ["OneWorkerSolution", "thm2_free_linear", "thm3_equal_chunks", "thm4_charged_linear",
           "thm4_n1_n2"]
