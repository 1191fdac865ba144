"""The compiled refutation search (decision R25): `rs_refute` of ``csrc/refute/rigid_refute.c``.

The C twin of `resilsched.models.rigid.refute._Search` decides the same D(T) (spec 002 §1.3,
§11.2) by the same search over semi-active schedules, in the same branching order and with the
same pruning, so it returns the same verdict after the same number of nodes; only the clock is
read less often (every 1024 nodes). The configuration-LP cut of every `lp_every`-th node is
computed here, in Python, through a ctypes callback (`refute.lp_cut`, the function the Python
search calls).

The C file is built at install time as the optional extension ``resilsched._refute``
(setup.py); nothing is compiled at run time (issue 15). `run` returns None, and the caller runs
the pure-Python search, when the engine is "python" (``resilsched.engine.use("python")``,
``RESILSCHED_NO_CORE=1``) or the extension was not built, or when the scenario is outside the
C search's exact range (`fits`). `EXTENSION` declares its signatures (typed numpy pointers, an
opaque memo handle) and the constants it shares with the C file, checked at load.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from resilsched import engine

#: rs_refute's return codes (checked against the C file's at load)
INFEASIBLE, FEASIBLE, TIMEOUT, ENOMEM, ECALLBACK, EMEMO = 0, 1, 2, -1, -2, -3
STATUS = {INFEASIBLE: "infeasible", FEASIBLE: "feasible", TIMEOUT: "timeout"}

#: Most attempts searched in C: its recursion takes about 3 frames (~300 bytes) per attempt on
#: the C stack, kept under 2 MB.
MAX_ATTEMPTS = 5000

#: Most workers of one search (the C file's MAX_WORKERS, checked at load).
MAX_WORKERS = 16

#: Largest configuration-LP row entry and z per job (`ConfigurationLP.certificate`: pi_j <=
#: 2^20), used to bound the C search's int64 sums before it starts.
LP_PI = 2**20

_I64, _INT = ctypes.c_int64, ctypes.c_int
_P64 = ctypes.POINTER(ctypes.c_int64)
_A = engine.array(np.int64)
#: int cb(const int64 *d, int64 left, int64 *row, int64 *z, int64 *lp_work)
LP_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, _P64, _I64, _P64, _P64, _P64)


class _Memo(ctypes.Structure):
    """The C search's memo (opaque: ``Memo`` of ``csrc/refute/memo.h``)."""


_MEMO = ctypes.POINTER(_Memo)

#: the search's signatures (``csrc/refute/rigid_refute.c``, ``memo.h``) and shared constants;
#: a PyDLL: the search releases the GIL itself, and looks for Ctrl-C
EXTENSION = engine.Extension("_refute", "refutation search", "the pure-Python search", {
    # rs_refute(n, P, T, p, t, m, nbase, pi, z, zf or NULL, lp_cap, lp_every, cb, max_nodes,
    #           seconds, memo, halt or NULL, workers, split_depth, only, starts, stats)
    "rs_refute": (_INT, (_INT, _I64, _I64, _A, _A, _A, _INT, _A, _A,
                         engine.array(np.int64, nullable=True), _INT, _I64, LP_CALLBACK, _I64,
                         ctypes.c_double, _MEMO, ctypes.POINTER(ctypes.c_int32), _INT, _INT,
                         _INT, _A, _A)),
    "rs_memo_new": (_MEMO, (_INT, _I64)),     # rs_memo_new(K, max_states)
    "rs_memo_free": (None, (_MEMO,)),
    "rs_memo_count": (_I64, (_MEMO,)),
}, constants={"rs_infeasible": INFEASIBLE, "rs_feasible": FEASIBLE, "rs_timeout": TIMEOUT,
              "rs_enomem": ENOMEM, "rs_ecallback": ECALLBACK, "rs_ememo": EMEMO,
              "rs_max_workers": MAX_WORKERS}, pydll=True)


def library() -> Any | None:
    """The declared search (a ctypes library), or None: the Python search runs
    (`resilsched.engine`)."""
    return engine.library(EXTENSION)


class CMemo:
    """The C search's table of failed states (`refute.RefuteMemo`), freed with this object."""

    def __init__(self, dll: Any, handle: Any) -> None:
        self.dll, self.handle = dll, handle

    @classmethod
    def make(cls, K: int, max_states: int) -> CMemo | None:
        """A table for keys of K words holding `max_states` states, or None (C search not
        built)."""
        dll = library()
        if dll is None:
            return None
        handle = dll.rs_memo_new(K, max_states)
        if not handle:
            raise MemoryError("refutation search: out of memory")
        return cls(dll, handle)

    def __len__(self) -> int:
        return int(self.dll.rs_memo_count(self.handle))

    def __del__(self) -> None:
        if getattr(self, "handle", None):
            self.dll.rs_memo_free(self.handle)
            self.handle = None


def fits(n: int, P: int, T: int, t: list[int], m: list[int],
         rows: list[tuple[list[int], int]]) -> bool:
    """Whether the C search is exact here: its sums sum_j pi_j (rem_j t_j + end_j) and
    z (T - tau) below 2^62, T, P and the attempt counts below 2^31 (its memo keys are int32),
    at most `MAX_ATTEMPTS` attempts."""
    if n == 0 or sum(m) > MAX_ATTEMPTS or max(T, P, max(m)) >= 2**31 - 1 or T < 0:
        return False
    work = sum(mj * tj for mj, tj in zip(m, t, strict=True))
    top_pi = max([LP_PI] + [max(r, default=0) for r, _ in rows])
    top_z = max([n * LP_PI] + [z for _, z in rows])
    return top_pi * (work + n * T) < 2**62 and top_z * max(T, 1) < 2**62


