/* events.h -- the pieces every list-scheduling engine of the core shares.
 *
 * Event loop of spec 002 §2 (ambiguity A1, "batch"): the clock jumps to the earliest end t,
 * every attempt ending at t completes, then one scheduling pass runs at t.  Two ends are "the
 * same time" when |a - b| <= tol * max(|a|, |b|, 1): tol = 1e-9 for float times (the test of
 * resilsched.numeric.time_eq), tol = 0 for integer times (plain equality).  The pure-Python
 * engine resilsched.heuristics.engine is the oracle: each function below mirrors one Python
 * expression, operation for operation, so both give the same doubles.
 */
#ifndef RS_EVENTS_H
#define RS_EVENTS_H

#include <math.h>
#include <stdint.h>

/* resilsched.numeric.REL_TOL */
#define RS_REL_TOL 1e-9

/* engine._float_same / _exact_same: "a == b" of the event loop */
static inline int rs_same(double a, double b, double tol) {
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < 1.0) m = 1.0;
    return fabs(a - b) <= tol * m;
}

/* engine._float_le / _exact_le: "a <= b" with the same tolerance */
static inline int rs_le(double a, double b, double tol) {
    if (a <= b) return 1;
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < 1.0) m = 1.0;
    return a - b <= tol * m;
}

/* The running attempts: a binary min-heap of (end, job), ties broken by the job index, as
 * Python's heapq orders (end, j) tuples.  (end, j) pairs are unique, so any correct heap pops
 * them in the same order as heapq. */
typedef struct {
    double end;
    int64_t job;
} rs_event;

typedef struct {
    rs_event *ev;   /* ev[0] is the top: the earliest end, then the smallest job */
    int64_t n;
} rs_heap;

static inline int rs_heap_before(double e1, int64_t j1, double e2, int64_t j2) {
    return e1 < e2 || (e1 == e2 && j1 < j2);
}

static inline void rs_heap_push(rs_heap *h, double e, int64_t j) {
    int64_t i = h->n++;
    while (i > 0) {
        int64_t parent = (i - 1) / 2;
        if (!rs_heap_before(e, j, h->ev[parent].end, h->ev[parent].job)) break;
        h->ev[i] = h->ev[parent];
        i = parent;
    }
    h->ev[i].end = e;
    h->ev[i].job = j;
}

/* remove the top (read it from ev[0] first) */
static inline void rs_heap_pop(rs_heap *h) {
    int64_t n = --h->n;
    rs_event last = h->ev[n];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && rs_heap_before(h->ev[c + 1].end, h->ev[c + 1].job, h->ev[c].end,
                                        h->ev[c].job)) c++;
        if (rs_heap_before(last.end, last.job, h->ev[c].end, h->ev[c].job)) break;
        h->ev[i] = h->ev[c];
        i = c;
    }
    h->ev[i] = last;
}

/* Complete every attempt ending at `now` (A1; spec 002 §4.1): pop it, count it in done[j],
 * mark it failed when it was attempt done[j] <= f[j], count a success (unfinished, makespan)
 * and list the job in comp. When `free_` is not NULL the attempt's p[j] processors come back.
 * Returns the number of completed attempts. Shared by R-LIST-1/Q and the shelves. */
static inline int64_t rs_complete_at(rs_heap *h, double now, double tol, const int64_t *p,
                                     int64_t *free_, int64_t *done, const int64_t *f,
                                     unsigned char *failed, int64_t *unfinished,
                                     double *makespan, int64_t *comp) {
    int64_t nc = 0;
    while (h->n && rs_same(h->ev[0].end, now, tol)) {
        double end = h->ev[0].end;
        int64_t j = h->ev[0].job;
        rs_heap_pop(h);
        if (free_) *free_ += p[j];
        done[j]++;
        failed[j] = done[j] <= f[j];
        if (!failed[j]) {
            (*unfinished)--;
            if (end > *makespan) *makespan = end;
        }
        comp[nc++] = j;
    }
    return nc;
}

#endif
