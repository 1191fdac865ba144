"""The closure's C kernels (decision C24), declared once, with the pure-Python versions in
`setpart.branchprice.pricing_oracle` and `setpart.branchprice.exact_cover` as the fallback and the
oracle.

The kernels (``csrc/coschedule/closure.c``: `pk_enum`, the packs of one threshold listed by
`pricing_oracle._packs_at`; `pk_cover`, `exact_cover.cheapest_cover`) are built when the package
is installed, as the optional extension `resilsched._closure` (setup.py), whose shared object
`resilsched.engine.library` opens with ctypes and declares from `EXTENSION` (every array
argument a typed numpy pointer; the limits shared with the C file checked at load). The same
shared object holds `sp_search`, the k-in-p closure search of `setpart.colgen.closure_search`
(``csrc/coschedule/partition.h``, decision C28; masks of ceil(n/64) words, n <=
`SP_MAX_TASKS`) and `pk_pool`, `pk_reduced`, `pk_cheapest`: the explicit pool of
`setpart.pool.build_pool` and its pricing (``pool.h``, decision C29). `lib()` is None, and the
Python code runs (for `sp_search`: HiGHS), when the engine is "python"
(``resilsched.engine.use("python")``, ``RESILSCHED_NO_CORE=1``) or the extension was not built.
`pk_enum` and `pk_cover` work on tasks as bits of a 64-bit mask, so they serve n <= `MAX_TASKS`.
"""

from __future__ import annotations

import ctypes

import numpy as np

from resilsched import engine

#: the kernels hold a pack as a 64-bit mask (and the cover search its complement's lowest bit)
MAX_TASKS = 63
#: most tasks and cuts of `sp_search` (masks of at most 4 words; partition.h, checked at load)
SP_MAX_TASKS = SP_MAX_CUTS = 256
#: log2 of the slots of the cover search's memo of covered sets (16 bytes each: 64 MB)
MEMO_LOG2 = 22

_I64, _INT, _DBL = ctypes.c_int64, ctypes.c_int, ctypes.c_double
_A, _U, _D = engine.array(np.int64), engine.array(np.uint64), engine.array(np.float64)
_I32 = engine.array(np.int32)

#: the kernels' signatures (``csrc/coschedule/closure.c``, ``partition.h``, ``pool.h``)
EXTENSION = engine.Extension("_closure", "closure kernels", "the pure-Python search", {
    # pk_enum(n, p, cards, step, w, wp, bound, prof, need, room, seconds, out_mask, out_gain)
    "pk_enum": (_I64, (_INT, _INT, _INT, _INT, _A, _A, _D, _D, _DBL, _I64, _DBL, _U, _D)),
    # pk_cover(n, m, masks, rcs, budget, node_limit, seconds, memo_log2, out, done)
    "pk_cover": (_I64, (_INT, _I64, _U, _D, _DBL, _I64, _DBL, _I64, _A,
                        ctypes.POINTER(_INT))),
    # sp_search(n, w, k, m, masks, rcs, costs, ncuts, cutmasks, cutpen, dual, mu, min_packs,
    #           target, tol, node_limit, seconds, memo_log2, out, out_cost, done)
    "sp_search": (_I64, (_INT, _INT, _INT, _I64, _U, _D, _D, _INT, _U, _D, _DBL, _DBL, _I64,
                         _DBL, _DBL, _I64, _DBL, _I64, _A, ctypes.POINTER(_DBL),
                         ctypes.POINTER(_INT))),
    # pk_pool(n, s, p, pmin, mat, width, room, seconds, out_packs, out_costs)
    "pk_pool": (_I64, (_INT, _INT, _INT, _A, _D, _INT, _I64, _DBL, _I32, _D)),
    # pk_reduced(m, s, packs, costs, pi, mu, rc)
    "pk_reduced": (None, (_I64, _INT, _I32, _D, _D, _DBL, _D)),
    # pk_cheapest(m, rc, below, count, out or NULL, out_min, out_below)
    "pk_cheapest": (_I64, (_I64, _D, _DBL, _I64, engine.array(np.int64, nullable=True),
                           ctypes.POINTER(_DBL), ctypes.POINTER(_I64))),
}, constants={"sp_max_tasks": SP_MAX_TASKS, "sp_max_cuts": SP_MAX_CUTS})


def lib() -> ctypes.CDLL | None:
    """The declared kernels, or None: the Python search runs (`resilsched.engine`)."""
    return engine.library(EXTENSION)


def enum_packs(dll: ctypes.CDLL, w: np.ndarray, wp: np.ndarray, bound: np.ndarray,
               prof: np.ndarray, need: float, p: int, cards: int, step: int, room: int,
               seconds: float) -> tuple[np.ndarray, np.ndarray] | None:
    """`pricing_oracle._packs_at` in C: (masks, pi(B)) of the packs of one threshold; None
    beyond `room` packs or past `seconds` (<= 0: no clock). `bound`: (n+1, cards+1, p+1) suffix
    DP."""
    n = len(w)
    w = np.ascontiguousarray(w, dtype=np.int64)
    wp = np.ascontiguousarray(wp, dtype=np.int64)
    bound = np.ascontiguousarray(bound, dtype=np.float64)
    prof = np.ascontiguousarray(prof, dtype=np.float64)
    size = max(1, min(room, 1 << 16))
    while True:
        masks = np.empty(size, dtype=np.uint64)
        gains = np.empty(size)
        got = dll.pk_enum(n, p, cards, step, w, wp, bound, prof, float(need), size,
                          float(seconds), masks, gains)
        if got >= 0:
            return masks[:got], gains[:got]
        if got == -2 or size >= room:
            return None
        size = min(room, 4 * size)


def cover(dll: ctypes.CDLL, n: int, masks: np.ndarray, rcs: np.ndarray, budget: float,
          node_limit: int | None, seconds: float) -> tuple[list[int] | None, bool]:
    """`exact_cover.cheapest_cover` in C: (chosen pack indices or None, search completed)."""
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    rcs = np.ascontiguousarray(rcs, dtype=np.float64)
    out = np.zeros(64, dtype=np.int64)
    done = ctypes.c_int(0)
    got = dll.pk_cover(n, len(masks), masks, rcs, float(budget),
                       -1 if node_limit is None else int(node_limit), float(seconds),
                       MEMO_LOG2, out, ctypes.byref(done))
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
