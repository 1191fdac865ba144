"""The estimates est_nf and est_f of spec 001 §3.1 at one event, as `greedy.Estimator`s.

- `NoRedist` (est_nf): for the applications `apps` (positions 0..len-1) at time t, the estimate
  on k processors is `base` at k = sigma (the stale t^U by default, A-10), and otherwise the
  redistributed estimate t + RC^{sigma->k} + C_{i,k} + t^R_{i,k}(alpha^t).
- `Failed` (est_f): the struck application T_f, with lead = t + D + R_{f,sigma_f}: lead +
  t^R_{f,k}(alpha_f) at k = sigma_f, else lead + RC + C_{f,k} + t^R_{f,k}(alpha_f).
- `WithFailed`: est_nf for every position but the one of T_f, which uses est_f (ITERATEDGREEDY).

alpha^t is given as an array, or computed on demand per application (`alpha=None`): ENDLOCAL
reads the estimates of the few applications it serves only. Values come from `Tables` and are
bit-identical to the vectorised `Formulas` (`vec` evaluates any (positions, counts) at once).
"""

from __future__ import annotations

import numpy as np


class NoRedist:
    """est_nf over the applications `apps` at time t (see module doc)."""

    def __init__(self, st, apps: np.ndarray, alpha: np.ndarray | None, base: np.ndarray,
                 t: float) -> None:
        self.st, self.apps, self.base, self.t = st, apps, base, t
        self.T = st.T
        self.sig = st.sigma[apps]
        self._alpha = alpha
        self._known: dict[int, float] = {}
        self._info: dict[int, tuple[int, int, float, float]] = {}

    def info(self, pos: int) -> tuple[int, int, float, float]:
        """(application, sigma, alpha^t, base) at `pos`, read once."""
        got = self._info.get(pos)
        if got is None:
            got = self._info[pos] = (int(self.apps[pos]), int(self.sig[pos]), self.alpha(pos),
                                     float(self.base[pos]))
        return got

    def alpha(self, pos: int) -> float:
        """alpha^t of the application at `pos`."""
        if self._alpha is not None:
            return float(self._alpha[pos])
        a = self._known.get(pos)
        if a is None:
            a = self._known[pos] = self.st.alpha_one(int(self.apps[pos]), self.t)
        return a

    def alphas(self, pos: np.ndarray) -> np.ndarray:
        """alpha^t at several positions."""
        if self._alpha is not None:
            return self._alpha[pos]
        return np.array([self.alpha(p) for p in pos.tolist()])

    def one(self, pos: int, k: int) -> float:
        i, j, a, base = self._info.get(pos) or self.info(pos)
        if k == j:
            return base
        return self.t + self.T.move(i, j, k, a)

    def range(self, pos: int, lo: int, hi: int) -> np.ndarray:
        i, j, a, base = self.info(pos)
        vals = self.t + self.T.move_range(i, j, lo, hi, a)
        if lo <= j <= hi:
            vals[(j - lo) // 2] = base
        return vals

    def scan(self, pos: int, lo: int, hi: int, value: float) -> tuple[int, float] | None:
        """The first count in [lo, hi] whose estimate is below `value` (and the estimate)."""
        i, j, a, base = self.info(pos)
        return self.T.first_below(i, j, lo, hi, a, self.t, base, value)

    def vec(self, pos: np.ndarray, k: np.ndarray) -> np.ndarray:
        i = self.apps[pos]
        a = self.alphas(pos)
        val = self.t + self.st.F.move_then_run(i, self.sig[pos], k, a)
        same = k == self.sig[pos]
        if same.any():
            val[same] = self.base[pos[same]]
        return val


class Failed:
    """est_f of the struck application f at time t (its alpha and t_lastR already updated)."""

    def __init__(self, st, f: int, t: float) -> None:
        self.T, self.F = st.T, st.F
        self.f = f
        self.j = int(st.sigma[f])
        self.a = float(st.alpha[f])
        self.lead = t + st.F.D + (self.T.M[f] / self.j + self.T.beta)  # + R_{f,j}

    def one(self, pos: int, k: int) -> float:
        if k == self.j:
            return self.lead + self.T.t_r(self.f, k, self.a)
        return self.lead + self.T.move(self.f, self.j, k, self.a)

    def range(self, pos: int, lo: int, hi: int) -> np.ndarray:
        vals = self.lead + self.T.move_range(self.f, self.j, lo, hi, self.a)
        if lo <= self.j <= hi:
            vals[(self.j - lo) // 2] = self.lead + self.T.t_r(self.f, self.j, self.a)
        return vals

    def scan(self, pos: int, lo: int, hi: int, value: float) -> tuple[int, float] | None:
        at_j = self.lead + self.T.t_r(self.f, self.j, self.a)
        return self.T.first_below(self.f, self.j, lo, hi, self.a, self.lead, at_j, value)

    def on(self, k: np.ndarray) -> np.ndarray:
        """The estimates on the counts `k` (an array)."""
        vals = self.lead + self.F.move_then_run(np.full(k.size, self.f), self.j, k, self.a)
        vals[k == self.j] = self.lead + self.T.t_r(self.f, self.j, self.a)
        return vals


class WithFailed:
    """est_nf everywhere but at `fpos`, where T_f's est_f applies (ITERATEDGREEDY, §3.7)."""

    def __init__(self, nf: NoRedist, failed: Failed, fpos: int) -> None:
        self.nf, self.failed, self.fpos = nf, failed, fpos
        self.sig, self.base, self.alphas = nf.sig, nf.base, nf.alphas

    def one(self, pos: int, k: int) -> float:
        if pos == self.fpos:
            return self.failed.one(pos, k)
        return self.nf.one(pos, k)

    def range(self, pos: int, lo: int, hi: int) -> np.ndarray:
        return self.failed.range(pos, lo, hi) if pos == self.fpos else self.nf.range(pos, lo, hi)

    def scan(self, pos: int, lo: int, hi: int, value: float) -> tuple[int, float] | None:
        return (self.failed if pos == self.fpos else self.nf).scan(pos, lo, hi, value)

    def vec(self, pos: np.ndarray, k: np.ndarray) -> np.ndarray:
        val = self.nf.vec(pos, k)
        mine = pos == self.fpos
        if mine.any():
            val[mine] = self.failed.on(k[mine])
        return val
