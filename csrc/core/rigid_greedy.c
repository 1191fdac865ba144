/* rigid_greedy.c -- R-LIST-0, GREEDY (spec 002 §4.2: Algorithm 1 with m = 0), makespan only.
 *
 * C twin of resilsched.heuristics.rigid.greedy (greedy_makespan and _indexed_makespan), which
 * the tests use as the oracle together with the engine path (RList under run_engine).
 *
 * At time 0 and after every batch of completions (spec 002 §2, A1) one pass starts, in
 * priority order, every queued job that fits the free processors (no reservation: a job that
 * does not fit is skipped, not waited for).  A failed attempt puts its job back into Q at its
 * rank (A5).  With fixed priorities the queue is a FitIndex over the ranks (O(log n) per start);
 * with redrawn keys (Random + redraw_on_failure, A6) it is the sorted queue, scanned.
 */
#include <stdlib.h>

#include "events.h"
#include "fitindex.h"
#include "queue.h"
#include "rigid.h"

double rs_rigid_greedy(const rs_rigid *in, const int64_t *f) {
    int64_t n = in->n, P = in->P;
    const int64_t *p = in->p;
    const double *t = in->t;
    double tol = in->tol;
    double result = RS_ENOMEM;
    double *k1 = RS_NEW(double, n), *k2 = RS_NEW(double, n);
    rs_event *hev = RS_NEW(rs_event, n);
    int64_t *items = RS_NEW(int64_t, n);
    int64_t *done = RS_NEW(int64_t, n), *failed = RS_NEW(int64_t, n);
    unsigned char *mark = RS_NEW(unsigned char, n), *flag = RS_NEW(unsigned char, n);
    rs_fit fit = {0, 0, NULL};
    if (!k1 || !k2 || !hev || !items || !done || !failed || !mark || !flag) goto out;
    if (rs_rigid_queue(in, k1, k2, items)) goto out;
    rs_heap heap = {hev, 0};
    rs_queue q = {items, n, k1, k2, in->redraw, in->draws, in->ndraws, 0};
    int64_t minp = P + 1;
    for (int64_t j = 0; j < n; j++) if (p[j] < minp) minp = p[j];
    if (in->fixed) {  /* position = rank; width while queued, P + 1 once started */
        if (rs_fit_init(&fit, n, P + 1)) goto out;
        for (int64_t r = 0; r < n; r++) rs_fit_leaf(&fit, r, p[items[r]]);
        rs_fit_build(&fit);
    }
    int64_t free_ = P;
    double now = 0.0, best = 0.0;
    for (;;) {
        /* one greedy pass at time `now` */
        if (in->fixed) {
            int64_t pos = free_ >= minp ? rs_fit_first(&fit, free_) : -1;
            while (pos >= 0) {
                int64_t j = items[pos];
                free_ -= p[j];
                rs_heap_push(&heap, now + t[j], j);
                rs_fit_set(&fit, pos, P + 1);
                pos = free_ >= minp ? rs_fit_first(&fit, free_) : -1;
            }
        } else if (free_ >= minp && q.n) {
            int started = 0;
            for (int64_t i = 0; i < q.n; i++) {
                int64_t j = q.items[i];
                if (p[j] <= free_) {
                    free_ -= p[j];
                    rs_heap_push(&heap, now + t[j], j);
                    mark[j] = started = 1;
                    if (free_ < minp) break;
                }
            }
            if (started) rs_queue_drop_marked(&q, mark);
        }
        if (heap.n && (in->fixed ? fit.tree[1] > P : q.n == 0)) {  /* Q empty: T15 */
            int64_t unfinished = heap.n;
            best = rs_rigid_drain(&heap, tol, p, t, done, f, flag, &unfinished, best, failed);
            break;
        }
        if (heap.n == 0) break;
        /* complete every attempt ending at `now` (A1) */
        now = heap.ev[0].end;
        int64_t nf = 0;
        while (heap.n && rs_same(heap.ev[0].end, now, tol)) {
            double end = heap.ev[0].end;
            int64_t j = heap.ev[0].job;
            rs_heap_pop(&heap);
            free_ += p[j];
            done[j]++;
            if (done[j] <= f[j]) failed[nf++] = j;
            else if (end > best) best = end;
        }
        /* failed jobs go back into Q in increasing job index (the engine's order) */
        if (in->fixed) {
            for (int64_t c = 0; c < nf; c++) rs_fit_set(&fit, (int64_t)k1[failed[c]], p[failed[c]]);
        } else if (nf) {
            qsort(failed, (size_t)nf, sizeof(int64_t), rs_cmp_int64);
            for (int64_t c = 0; c < nf; c++) {
                if (rs_queue_push(&q, failed[c])) { result = RS_EDRAWS; goto out; }
            }
        }
    }
    result = best;
out:
    rs_fit_free(&fit);
    free(k1); free(k2); free(hev); free(items); free(done); free(failed); free(mark); free(flag);
    return result;
}
