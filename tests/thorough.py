"""How many examples the property tests draw (decision T32).

The default run draws a third of a property test's examples (at least 10): the tests that
give a count pass it through `examples`, the others get the ``quick`` profile of
tests/conftest.py. ``RESILSCHED_THOROUGH=1`` draws them all, as before (the ``thorough``
profile: hypothesis's 100). Hypothesis replays the failures it has stored either way."""

from __future__ import annotations

import os

#: true when the environment asks for every example (RESILSCHED_THOROUGH=1)
THOROUGH = os.environ.get("RESILSCHED_THOROUGH", "0") not in ("", "0")


def examples(n: int) -> int:
    """`n` examples with ``RESILSCHED_THOROUGH=1``, else a third of them (at least 10)."""
    return n if THOROUGH else max(10, n // 3)
