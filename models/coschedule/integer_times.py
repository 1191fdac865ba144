"""Exact integer times for the combinatorial models (enumeration, matching; decision C15).

Every time is a rational number: ints and Fractions are, and so is every float (a dyadic
rational m 2^e). With D the lcm of the denominators of all used times, T_{i,j} = t_{i,j} D are
integers and every makespan is (sum of T) / D exactly, so the subset DP and the blossom
algorithm, run on these integers, prove optimality without any rounding. D is a power of two
for float times (typically 2^40..2^50), Python ints carry any size; numpy int64 is used when
the values leave room for sums (below 2^61), object arrays of Python ints otherwise.

>>> from resilsched.instances.coschedule import CoscheduleInstance
>>> m, d, big = exact_times(CoscheduleInstance(p=2, k=2, times=((3, 2), (0.5, 0.25))))
>>> d, m[:, 1:].tolist(), big
(4, [[12, 8], [2, 1]], 25)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.instances.coschedule import CoscheduleInstance

#: int64 arrays are used while every value (and `big`) stays below this
INT64_ROOM = 2**61


def exact_times(inst: CoscheduleInstance) -> tuple[np.ndarray, int, Any]:
    """(T, D, big): T[i, j] = t_{i,j} D (exact integers) for j >= pmin_i, `big` (= 2 max T + 1,
    above every time) at j = 0 and j < pmin_i; D = lcm of the denominators of the used times.
    T is int64 when ``big < INT64_ROOM``, else an object array of Python ints."""
    fr = [[Fraction(x) for x in row[inst.pmin[i] - 1:]] for i, row in enumerate(inst.times)]
    d = 1
    for row in fr:
        for x in row:
            d = math.lcm(d, x.denominator)
    ints = [[x.numerator * (d // x.denominator) for x in row] for row in fr]
    big = 2 * max(max(row) for row in ints) + 1
    dtype = np.int64 if big < INT64_ROOM else object
    mat = np.full((inst.n, inst.p + 1), big, dtype=dtype)
    for i, row in enumerate(ints):
        mat[i, inst.pmin[i]:] = row
    return mat, d, big


def scaled(value: Any, d: int) -> int:
    """The exact integer value * d of a time (or a sum of times) of the instance."""
    x = Fraction(value) * d
    if x.denominator != 1:
        raise ValueError(f"{value!r} * {d} is not an integer")
    return x.numerator
