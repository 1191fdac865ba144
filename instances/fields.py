"""Field checks shared by every family's JSON reader (docs/architecture.md, "Conventions").

Each check raises `resilsched.InvalidInstance` naming the field and the rule, in one line.

Sizes and magnitudes have documented maxima (docs/decisions.md T8), so that no accepted instance
overflows a derived quantity or cannot finish: at most `MAX_PROCESSORS` processors or workers,
`MAX_JOBS` jobs or tasks, times and works of at most `MAX_TIME`, and a derived quantity (an
area, a table entry computed from a model, a total) must be finite and at most `MAX_DERIVED`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from resilsched.errors import InvalidInstance, show
from resilsched.numeric import parse_number, strict_int

FORMAT_VERSION = 1

#: Most processors (or workers) of an instance: the largest machines have about 10^7 cores.
MAX_PROCESSORS = 10**7
#: Most jobs (tasks) of an instance: the list heuristics are quadratic in n (rigid: ~70 s at
#: 40,000 jobs); the paper and Mira days have at most 1000.
MAX_JOBS = 10**4
#: Largest time or work value (seconds: about 31,700 years).
MAX_TIME = 1e12
#: Largest derived quantity (areas, totals, model-derived times): int64-safe with room.
MAX_DERIVED = 1e18


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


def positive_int(x: object, field: str, high: int | None = None) -> int:
    """A whole number in [1, high] (a float such as 4.0 is accepted); NaN and infinities,
    strings and booleans are refused."""
    return bounded_int(x, field, 1, high)


def bounded_int(x: object, field: str, low: int = 0, high: int | None = None) -> int:
    """A whole number in [low, high] (4.0 is accepted; "4", True, 2.5, NaN are not); the
    messages of `resilsched.numeric.strict_int`."""
    return strict_int(x, field, low, high, whole_floats=True)


def processors(x: object, field: str = "P") -> int:
    """A processor or worker count: an integer in [1, `MAX_PROCESSORS`]."""
    return bounded_int(x, field, 1, MAX_PROCESSORS)


def time_value(x: object, field: str, *, allow_zero: bool = False):
    """A time or work: a finite number (or exact fraction string) in (0, `MAX_TIME`]
    ([0, MAX_TIME] with `allow_zero`)."""
    return bounded_number(x, field, MAX_TIME, allow_zero=allow_zero)


def bounded_number(x: object, field: str, high: float, *, allow_zero: bool = False):
    """A finite number (or exact fraction string) in (0, high] ([0, high] with `allow_zero`),
    returned as parsed: an integer of any size is compared exactly, never converted first."""
    v = parse_number(x, field)
    if not (v >= 0 if allow_zero else v > 0):
        raise InvalidInstance(field, f"{show(v)} must be {'>= 0' if allow_zero else '> 0'}")
    if v > high:
        raise InvalidInstance(field, f"{show(v)} exceeds the maximum {high:g}")
    return v


def derived(value: object, field: str, what: str) -> None:
    """A quantity computed from the input (`what` says which) is finite and <= `MAX_DERIVED`."""
    try:
        ok = math.isfinite(value) and abs(value) <= MAX_DERIVED  # type: ignore[arg-type]
    except (TypeError, OverflowError):
        ok = False
    if not ok:
        raise InvalidInstance(field, f"gives {what} = {show(value)}, beyond {MAX_DERIVED:g} "
                                     "(inputs too large)")


def job_count(items: object, field: str = "jobs", high: int = MAX_JOBS) -> None:
    """A non-empty JSON list of at most `high` entries."""
    if not isinstance(items, list) or not items:
        raise InvalidInstance(field, "must be a non-empty list")
    if len(items) > high:
        raise InvalidInstance(field, f"has {len(items)} entries (at most {high})")


def check_metadata(d: dict[str, Any]) -> dict[str, Any]:
    """The optional ``"metadata"`` field: a JSON object (``{}`` when absent or null)."""
    meta = d.get("metadata")
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise InvalidInstance("metadata", f"{show(meta)} must be a JSON object")
    return meta


def positive_number(x: object, field: str):
    """A finite number > 0: JSON number or exact fraction string (`numeric.parse_number`)."""
    v = parse_number(x, field)
    if not v > 0:
        raise InvalidInstance(field, f"{show(v)} must be > 0")
    return v


#: Most instances one generator call writes (``resilsched generate --count``).
MAX_COUNT = 10_000


def count_or_default(count: object, default: int) -> int:
    """A generator's ``count``: `default` when None, else an int in [1, `MAX_COUNT`] (bools and
    floats refused)."""
    if count is None:
        return default
    return strict_int(count, "count", 1, MAX_COUNT)
