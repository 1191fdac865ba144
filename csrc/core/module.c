/* module.c -- Python bindings of the simulation core, the extension module resilsched._core.
 *
 * Built by setup.py when the package is installed (never at run time).  The Python side
 * (resilsched/core.py and the engines' wrappers) passes C-contiguous numpy arrays of the right
 * dtypes: int64 ("q"), float64 ("d"), uint8 ("B"); the bindings check sizes, not dtypes.
 * Every function simulates S scenarios of one instance per call, so that the Python overhead
 * is paid once per batch of scenarios, and writes the S makespans into `out`.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "moldable.h"
#include "rigid.h"

/* number of elements of a buffer of `itemsize`-byte items, or -1 (with a Python error) */
static Py_ssize_t count(Py_buffer *b, Py_ssize_t itemsize, const char *name) {
    if (b->len % itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes is not a whole number of items", name, b->len);
        return -1;
    }
    return b->len / itemsize;
}

static int need(Py_buffer *b, Py_ssize_t itemsize, Py_ssize_t n, const char *name) {
    Py_ssize_t c = count(b, itemsize, name);
    if (c < 0) return -1;
    if (c < n) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd items, %zd needed", name, c, n);
        return -1;
    }
    return 0;
}

static PyObject *engine_error(double code) {
    if (code == RS_ENOMEM) return PyErr_NoMemory();
    if (code == RS_EDRAWS) PyErr_SetString(PyExc_RuntimeError, "core: random draws ran out");
    else PyErr_SetString(PyExc_RuntimeError, "core: inconsistent schedule (deadlock)");
    return NULL;
}

/* moldable_list(P, n, G, dur, alloc, key, fail, cap, jobs, tol, done, S, out)
 * S LIST runs (spec 000 §3.1) of one job set: scenario s reads fail[s n : (s + 1) n] and
 * writes its makespan to out[s]; done holds the attempts per job of the last scenario.  The
 * queue order and the buffers are set up once for the S runs (rs_moldable_prepare). */
