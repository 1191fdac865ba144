"""The formulas of spec 001 §3.1 (chapter §1.3.3-1.3.5), vectorised over numpy arrays.

For application i on j processors (every argument broadcasts; `idx` holds 0-based indices):

- C_{i,j} = m_i c / j + beta and R_{i,j} = C_{i,j} (§1.3.3; bandwidth 1/c, A-3);
- tau_{i,j} = sqrt(2 (mu/j) C) + C (Young, default) or sqrt(2 (mu/j) C + C) as printed (1.3, A-1);
  W = tau - C is the work per period;
- N^ff(alpha) = floor(alpha t / W) (1.4), tau_last = alpha t - N^ff W (1.5);
- t^R(alpha) = e^{lambda j R} (1/(lambda j) + D) (N^ff (e^{lambda j tau} - 1)
  + (e^{lambda j tau_last} - 1)) (1.6); with lambda = 0 (fault-free context) t^R = alpha t
  (no checkpoints, spec §3.1);
- RC^{j->k} = S + max(min(j, k), |k - j|) (m_i c / (j k) + beta), and 0 when k = j (1.11);
- j_max(i) = the smallest even j in [2, p] minimising t^R_{i,j}(1) (1.8 read over even j), below
  a proven upper bound (`jmax_bound`, decision MA-20);
- progress since t_lastR of a running application, literal (Delta - N C) / t with
  N = floor(Delta / tau) (1.10), or clamped (N W + min(Delta - N tau, W)) / t (A-9); of a struck
  one, N W / t (§1.3.5 (2) case 1);
- the realized duration of alpha of the work from t_lastR without failure,
  alpha t + N^ff(alpha) C (A-6), alpha t in the fault-free context.

`Formulas(instance)` binds the instance's constants; `formulas_of(instance)` caches one per
instance object (and with it j_max and the per-count tables of `tables.Tables`, computed once
per instance).
"""

from __future__ import annotations

import numpy as np

from resilsched.instances.malleable.jmax_bound import jmax_upper
from resilsched.instances.malleable.tables import Tables

#: evaluations of t^R per chunk when computing j_max (bounds the memory to a few tens of MB)
CHUNK = 1 << 20
#: largest even counts used as witnesses when proving k <= j_max (`Formulas.exceeds_jmax`)
TOP = 16


