"""The compiled simulation core (issue 15, decision T13): find it, or say once why it is missing.

`resilsched._core` is a C extension built when the package is installed (setup.py,
``EXTENSIONS``; sources in ``csrc/core/``): the list-scheduling engines of the rigid family
(R-LIST-0/1/Q and the shelves, spec 002 §4-§5), the moldable LIST loop (spec 000 §3.1) and
BATCH-LIST's MT-ALLOTMENT (§3.7), makespans only. The pure-Python engines stay the reference
(the tests compare them bit for bit) and run whenever the core is unavailable: not built (no C
compiler at install time), or disabled with the environment variable ``RESILSCHED_NO_CORE=1``
(``RESILSCHED_NO_C=1`` is read too, the older name). Then the first engine that asks prints one
line on stderr.

Another extension module declared in setup.py (one more ``EXTENSIONS`` entry, e.g.
``resilsched._desktop``) is found the same way: ``module("_desktop")``.

Extensions whose shared object is loaded with ctypes (``resilsched._desktop``,
``resilsched._closure``) declare their functions once through `CtypesKernels`.

Nothing here invokes a compiler: the extensions are built by the installer or not at all.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

#: environment variables that disable every compiled module (any value but "" and "0")
DISABLE_VARIABLES = ("RESILSCHED_NO_CORE", "RESILSCHED_NO_C")

#: extension name -> the loaded module, or None (decided once per process)
_state: dict[str, ModuleType | None] = {}


def disabled() -> str | None:
    """The variable that disables the compiled modules, or None."""
    for name in DISABLE_VARIABLES:
        if os.environ.get(name, "") not in ("", "0"):
            return name
    return None


def _load(name: str) -> ModuleType | None:
    off = disabled()
    if off is not None:
        reason = f"disabled by {off}"
    else:
        try:
            return importlib.import_module(f"resilsched.{name}")
        except ImportError as exc:
            reason = f"not built ({exc}); reinstall with a C compiler: pip install -e ."
    print(f"resilsched: compiled simulation core {name} {reason}; using the pure-Python "
          "engines (same results, slower)", file=sys.stderr)
    return None


def module(name: str = "_core") -> ModuleType | None:
    """The extension module ``resilsched.<name>``, or None (pure Python)."""
    if name not in _state:
        _state[name] = _load(name)
    return _state[name]


def available(name: str = "_core") -> bool:
    """True when the compiled module is in use."""
    return module(name) is not None


def reset() -> None:
    """Decide again at the next `module` call (tests that change the environment)."""
    _state.clear()


@contextmanager
def pure_python(name: str = "_core") -> Iterator[None]:
    """Run the block with the pure-Python engines (benchmarks and tests of the reference),
    without the warning; the compiled module comes back afterwards."""
    had = name in _state
    saved = _state.get(name)
    _state[name] = None
    try:
        yield
    finally:
        if had:
            _state[name] = saved
        else:
            _state.pop(name, None)


class CtypesKernels:
    """The C functions of one extension module loaded with ctypes, or None, decided once.

    ``CtypesKernels("resilsched._desktop", declare, "desktop kernels", "the pure-Python
    engine")``: `lib` imports the module, opens its shared object and lets ``declare`` set the
    functions' argument and result types; when the module was not built, or a variable of
    `DISABLE_VARIABLES` is set, it prints one line on stderr (once per process) and answers
    None, and the callers run their Python versions.
    """

    def __init__(self, extension: str, declare: Callable[[ctypes.CDLL], ctypes.CDLL],
                 what: str, fallback: str) -> None:
        self.extension, self.declare = extension, declare
        self.what, self.fallback = what, fallback
        self._lib: ctypes.CDLL | None = None
        self._tried = False

    def lib(self) -> ctypes.CDLL | None:
        """The declared library, or None (not built, or disabled)."""
        if self._tried:
            return self._lib
        self._tried = True
        off = disabled()
        if off is not None:
            reason = f"disabled by {off}"
        else:
            try:
                module = importlib.import_module(self.extension)
                self._lib = self.declare(ctypes.CDLL(module.__file__))
                return self._lib
            except (ImportError, OSError, AttributeError) as exc:
                reason = f"not built ({exc}); reinstall with a C compiler: pip install -e ."
        print(f"resilsched: {self.what} {self.extension} {reason}; using {self.fallback} "
              "(same results, slower)", file=sys.stderr)
        self._lib = None
        return None

    def set_enabled(self, flag: bool) -> None:
        """Tests: force the Python versions (False) or decide again at the next call (True)."""
        self._lib, self._tried = None, not flag
