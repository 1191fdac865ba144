"""A proven upper bound on j_max(i) (1.8), computed without scanning every count (decision
MA-20).

j_max(i) is the smallest even count minimising t^R_{i,k}(1) over 2 <= k <= P (P = p_even). Found
by a scan it costs P/2 evaluations of (1.6) per application, which the allocations need only up
to where a count could still beat the best one found. With a downtime D > 0 the expected time
grows about linearly with the count (each failure costs D, and j processors fail j times as
often), so j_max is far below P when P is large: at p = 10^7 with the paper's setting j_max is
about 3 10^4, and a heuristic proving that no larger count improves scanned 5 10^6 counts per
application.

For every even k in [K, P], with x = lambda k, C = C_{i,k}, tau, W = tau - C, N = floor(t/W) and
l = t - N W < W (spec 001 §1.5),

    t^R_{i,k}(1) = e^{x C} (1/x + D) (N (e^{x tau} - 1) + e^{x l} - 1)
                 >= e^{x C} (1 + D x) (N tau (1 + theta/2) + l)
                 >= e^{x C} (1 + D x) (q t - (C + tau theta / 2))

(with theta = x tau, e^y - 1 >= y + y^2/2 on full periods and e^y - 1 >= y on the last one,
q = tau (1 + theta/2) / W >= 1, N W = t - l and l < W), and t^R >= (1 + D x) t. Each factor
is then bounded over k >= K by a constant or by its value at K:
x C = lambda (M + beta k) >= lambda M (M = m_i c); theta >= theta_0 = sqrt(2 lambda M) and
C/tau >= rho_0 (Young: 1 / (1 + sqrt(2 mu / M)); as printed: sqrt(M / (2 mu + P))), hence
q >= q_0 = (1 + theta_0 / 2) / (1 - rho_0); t_{i,k} >= t_{i,P} (1.1); 1 + D x >= 1 + D lambda K;
and C + tau theta / 2 <= h_K with C_K = M / K + beta (Young: 3 C_K + lambda (M + beta P) C_K; as
printed: 2 C_K + lambda (M + beta P) / 2). So every count k >= K has

    t^R_{i,k}(1) >= L(K) = (1 + D lambda K) max(t_{i,P}, e^{lambda M} (q_0 t_{i,P} - h_K)),

which increases with K. With v the smallest t^R_{i,k}(1) on the counts 2, 4, 8, ..., P, no count
with L(k) > v is the smallest argmin, so j_max <= U = the last even count before the first such
K (found by bisection; P when there is none, e.g. without failures or with D = 0). A relative
margin of 1e-9 keeps rounding from cutting a count.
"""

from __future__ import annotations

import numpy as np

#: relative margin of the bound (rounding never cuts a count)
SAFE = 1.0 - 1e-9


def jmax_upper(F) -> np.ndarray:
    """An even upper bound U_i >= j_max(i) per application, in [2, p_even] (module doc)."""
    inst = F.inst
    n, top = inst.n, inst.p_even
    out = np.full(n, top, dtype=np.int64)
    if F.ff or F.D <= 0.0 or top <= 2:
        return out
    idx = np.arange(n)
    grid = np.unique(np.r_[2 ** np.arange(1, int(np.log2(top)) + 1), top])
    grid = grid[(grid % 2 == 0) & (grid <= top)]
    v = F.t_r(idx[:, None], grid[None, :], 1.0).min(axis=1)
    lam, mu, M, beta = F.lam, F.mu, F.M, F.beta
    theta0 = np.sqrt(2.0 * lam * M)
    if F.young:
        rho0 = 1.0 / (1.0 + np.sqrt(2.0 * mu / M))
    else:
        rho0 = np.sqrt(M / (2.0 * mu + top))
    q0 = (1.0 + theta0 / 2.0) / (1.0 - rho0)
    t_top = F.t(idx, np.full(n, top))
    load = lam * (M + beta * top)

    def lower(K: np.ndarray) -> np.ndarray:
        cK = M / K + beta
        h = (3.0 * cK + load * cK) if F.young else (2.0 * cK + load / 2.0)
        with np.errstate(over="ignore", invalid="ignore"):
            inner = np.maximum(t_top, np.exp(lam * M) * (q0 * t_top - h))
        return (1.0 + F.D * lam * K) * inner * SAFE

    # bisection on the even counts: lo has L(lo) <= v, hi has L(hi) > v (or is past P)
    lo = np.full(n, 2, dtype=np.int64)
    hi = np.full(n, top + 2, dtype=np.int64)
    cut = lower(np.full(n, float(top))) > v
    hi[~cut] = top + 2
    active = cut.copy()
    while active.any():
        mid = ((lo + hi) // 4) * 2
        above = lower(mid.astype(float)) > v
        hi = np.where(active & above, mid, hi)
        lo = np.where(active & ~above, mid, lo)
        active &= hi - lo > 2
    out[cut] = lo[cut]
    return out
