/* rigid.h -- the rigid-job engines of the core (spec 002 §2-§5): one job set, one failure
 * scenario, makespan only (the fast path record=False of the Python heuristics).
 *
 * Job j needs p[j] processors for t[j] time units per attempt; attempt k of job j fails iff
 * k <= f[j] (spec 002 §2).  The makespan is the largest end of a successful attempt (Eq. 1).
 * Every engine returns it, or a negative value on error: RS_ENOMEM (out of memory), RS_EPOLICY
 * (an inconsistency the Python engine reports as InvalidSchedule, e.g. a deadlock) or
 * RS_EDRAWS (the random draws ran out).
 */
#ifndef RS_RIGID_H
#define RS_RIGID_H

#include <stdint.h>
#include <stdlib.h>

#include "events.h"
#include "queue.h"

#define RS_ENOMEM (-1.0)
#define RS_EPOLICY (-2.0)
#define RS_EDRAWS (-3.0)

typedef struct {
    int64_t n, P;
    const int64_t *p;             /* processors of each job, 1 <= p[j] <= P */
    const double *t;              /* duration of each job */
    double tol;                   /* 0: exact (integer) times; 1e-9: floats (events.h) */
    const double *k1, *k2;        /* priority key (k1, k2, j) of each job at time 0 (queue.h) */
    int fixed;                    /* keys never change and k1[j] is job j's rank 0..n-1 */
    const unsigned char *redraw;  /* NULL, or redraw[j]: fresh k2 on reinsertion (A6) */
    const double *draws;          /* the fresh keys, in the order they are drawn */
    int64_t ndraws;
} rs_rigid;

/* R-LIST-0, GREEDY (spec 002 §4.2; rigid_greedy.c) */
double rs_rigid_greedy(const rs_rigid *in, const int64_t *f);

/* R-LIST-1 (m = 1) and R-LIST-Q (m = RS_M_Q) with the options A2, A3 (rigid_rlist.c) */
#define RS_M_Q (-1)
double rs_rigid_rlist(const rs_rigid *in, const int64_t *f, int m, int classic_easy,
                      int persistent);

/* R-LIST-1 (m = 1) and R-LIST-Q (m = RS_M_Q) with fixed reservations, never cancelled nor
 * moved (issue 14, A3 "fixed"), option A2 (rigid_fixed.c) */
double rs_rigid_fixed(const rs_rigid *in, const int64_t *f, int m, int classic_easy);

/* R-LIST-Q in the default options (A2 by position, A3 fresh rounds) with its profile kept
 * across events: the same makespans as rs_rigid_rlist, which calls it (rigid_conservative.c) */
double rs_rigid_conservative(const rs_rigid *in, const int64_t *f);

/* R-SHELF(-FILL)-B/NB (spec 002 §5; rigid_shelf.c) */
double rs_rigid_shelf(const rs_rigid *in, const int64_t *f, int backfill, int fill);

/* zeroed array of count (+ 1, so that count = 0 is no failure) elements */
#define RS_NEW(type, count) ((type *)calloc((size_t)(count) + 1, sizeof(type)))

/* qsort comparator of int64 values (job indices) */
int rs_cmp_int64(const void *a, const void *b);

/* helpers shared by the rigid engines (rigid_common.c) */
int rs_rigid_queue(const rs_rigid *in, double *k1, double *k2, int64_t *items);

/* The rest of a list-scheduling run once a pass has left Q empty (decision T15): every failed
 * attempt restarts at its completion time, no pass needed.  Returns the makespan (the largest
 * end of a successful attempt, at least `makespan`); the heap is left empty. */
double rs_rigid_drain(rs_heap *h, double tol, const int64_t *p, const double *t, int64_t *done,
                      const int64_t *f, unsigned char *failed, int64_t *unfinished,
                      double makespan, int64_t *comp);

/* The engine starts the `ns` jobs of `started` at `now` (run_engine.start checks the
 * processors): 0, or 1 when one does not fit in the free processors (RS_EPOLICY). */
static inline int rs_start_all(rs_heap *h, const int64_t *started, int64_t ns,
                               const int64_t *p, const double *t, double now, int64_t *free_) {
    for (int64_t c = 0; c < ns; c++) {
        int64_t j = started[c];
        if (p[j] > *free_) return 1;
        *free_ -= p[j];
        rs_heap_push(h, now + t[j], j);
    }
    return 0;
}

/* on_completions: the failed jobs among the `nc` completed ones of `comp` go back into Q in
 * increasing job index (`comp` is sorted in place).  Returns rs_queue_push's error, or 0. */
static inline int rs_requeue_failed(rs_queue *q, int64_t *comp, int64_t nc,
                                    const unsigned char *failed) {
    if (nc > 1) qsort(comp, (size_t)nc, sizeof(int64_t), rs_cmp_int64);
    for (int64_t c = 0; c < nc; c++)
        if (failed[comp[c]] && rs_queue_push(q, comp[c])) return 1;
    return 0;
}

#endif
