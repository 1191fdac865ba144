"""The fluid lower bound of RESILIENT-COSCHED-1PACK (spec 001 §1.6-1.7; decision MA-7).

Relax everything that costs time: processors move continuously and for free (no RC, no
checkpoint, no downtime, no failure), and an application may hold a fraction of the even counts
by time-sharing them. On k processors T_i progresses at speed s_i(k) = 1/t_{i,k} (k even,
2 <= k <= p); time-sharing makes the least concave majorant s^_i of the points (0, 0) and
(k, s_i(k)) reachable, and nothing faster.

For a makespan T every application needs integral_0^T s^_i(x_i(t)) dt >= 1 with
sum_i x_i(t) <= p. Since s^_i is concave with s^_i(0) = 0, the processor-time an application
needs is smallest at the constant allocation x_i = s^_i^{-1}(1/T) (Jensen), so T is feasible
iff sum_i s^_i^{-1}(1/T) <= p (and 1/T <= max s^_i for every i). The bound is the smallest such
T, found by bisection and reported from the infeasible side, so it is a valid lower bound:

- on the makespan of every fault-free schedule with redistributions (the fault-free optimum);
- on the realized makespan of every simulated run, with or without failures: between events an
  application progresses at most at 1/t_{i,sigma_i} (checkpoints, downtime and rolled-back work
  only slow it), so its allocation over time is a fluid schedule;
- hence also on the static optimum (t^R_{i,j}(1) >= t_{i,j}).

For the synthetic profile (1.13), s(k) = k / (a k + b) is concave, so s^ is the interpolation of
the even points and its inverse is closed-form; explicit tables take the hull per application.
"""

from __future__ import annotations

import numpy as np

ITERATIONS = 200


def fluid_bound(instance, scenario=None) -> float:
    """The fluid lower bound T_fluid (seconds) of the module docstring."""
    inv = _inverse(instance)
    p = float(instance.p)
    t_min = inv.t_min
    lo, hi = t_min, t_min
    while inv(1.0 / hi) > p:  # find a feasible T
        lo, hi = hi, 2.0 * hi
    if inv(1.0 / lo) <= p:  # max_i min_k t_{i,k} is feasible: it is the bound
        return lo
    for _ in range(ITERATIONS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if inv(1.0 / mid) > p:
            lo = mid
        else:
            hi = mid
    return lo


class _Synthetic:
    """x(y) = s^{-1}(y) summed over applications, s(k) = k / (a k + b) on even k (concave)."""

    def __init__(self, instance) -> None:
        self.a, self.b = instance.synthetic_ab
        self.top = instance.p_even
        self.t_min = float(np.max(self.a + self.b / self.top))

    def __call__(self, y: float) -> float:
        a, b = self.a, self.b
        if np.any(y * (a + b / self.top) > 1.0):
            return np.inf
        kc = y * b / (1.0 - y * a)  # where the continuous curve reaches speed y
        lo = 2.0 * np.floor(kc / 2.0)
        lo = np.clip(lo, 0.0, self.top - 2.0)
        hi = lo + 2.0
        s_lo = np.where(lo > 0, lo / (a * np.maximum(lo, 1.0) + b), 0.0)
        s_hi = hi / (a * hi + b)
        x = lo + 2.0 * (y - s_lo) / (s_hi - s_lo)
        return float(np.sum(np.clip(x, 0.0, self.top)))


class _Tables:
    """Upper concave hull of (0,0), (k, 1/t_{i,k}) per application, inverted by interpolation."""

    def __init__(self, instance) -> None:
        ks = np.arange(2, instance.p_even + 1, 2)
        hulls = []
        for i in range(instance.n):
            s = 1.0 / instance.times(np.full(ks.size, i), ks)
            hulls.append(upper_hull(np.r_[0.0, ks], np.r_[0.0, s]))
        width = max(h[0].size for h in hulls)
        self.x = np.full((len(hulls), width), np.nan)
        self.y = np.full((len(hulls), width), np.inf)
        for r, (hx, hy) in enumerate(hulls):
            self.x[r, :hx.size], self.y[r, :hy.size] = hx, hy
            self.x[r, hx.size:], self.y[r, hy.size:] = hx[-1], np.inf
        self.ymax = np.array([h[1][-1] for h in hulls])
        self.t_min = float(np.max(1.0 / self.ymax))

    def __call__(self, y: float) -> float:
        if np.any(y > self.ymax):
            return np.inf
        j = np.argmax(self.y >= y, axis=1)  # first hull vertex with speed >= y (j >= 1)
        r = np.arange(self.x.shape[0])
        x0, x1 = self.x[r, j - 1], self.x[r, j]
        y0, y1 = self.y[r, j - 1], self.y[r, j]
        return float(np.sum(x0 + (x1 - x0) * (y - y0) / (y1 - y0)))


def _inverse(instance):
    return _Synthetic(instance) if instance.synthetic_ab is not None else _Tables(instance)


def upper_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least concave majorant of points with increasing x (monotone chain, upper hull)."""
    hx: list[float] = []
    hy: list[float] = []
    for px, py in zip(x.tolist(), y.tolist(), strict=True):
        while len(hx) >= 2 and \
                (hy[-1] - hy[-2]) * (px - hx[-2]) <= (py - hy[-2]) * (hx[-1] - hx[-2]):
            hx.pop()
            hy.pop()
        hx.append(px)
        hy.append(py)
    return np.array(hx), np.array(hy)
