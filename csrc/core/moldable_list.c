/* moldable_list.c -- LIST scheduling of moldable jobs (spec 000 §3.1, Algorithm 1), makespan
 * only: the experiments' fast path of LPA-LIST, MINTIME, MINAREA, LPA-PROOF and of each batch
 * of BATCH-LIST (spec 000 §3.4).
 *
 * C twin of list_run_py in resilsched.heuristics.moldable._kernel (the oracle, with the engine
 * path ListPolicy under run_engine).  At time 0 and whenever attempts complete (all completions
 * within the float tolerance first, spec 000 §7 item 6) the failed jobs that may still run go
 * back into the queue at their priority position, then one full scan of the queue starts every
 * job whose next attempt fits the free processors (greedy backfilling, no reservation).
 *
 * The queue is a sorted array (key descending, job ascending) with qs[i] = min(qp[i..]), the
 * smallest width from position i on: a scan stops as soon as nothing later can fit, which
 * starts exactly the jobs a full scan would.
 */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "moldable.h"

/* queue order: larger key first, then smaller job index */
static inline int qless(double k1, int64_t j1, double k2, int64_t j2) {
    return k1 > k2 || (k1 == k2 && j1 < j2);
}

typedef struct {
    double *k;      /* key of each queued attempt */
    int64_t *j;     /* its job */
    int64_t *p;     /* its processors */
    int64_t *s;     /* suffix minimum of p */
    int64_t n;
} mqueue;

static void suffix_min(mqueue *q, int64_t from) {
    for (int64_t x = from; x >= 0; x--)
        q->s[x] = (x + 1 < q->n && q->s[x + 1] < q->p[x]) ? q->s[x + 1] : q->p[x];
}

/* insert (k, j, p) at its place; keep_suffix: update s for the shifted prefix */
static void qinsert(mqueue *q, double k, int64_t j, int64_t p, int keep_suffix) {
    int64_t pos = q->n;
    while (pos > 0 && qless(k, j, q->k[pos - 1], q->j[pos - 1])) {
        q->k[pos] = q->k[pos - 1]; q->j[pos] = q->j[pos - 1];
        q->p[pos] = q->p[pos - 1]; q->s[pos] = q->s[pos - 1];
        pos--;
    }
    q->k[pos] = k; q->j[pos] = j; q->p[pos] = p;
    q->n++;
    if (keep_suffix) {
        int64_t s = (pos + 1 < q->n) ? q->s[pos + 1] : p;
        q->s[pos] = s < p ? s : p;
        for (int64_t i = pos - 1; i >= 0 && q->s[i] > p; i--) q->s[i] = p;
    }
}

double rs_moldable_list(int64_t n, int64_t P, int64_t G, const double *dur, const int64_t *alloc,
                        const double *key, const int64_t *fail, const int64_t *cap,
                        const int64_t *jobs, int64_t njobs, double tol, int64_t *done) {
    size_t m = (size_t)n + 1;
    double *qk = malloc(m * sizeof(double)), *hend = malloc(m * sizeof(double));
    int64_t *qj = malloc(m * sizeof(int64_t)), *qp = malloc(m * sizeof(int64_t));
    int64_t *qs = malloc(m * sizeof(int64_t)), *hjob = malloc(m * sizeof(int64_t));
    int64_t *runp = malloc(m * sizeof(int64_t)), *comp = malloc(m * sizeof(int64_t));
    double makespan = -1.0;
    if (!qk || !hend || !qj || !qp || !qs || !hjob || !runp || !comp) goto out;
    mqueue q = {qk, qj, qp, qs, 0};
    rs_heap heap = {hend, hjob, 0};
    int64_t free_ = P;
    double t = 0.0;
    makespan = 0.0;
    for (int64_t j = 0; j < n; j++) done[j] = 0;
    for (int64_t i = 0; i < njobs; i++) {
        int64_t j = jobs[i];
        qinsert(&q, key[j * G], j, alloc[j * G], 0);
    }
    suffix_min(&q, q.n - 1);
    for (;;) {
        /* one scan: start every queued attempt that fits, keep the others in order */
        int64_t w = 0, i = 0;
        while (i < q.n) {
            if (free_ < qs[i]) break;  /* nothing from i on fits: same as a full scan */
            int64_t j = qj[i], p = qp[i];
            if (p <= free_) {
                int64_t a = done[j] < G ? done[j] : G - 1;
                free_ -= p;
                runp[j] = p;
                rs_heap_push(&heap, t + dur[j * G + a], j);
            } else {
                qk[w] = qk[i]; qj[w] = qj[i]; qp[w] = qp[i]; w++;
            }
            i++;
        }
        if (w != i) {
            size_t rest = (size_t)(q.n - i);
            memmove(qk + w, qk + i, rest * sizeof(double));
            memmove(qj + w, qj + i, rest * sizeof(int64_t));
            memmove(qp + w, qp + i, rest * sizeof(int64_t));
            memmove(qs + w, qs + i, rest * sizeof(int64_t));
            q.n = w + (int64_t)rest;
            suffix_min(&q, w - 1);
        }
        if (heap.n == 0) break;
        /* complete every attempt ending at t (within the tolerance) */
        t = heap.end[0];
        int64_t nc = 0;
        while (heap.n > 0 && rs_same(heap.end[0], t, tol)) {
            double e = heap.end[0];
            int64_t j = heap.job[0];
            rs_heap_pop(&heap);
            free_ += runp[j];
            done[j]++;
            if (e > makespan) makespan = e;
            if (done[j] <= fail[j] && (cap[j] == 0 || done[j] < cap[j])) comp[nc++] = j;
        }
        /* failed attempts that may run again: back into the queue (next attempt's key) */
        for (int64_t c = 0; c < nc; c++) {
            int64_t j = comp[c];
            int64_t a = done[j] < G ? done[j] : G - 1;
            qinsert(&q, key[j * G + a], j, alloc[j * G + a], 1);
        }
    }
out:
    free(qk); free(hend); free(qj); free(qp); free(qs); free(hjob); free(runp); free(comp);
    return makespan;
}