static PyObject *py_moldable_list(PyObject *self, PyObject *args) {
    long long P, n, G, S;
    double tol;
    Py_buffer dur, alloc, key, fail, cap, jobs, done, out;
    if (!PyArg_ParseTuple(args, "LLLy*y*y*y*y*y*dw*Lw*", &P, &n, &G, &dur, &alloc, &key, &fail,
                          &cap, &jobs, &tol, &done, &S, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t njobs = count(&jobs, 8, "jobs");
    if (njobs < 0 || need(&dur, 8, n * G, "dur") || need(&alloc, 8, n * G, "alloc") ||
        need(&key, 8, n * G, "key") || need(&fail, 8, n * S, "fail") || need(&cap, 8, n, "cap") ||
        need(&done, 8, n, "done") || need(&out, 8, S, "out"))
        goto fin;
    /* the engine's queue index holds widths as doubles and its event tree sorts the ends by
     * their bits: both exact under these bounds */
    if (P < 0 || P >= (1LL << 53) || G < 1) {
        PyErr_SetString(PyExc_ValueError, "moldable_list: P must be in [0, 2^53), G >= 1");
        goto fin;
    }
    const int64_t *jl = jobs.buf;
    const double *dl = dur.buf;
    for (Py_ssize_t i = 0; i < njobs; i++) {
        if (jl[i] < 0 || jl[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "moldable_list: a job index is out of range");
            goto fin;
        }
        for (long long a = 0; a < G; a++)
            if (!(dl[jl[i] * G + a] >= 0.0)) {
                PyErr_SetString(PyExc_ValueError, "moldable_list: durations must be >= 0");
                goto fin;
            }
    }
    double *o = (double *)out.buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    rs_mlist *m = rs_moldable_prepare(n, P, G, key.buf, alloc.buf, jl, njobs);
    if (!m) bad = 1;
    for (long long s = 0; s < S && !bad; s++)
        o[s] = rs_moldable_run(m, dl, (const int64_t *)fail.buf + s * n, cap.buf, tol, done.buf);
    rs_moldable_release(m);
    Py_END_ALLOW_THREADS
    if (bad) { PyErr_NoMemory(); goto fin; }
    result = Py_None;
    Py_INCREF(result);
fin:
    PyBuffer_Release(&dur); PyBuffer_Release(&alloc); PyBuffer_Release(&key);
    PyBuffer_Release(&fail); PyBuffer_Release(&cap); PyBuffer_Release(&jobs);
    PyBuffer_Release(&done); PyBuffer_Release(&out);
    return result;
}

/* rigid(kind, m, opt_a, opt_b, P, n, p, t, tol, k1, k2, fixed, redraw, draws, fail, S, out)
 * S runs of one rigid job set (spec 002 §4-§5):
 *   kind 0: R-LIST-0 (GREEDY);
 *   kind 1: R-LIST with m reservations (m = 1, or -1 for m = |Q|), opt_a = classic_easy (A2),
 *           opt_b = persistent_reservations (A3);
 *   kind 2: shelves, opt_a = backfill (B / NB), opt_b = R-SHELFFILL's refill rule (0 none,
 *           1 "own", 2 "any-queued");
 *   kind 3: R-LIST with m fixed reservations (A3 "fixed"), opt_a = classic_easy.
 * Scenario s reads fail[s n : (s + 1) n].  The keys k1, k2 (queue.h) have n entries shared by
 * all scenarios, or S n (one row per scenario: Random keys drawn per scenario); redraw has n
 * flags or is empty; draws holds S rows of equal length (the fresh keys of each scenario). */
static PyObject *py_rigid(PyObject *self, PyObject *args) {
    int kind, m, opt_a, opt_b, fixed;
    long long P, n, S;
    double tol;
    Py_buffer p, t, k1, k2, redraw, draws, fail, out;
    if (!PyArg_ParseTuple(args, "iiiiLLy*y*dy*y*iy*y*y*Lw*", &kind, &m, &opt_a, &opt_b, &P, &n,
                          &p, &t, &tol, &k1, &k2, &fixed, &redraw, &draws, &fail, &S, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t nk = count(&k1, 8, "k1"), nd = count(&draws, 8, "draws");
    Py_ssize_t nr = count(&redraw, 1, "redraw");
    if (nk < 0 || nd < 0 || nr < 0 || need(&p, 8, n, "p") || need(&t, 8, n, "t") ||
        need(&k2, 8, nk, "k2") || need(&fail, 8, n * S, "fail") || need(&out, 8, S, "out"))
        goto fin;
    if ((nk != n && nk != n * S) || (nr != 0 && nr != n) || (S > 0 && nd % S)) {
        PyErr_SetString(PyExc_ValueError, "rigid: keys, redraw flags or draws of the wrong size");
        goto fin;
    }
    if (kind < 0 || kind > 3) {
        PyErr_SetString(PyExc_ValueError, "rigid: kind must be 0, 1, 2 or 3");
        goto fin;
    }
    Py_ssize_t per = S > 0 ? nd / S : 0;
    Py_ssize_t kstride = nk == n ? 0 : n;
    double *o = (double *)out.buf;
    double code = 0.0;
    Py_BEGIN_ALLOW_THREADS
    for (long long s = 0; s < S; s++) {
        rs_rigid in = {n, P, p.buf, t.buf, tol, (const double *)k1.buf + s * kstride,
                       (const double *)k2.buf + s * kstride, fixed,
                       nr ? (const unsigned char *)redraw.buf : NULL,
                       (const double *)draws.buf + s * per, per};
        const int64_t *f = (const int64_t *)fail.buf + s * n;
        double v;
        if (kind == 0) v = rs_rigid_greedy(&in, f);
        else if (kind == 1) v = rs_rigid_rlist(&in, f, m, opt_a, opt_b);
        else if (kind == 2) v = rs_rigid_shelf(&in, f, opt_a, opt_b);
        else v = rs_rigid_fixed(&in, f, m, opt_a);
        o[s] = v;
        if (v < 0) { code = v; break; }
    }
    Py_END_ALLOW_THREADS
    if (code < 0) { engine_error(code); goto fin; }
    result = Py_None;
    Py_INCREF(result);
fin:
    PyBuffer_Release(&p); PyBuffer_Release(&t); PyBuffer_Release(&k1); PyBuffer_Release(&k2);
    PyBuffer_Release(&redraw); PyBuffer_Release(&draws); PyBuffer_Release(&fail);
    PyBuffer_Release(&out);
    return result;
}

/* mt_solve(key, off, p, sufmin, sufarg, B, lo, hi, jobs, g, eps, eps2, area_slack, P, X0,
 *          alloc) -> (xmax, calls)
 * MT-ALLOTMENT (spec 000 §3.7) of the m jobs listed in `jobs` for chains of g = 2^L attempts:
 * the m x g allocations in DP order go to alloc (moldable_batch.c). */
static PyObject *py_mt_solve(PyObject *self, PyObject *args) {
    double B, lo, hi, eps, eps2, slack, X0;
    long long g, P;
    Py_buffer key, off, p, sufmin, sufarg, jobs, alloc;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*dddy*LdddLdw*", &key, &off, &p, &sufmin, &sufarg, &B,
                          &lo, &hi, &jobs, &g, &eps, &eps2, &slack, &P, &X0, &alloc))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t nkey = count(&key, 8, "key"), m = count(&jobs, 8, "jobs");
    if (nkey < 0 || m < 0 || need(&p, 8, nkey, "p") || need(&sufmin, 8, nkey, "sufmin") ||
        need(&sufarg, 8, nkey, "sufarg") || need(&alloc, 8, m * g, "alloc"))
        goto fin;
    if (g < 1 || (g & (g - 1)) || m < 1) {
        PyErr_SetString(PyExc_ValueError, "mt_solve: g must be a power of two, jobs not empty");
        goto fin;
    }
    rs_fronts fr = {key.buf, off.buf, p.buf, sufmin.buf, sufarg.buf, nkey, B, lo, hi};
    double xmax = 0;
    int64_t calls = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = rs_mt_solve(&fr, jobs.buf, m, g, eps, eps2, slack, P, X0, alloc.buf, &xmax, &calls);
    Py_END_ALLOW_THREADS
    if (rc == -1) PyErr_NoMemory();
    else if (rc) PyErr_SetString(PyExc_OverflowError, "mt_solve: no feasible X");
    else result = Py_BuildValue("dL", xmax, (long long)calls);
fin:
    PyBuffer_Release(&key); PyBuffer_Release(&off); PyBuffer_Release(&p);
    PyBuffer_Release(&sufmin); PyBuffer_Release(&sufarg); PyBuffer_Release(&jobs);
    PyBuffer_Release(&alloc);
    return result;
}

static PyMethodDef methods[] = {
    {"mt_solve", py_mt_solve, METH_VARARGS, "MT-ALLOTMENT for chains of 2^L attempts (spec 000 §3.7)."},
    {"moldable_list", py_moldable_list, METH_VARARGS, "S LIST runs of moldable jobs (spec 000 §3.1)."},
    {"rigid", py_rigid, METH_VARARGS, "S runs of a rigid list or shelf heuristic (spec 002 §4-§5)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "resilsched._core",
    "The compiled simulation core (list-scheduling engines), built at install time.", -1, methods,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&module); }
