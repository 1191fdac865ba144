"""Durations t_ij = max(1, round(b_i p_j)) in integer seconds, rounded exactly (spec 004 A-19,
decision D-3).

The value of a number is the one the instance file writes: an integer or an exact fraction
string (``"23/20"``) as it is, a JSON number with a fraction part as the decimal it is written
as. A float is read through its shortest representation (``repr``), which is the JSON text for
every number of at most 15 significant digits (``1.15`` means 115/100, not the binary double
just below it). The product b_i p_j is rounded to the closest integer, halves upwards:
b = 1.15 and p = 50 give 57.5, hence 58 (the float64 product 57.49999999999999 would give 57).

`duration_matrix` computes the product in float64 and recomputes exactly, in integers, the cells
whose float value lies within a relative 2e-15 of a half-integer (the float product is within a
relative 4.5e-16 of the exact one, so every other cell already rounds the exact way); those are
the ties and near-ties, few in practice. `exact_duration` is the scalar form (the oracle of the
tests and the reference for single values).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

#: half-width (relative to the value + 1) of the band around half-integers recomputed exactly
TIE_BAND = 2e-15
#: cells at or above this value exceed every accepted time (10^12) however they round
REFUSED = 4e12
#: cells of the duration matrix computed at once (float temporaries that stay in the cache)
BLOCK_CELLS = 1 << 15


def exact_value(x: Any) -> Fraction:
    """The exact value an instance means by `x`: an integer or Fraction as it is, a float as
    the decimal its shortest representation writes (module docstring)."""
    if isinstance(x, float):
        return Fraction(repr(x))
    return Fraction(x)


def exact_duration(b: Any, p: Any) -> int:
    """max(1, floor(b p + 1/2)) for the exact values of `b` and `p`."""
    v = exact_value(b) * exact_value(p)
    return max(1, (2 * v.numerator + v.denominator) // (2 * v.denominator))


def _parts(values: Sequence[Any]) -> tuple[list[int], list[int]]:
    """(numerators, denominators) of the exact values."""
    fr = [exact_value(x) for x in values]
    return [f.numerator for f in fr], [f.denominator for f in fr]


def _fits_int64(nb: list[int], db: list[int], np_: list[int], dp: list[int]) -> bool:
    """2 nb np + db dp and 2 db dp stay below 2^63 for every pair (checked on the maxima)."""
    top = 2 * max(abs(x) for x in nb) * max(abs(x) for x in np_) + max(db) * max(dp)
    return max(top, 2 * max(db) * max(dp)) < 2**63


def duration_matrix(b: Sequence[Any], p: Sequence[Any]) -> np.ndarray:
    """t_ij = max(1, floor(b_i p_j + 1/2)) of the exact values, as an (m, n) int64 array
    (read-only). Cells beyond int64 come out as a huge value for the caller's range check (every
    accepted b and p keep them <= 10^18)."""
    bb = np.asarray([float(x) for x in b], dtype=np.float64)
    pp = np.asarray([float(x) for x in p], dtype=np.float64)
    m, n = len(bb), len(pp)
    out = np.empty((m, n), dtype=np.int64)
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    step = max(1, BLOCK_CELLS // max(n, 1))
    p_top = float(pp.max()) if n else 0.0
    for lo in range(0, m, step):
        s = np.multiply.outer(bb[lo:lo + step], pp)
        # one band per block, for its largest value (wider than needed for the others: more
        # cells recomputed, never fewer)
        band = TIE_BAND * (min(float(bb[lo:lo + step].max()) * p_top, REFUSED) + 2)
        s += 0.5
        t = np.floor(s)
        s -= t  # the fraction part of b p + 1/2, exact in float64
        s -= 0.5
        np.abs(s, out=s)
        near = s >= 0.5 - band
        np.clip(t, 1, 2.0**62, out=t)
        out[lo:lo + step] = t
        if near.any():
            r, c = np.nonzero(near)
            keep = t[r, c] <= REFUSED  # larger cells are refused by the caller anyway
            rows.append(r[keep] + lo)
            cols.append(c[keep])
    if rows:
        _fix_ties(out, b, p, np.concatenate(rows), np.concatenate(cols))
    out.flags.writeable = False
    return out


def _fix_ties(out: np.ndarray, b: Sequence[Any], p: Sequence[Any], r: np.ndarray,
              c: np.ndarray) -> None:
    """Recompute the cells (r, c) exactly: floor((2 nb np + db dp) / (2 db dp))."""
    ui, ri = np.unique(r, return_inverse=True)
    uj, ci = np.unique(c, return_inverse=True)
    nb, db = _parts([b[i] for i in ui.tolist()])
    np_, dp = _parts([p[j] for j in uj.tolist()])
    if _fits_int64(nb, db, np_, dp):
        NB, DB = np.asarray(nb, dtype=np.int64)[ri], np.asarray(db, dtype=np.int64)[ri]
        NP, DP = np.asarray(np_, dtype=np.int64)[ci], np.asarray(dp, dtype=np.int64)[ci]
        den = 2 * DB * DP
        t = (2 * NB * NP + DB * DP) // den
    else:  # long decimals on both sides: Python integers, cell by cell
        t = np.asarray([(2 * nb[x] * np_[y] + db[x] * dp[y]) // (2 * db[x] * dp[y])
                        for x, y in zip(ri.tolist(), ci.tolist(), strict=True)], dtype=object)
        t = np.minimum(t, 2**62).astype(np.int64)
    out[r, c] = np.maximum(t, 1)
