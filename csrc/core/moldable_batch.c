/* moldable_batch.c -- MT-ALLOTMENT for independent identical chains (spec 000 §3.7), the
 * allotment of every batch of BATCH-LIST (spec 000 §3.4).  C twin of MTAllotment.feasible /
 * solve / backtrack (resilsched.heuristics.moldable.mt_allotment) for g = 2^L, the oracle of
 * the tests; the floats are computed by the same operations in the same order.
 *
 * The pending jobs each form a chain of g attempts; find per-attempt allocations minimising
 * L(p) = max(max_j sum_m t_j(p_jm), sum a_j(p_jm) / P).  feasible(X): quantum Z = eps X / g,
 * grid K = floor(X / Z) + g; h_j[k] = smallest area on job j's front with time <= k Z (the
 * first front point at or past the threshold, found on the log keys); H_j = g-fold min-plus
 * self-convolution of h_j by repeated squaring; X is accepted at the smallest k >= 1 with
 * area_slack sum_j H_j[k] / P < k Z.  solve: X0 doubled until accepted, then bisection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "moldable.h"

typedef struct {
    int64_t k;        /* accepted budget */
    int64_t *first;   /* m x (K + 1): front index of h_j[k] */
    int64_t *args;    /* levels x m x (K + 1): split of each squaring (first argmin) */
    int64_t K;
} dp_state;

/* _min_plus_square, one row: S[k] = min_{1 <= l <= k-1} H[l] + H[k-l] and its first argmin
 * (0 when every term is inf).  Only the step starts l <= K/2 of the non-increasing row are
 * tried, in increasing order, kept where strictly better: the same floats and arguments as the
 * whole table (mt_allotment._min_plus_square's proof). */
static void square_row(const double *H, double *S, int64_t *arg, int64_t K) {
    for (int64_t k = 0; k <= K; k++) { S[k] = INFINITY; arg[k] = 0; }
    int64_t half = K / 2;
    for (int64_t l = 1; l <= half; l++) {
        if (!(H[l] < H[l - 1])) continue;
        for (int64_t k = l + 1; k <= K; k++) {
            double c = H[l] + H[k - l];
            if (c < S[k]) { S[k] = c; arg[k] = l; }
        }
    }
}

/* first index i in [lo, hi) of the sorted key with key[i] >= v, else hi.  On job j's segment
 * this is numpy.searchsorted(key, v, side="left") over all jobs: v = j B + c with c clipped
 * to [lo, hi] lies above every key of the jobs before j and below every key after (the bands
 * are B > 2 (hi - lo) apart). */
