"""Fast LIST kernel (Algorithm 1, spec 000 §3.1) for the experiments: C via ctypes, or Python.

`list_run` simulates one LIST run without an attempt log. Job j's attempt k (0-based, counted in
this run) uses ``alloc[j, min(k, G-1)]`` processors for ``dur[j, min(k, G-1)]`` with priority
``key[j, min(k, G-1)]`` (larger first, ties by job index); ``cap[j]`` > 0 limits the attempts in
this run (BATCH-LIST), 0 means unlimited; attempt k fails iff k < fail[j]. Completions within
the engine's float tolerance (relative 1e-9, `resilsched.numeric.REL_TOL`) are released
together before one full scan of the queue, exactly like `resilsched.heuristics.engine`.

Returns (makespan = largest end of any attempt of this run, attempts run per job).

The C source below is compiled once with the system C compiler into a per-user cache directory
(``$RESILSCHED_CACHE`` or ``~/.cache/resilsched``); without a compiler the identical pure-Python
loop `list_run_py` is used. Tests check both against the engine path.
"""

from __future__ import annotations

import bisect
import ctypes
import hashlib
import heapq
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from resilsched.numeric import REL_TOL

C_SOURCE = r"""
#include <math.h>
#include <string.h>
static void hpush(double* he, long* hj, long* hn, double e, long j) {
    long i = (*hn)++;
    while (i > 0) {
        long par = (i - 1) / 2;
        if (he[par] < e || (he[par] == e && hj[par] < j)) break;
        he[i] = he[par]; hj[i] = hj[par]; i = par;
    }
    he[i] = e; hj[i] = j;
}
static void hpop(double* he, long* hj, long* hn) {
    long n = --(*hn);
    double e = he[n]; long j = hj[n];
    long i = 0;
    for (;;) {
        long c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && (he[c + 1] < he[c] || (he[c + 1] == he[c] && hj[c + 1] < hj[c]))) c++;
        if (e < he[c] || (e == he[c] && j < hj[c])) break;
        he[i] = he[c]; hj[i] = hj[c]; i = c;
    }
    he[i] = e; hj[i] = j;
}
static inline int qless(double k1, long j1, double k2, long j2) {
    /* queue order: larger key first, then smaller job index */
    return k1 > k2 || (k1 == k2 && j1 < j2);
}
/* queue: qk key, qj job, qp processors of the job's next attempt, qs[i] = min(qp[i..qn-1]) */
static long qinsert(double* qk, long* qj, long* qp, long* qs, long qn, double k, long j, long p,
                    int keep_suffix) {
    long pos = qn;
    while (pos > 0 && qless(k, j, qk[pos - 1], qj[pos - 1])) {
        qk[pos] = qk[pos - 1]; qj[pos] = qj[pos - 1]; qp[pos] = qp[pos - 1]; qs[pos] = qs[pos - 1];
        pos--;
    }
    qk[pos] = k; qj[pos] = j; qp[pos] = p;
    if (keep_suffix) {
        long s = (pos < qn) ? qs[pos + 1] : p;  /* element after pos, if any (shifted) */
        qs[pos] = s < p ? s : p;
        for (long i = pos - 1; i >= 0 && qs[i] > p; i--) qs[i] = p;
    }
    return qn + 1;
}
double list_run(long n, long P, long G, const double* dur, const long* alloc, const double* key,
                const long* fail, const long* cap, const long* jobs, long njobs, long* done,
                double* qk, long* qj, double* he, long* hj, long* runp, long* comp, double tol,
                long* qp, long* qs) {
    long qn = 0, hn = 0, free = P;
    double t = 0.0, makespan = 0.0;
    for (long j = 0; j < n; j++) done[j] = 0;
    for (long i = 0; i < njobs; i++) {
        long j = jobs[i];
        qn = qinsert(qk, qj, qp, qs, qn, key[j * G], j, alloc[j * G], 0);
    }
    for (long x = qn - 1; x >= 0; x--)
        qs[x] = (x + 1 < qn && qs[x + 1] < qp[x]) ? qs[x + 1] : qp[x];
    for (;;) {
        long w = 0, i = 0;
        while (i < qn) {
            if (free < qs[i]) break;          /* nothing from i on fits: same as a full scan */
            long j = qj[i];
            long p = qp[i];
            if (p <= free) {
                long a = done[j] < G ? done[j] : G - 1;
                free -= p; runp[j] = p;
                hpush(he, hj, &hn, t + dur[j * G + a], j);
            } else {
                qk[w] = qk[i]; qj[w] = qj[i]; qp[w] = qp[i]; w++;
            }
            i++;
        }
        if (w != i) {
            long rest = qn - i;
            memmove(qk + w, qk + i, rest * sizeof(double));
            memmove(qj + w, qj + i, rest * sizeof(long));
            memmove(qp + w, qp + i, rest * sizeof(long));
            memmove(qs + w, qs + i, rest * sizeof(long));
            qn = w + rest;
            for (long x = w - 1; x >= 0; x--)
                qs[x] = (x + 1 < qn && qs[x + 1] < qp[x]) ? qs[x + 1] : qp[x];
        }
        if (hn == 0) break;
        t = he[0];
        long nc = 0;
        while (hn > 0) {
            double e = he[0];
            double m = fabs(e) > fabs(t) ? fabs(e) : fabs(t);
            if (m < 1.0) m = 1.0;
            if (fabs(e - t) > tol * m) break;
            long j = hj[0];
            hpop(he, hj, &hn);
            free += runp[j];
            done[j]++;
            if (e > makespan) makespan = e;
            if (done[j] <= fail[j] && (cap[j] == 0 || done[j] < cap[j])) comp[nc++] = j;
        }
        for (long c = 0; c < nc; c++) {
            long j = comp[c];
            long a = done[j] < G ? done[j] : G - 1;
            qn = qinsert(qk, qj, qp, qs, qn, key[j * G + a], j, alloc[j * G + a], 1);
        }
    }
    return makespan;
}
"""

