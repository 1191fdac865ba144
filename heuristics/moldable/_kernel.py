"""Fast LIST kernel (Algorithm 1, spec 000 §3.1) for the experiments: the compiled core, or Python.

`list_run` simulates one LIST run without an attempt log. Job j's attempt k (0-based, counted in
this run) uses ``alloc[j, min(k, G-1)]`` processors for ``dur[j, min(k, G-1)]`` with priority
``key[j, min(k, G-1)]`` (larger first, ties by job index); ``cap[j]`` > 0 limits the attempts in
this run (BATCH-LIST), 0 means unlimited; attempt k fails iff k < fail[j]. Completions within
the engine's float tolerance (relative 1e-9, `resilsched.numeric.REL_TOL`) are released
together before one full scan of the queue, exactly like `resilsched.heuristics.engine`.
Returns (makespan = largest end of any attempt of this run, attempts run per job).
`list_runs` runs S scenarios (rows of a failure matrix) of one job set in one call.

The loop runs in the compiled core (`resilsched.engine`, C source ``csrc/core/moldable_list.c``,
built at install time, decisions T13 and M27); without it the identical pure-Python loop
`list_run_py` runs. Tests check both against the engine path, bit for bit. The core refuses
(ValueError) durations that are negative or NaN and P >= 2^53, which it cannot order exactly.
"""

from __future__ import annotations

import bisect
import heapq

import numpy as np

from resilsched import engine
from resilsched.numeric import REL_TOL


def have_c() -> bool:
    """True when the compiled core runs the loop."""
    return engine.available()


def list_run_py(P: int, dur: np.ndarray, alloc: np.ndarray, key: np.ndarray, fail: np.ndarray,
                cap: np.ndarray, jobs: np.ndarray) -> tuple[float, np.ndarray]:
    """Pure-Python twin of the C kernel (same arguments and results as `list_run`)."""
    n, G = alloc.shape
    durl, allocl, keyl = dur.tolist(), alloc.tolist(), key.tolist()
    faill, capl = fail.tolist(), cap.tolist()
    done = [0] * n
    queue = sorted((-keyl[j][0], j) for j in jobs.tolist())
    heap: list[tuple[float, int]] = []
    runp = [0] * n
    free = P
    t = 0.0
    makespan = 0.0
    last = G - 1
    while True:
        keep = []
        for item in queue:
            j = item[1]
            a = done[j] if done[j] < G else last
            p = allocl[j][a]
            if p <= free:
                free -= p
                runp[j] = p
                heapq.heappush(heap, (t + durl[j][a], j))
            else:
                keep.append(item)
        queue = keep
        if not heap:
            break
        t = heap[0][0]
        comp = []
        while heap:
            e = heap[0][0]
            if abs(e - t) > REL_TOL * max(abs(e), abs(t), 1.0):
                break
            _, j = heapq.heappop(heap)
            free += runp[j]
            done[j] += 1
            if e > makespan:
                makespan = e
            if done[j] <= faill[j] and (capl[j] == 0 or done[j] < capl[j]):
                comp.append(j)
        for j in comp:
            a = done[j] if done[j] < G else last
            bisect.insort(queue, (-keyl[j][a], j))
    return makespan, np.array(done, dtype=np.int64)


def list_run(P: int, dur: np.ndarray, alloc: np.ndarray, key: np.ndarray, fail: np.ndarray,
             cap: np.ndarray, jobs: np.ndarray,
             use_c: bool | None = None) -> tuple[float, np.ndarray]:
    """LIST run (see the module docstring); ``use_c=False`` forces the Python loop."""
    lib = engine.module() if use_c is not False else None
    if lib is None:
        return list_run_py(P, dur, alloc, key, fail, cap, jobs)
    n, G = alloc.shape
    done = np.zeros(n, dtype=np.int64)
    out = np.empty(1)
    lib.moldable_list(P, n, G, _c(dur, np.float64), _c(alloc, np.int64), _c(key, np.float64),
                      _c(fail, np.int64), _c(cap, np.int64), _c(jobs, np.int64), REL_TOL, done,
                      1, out)
    return float(out[0]), done


def list_runs(P: int, dur: np.ndarray, alloc: np.ndarray, key: np.ndarray, F: np.ndarray,
              cap: np.ndarray, jobs: np.ndarray, use_c: bool | None = None) -> np.ndarray:
    """Makespans of `list_run` for every row of the failure matrix ``F`` (S x n), in one call
    of the compiled core (a Python loop over `list_run_py` without it)."""
    F = np.atleast_2d(np.asarray(F, dtype=np.int64))
    lib = engine.module() if use_c is not False else None
    if lib is None:
        return np.array([list_run_py(P, dur, alloc, key, f, cap, jobs)[0] for f in F])
    n, G = alloc.shape
    S = F.shape[0]
    out = np.empty(S)
    lib.moldable_list(P, n, G, _c(dur, np.float64), _c(alloc, np.int64), _c(key, np.float64),
                      _c(F, np.int64), _c(cap, np.int64), _c(jobs, np.int64), REL_TOL,
                      np.zeros(n, dtype=np.int64), S, out)
    return out


def _c(a: np.ndarray, dtype) -> np.ndarray:
    """`a` as a C-contiguous array of `dtype` (no copy when it already is)."""
    if a.dtype == dtype and a.flags.c_contiguous:
        return a
    return np.ascontiguousarray(a, dtype=dtype)
