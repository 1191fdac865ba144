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

from resilsched.instances.malleable.formulas import formulas_of

ITERATIONS = 200
#: most cells (applications x even counts) `checkpoint_bound` tabulates; above it answers the
#: fluid bound, which it refines
MAX_CELLS = 4_000_000
#: most steps of `checkpoint_bound`'s root search (regula falsi; it stops at a relative
#: bracket of 1e-10)
CHECKPOINT_ITERATIONS = 60


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


def checkpoint_bound(instance, scenario=None) -> float:
    """The checkpoint-aware fluid bound T_ckpt >= T_fluid (seconds; decision MA-25).

    With failures every phase of a run pays its checkpoints (spec §1.4-1.6). A phase on k
    processors that starts after an event first pays at least C_{i,k} (the recovery R = C after
    a failure, the checkpoint after a redistribution), then works Delta with N = floor(Delta /
    tau) checkpoints: over its elapsed time E it counts at most E rho_{i,k} / t_{i,k} of the
    work, rho = tau / (tau + C) (the clamped progress (1.10) gives W / tau <= rho, the literal
    one at most (W + C) / (W + 2 C) = rho, A-9; a failure keeps N W / t). Only the first phase,
    which starts at t = 0 without a checkpoint (A-33), may run its first min(E, tau) at the full
    speed s_{i,k} = 1 / t_{i,k}. For a makespan T, application i therefore needs at least the
    processor-seconds of the linear program

        min sum_k k (x_k + y_k)  s.t.  sum_k (rho_k s_k x_k + s_k y_k) >= 1,
        sum_k (x_k + y_k) <= T,  sum_k y_k / Y_k <= 1,  x, y >= 0,  Y_k = min(tau_k, T, t_k)

    (x: time on k at the checkpointed speed, time-sharing allowed as in MA-7; y: the first
    phase, one count, relaxed to a mix), hence at least any value of its dual,
    D(lambda) = lambda - mu T - nu with mu = max(0, max_k (lambda rho_k s_k - k)) and
    nu = max(0, max_k Y_k (lambda s_k - mu - k)), for every lambda >= 0 (weak duality: no
    optimisation is needed for validity). `_needs` takes the best of a few lambda around the
    slope of the concave majorant at speed 1 / T (the no-bonus optimum). T is infeasible when
    sum_i D_i > p T; the bound is the largest T proven so, by regula falsi from the fluid bound.
    Downtime, lost work and failures are not charged: a run that knows the trace may leave the
    failing processors idle (MA-25). Without failures, or above `MAX_CELLS`, it is the fluid
    bound.
    """
    base = fluid_bound(instance)
    ks = np.arange(2, instance.p_even + 1, 2)
    if instance.fault_free or instance.n * ks.size > MAX_CELLS:
        return base
    F = formulas_of(instance)
    n = instance.n
    idx = np.repeat(np.arange(n), ks.size)
    kk = np.tile(ks, n)
    t = instance.times(idx, kk).reshape(n, ks.size)
    c = F.ckpt(idx, kk).reshape(n, ks.size)
    tau = F.tau(idx, kk).reshape(n, ks.size)
    apps = _Needs(ks.astype(float), 1.0 / t, tau / (tau + c), np.minimum(tau, t))
    p = float(instance.p)
    lo, hi = base, base
    g_lo = g_hi = apps.total(hi) / hi - p  # > 0: infeasible (the needs exceed p T)
    while g_hi > 0.0:
        lo, g_lo = hi, g_hi
        hi = 1.01 * hi
        g_hi = apps.total(hi) / hi - p
    if lo == hi:
        return lo
    side = 0
    for _ in range(CHECKPOINT_ITERATIONS):  # regula falsi, Illinois variant
        if hi - lo <= 1e-10 * hi or not np.isfinite(g_lo):
            if not np.isfinite(g_lo):
                mid = 0.5 * (lo + hi)
            else:
                break
        else:
            mid = hi - g_hi * (hi - lo) / (g_hi - g_lo)
            if not lo < mid < hi:
                mid = 0.5 * (lo + hi)
        g = apps.total(mid) / mid - p
        if g > 0.0:
            lo, g_lo = mid, g
            if side == -1:
                g_hi *= 0.5
            side = -1
        else:
            hi, g_hi = mid, g
            if side == 1:
                g_lo *= 0.5
            side = 1
    return lo


class _Needs:
    """The dual values D_i(lambda) of `checkpoint_bound`, rows the applications, columns the
    even counts; lambda is tried at `SCALES` times the slope of the row's concave majorant of
    (k, rho_k s_k) at speed 1 / T (its last slope above the fastest speed)."""

    SCALES = (0.95, 1.0, 1.05)

    def __init__(self, ks: np.ndarray, s: np.ndarray, rho: np.ndarray, cap: np.ndarray) -> None:
        self.ks, self.s, self.sp, self.cap = ks[None, :], s, rho * s, cap
        hulls = [_hull(ks, row) for row in self.sp]
        self.slopes = [np.diff(h[0]) / np.diff(h[1]) for h in hulls]  # processors per speed
        self.rates = [h[1] for h in hulls]

    def total(self, T: float) -> float:
        """A lower bound on sum_i P_i(T), +inf when some application cannot finish by T."""
        r0 = 1.0 / T
        lam0 = np.array([sl[min(np.searchsorted(r, r0) - 1, sl.size - 1)]
                         for sl, r in zip(self.slopes, self.rates, strict=True)])[:, None]
        best = np.full(lam0.shape[0], -np.inf)
        Y = np.minimum(self.cap, T)
        for scale in self.SCALES:
            lam = scale * lam0
            mu = np.maximum(0.0, np.max(lam * self.sp - self.ks, axis=1, keepdims=True))
            nu = np.maximum(0.0, np.max(Y * (lam * self.s - mu - self.ks), axis=1))
            best = np.maximum(best, lam[:, 0] - mu[:, 0] * T - nu)
        return float(np.sum(best))


def _hull(ks: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Upper concave hull of (0, 0) and (k, s_k): (processors, speeds) of its vertices, without
    the points no faster than a smaller count (never the fewest processors for a speed); the
    points themselves when they are already concave (the synthetic profile, vectorised)."""
    x, y = np.r_[0.0, ks], np.r_[0.0, s]
    faster = y > np.maximum.accumulate(np.r_[-np.inf, y[:-1]])
    x, y = x[faster], y[faster]
    slope = np.diff(y) / np.diff(x)
    if np.all(np.diff(slope) < 0.0):
        return x, y
    return upper_hull(x, y)