_LIB: ctypes.CDLL | None = None
_TRIED = False


def _cache_dir() -> Path:
    base = os.environ.get("RESILSCHED_CACHE") or os.path.join(Path.home(), ".cache", "resilsched")
    return Path(base)


def _load() -> ctypes.CDLL | None:
    """Compile (once) and load the C kernel; None when no compiler is available."""
    global _LIB, _TRIED
    if _TRIED:
        return _LIB
    _TRIED = True
    if os.environ.get("RESILSCHED_NO_C"):
        return None
    digest = hashlib.sha256(C_SOURCE.encode()).hexdigest()[:16]
    try:
        cache = _cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        lib = cache / f"moldable_list_{digest}.so"
        if not lib.exists():
            with tempfile.TemporaryDirectory() as tmp:
                src = Path(tmp) / "k.c"
                src.write_text(C_SOURCE)
                out = Path(tmp) / "k.so"
                cc = os.environ.get("CC", "cc")
                subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(out), str(src), "-lm"],
                               check=True, capture_output=True, timeout=60)
                os.replace(out, lib)
        dll = ctypes.CDLL(str(lib))
        fn = dll.list_run
        D = L = ctypes.c_void_p  # raw data pointers of C-contiguous float64 / int64 arrays
        c_long = ctypes.c_long
        fn.argtypes = [c_long, c_long, c_long, D, L, D, L, L, L, c_long, L, D, L, D, L, L, L,
                       ctypes.c_double, L, L]
        fn.restype = ctypes.c_double
        _LIB = dll
    except (OSError, subprocess.SubprocessError):
        _LIB = None
    return _LIB


def have_c() -> bool:
    """True when the compiled kernel is in use."""
    return _load() is not None


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
    lib = _load() if use_c is not False else None
    if lib is None:
        return list_run_py(P, dur, alloc, key, fail, cap, jobs)
    n, G = alloc.shape
    ws = _workspace(n)
    arrays = (_c(dur, np.float64), _c(alloc, np.int64), _c(key, np.float64), _c(fail, np.int64),
              _c(cap, np.int64), _c(jobs, np.int64))
    ptr = [a.ctypes.data for a in arrays]
    wsp = [a.ctypes.data for a in ws]
    ms = lib.list_run(n, P, G, *ptr, len(jobs), *wsp[:7], REL_TOL, *wsp[7:])
    return float(ms), ws[0].copy()


def _c(a: np.ndarray, dtype) -> np.ndarray:
    if a.dtype == dtype and a.flags.c_contiguous:
        return a
    return np.ascontiguousarray(a, dtype=dtype)


_WS: dict[int, tuple] = {}


def _workspace(n: int) -> tuple:
    """Scratch arrays of the kernel, reused across calls of the same size (not thread-safe)."""
    if n not in _WS:
        i64, f64 = np.int64, np.float64
        _WS[n] = (np.empty(n, i64), np.empty(n, f64), np.empty(n, i64), np.empty(n, f64),
                  np.empty(n, i64), np.zeros(n, i64), np.empty(n, i64), np.empty(n, i64),
                  np.empty(n, i64))
    return _WS[n]
