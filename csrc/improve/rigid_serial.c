/* rigid_serial.c -- the serial schedule-generation scheme of the rigid improvement phase in C
 * (decision R34).
 *
 * Built at install time as the optional extension `resilsched._improve` (setup.py); the module
 * itself is empty and `resilsched.models.rigid.cserial` loads its shared object with ctypes.
 * It is the twin of `serial_schedule` in models/rigid/improve.py, which stays the oracle: the
 * attempts of `order` (job j listed m_j times; its k-th occurrence is attempt k) are placed one
 * by one at the earliest time at or after the end of the job's previous attempt where p_j
 * processors stay free for t_j in the profile of the attempts placed before, the profile kept
 * as sorted breakpoints times[i] with used[i] processors busy on [times[i], times[i + 1]), a
 * sentinel NEVER ending every scan. Same scan, same breakpoints, so the same starts.
 *
 * All arithmetic is exact int64: the caller checks that every time stays below NEVER.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* later than any time of a scaled scenario (models/rigid/improve.py: _NEVER) */
const int64_t ri_never = (int64_t)1 << 62;

/* The index of a breakpoint at time x, inserted (with the load of the piece it splits) if
 * missing; the search starts at index `from`, whose time is at most x. */
static int breakpoint(int64_t *times, int64_t *used, int *len, int from, int64_t x) {
    int a = from;
    while (times[a] < x) a++;
    if (times[a] != x) {
        memmove(times + a + 1, times + a, sizeof(int64_t) * (size_t)(*len - a));
        memmove(used + a + 1, used + a, sizeof(int64_t) * (size_t)(*len - a));
        times[a] = x; used[a] = used[a - 1]; (*len)++;
    }
    return a;
}

/* ri_serial(n, P, p, t, A, order, start): start[k] = the start of the attempt order[k].
 * Returns the makespan (0 when A = 0), or -1 when out of memory. */
int64_t ri_serial(int n, int64_t P, const int64_t *p, const int64_t *t, int A,
                  const int64_t *order, int64_t *start) {
    int cap = 2 * A + 2, len = 2;
    int64_t *times = malloc(sizeof(int64_t) * (size_t)cap);
    int64_t *used = malloc(sizeof(int64_t) * (size_t)cap);
    int64_t *ready = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
    int64_t makespan = 0;
    if (!times || !used || !ready) {
        free(times); free(used); free(ready);
        return -1;
    }
    times[0] = 0; used[0] = 0;
    times[1] = ri_never; used[1] = 0;
    for (int q = 0; q < A; q++) {
        int j = (int)order[q];
        int64_t room = P - p[j], tj = t[j], s = ready[j], end;
        int i = 0, k;
        while (times[i + 1] <= s) i++;  /* the piece holding s */
        for (;;) {  /* the first window [s, s + t_j) with used <= room throughout */
            end = s + tj;
            for (k = i; times[k] < end; k++)
                if (used[k] > room) break;
            if (times[k] >= end) break;
            i = k + 1;  /* piece k is too full: the window starts at its end at the earliest */
            s = times[i];
        }
        /* breakpoints at s and end (the piece before each one carries over its load) */
        int a = breakpoint(times, used, &len, i, s);
        int b = breakpoint(times, used, &len, a, end);
        for (k = a; k < b; k++) used[k] += p[j];
        start[q] = s;
        ready[j] = end;
        if (end > makespan) makespan = end;
    }
    free(times); free(used); free(ready);
    return makespan;
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_improve",
    "The rigid serial schedule-generation scheme in C, called through ctypes "
    "(resilsched.models.rigid.cserial).",
    -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__improve(void) { return PyModule_Create(&module); }
