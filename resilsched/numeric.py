"""Exact-or-tolerant time arithmetic (spec 002, ambiguity A9).

Simulators are generic over the time type: `fractions.Fraction` and `int` compare exactly (used
by the tests and the adversarial instances), floats with a relative tolerance of 1e-9 (used by
the experiments).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Real

REL_TOL = 1e-9


def _exact(*xs: Real) -> bool:
    return all(isinstance(x, (int, Fraction)) for x in xs)


def time_eq(a: Real, b: Real) -> bool:
    """a == b, exactly for ints/Fractions, within a relative 1e-9 for floats."""
    if _exact(a, b):
        return a == b
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=REL_TOL)


def time_le(a: Real, b: Real) -> bool:
    """a <= b, with the float tolerance of `time_eq`."""
    return a <= b or time_eq(a, b)


def time_lt(a: Real, b: Real) -> bool:
    """a < b and not a == b (under the tolerance)."""
    return a < b and not time_eq(a, b)


#: a decimal exponent of four digits or more (``"1e9999"``)
_HUGE_EXPONENT = re.compile(r"[eE]\s*[+-]?0*[1-9][0-9]{3}")


def parse_number(x: object, field: str):
    """Parse a JSON number or an exact fraction string such as ``"1/3"``.

    Raises `InvalidInstance` naming `field` when `x` is not a finite number.
    """
    from resilsched.errors import InvalidInstance

    if isinstance(x, bool):
        raise InvalidInstance(field, f"{x!r} is not a number")
    if isinstance(x, (int, Fraction)):
        return x
    if isinstance(x, float):
        if not math.isfinite(x):
            raise InvalidInstance(field, f"{x!r} is not a finite number")
        return x
    if isinstance(x, str):
        if _HUGE_EXPONENT.search(x):  # Fraction("1e999999999") would compute 10**999999999
            raise InvalidInstance(field, f"{x[:40]!r} has an exponent beyond 1000")
        try:
            v = Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise InvalidInstance(field, f"{x[:40]!r} is not a number") from None
        return int(v) if v.denominator == 1 else v
    text = repr(x)  # a list or object: cut it to one short line
    raise InvalidInstance(field, f"{text if len(text) <= 40 else text[:37] + '...'} is not a "
                                 "number")


def integer_scale(values, max_scale: int = 10**6) -> tuple[int, bool]:
    """Smallest integer s with s*v integral for every v (LCM of denominators).

    Returns ``(scale, exact)``. Floats are converted through `Fraction.limit_denominator`; when
    the LCM would exceed `max_scale` the scale is capped and `exact` is False (the caller
    rounds and must flag its result approximate).
    """
    scale = 1
    exact = True
    for v in values:
        if isinstance(v, int):
            continue
        fr = v if isinstance(v, Fraction) else Fraction(v).limit_denominator(max_scale)
        if not isinstance(v, Fraction) and float(fr) != v:
            exact = False
        scale = math.lcm(scale, fr.denominator)
        if scale > max_scale:
            return max_scale, False
    return scale, exact
