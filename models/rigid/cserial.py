"""The compiled serial schedule-generation scheme (decision R34): `ri_serial` of
``csrc/improve/rigid_serial.c``.

The C twin of `resilsched.models.rigid.improve.serial_python` places the attempts of a list
order by the same scan over the same profile breakpoints, so it returns the same starts; the
improvement phase spends most of its rounds in this scheme (three passes per window round), and
the C one runs them about 30 times faster.

The C file is built at install time as the optional extension ``resilsched._improve``
(setup.py); nothing is compiled at run time (issue 15). `serial` returns None, and the caller
runs the Python scheme, when the engine is "python" (``resilsched.engine.use("python")``,
``RESILSCHED_NO_CORE=1``) or the extension was not built, or when the scenario is outside the
C scheme's exact range (`fits`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np

from resilsched import engine
from resilsched.models.rigid.scaling import ScaledScenario

#: later than any time of a scaled scenario (the C file's ``ri_never``, checked at load)
NEVER = 1 << 62

_I64, _INT = ctypes.c_int64, ctypes.c_int
_A = engine.array(np.int64)
#: ri_serial(n, P, p, t, A, order, start) -> makespan, or -1 (out of memory)
EXTENSION = engine.Extension("_improve", "serial schedule-generation scheme",
                             "the pure-Python scheme", {
                                 "ri_serial": (_I64, (_INT, _I64, _A, _A, _INT, _A, _A)),
                             }, constants={"ri_never": NEVER})


def library() -> Any | None:
    """The declared scheme (a ctypes library), or None: the Python scheme runs
    (`resilsched.engine`)."""
    return engine.library(EXTENSION)


def fits(data: ScaledScenario) -> bool:
    """Whether the C scheme is exact here: every schedule of the attempts placed one after the
    other ends before `NEVER`, and the counts fit a C int."""
    total = sum(mj * tj for mj, tj in zip(data.m, data.t, strict=True))
    return 0 < sum(data.m) < 2**31 - 1 and total + max(data.t) < NEVER // 2


_last: list[tuple[ScaledScenario, tuple[np.ndarray, np.ndarray] | None]] = []


def _arrays(data: ScaledScenario) -> tuple[np.ndarray, np.ndarray] | None:
    """p and t of `data` as int64 arrays, or None when it does not `fit`; kept for the last
    scenario (the improvement phase calls `serial` thousands of times on one)."""
    entry = _last[0] if _last else None
    if entry is None or entry[0] is not data:  # a local entry: threads never read another's
        arrays = (np.asarray(data.p, dtype=np.int64), np.asarray(data.t, dtype=np.int64)) \
            if fits(data) else None
        entry = (data, arrays)
        _last[:] = [entry]
    return entry[1]


def serial(data: ScaledScenario, order: Sequence[int]) -> list[list[int]] | None:
    """The starts per job of `order` placed by the serial scheme in C, or None (the C scheme
    is not available or not exact here: the caller runs the Python one)."""
    dll = library()
    arrays = None if dll is None else _arrays(data)
    if arrays is None:
        return None
    p, t = arrays
    arr = np.asarray(order, dtype=np.int64)
    start = np.empty(max(1, len(arr)), dtype=np.int64)
    code = dll.ri_serial(data.n, data.P, p, t, len(arr), arr, start)
    if code < 0:
        raise MemoryError("serial schedule-generation scheme: out of memory")
    starts: list[list[int]] = [[] for _ in range(data.n)]
    for j, s in zip(arr.tolist(), start[: len(arr)].tolist(), strict=True):
        starts[j].append(s)
    return starts