static int64_t search_left(const double *key, int64_t lo, int64_t hi, double v) {
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (key[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* MTAllotment.feasible: 1 and *value = min(k Z, X) when X is accepted, 0 when rejected,
 * -1 out of memory.  st->first and st->args are (re)allocated for this call's grid. */
static int feasible(const rs_fronts *fr, const int64_t *jobs, int64_t m, int64_t g, int levels,
                    double eps, double area_slack, int64_t P, double X, double *value,
                    dp_state *st) {
    double Z = eps * X / g;
    int64_t K = (int64_t)floor(X / Z) + g;
    size_t W = (size_t)K + 1;
    free(st->first); free(st->args);
    st->first = malloc(sizeof(int64_t) * m * W + 8);
    st->args = malloc(sizeof(int64_t) * (levels ? levels : 1) * m * W + 8);
    double *H = malloc(sizeof(double) * m * W + 8), *S = malloc(sizeof(double) * W + 8);
    double *total = calloc(W, sizeof(double));
    double *thr = malloc(sizeof(double) * W + 8);
    int result = -1;
    if (!st->first || !st->args || !H || !S || !total || !thr) goto out;
    st->K = K;
    for (int64_t k = 0; k <= K; k++) thr[k] = (double)k * Z;
    for (int64_t r = 0; r < m; r++) {
        int64_t j = jobs[r], end = fr->off[j + 1];
        double *h = H + r * W;
        int64_t *first = st->first + r * W;
        h[0] = INFINITY;
        first[0] = 0;
        for (int64_t k = 1; k <= K; k++) {
            double c = -log(thr[k]);
            c = c < fr->lo ? fr->lo : c;      /* numpy.clip = minimum(maximum(c, lo), hi) */
            c = c > fr->hi ? fr->hi : c;
            int64_t idx = search_left(fr->key, fr->off[j], end, (double)j * fr->B + c);
            first[k] = idx < end ? idx : end - 1;
            h[k] = idx < end ? fr->sufmin[idx] : INFINITY;
        }
        for (int level = 0; level < levels; level++) {  /* H^(2s) = H^(s) (+) H^(s) */
            int64_t *arg = st->args + ((size_t)level * m + r) * W;
            square_row(h, S, arg, K);
            memcpy(h, S, sizeof(double) * W);
        }
    }
    /* total[k] = area_slack * (sum over the jobs of H_j[k]) / P, rows added in order */
    for (int64_t r = 0; r < m; r++)
        for (int64_t k = 0; k <= K; k++) total[k] += H[r * W + k];
    result = 0;
    for (int64_t k = 1; k <= K; k++) {
        if (area_slack * total[k] / (double)P < thr[k]) {
            double kz = (double)k * Z;
            *value = kz < X ? kz : X;
            st->k = k;
            result = 1;
            break;
        }
    }
out:
    free(H); free(S); free(total); free(thr);
    return result;
}

/* MTAllotment.backtrack for g = 2^L: split every 2s-chain budget into two s-chains, from the
 * last squaring back; budgets of a row are [lefts..., rights...] at each level */
static int backtrack(const rs_fronts *fr, const dp_state *st, int64_t m, int64_t g, int levels,
                     int64_t *alloc) {
    size_t W = (size_t)st->K + 1;
    int64_t *budget = malloc(sizeof(int64_t) * g), *next = malloc(sizeof(int64_t) * g);
    if (!budget || !next) { free(budget); free(next); return -1; }
    for (int64_t r = 0; r < m; r++) {
        int64_t c = 1;
        budget[0] = st->k;
        for (int level = levels - 1; level >= 0; level--) {
            const int64_t *arg = st->args + ((size_t)level * m + r) * W;
            for (int64_t x = 0; x < c; x++) {
                int64_t left = arg[budget[x]];
                next[x] = left;
                next[c + x] = budget[x] - left;
            }
            c *= 2;
            memcpy(budget, next, sizeof(int64_t) * c);
        }
        const int64_t *first = st->first + r * W;
        for (int64_t x = 0; x < g; x++) alloc[r * g + x] = fr->p[fr->sufarg[first[budget[x]]]];
    }
    free(budget); free(next);
    return 0;
}

int rs_mt_solve(const rs_fronts *fr, const int64_t *jobs, int64_t m, int64_t g, double eps,
                double eps2, double area_slack, int64_t P, double X0, int64_t *alloc,
                double *xmax, int64_t *calls) {
    int levels = 0;
    while (((int64_t)1 << levels) < g) levels++;
    dp_state cur = {0, NULL, NULL, 0}, best = {0, NULL, NULL, 0};
    int rc = -1;
    double X = X0, value = 0;
    *calls = 1;
    int ok = feasible(fr, jobs, m, g, levels, eps, area_slack, P, X, &value, &cur);
    while (ok == 0) {  /* X0 too small (spec §3.7 step 6 edge case): double it */
        X *= 2.0;
        if (!isfinite(X)) { rc = -2; goto out; }
        (*calls)++;
        ok = feasible(fr, jobs, m, g, levels, eps, area_slack, P, X, &value, &cur);
    }
    if (ok < 0) goto out;
    double hi = value, lo = 0.0;
    best = cur;
    cur.first = cur.args = NULL;
    while (lo == 0.0 || hi / lo > 1.0 + eps2) {  /* bisection */
        double mid = (lo + hi) / 2.0;
        (*calls)++;
        ok = feasible(fr, jobs, m, g, levels, eps, area_slack, P, mid, &value, &cur);
        if (ok < 0) goto out;
        if (ok == 0) {
            lo = mid;
        } else {
            dp_state tmp = best;
            hi = value;
            best = cur;
            cur = tmp;
        }
    }
    *xmax = hi;
    rc = backtrack(fr, &best, m, g, levels, alloc);
out:
    free(cur.first); free(cur.args); free(best.first); free(best.args);
    return rc;
}
