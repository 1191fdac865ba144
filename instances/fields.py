"""Field checks shared by every family's JSON reader (docs/architecture.md, "Conventions").

Each check raises `resilsched.InvalidInstance` naming the field and the rule, in one line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.numeric import parse_number

FORMAT_VERSION = 1


def check_header(d: object, family: str, version: int = FORMAT_VERSION) -> None:
    """``d`` is a JSON object of `family` in a supported ``format_version`` (both optional)."""
    if not isinstance(d, dict):
        raise InvalidInstance("instance", "must be a JSON object")
    if "family" in d and d["family"] != family:
        raise InvalidInstance("family", f"{d['family']!r} is not {family!r}")
    if "format_version" in d and d["format_version"] != version:
        raise InvalidInstance(
            "format_version", f"{d['format_version']!r} is not supported (expected {version})"
        )


def require(d: dict[str, Any], keys: Iterable[str], prefix: str = "") -> None:
    """Every key of `keys` is present in `d` (``prefix`` names the enclosing field)."""
    for key in keys:
        if key not in d:
            raise InvalidInstance(f"{prefix}{key}", "is required")


def positive_int(x: object, field: str) -> int:
    """A whole number >= 1 (a float such as 4.0 is accepted); NaN and infinities are refused."""
    ok = (
        not isinstance(x, bool)
        and isinstance(x, Real)
        and math.isfinite(x)
        and (isinstance(x, Integral) or float(x).is_integer())
        and x >= 1
    )
    if not ok:
        raise InvalidInstance(field, f"{x!r} must be a positive integer")
    return int(x)


def positive_number(x: object, field: str):
    """A finite number > 0: JSON number or exact fraction string (`numeric.parse_number`)."""
    v = parse_number(x, field)
    if not v > 0:
        raise InvalidInstance(field, f"{v} must be > 0")
    return v


def count_or_default(count: object, default: int) -> int:
    """A generator's ``count``: `default` when None, else an int >= 1 (bools and floats refused)."""
    if count is None:
        return default
    if isinstance(count, bool) or not isinstance(count, Integral) or count < 1:
        raise InvalidInstance("count", f"{count!r} must be a positive integer")
    return int(count)
