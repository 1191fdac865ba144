/* chunk_dp.c -- the chunk program of the worksharing static bound in C (decision WS-21).
 *
 * Built at install time as the optional extension `resilsched._chunks` (setup.py); the module
 * itself is empty and `resilsched.bounds.worksharing_static` loads its shared object with
 * ctypes. It is the twin of `chunk_dp_python` in bounds/worksharing_static.py, which stays the
 * oracle: the longest path over cells k_1 < ... < k_m with gains prices[k] (ends[k] -
 * ends[k'] - eps), by the monotone convex hull trick, with the same double operations in the
 * same order (compiled without fused multiply-add), so the same value and the same cells.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* ws_chunk_dp(K, prices, ends, eps, value, cells): value[0] = the best path's value (0 for no
 * chunk) and cells[0..m) its cells in order. Returns m >= 0, or -1 when out of memory. */
int64_t ws_chunk_dp(int K, const double *prices, const double *ends, double eps, double *value,
                    int64_t *cells) {
    double *best = malloc(sizeof(double) * (size_t)(K + 1));
    int *prev = malloc(sizeof(int) * (size_t)(K + 1));
    double *slope = malloc(sizeof(double) * (size_t)(K + 2));
    double *icpt = malloc(sizeof(double) * (size_t)(K + 2));
    int *who = malloc(sizeof(int) * (size_t)(K + 2));
    if (!best || !prev || !slope || !icpt || !who) {
        free(best); free(prev); free(slope); free(icpt); free(who);
        return -1;
    }
    int len = 0, head = 0, started = 0, nxt = 0;
    for (int k = 0; k < K; k++) { best[k] = -INFINITY; prev[k] = -1; }
    for (int k = 0; k < K; k++) {
        /* the lines to add: (slope m, intercept b, predecessor j), each as `add` in Python */
        int pending = 0;
        double m = 0.0, b = 0.0;
        int j = -1;
        if (!started) {
            if (ends[k] < eps) continue;
            pending = 1;
            started = 1;
        }
        double limit = ends[k] - eps;
        for (;;) {
            if (!pending) {
                if (!(nxt < k && ends[nxt] <= limit)) break;
                int cand = nxt++;
                if (!(best[cand] > -INFINITY)) continue;
                m = -ends[cand]; b = best[cand]; j = cand;
            }
            pending = 0;
            while (len - head >= 2) {
                double m1 = slope[len - 2], b1 = icpt[len - 2];
                double m2 = slope[len - 1], b2 = icpt[len - 1];
                /* the last line is useless when the new one overtakes the one before it first */
                if ((b - b2) * (m1 - m2) >= (b2 - b1) * (m2 - m)) len--;
                else break;
            }
            slope[len] = m; icpt[len] = b; who[len] = j; len++;
            if (head > len - 1) head = len - 1;
        }
        double x = prices[k];
        while (head + 1 < len && icpt[head + 1] + slope[head + 1] * x >=
               icpt[head] + slope[head] * x)
            head++;
        best[k] = x * (ends[k] - eps) + icpt[head] + slope[head] * x;
        prev[k] = who[head];
    }
    int top = -1;
    for (int k = 0; k < K; k++)
        if (top < 0 || best[k] > best[top]) top = k;
    int64_t count = 0;
    if (top < 0 || best[top] <= 0) {
        value[0] = 0.0;
    } else {
        value[0] = best[top];
        for (int k = top; k >= 0; k = prev[k]) count++;
        int64_t i = count;
        for (int k = top; k >= 0; k = prev[k]) cells[--i] = k;
    }
    free(best); free(prev); free(slope); free(icpt); free(who);
    return count;
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_chunks",
    "The worksharing static bound's chunk program in C, called through ctypes "
    "(resilsched.bounds.worksharing_static).",
    -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__chunks(void) { return PyModule_Create(&module); }
