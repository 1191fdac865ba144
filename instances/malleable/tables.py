"""Per-application tables of the formulas of spec 001 §3.1 on even counts, built once per
instance, and scalar forms of the estimates used by the simulator's greedy loops.

For application i and even count k the constants of (1.3)-(1.6) do not depend on the state of a
run: t_{i,k}, C_{i,k} = m_i c / k + beta, tau_{i,k}, W = tau - C, x = lambda k,
A = e^{x C} (1/x + D) and B = e^{x tau} - 1, so that

    t^R_{i,k}(alpha) = A (N^ff B + e^{x (alpha t - N^ff W)} - 1),  N^ff = floor(alpha t / W).

`Tables` keeps them per application in a row over k = 2, 4, ..., grown on demand (doubling), so
a row costs what a run reads of it, and every heuristic run on the same instance object reuses
it. Each method evaluates exactly the operations of `Formulas` in the same order, so the values
are bit-identical to theirs (``move`` = `Formulas.move_then_run`, ``t_r`` = `Formulas.t_r`);
the scalar methods use `math`, the ``*_range`` methods numpy on a slice of the row. In the
fault-free context (lambda = 0) only t is stored, and t^R = alpha t.

`first_below` finds the first count of a range whose estimate (an offset + RC + C + t^R) is below
a value without evaluating every count: blocks of `BLOCK` counts are skipped when a lower bound
proves them above the value. The bound uses t^R >= alpha t and t^R >= alpha P - Q with
P = A B t / W and Q = A (B - x W) (from e^{x u} - 1 >= x u on the last period and
last <= W: t^R >= A (N B + x last) >= A B (alpha t / W - 1) + A x W), RC's minimum over the
block (RC decreases up to 2j, then grows) and C >= m c / k_hi + beta; per block the minima of P
and t and the maximum of Q are cached (decision MA-6).
"""

from __future__ import annotations

import math

import numpy as np

#: rows grow to at least this many even counts at a time
MIN_ROW = 16
#: even counts per block of `Tables.first_below`
BLOCK = 32
#: relative margin of the block bounds (rounding never skips a count)
SAFE = 1.0 - 1e-12
#: the constants of one even count, in the order of a row: t, C, tau, W, x, A, B and the
#: slope P and intercept Q of the lower bound alpha P - Q of t^R (module doc)
T, C, TAU, W, X, A, B, P, Q = range(9)


