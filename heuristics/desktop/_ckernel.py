"""The desktop family's C kernels (decisions D-16, D-19), declared once, with the
pure-Python/numpy versions as the fallback and the oracle.

The kernels (``csrc/desktop/kernels.c``: `list_run` for LPT/SPT, `bin_run` for FFI, FFD and
DPslack, `dp_select` for one DPslack bin, `exec_rows` for the executor of spec 1.5) are built
when the package is installed, as the optional extension `resilsched._desktop` (setup.py),
whose shared object `resilsched.engine.library` opens with ctypes and declares from
`EXTENSION`: every array argument a typed numpy pointer, the kinds of `bin_run` checked
against the C file's. `lib()` is None, and the identical
Python code runs, when the engine is "python" (``resilsched.engine.use("python")``,
``RESILSCHED_NO_CORE=1``) or the extension was not built. Tests compare both engines.
"""

from __future__ import annotations

import ctypes

import numpy as np

from resilsched import engine

#: largest DP row buffer, in 64-bit words (32 MB)
DP_WORDS = 1 << 22
#: `bin_run`'s kind of each bin heuristic (the C file's BIN_*, checked at load)
BIN_KINDS = {"FFI": 0, "FFD": 1, "DPslack": 2}

_I64, _INT = ctypes.c_int64, ctypes.c_int
_A, _U = engine.array(np.int64), engine.array(np.uint64)  # int64_t *, uint64_t *

#: the kernels' signatures (``csrc/desktop/kernels.c``), checked at every call by ctypes
EXTENSION = engine.Extension("_desktop", "desktop kernels", "the pure-Python engine", {
    # list_run(m, off, start, avail, q, D, pos, npos, slack, decreasing, nrep, S, M, work,
    #          o_pos, o_i, o_k, o_t, o_h)
    "list_run": (_I64, (_I64, _A, _A, _A, _A, _A, _A, _I64, _INT, _INT, _I64, _A, _A, _A,
                        _A, _A, _A, _A, _A)),
    # dp_select(c, N, A, m1, m2, slack, out, buf, cap)
    "dp_select": (_I64, (_A, _I64, _I64, _I64, _I64, _INT, _A, _U, _I64)),
    # bin_run(kind, m, off, avail, T, n, oi, ok, nb, slack, S, M, work, rows, cap,
    #         o_pos, o_i, o_k, o_t)
    "bin_run": (_I64, (_INT, _I64, _A, _A, _A, _I64, _A, _A, _I64, _INT, _A, _A, _A, _U, _I64,
                       _A, _A, _A, _A)),
    # exec_rows(R, e0, qoff, qdur, starts, ends, L, last)
    "exec_rows": (None, (_I64, _A, _A, _A, _A, _A, _I64, _A)),
}, constants={"bin_ffi": BIN_KINDS["FFI"], "bin_ffd": BIN_KINDS["FFD"],
              "bin_dpslack": BIN_KINDS["DPslack"]})


def lib() -> ctypes.CDLL | None:
    """The declared kernels, or None: the Python engine runs (`resilsched.engine`)."""
    return engine.library(EXTENSION)