class Formulas:
    """Spec §3.1 for one instance: every method takes arrays (idx, j or k, alpha, ...)."""

    def __init__(self, inst) -> None:
        self.inst = inst
        self.ff = inst.fault_free
        self.lam = inst.lam
        self.mu = None if inst.mtbf is None else float(inst.mtbf)
        self.D = float(inst.downtime)
        self.M = inst.m * float(inst.checkpoint_factor)  # C_i = m_i c
        self.beta = float(inst.beta)
        self.S = float(inst.S)
        self.young = inst.period == "young"
        self._jmax: np.ndarray | None = None
        n = inst.n
        self._jx = np.full(n, -1, dtype=np.int64)   # exact j_max, -1 while unknown
        self._upper: np.ndarray | None = None       # proven j_max <= _upper (jmax_bound)
        self._cap_: np.ndarray | None = None         # j_max where known, else _upper
        self._plo = np.full(n, 2, dtype=np.int64)   # proven: j_max >= _plo
        self._pmin = np.full(n, np.inf)             # min of t^R(j, 1) over 2 <= j < _plo
        self._top: np.ndarray | None = None          # t^R(1) on the TOP largest even counts
        self._tables: Tables | None = None

    @property
    def tables(self) -> Tables:
        """The per-count constants of every application (`tables.Tables`), built on demand."""
        if self._tables is None:
            self._tables = Tables(self)
        return self._tables

    # ---------------------------------------------------------------- costs and periods
    def t(self, idx, k) -> np.ndarray:
        """t_{i,k}."""
        return self.inst.times(np.asarray(idx), np.asarray(k))

    def ckpt(self, idx, k) -> np.ndarray:
        """C_{i,k} = m_i c / k + beta (also R_{i,k})."""
        return self.M[idx] / k + self.beta

    def ckpt_after(self, idx, k) -> np.ndarray:
        """The checkpoint taken right after a redistribution (§1.6): C_{i,k}, 0 when fault-free."""
        if self.ff:
            return np.zeros(np.broadcast(np.asarray(idx), np.asarray(k)).shape)
        return self.ckpt(idx, k)

    def tau(self, idx, k) -> np.ndarray:
        """The period tau_{i,k} (1.3); +inf without failures (no checkpoints)."""
        if self.ff:
            return np.full(np.broadcast(np.asarray(idx), np.asarray(k)).shape, np.inf)
        c = self.ckpt(idx, k)
        if self.young:
            return np.sqrt(2.0 * (self.mu / k) * c) + c
        return np.sqrt(2.0 * (self.mu / k) * c + c)

    def rc(self, idx, j, k) -> np.ndarray:
        """RC_i^{j->k} (1.11), 0 when k = j."""
        j = np.asarray(j, dtype=float)
        k = np.asarray(k, dtype=float)
        cost = self.S + np.maximum(np.minimum(j, k), np.abs(k - j)) * (
            self.M[idx] / (j * k) + self.beta)
        return np.where(k == j, 0.0, cost)

    # ---------------------------------------------------------------- expected times
    def t_r(self, idx, k, alpha) -> np.ndarray:
        """t^R_{i,k}(alpha) of (1.6); alpha t in the fault-free context."""
        t = self.t(idx, k)
        if self.ff:
            return alpha * t
        c = self.ckpt(idx, k)
        tau = self.tau(idx, k)
        w = tau - c
        at = alpha * t
        n = np.floor(at / w)
        last = np.maximum(at - n * w, 0.0)
        x = self.lam * k
        return np.exp(x * c) * (1.0 / x + self.D) * (n * np.expm1(x * tau) + np.expm1(x * last))

    def duration(self, idx, k, alpha) -> np.ndarray:
        """Realized time from t_lastR to the end without failure: alpha t + N^ff C (A-6)."""
        t = self.t(idx, k)
        at = alpha * t
        if self.ff:
            return at
        c = self.ckpt(idx, k)
        w = self.tau(idx, k) - c
        return at + np.floor(at / w) * c

    def move_then_run(self, idx, j, k, alpha) -> np.ndarray:
        """RC^{j->k} + C_{i,k} (the checkpoint after the move, none when fault-free) +
        t^R_{i,k}(alpha): the time from a redistribution to the expected end (spec §3.1 est_nf
        without its t), fused for speed; equal to ``rc + ckpt_after + t_r``."""
        m = self.M[idx]
        jf = np.asarray(j, dtype=float)
        kf = np.asarray(k, dtype=float)
        rc = self.S + np.maximum(np.minimum(jf, kf), np.abs(kf - jf)) * (m / (jf * kf)
                                                                          + self.beta)
        rc[jf == kf] = 0.0
        at = alpha * self.inst.times(idx, k)
        if self.ff:
            return rc + at
        c = m / kf + self.beta
        if self.young:
            tau = np.sqrt(2.0 * (self.mu / kf) * c) + c
        else:
            tau = np.sqrt(2.0 * (self.mu / kf) * c + c)
        w = tau - c
        n = np.floor(at / w)
        x = self.lam * kf
        tr = np.exp(x * c) * (1.0 / x + self.D) * (
            n * np.expm1(x * tau) + np.expm1(x * np.maximum(at - n * w, 0.0)))
        return rc + c + tr

    # ---------------------------------------------------------------- progress (1.10)
    def done_running(self, idx, j, delta, clamp: bool = True) -> np.ndarray:
        """Fraction of the work done in `delta` seconds since t_lastR (not struck)."""
        t = self.t(idx, j)
        if self.ff:
            return delta / t
        c = self.ckpt(idx, j)
        tau = self.tau(idx, j)
        n = np.floor(delta / tau)
        if clamp:
            return (n * (tau - c) + np.minimum(delta - n * tau, tau - c)) / t
        return (delta - n * c) / t

    def done_failed(self, idx, j, delta) -> np.ndarray:
        """Fraction kept by a struck application: its whole checkpointed periods, N W / t."""
        c = self.ckpt(idx, j)
        tau = self.tau(idx, j)
        return np.floor(delta / tau) * (tau - c) / self.t(idx, j)

    # ---------------------------------------------------------------- j_max (1.8)
    @property
    def jmax_upper(self) -> np.ndarray:
        """A proven upper bound of j_max(i) per application (`jmax_bound`, cached)."""
        if self._upper is None:
            self._upper = jmax_upper(self)
        return self._upper

    @property
    def _cap(self) -> np.ndarray:
        if self._cap_ is None:
            self._cap_ = self.jmax_upper.copy()
        return self._cap_

    @property
    def jmax(self) -> np.ndarray:
        """j_max(i): the smallest even count in [2, p] minimising t^R_{i,j}(1) (cached)."""
        if self._jmax is None:
            self._jmax = self._compute_jmax()
        return self._jmax

    def _compute_jmax(self, idx: np.ndarray | None = None) -> np.ndarray:
        idx = np.arange(self.inst.n) if idx is None else idx
        upper = self.jmax_upper
        out = np.empty(idx.size, dtype=np.int64)
        for pos, i in enumerate(idx.tolist()):  # no count above the bound is the argmin
            best, arg = np.inf, 2
            for lo in range(2, int(upper[i]) + 1, 2 * CHUNK):
                ks = np.arange(lo, min(int(upper[i]), lo + 2 * CHUNK - 2) + 1, 2)
                vals = self.t_r(np.full(ks.size, i), ks, 1.0)
                at = int(np.argmin(vals))
                if vals[at] < best:
                    best, arg = float(vals[at]), int(ks[at])
            out[pos] = arg
        return out

    # ---------------------------------------------------------------- j_max on demand
    def jmax_cap(self, idx: np.ndarray) -> np.ndarray:
        """j_max where it is known exactly, else the largest even count (an optimistic cap:
        check the counts chosen with `exceeds_jmax`)."""
        return self._cap[idx]

    def jmax_exact(self, i: int) -> int:
        """j_max of one application, computed once."""
        if self._jx[i] < 0:
            self._jx[i] = self._cap[i] = self._compute_jmax(np.array([i]))[0]
        return int(self._jx[i])

    def exceeds_jmax(self, idx: np.ndarray, k: np.ndarray) -> np.ndarray:
        """Which counts k are above j_max of their applications (decision MA-5).

        k <= j_max(i) holds iff some count >= k has a smaller t^R(1) than every count below k.
        It is proven with the TOP largest even counts as witnesses and the prefix minimum of
        t^R(1), both cached; when that fails the exact j_max of the application is computed.
        """
        idx = np.asarray(idx)
        k = np.asarray(k)
        need = (k > self._plo[idx]) & (self._jx[idx] < 0)
        if need.any():
            self._prove(idx[need], k[need])
        jx = self._jx[idx]
        return (jx >= 0) & (k > jx)

    def _prove(self, idx: np.ndarray, k: np.ndarray) -> None:
        if self._top is None:
            top = self.inst.p_even - 2 * np.arange(min(TOP, self.inst.p_even // 2))
            self._topk = top
            n = self.inst.n
            self._top = self.t_r(np.arange(n)[:, None], top[None, :], 1.0)
        kmax: dict[int, int] = {}
        for i, kk in zip(idx.tolist(), k.tolist(), strict=True):
            kmax[i] = max(kk, kmax.get(i, 0))
        bad = []
        for i, kk in kmax.items():
            lo = int(self._plo[i])
            pmin = float(self._pmin[i])
            if kk - 2 >= lo:  # t^R(1) on lo, lo + 2, ..., k - 2
                pmin = min(pmin, float(self.tables.t_r_range(i, lo, kk - 2, 1.0).min()))
            above = int(np.count_nonzero(self._topk >= kk))  # the witnesses >= k
            witness = float(self._top[i, :above].min()) if above else np.inf
            if pmin > witness:
                self._plo[i] = kk
                self._pmin[i] = pmin
            else:
                bad.append(i)
        if bad:
            bad_idx = np.array(bad, dtype=np.int64)
            self._jx[bad_idx] = self._cap[bad_idx] = self._compute_jmax(bad_idx)


def formulas_of(inst) -> Formulas:
    """The `Formulas` of an instance, built once per instance object (j_max included)."""
    cached = inst.__dict__.get("_formulas")
    if cached is None:
        cached = Formulas(inst)
        object.__setattr__(inst, "_formulas", cached)
    return cached