@contextlib.contextmanager
def _ctrl_c_halts(stop: ctypes.c_int32) -> Iterator[list[bool]]:
    """While the search runs, Ctrl-C sets `stop` (every worker ends at its next clock look)
    instead of raising where the search cannot take it: at the start of the LP callback,
    where ctypes would print the KeyboardInterrupt as ignored and go on. Yields a list that is
    true after a Ctrl-C; the caller raises KeyboardInterrupt once the search has returned.
    Only Python's default SIGINT handler in the main thread is replaced (and put back)."""
    seen: list[bool] = []
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield seen
        return

    def defer(signum: int, frame: Any) -> None:
        seen.append(True)
        stop.value = 1

    signal.signal(signal.SIGINT, defer)
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run(n: int, P: int, T: int, p: list[int], t: list[int], m: list[int],
        rows: list[tuple[list[int], int]], tables: list[np.ndarray] | None, lp_cap: int,
        lp_every: int, lp_hook: Callable[[list[int], int], tuple[Any, int]] | None,
        max_nodes: int | None, seconds: float, memo: Callable[[], CMemo | None],
        halt: ctypes.c_int32 | None = None, workers: int = 1, split_depth: int = 0,
        only: int | None = None) -> tuple[str, list[list[int]] | None, int, int, int] | None:
    """Decide D(T) in C: (status, starts or None, nodes, work, lp_work), or None when the C
    search is not available or not exact here (`fits`).

    `rows` are the pool cuts (pi, z), `tables` None or their profile tables (zf, P + 1 values
    each: the profile cut runs too); `lp_hook(d, left)` returns (a cut (pi, z, zf or None)
    that prunes the node or None, the LP's work so far in node units), at most `lp_cap` such
    cuts kept (the oldest dropped); `memo()` gives the table of failed states (`CMemo`), kept
    from one target to the next. The search runs without the GIL (the LP callback takes it
    back); setting `halt` (from another thread) stops it as a timeout. Ctrl-C stops it too
    (`halt` is set, when given) and raises KeyboardInterrupt once it has returned.

    `workers` > 1 split the tree (decision R29): worker k searches the subtrees of the nodes
    at depth `split_depth` whose state hashes to k, each in its own thread, all sharing the
    memo; the LP callback runs for one worker at a time. `only` = k runs worker k alone
    (tests): D(T) is refuted when every worker refutes its part.
    """
    if not 1 <= workers <= MAX_WORKERS or (only is not None and not 0 <= only < workers):
        raise ValueError(f"workers: {workers} is not in 1..{MAX_WORKERS}, or only: {only} "
                         "is not one of them")
    dll = library()
    if dll is None or not fits(n, P, T, t, m, rows):
        return None
    table = memo()
    if table is None:
        return None
    arr = [np.ascontiguousarray(x, dtype=np.int64) for x in (p, t, m)]
    pi = np.array([r for r, _ in rows], dtype=np.int64).reshape(len(rows), n)
    z = np.array([zr for _, zr in rows], dtype=np.int64)
    zf = None if tables is None else np.array(tables, dtype=np.int64).reshape(len(rows), P + 1)
    starts = np.zeros(max(1, sum(m)), dtype=np.int64)
    stats = np.zeros(3, dtype=np.int64)
    failure: list[BaseException] = []

    def callback(d_ptr: Any, left: int, row_ptr: Any, z_ptr: Any, work_ptr: Any) -> int:
        try:
            assert lp_hook is not None
            found, lp_work = lp_hook([d_ptr[j] for j in range(n)], int(left))
            work_ptr[0] = lp_work
            if found is None:
                return 0
            row, zc, table = found
            for j in range(n):
                row_ptr[j] = row[j]
            z_ptr[0] = zc
            if zf is not None:
                for c in range(P + 1):
                    z_ptr[1 + c] = int(table[c])
            return 1
        except BaseException as exc:  # re-raised below, after the C search returns
            failure.append(exc)
            return -1

    cb = LP_CALLBACK(callback) if lp_hook is not None else LP_CALLBACK()
    stop = ctypes.c_int32(0) if halt is None else halt
    with _ctrl_c_halts(stop) as interrupted:
        code = dll.rs_refute(n, P, T, *arr, len(rows), pi, z, zf, lp_cap, max(1, lp_every),
                             cb, -1 if max_nodes is None else max_nodes, max(0.0, seconds),
                             table.handle, ctypes.byref(stop), workers, split_depth,
                             -1 if only is None else only, starts, stats)
    if failure:
        raise failure[0]
    if code == ECALLBACK or interrupted:  # Ctrl-C (ctypes may have swallowed its exception)
        raise KeyboardInterrupt
    if code == ENOMEM:
        raise MemoryError("refutation search: out of memory")
    if code not in STATUS:
        raise RuntimeError(f"refutation search: error code {code}")
    nodes, work, lp_work = (int(x) for x in stats)
    out = None
    if code == FEASIBLE:
        flat, out = starts.tolist(), []
        for mj in m:
            out.append(flat[:mj])
            flat = flat[mj:]
    return STATUS[code], out, nodes, work, lp_work
