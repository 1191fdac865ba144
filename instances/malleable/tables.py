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
"""

from __future__ import annotations

import math

import numpy as np

#: rows grow to at least this many even counts at a time
MIN_ROW = 16
#: the constants of one even count, in the order of a row: t, C, tau, W, x, A, B
T, C, TAU, W, X, A, B = range(7)


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
        block = self._compute(np.repeat(np.arange(n), first), ks).reshape(7, n, first)
        self._rows: list[np.ndarray | None] = [block[:, i, :] for i in range(n)]
        self._one: dict[int, tuple] = {}                  # i * stride + k -> the 7 constants
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
        out = np.full((7, ks.size), np.nan)
        out[T] = F.t(idx, ks)
        if self.ff:
            out[C] = 0.0
            return out
        c = F.ckpt(idx, ks)
        tau = F.tau(idx, ks)
        x = F.lam * ks
        out[C], out[TAU], out[W], out[X] = c, tau, tau - c, x
        out[A] = np.exp(x * c) * (1.0 / x + self.D)
        out[B] = np.expm1(x * tau)
        return out

    def cell(self, i: int, k: int) -> tuple:
        """The constants of application i on k processors (k even), as Python floats."""
        key = i * self._stride + k
        got = self._one.get(key)
        if got is None:
            got = tuple(self.row(i, k)[:, k // 2 - 1].tolist())
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
