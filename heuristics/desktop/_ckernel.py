"""Loader of the desktop family's C kernels (decisions D-16, D-19), with the pure-Python/numpy
versions as the fallback and the oracle.

The kernels (``csrc/desktop/kernels.c``: `list_run` for LPT/SPT, `bin_run` for FFI, FFD and
DPslack, `dp_select` for one DPslack bin, `exec_rows` for the executor of spec 1.5) are built
when the package is installed, as the optional setuptools extension `resilsched._desktop`
(setup.py); nothing is compiled at run time (issue 15). The extension module is empty: its
shared object is loaded with ctypes. `lib()` is None, and the identical Python code runs, when
the extension was not built or when ``RESILSCHED_NO_CORE=1`` (or the older ``RESILSCHED_NO_C``)
asks for the fallback; either way one line on standard error says so, once per process, as for
the rigid/moldable core. Tests compare both engines.
"""

from __future__ import annotations

import ctypes

from resilsched import core

#: largest DP row buffer, in 64-bit words (32 MB)
DP_WORDS = 1 << 22
EXTENSION = "resilsched._desktop"


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


_KERNELS = core.CtypesKernels(EXTENSION, _declare, "desktop kernels", "the pure-Python engine")


def lib() -> ctypes.CDLL | None:
    """The built kernels, or None (extension not built, or ``RESILSCHED_NO_CORE=1``)."""
    return _KERNELS.lib()


def set_enabled(flag: bool) -> None:
    """Tests: force the Python versions (False) or allow the C ones again (True)."""
    _KERNELS.set_enabled(flag)
