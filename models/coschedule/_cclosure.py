"""Loader of the closure's C kernels (decision C24), with the pure-Python versions in `oracle`
and `cover` as the fallback and the oracle.

The kernels (``csrc/coschedule/closure.c``: `pk_enum`, the packs of one threshold listed by
`oracle._packs_at`; `pk_cover`, `cover.cheapest_cover`) are built when the package is
installed, as the optional setuptools extension `resilsched._closure` (setup.py); nothing is
compiled at run time (issue 15). The extension module is empty: its shared object is loaded
with ctypes. The same shared object holds `sp_search`, the k-in-p closure search of
`partsearch` (``csrc/coschedule/partition.h``, decision C28; masks of ceil(n/64) words, n <=
256) and `pk_pool`, `pk_reduced`, `pk_cheapest`: the explicit pool of `pool.build_pool` and
its pricing (``pool.h``, decision C29).
`lib()` is None, and the Python code runs (for `sp_search`: HiGHS), when the extension was not
built or when ``RESILSCHED_NO_CORE=1`` (or the older ``RESILSCHED_NO_C``) asks for the
fallback; either way one line on standard error says so, once per process. `pk_enum` and
`pk_cover` work on tasks as bits of a 64-bit mask, so they serve n <= `MAX_TASKS`.
"""

from __future__ import annotations

import ctypes

import numpy as np

from resilsched import core

#: the kernels hold a pack as a 64-bit mask (and the cover search its complement's lowest bit)
MAX_TASKS = 63
#: log2 of the slots of the cover search's memo of covered sets (16 bytes each: 64 MB)
MEMO_LOG2 = 22
EXTENSION = "resilsched._closure"


def _declare(dll: ctypes.CDLL) -> ctypes.CDLL:
    P, i64, cint, dbl = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_double
    dll.pk_enum.argtypes = [cint, cint, cint, cint, P, P, P, P, dbl, i64, dbl, P, P]
    dll.pk_enum.restype = i64
    dll.pk_cover.argtypes = [cint, i64, P, P, dbl, i64, dbl, i64, P, P]
    dll.pk_cover.restype = i64
    dll.sp_search.argtypes = [cint, cint, cint, i64, P, P, P, cint, P, P, dbl, dbl, i64, dbl,
                              dbl, i64, dbl, i64, P, P, P]
    dll.sp_search.restype = i64
    dll.pk_pool.argtypes = [cint, cint, cint, P, P, cint, i64, dbl, P, P]
    dll.pk_pool.restype = i64
    dll.pk_reduced.argtypes = [i64, cint, P, P, P, dbl, P]
    dll.pk_reduced.restype = None
    dll.pk_cheapest.argtypes = [i64, P, dbl, i64, P, P, P]
    dll.pk_cheapest.restype = i64
    return dll


_KERNELS = core.CtypesKernels(EXTENSION, _declare, "closure kernels", "the pure-Python search")


def lib() -> ctypes.CDLL | None:
    """The built kernels, or None (extension not built, or ``RESILSCHED_NO_CORE=1``)."""
    return _KERNELS.lib()


def set_enabled(flag: bool) -> None:
    """Tests: force the Python versions (False) or allow the C ones again (True)."""
    _KERNELS.set_enabled(flag)


def _ptr(a: np.ndarray) -> int:
    return a.ctypes.data


def enum_packs(dll: ctypes.CDLL, w: np.ndarray, wp: np.ndarray, bound: np.ndarray,
               prof: np.ndarray, need: float, p: int, cards: int, step: int, room: int,
               seconds: float) -> tuple[np.ndarray, np.ndarray] | None:
    """`oracle._packs_at` in C: (masks, pi(B)) of the packs of one threshold; None beyond `room`
    packs or past `seconds` (<= 0: no clock). `bound`: (n+1, cards+1, p+1) suffix DP."""
    n = len(w)
    w = np.ascontiguousarray(w, dtype=np.int64)
    wp = np.ascontiguousarray(wp, dtype=np.int64)
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    prof = np.ascontiguousarray(prof, dtype=np.float64)
    size = max(1, min(room, 1 << 16))
    while True:
        masks = np.empty(size, dtype=np.uint64)
        gains = np.empty(size)
        got = dll.pk_enum(n, p, cards, step, _ptr(w), _ptr(wp), _ptr(bound), _ptr(prof),
                          float(need), size, float(seconds), _ptr(masks), _ptr(gains))
        if got >= 0:
            return masks[:got], gains[:got]
        if got == -2 or size >= room:
            return None
        size = min(room, 4 * size)


def cover(dll: ctypes.CDLL, n: int, masks: np.ndarray, rcs: np.ndarray, budget: float,
          node_limit: int | None, seconds: float) -> tuple[list[int] | None, bool]:
    """`cover.cheapest_cover` in C: (chosen pack indices or None, search completed)."""
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    rcs = np.ascontiguousarray(rcs, dtype=np.float64)
    out = np.zeros(64, dtype=np.int64)
    done = ctypes.c_int(0)
    got = dll.pk_cover(n, len(masks), _ptr(masks), _ptr(rcs), float(budget),
                       -1 if node_limit is None else int(node_limit), float(seconds),
                       MEMO_LOG2, _ptr(out), ctypes.byref(done))
    if got < 0:
        raise MemoryError("the cover search could not allocate its lists")
    return (out[:got].tolist() if got > 0 else None), bool(done.value)


def masks_of(packs: list[tuple[int, ...]], n: int) -> np.ndarray:
    """Bit masks of packs over n tasks: uint64 for n <= 64, Python ints (dtype object) above."""
    dtype = np.uint64 if n <= 64 else object
    return np.array([sum(1 << i for i in b) for b in packs], dtype=dtype)


def tasks_of(mask: int) -> tuple[int, ...]:
    """The ascending tasks of a bit mask."""
    out, i = [], 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return tuple(out)
