"""Exact-or-tolerant time arithmetic (spec 002, ambiguity A9).

Simulators are generic over the time type: `fractions.Fraction` and `int` compare exactly (used
by the tests and the adversarial instances), floats with a relative tolerance of 1e-9 (used by
the experiments).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral, Real

from resilsched.errors import InvalidInstance, show

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


def strict_int(x: object, field: str, low: int = 0, high: int | None = None, *,
               error: type[InvalidInstance] = InvalidInstance, whole_floats: bool = False) -> int:
    """An integer argument in [low, high]: the one check of an integer option or parameter.

    Any `numbers.Integral` (numpy integers too) is accepted; a bool, a float (even 4.0), a
    string are refused. Instance-file fields, where JSON may write 4.0, use
    `resilsched.instances.fields.bounded_int` (`whole_floats`).

    Parameters
    ----------
    x : object
        The value to check.
    field : str
        The name of the argument or option, as the message prints it.
    low : int, optional
        The smallest value accepted (0 by default).
    high : int or None, optional
        The largest value accepted; None for no maximum.
    error : type, optional
        The error raised: `InvalidInstance` (default) or a subclass such as `InvalidOption`.
    whole_floats : bool, optional
        Accept a finite float with no fractional part (4.0, from JSON), as
        `resilsched.instances.fields.bounded_int` does; False for an argument or option.

    Returns
    -------
    int
        `x` as a Python int.

    Raises
    ------
    InvalidInstance
        Or `error`: "X must be a positive integer" (low 1), "X must be an integer >= low",
        "X exceeds the maximum high"; X printed by `resilsched.errors.show`.

    Examples
    --------
    >>> strict_int(3, "P", 1)
    3
    >>> strict_int(4.0, "P", 1)
    Traceback (most recent call last):
    ...
    resilsched.errors.InvalidInstance: P=4.0 must be a positive integer
    >>> strict_int(11, "seed", 0, 10)
    Traceback (most recent call last):
    ...
    resilsched.errors.InvalidInstance: seed=11 exceeds the maximum 10
    """
    whole = not isinstance(x, bool) and (isinstance(x, Integral) or (
        whole_floats and isinstance(x, Real) and math.isfinite(x) and float(x).is_integer()))
    if not whole or x < low:  # an Integral is never given to math.isfinite (it may overflow)
        what = "a positive integer" if low == 1 else f"an integer >= {low}"
        raise error(field, f"{show(x)} must be {what}")
    if high is not None and x > high:
        raise error(field, f"{show(x)} exceeds the maximum {high}")
    return int(x)


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


#: significant digits of a number printed for a reader (`readable`)
SHOWN_DIGITS = 5
#: an exact fraction with a longer text is shown by its rounded value and ``...``
LONG_EXACT = 80


def readable(x: object, digits: int = SHOWN_DIGITS, *, fraction_value: bool = True) -> str:
    """A number as a reader of a line of text wants it: progress lines, ``describe()`` of
    results, schedule lines. JSON output keeps every digit; this is for text only.

    Floats are rounded to `digits` significant digits, but never into their integral part
    (one decimal is kept from 10^4 on, no exponent below 10^16), and lose a trailing ``.0``;
    integers are shown in full; an exact fraction is shown as ``p/q = decimal``
    (just ``p/q`` when `fraction_value` is False, as in a schedule's time intervals), or as
    ``decimal...`` when ``p/q`` is longer than `LONG_EXACT` characters; None is ``-``.

    >>> readable(23.08510638297872), readable(0.45499999999999996), readable(36.0)
    ('23.085', '0.455', '36')
    >>> readable(18938.81174435025), readable(Fraction(17, 3)), readable(10**20)
    ('18938.8', '17/3 = 5.6667', '100000000000000000000')
    >>> readable(Fraction(9, 2), fraction_value=False), readable(1.5e-7), readable(None)
    ('9/2', '1.5e-07', '-')
    """
    if x is None:
        return "-"
    if isinstance(x, bool) or not isinstance(x, Real):
        return str(x)
    if isinstance(x, Integral):  # numpy integers too
        return str(int(x))
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return str(x.numerator)
        text = str(x)  # a long exact value (the online optimum's) keeps its digits in JSON only
        if len(text) > LONG_EXACT:
            return f"{readable(float(x), digits)}..."
        return f"{text} = {readable(float(x), digits)}" if fraction_value else text
    value = float(x)
    if not math.isfinite(value):
        return str(value)
    whole = len(str(int(abs(value)))) if abs(value) >= 1 else 0
    shown = min(17, max(digits, whole + 1 if whole >= digits else digits))
    return f"{value:.{shown}g}"
