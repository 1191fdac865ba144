"""The compiled simulation core (issue 15, decision C1): find it, or say once why it is missing.

`resilsched._core` is a C extension built when the package is installed (setup.py,
``EXTENSIONS``; sources in ``csrc/core/``): the list-scheduling engines of the rigid family
(R-LIST-0/1/Q and the shelves, spec 002 §4-§5) and the moldable LIST loop (spec 000 §3.1),
makespan only. The pure-Python engines stay the reference (the tests compare them bit for bit)
and run whenever the core is unavailable: not built (no C compiler at install time), or
disabled with the environment variable ``RESILSCHED_NO_CORE=1`` (``RESILSCHED_NO_C=1`` is read
too, the older name). Then the first engine that asks prints one line on stderr.

Nothing here invokes a compiler: the extension is built by the installer or not at all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

#: environment variables that disable the core (any non-empty value but "0")
DISABLE_VARIABLES = ("RESILSCHED_NO_CORE", "RESILSCHED_NO_C")

_state: dict[str, ModuleType | None] = {}


def disabled() -> str | None:
    """The variable that disables the core, or None."""
    for name in DISABLE_VARIABLES:
        if os.environ.get(name, "") not in ("", "0"):
            return name
    return None


def _load() -> ModuleType | None:
    off = disabled()
    if off is not None:
        reason = f"disabled by {off}"
    else:
        try:
            from resilsched import _core
        except ImportError as exc:
            reason = f"not built ({exc}); reinstall with a C compiler: pip install -e ."
        else:
            return _core
    print(f"resilsched: compiled simulation core {reason}; using the pure-Python engines "
          "(same results, slower)", file=sys.stderr)
    return None


def module() -> ModuleType | None:
    """The extension module, or None (pure Python); decided once per process."""
    if "core" not in _state:
        _state["core"] = _load()
    return _state["core"]


def available() -> bool:
    """True when the compiled core is in use."""
    return module() is not None


def reset() -> None:
    """Decide again at the next `module` call (tests that change the environment)."""
    _state.clear()


@contextmanager
def pure_python() -> Iterator[None]:
    """Run the block with the pure-Python engines (benchmarks and tests of the reference),
    without the warning; the core comes back afterwards."""
    saved = _state.get("core", _MISSING)
    _state["core"] = None
    try:
        yield
    finally:
        if saved is _MISSING:
            _state.pop("core", None)
        else:
            _state["core"] = saved  # type: ignore[assignment]


_MISSING = object()
