/* rigid_shelf.c -- R-SHELF and R-SHELFFILL, B and NB (spec 002 §5, Algorithms 2-3), makespan
 * only.  C twin of RShelf (resilsched.heuristics.rigid.rshelf) under the event engine
 * (resilsched.heuristics.engine.run_engine), the oracle of the tests.
 *
 * A shelf is a set of jobs started together at T_{i-1}; it ends at T_i = T_{i-1} + the largest
 * t_j of its members.  A new shelf is built only at t = T_i, after every completion at T_i
 * (A1), from the queue Q in priority order: b = 1 ("B", backfill) adds every job that still
 * fits (sum p <= P), b = 0 ("NB") stops at the first job that does not.  Processors freed
 * inside a shelf stay idle (A18).  A failed job goes back into Q, except in R-SHELFFILL, whose
 * refill rule is `fill`: 1 ("own", A17) a job whose attempt fails at t with t + t_j <= T_i
 * restarts at once on its processors; 2 ("any-queued", R32) at every pass while the shelf runs
 * (the one that builds it, then every completion time t < T_i) the queue is scanned in
 * priority order and every job that fits the free processors and ends by T_i starts at once
 * (first fit).  fill = 0 is R-SHELF.
 */
#include <stdlib.h>

#include "events.h"
#include "queue.h"
#include "rigid.h"

/* RShelf._fill_from_queue: start, in queue order, every queued job that fits the free
 * processors left by those started before it and ends by T (first fit) */
static void fill_from_queue(rs_queue *q, rs_heap *heap, const int64_t *p, const double *t,
                            double now, double T, double tol, int64_t *free_,
                            unsigned char *mark) {
    int any = 0;
    for (int64_t i = 0; i < q->n; i++) {
        int64_t j = q->items[i];
        if (p[j] <= *free_ && rs_le(now + t[j], T, tol)) {
            mark[j] = 1;
            any = 1;
            *free_ -= p[j];
            rs_heap_push(heap, now + t[j], j);
            if (*free_ == 0) break;
        }
    }
    if (any) rs_queue_drop_marked(q, mark);
}

double rs_rigid_shelf(const rs_rigid *in, const int64_t *f, int backfill, int fill) {
    int64_t n = in->n, P = in->P;
    const int64_t *p = in->p;
    const double *t = in->t;
    double tol = in->tol;
    double result = RS_ENOMEM;
    double *k1 = RS_NEW(double, n), *k2 = RS_NEW(double, n);
    rs_event *hev = RS_NEW(rs_event, n);
    int64_t *items = RS_NEW(int64_t, n), *done = RS_NEW(int64_t, n);
    int64_t *comp = RS_NEW(int64_t, n), *refill = RS_NEW(int64_t, n);
    unsigned char *failed = RS_NEW(unsigned char, n), *mark = RS_NEW(unsigned char, n);
    if (!k1 || !k2 || !hev || !items || !done || !comp || !refill || !failed || !mark)
        goto out;
    if (rs_rigid_queue(in, k1, k2, items)) goto out;
    rs_heap heap = {hev, 0};
    rs_queue q = {items, n, k1, k2, in->redraw, in->draws, in->ndraws, 0};
    double now = 0.0, T = 0.0, makespan = 0.0;  /* T: end of the current shelf, T_0 = 0 */
    int64_t nrefill = 0, unfinished = n, free_ = P;
    for (;;) {
        /* decide(now): the refilled jobs start again at once (R-SHELFFILL "own") ... */
        for (int64_t c = 0; c < nrefill; c++) {
            rs_heap_push(&heap, now + t[refill[c]], refill[c]);
            free_ -= p[refill[c]];
        }
        nrefill = 0;
        if (!rs_same(now, T, tol)) {
            /* ... inside a shelf, "any-queued": the queued jobs that fit and end by T_i ... */
            if (fill == 2 && q.n) fill_from_queue(&q, &heap, p, t, now, T, tol, &free_, mark);
        } else if (q.n) {
            /* ... and at a shelf boundary a new shelf is built from Q */
            if (heap.n) { result = RS_EPOLICY; goto out; }  /* attempts still running */
            int64_t width = 0;
            double height = 0.0;
            int first = 1, any = 0;
            for (int64_t i = 0; i < q.n; i++) {
                int64_t j = q.items[i];
                if (width + p[j] <= P) {
                    mark[j] = 1;
                    any = 1;
                    width += p[j];
                    if (first || t[j] > height) height = t[j];
                    first = 0;
                    if (width == P) break;
                } else if (!backfill) {
                    break;
                }
            }
            /* start the members in queue order (the order is immaterial to the heap) */
            for (int64_t i = 0; i < q.n; i++)
                if (mark[q.items[i]]) rs_heap_push(&heap, now + t[q.items[i]], q.items[i]);
            if (any) rs_queue_drop_marked(&q, mark);
            free_ -= width;
            T = now + height;
            /* "any-queued" also at the shelf's start: NB's holes, by jobs that end by T_i */
            if (fill == 2 && q.n && free_ > 0)
                fill_from_queue(&q, &heap, p, t, now, T, tol, &free_, mark);
        }
        if (heap.n == 0) break;
        /* complete every attempt ending at `now` (A1) */
        now = heap.ev[0].end;
        int64_t nc = rs_complete_at(&heap, now, tol, p, &free_, done, f, failed, &unfinished,
                                    &makespan, comp);
        /* on_completions: in increasing job index, a failed job refills its shelf or waits */
        if (nc > 1) qsort(comp, (size_t)nc, sizeof(int64_t), rs_cmp_int64);
        for (int64_t c = 0; c < nc; c++) {
            int64_t j = comp[c];
            if (!failed[j]) continue;
            if (fill == 1 && rs_le(now + t[j], T, tol)) refill[nrefill++] = j;
            else if (rs_queue_push(&q, j)) { result = RS_EDRAWS; goto out; }
        }
    }
    result = unfinished ? RS_EPOLICY : makespan;
out:
    free(k1); free(k2); free(hev); free(items); free(done); free(comp);
    free(refill); free(failed); free(mark);
    return result;
}
