"""Time limits and the clock of a command (docs/architecture.md, "Options and parameters").

- `check_time_limit` checks a ``time_limit`` / ``--time-limit`` given by the user: None, or a
  finite number of seconds in [`MIN_TIME_LIMIT`, `MAX_TIME_LIMIT`] (`InvalidOption` otherwise).
- `Deadline` is the clock of a whole command: every phase of a model (bounds, presolve, search,
  post-processing) takes its share of what remains, so that ``--time-limit`` bounds the command.

>>> check_time_limit(2)
2.0
>>> check_time_limit("2")
Traceback (most recent call last):
...
resilsched.errors.InvalidOption: time_limit='2' must be a number of seconds
"""

from __future__ import annotations

import math
import time
from typing import Any

from resilsched.errors import InvalidOption

#: Longest accepted time limit (one week); shortest (10 ms): below it no phase can run.
MAX_TIME_LIMIT = 7 * 24 * 3600.0
MIN_TIME_LIMIT = 0.01


def check_time_limit(value: Any, field_name: str = "time_limit") -> float | None:
    """None, or a finite number of seconds in [MIN_TIME_LIMIT, MAX_TIME_LIMIT]."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidOption(field_name, f"{value!r} must be a number of seconds")
    if not math.isfinite(value) or not MIN_TIME_LIMIT <= value <= MAX_TIME_LIMIT:
        raise InvalidOption(field_name, f"{value!r} must be a finite number of seconds in "
                                        f"[{MIN_TIME_LIMIT}, {MAX_TIME_LIMIT:.0f}]")
    return float(value)


class Deadline:
    """A point in time a command must finish by: ``remaining()`` seconds are left.

    ``Deadline(None)`` never expires. `share(f)` is the budget of a phase that may take the
    fraction `f` of what remains.

    >>> d = Deadline(10.0)
    >>> 9.0 < d.remaining() <= 10.0 and not d.expired()
    True
    >>> Deadline(None).remaining()
    inf
    """

    def __init__(self, seconds: float | None, start: float | None = None):
        self.start = time.perf_counter() if start is None else start
        self.seconds = seconds
        self.end = math.inf if seconds is None else self.start + seconds

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float:
        return max(0.0, self.end - time.perf_counter())

    def expired(self) -> bool:
        return time.perf_counter() >= self.end

    def share(self, fraction: float) -> float:
        """Seconds for a phase allowed `fraction` of the remaining time (inf without a limit)."""
        return self.remaining() * fraction