class Tables:
    """Rows of per-count constants for the applications of one instance (see module doc)."""

    def __init__(self, F) -> None:
        self.F = F
        self.ff = F.ff
        self.S, self.beta, self.D = F.S, F.beta, F.D
        self.M = F.M.tolist()
        self.half = F.inst.p_even // 2  # number of even counts 2..p_even
        n = F.inst.n
        # shape (7, length) per application; the first MIN_ROW counts of all, in one pass
        first = min(self.half, MIN_ROW)
        ks = np.tile(np.arange(2, 2 * first + 1, 2), n)
        block = self._compute(np.repeat(np.arange(n), first), ks).reshape(9, n, first)
        self._rows: list[np.ndarray | None] = [block[:, i, :] for i in range(n)]
        self._one: dict[int, tuple] = {}                  # i * stride + k -> the 7 constants
        self._blocks: list[np.ndarray | None] = [None] * n  # (3, blocks): min P, max Q, min t
        self._stride = F.inst.p + 1

    # ---------------------------------------------------------------- rows
    def row(self, i: int, k: int) -> np.ndarray:
        """The row of application i, covering at least the even counts up to k."""
        r = self._rows[i]
        need = k // 2
        if r is None or r.shape[1] < need:
            have = 0 if r is None else r.shape[1]
            size = min(self.half, max(need, 2 * have, MIN_ROW))
            ks = np.arange(2 * have + 2, 2 * size + 1, 2)
            part = self._compute(np.full(ks.size, i), ks)
            r = part if r is None else np.concatenate([r, part], axis=1)
            self._rows[i] = r
        return r

    def _compute(self, idx: np.ndarray, ks: np.ndarray) -> np.ndarray:
        F = self.F
        out = np.full((9, ks.size), np.nan)
        out[T] = F.t(idx, ks)
        if self.ff:
            out[C] = 0.0
            out[P], out[Q] = out[T], 0.0
            return out
        c = F.ckpt(idx, ks)
        tau = F.tau(idx, ks)
        x = F.lam * ks
        out[C], out[TAU], out[W], out[X] = c, tau, tau - c, x
        out[A] = np.exp(x * c) * (1.0 / x + self.D)
        out[B] = np.expm1(x * tau)
        out[P] = out[A] * out[B] * out[T] / out[W]
        out[Q] = out[A] * (out[B] - x * out[W])
        return out

    def cell(self, i: int, k: int) -> tuple:
        """The constants of application i on k processors (k even), as Python floats."""
        key = i * self._stride + k
        got = self._one.get(key)
        if got is None:
            got = tuple(self.row(i, k)[:7, k // 2 - 1].tolist())
            self._one[key] = got
        return got

    # ---------------------------------------------------------------- scalar forms
    def t_r(self, i: int, k: int, alpha: float) -> float:
        """t^R_{i,k}(alpha) of (1.6) (= `Formulas.t_r`)."""
        t, _, _, w, x, a_, b_ = self.cell(i, k)
        at = alpha * t
        if self.ff:
            return at
        n = math.floor(at / w)
        return a_ * (n * b_ + math.expm1(x * max(at - n * w, 0.0)))

    def move(self, i: int, j: int, k: int, alpha: float) -> float:
        """RC^{j->k} + C_{i,k} + t^R_{i,k}(alpha) (= `Formulas.move_then_run`)."""
        t, c, _, w, x, a_, b_ = self._one.get(i * self._stride + k) or self.cell(i, k)
        if j == k:
            rc = 0.0
        else:
            jf, kf = float(j), float(k)
            rc = self.S + max(min(jf, kf), abs(kf - jf)) * (self.M[i] / (jf * kf) + self.beta)
        at = alpha * t
        if self.ff:
            return rc + at
        n = math.floor(at / w)
        return rc + c + a_ * (n * b_ + math.expm1(x * max(at - n * w, 0.0)))

    def rc(self, i: int, j: int, k: int) -> float:
        """RC^{j->k} of (1.11) for k != j (= `Formulas.rc`)."""
        jf, kf = float(j), float(k)
        return self.S + max(min(jf, kf), abs(kf - jf)) * (self.M[i] / (jf * kf) + self.beta)

    def ckpt_after(self, i: int, k: int) -> float:
        """C_{i,k} after a redistribution, 0 when fault-free (= `Formulas.ckpt_after`)."""
        return 0.0 if self.ff else self.cell(i, k)[C]

    def duration(self, i: int, k: int, alpha: float) -> float:
        """alpha t + N^ff C, the realized time without failure (= `Formulas.duration`)."""
        t, c, _, w, _, _, _ = self.cell(i, k)
        at = alpha * t
        if self.ff:
            return at
        return at + math.floor(at / w) * c

    # ---------------------------------------------------------------- ranges of counts
    def move_range(self, i: int, j: int, lo: int, hi: int, alpha: float) -> np.ndarray:
        """`move` on the even counts lo, lo + 2, ..., hi."""
        r = self.row(i, hi)[:, lo // 2 - 1:hi // 2]
        kf = np.arange(lo, hi + 1, 2, dtype=float)
        jf = float(j)
        rc = self.S + np.maximum(np.minimum(jf, kf), np.abs(kf - jf)) * (
            self.M[i] / (jf * kf) + self.beta)
        if lo <= j <= hi:
            rc[(j - lo) // 2] = 0.0
        at = alpha * r[T]
        if self.ff:
            return rc + at
        w = r[W]
        n = np.floor(at / w)
        return rc + r[C] + r[A] * (n * r[B] + np.expm1(r[X] * np.maximum(at - n * w, 0.0)))

    def t_r_range(self, i: int, lo: int, hi: int, alpha: float) -> np.ndarray:
        """`t_r` on the even counts lo, lo + 2, ..., hi."""
        r = self.row(i, hi)[:, lo // 2 - 1:hi // 2]
        at = alpha * r[T]
        if self.ff:
            return at
        w = r[W]
        n = np.floor(at / w)
        return r[A] * (n * r[B] + np.expm1(r[X] * np.maximum(at - n * w, 0.0)))

    # ---------------------------------------------------------------- first count below a value
    def blocks(self, i: int, nb: int) -> np.ndarray:
        """Per block b < nb of application i (counts 2 + 2 BLOCK b .. 2 BLOCK (b + 1)): the
        minimum of P, the maximum of Q and the minimum of t, shape (3, >= nb)."""
        got = self._blocks[i]
        if got is None or got.shape[1] < nb:
            have = 0 if got is None else got.shape[1]
            size = min(self.half // BLOCK, max(nb, 2 * have, 4))
            r = self.row(i, 2 * BLOCK * size)[:, BLOCK * have:BLOCK * size]
            part = np.empty((3, size - have))
            part[0] = r[P].reshape(-1, BLOCK).min(axis=1)
            part[1] = r[Q].reshape(-1, BLOCK).max(axis=1)
            part[2] = r[T].reshape(-1, BLOCK)[:, -1]  # t is non-increasing in k (1.1)
            got = part if got is None else np.concatenate([got, part], axis=1)
            self._blocks[i] = got
        return got

    def first_below(self, i: int, j: int, lo: int, hi: int, alpha: float, off: float,
                    at_j: float, value: float) -> tuple[int, float] | None:
        """The first even count k in [lo, hi] with est(k) < value, and est(k), or None, where
        est(k) = off + `move`(i, j, k, alpha) and est(j) = at_j (module doc)."""
        if lo <= j:  # counts up to j: evaluated (the bounds hold above j)
            got = self._scan(i, j, lo, min(hi, j), alpha, off, at_j, value)
            if got is not None:
                return got
            lo = j + 2
        b0, b1 = (lo // 2 - 1) // BLOCK, (hi // 2 - 1) // BLOCK  # blocks met, b0 .. b1
        nb = min(b1 + 1, self.half // BLOCK)                      # complete ones, b0 .. nb - 1
        if nb - b0 < 2:
            return self._scan(i, j, lo, hi, alpha, off, at_j, value)
        bl = self.blocks(i, nb)[:, b0:nb]
        b = np.arange(b0, nb)
        klo = np.maximum(2.0 + 2 * BLOCK * b, lo)
        khi = np.minimum(2.0 * BLOCK * (b + 1), hi)
        jf, m = float(j), self.M[i]
        kstar = np.clip(2.0 * jf, klo, khi)  # RC^{j->k} is smallest there (k > j)
        bound = off + self.S + np.maximum(jf, kstar - jf) * (m / (jf * kstar) + self.beta)
        if not self.ff:
            bound += m / khi + self.beta + np.maximum(alpha * bl[0] - bl[1], alpha * bl[2])
        else:
            bound += alpha * bl[2]
        for blk in np.flatnonzero(bound * SAFE < value).tolist():
            got = self._scan(i, j, int(klo[blk]), int(khi[blk]), alpha, off, at_j, value)
            if got is not None:
                return got
        if b1 >= nb:  # past the last complete block
            return self._scan(i, j, max(lo, 2 * BLOCK * nb + 2), hi, alpha, off, at_j, value)
        return None

    def _scan(self, i: int, j: int, lo: int, hi: int, alpha: float, off: float, at_j: float,
              value: float) -> tuple[int, float] | None:
        if lo > hi:
            return None
        vals = off + self.move_range(i, j, lo, hi, alpha)
        if lo <= j <= hi:
            vals[(j - lo) // 2] = at_j
        hit = int(np.argmax(vals < value))
        if vals[hit] < value:
            return lo + 2 * hit, float(vals[hit])
        return None
