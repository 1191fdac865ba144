"""Loader of the desktop family's C kernels (decisions D-16, D-19), with the pure-Python/numpy
versions as the fallback and the oracle.

The kernels (`_ckernels.c` beside this module: `list_run` for LPT/SPT, `bin_run` for FFI, FFD
and DPslack, `dp_select` for one DPslack bin, `exec_rows` for the executor of spec 1.5) are
built when the package is installed, as the optional setuptools extension
`resilsched.heuristics.desktop._ckernels` (setup.py); nothing is compiled at run time (issue
15). The extension module is empty: its shared object is loaded with ctypes. `lib()` is None,
and the identical Python code runs, when the extension was not built (one-line warning) or when
``RESILSCHED_NO_CORE=1`` asks for the fallback (tests compare both).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import warnings

#: largest DP row buffer, in 64-bit words (32 MB)
DP_WORDS = 1 << 22
#: set to 1 to run the pure-Python engines (the same variable as the rigid/moldable core)
DISABLE_VARIABLE = "RESILSCHED_NO_CORE"
EXTENSION = "resilsched.heuristics.desktop._ckernels"

_LIB: ctypes.CDLL | None = None
_TRIED = False


def _declare(dll: ctypes.CDLL) -> ctypes.CDLL:
    P, i64, cint = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
    dll.list_run.argtypes = [i64, P, P, P, P, P, P, i64, cint, cint, i64, P, P, P, P, P, P, P, P]
    dll.list_run.restype = i64
    dll.dp_select.argtypes = [P, i64, i64, i64, i64, cint, P, P, i64]
    dll.dp_select.restype = i64
    dll.bin_run.argtypes = [cint, i64, P, P, P, i64, P, P, i64, cint, P, P, P, P, i64, P, P, P,
                            P]
    dll.bin_run.restype = i64
    dll.exec_rows.argtypes = [i64, P, P, P, P, P, i64, P]
    dll.exec_rows.restype = None
    return dll


def lib() -> ctypes.CDLL | None:
    """The built kernels, or None (extension not built, or ``RESILSCHED_NO_CORE=1``)."""
    global _LIB, _TRIED
    if _TRIED:
        return _LIB
    _TRIED = True
    if os.environ.get(DISABLE_VARIABLE, "") not in ("", "0"):
        return None
    try:
        module = importlib.import_module(EXTENSION)
        _LIB = _declare(ctypes.CDLL(module.__file__))
    except (ImportError, OSError, AttributeError) as exc:
        # warn_explicit without a source line: the warning prints as a single line
        warnings.warn_explicit(f"resilsched: the desktop C kernels are unavailable ({exc}); "
                               "using the pure-Python engine (reinstall with a C compiler to "
                               "build them)", RuntimeWarning, "resilsched", 0)
        _LIB = None
    return _LIB


def set_enabled(flag: bool) -> None:
    """Tests: force the Python versions (False) or allow the C ones again (True)."""
    global _LIB, _TRIED
    _LIB, _TRIED = None, not flag
