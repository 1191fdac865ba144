/* moldable_list.c -- LIST scheduling of moldable jobs (spec 000 §3.1, Algorithm 1), makespan
 * only: the experiments' fast path of LPA-LIST, MINTIME, MINAREA, LPA-PROOF and of each batch
 * of BATCH-LIST (spec 000 §3.4).
 *
 * C twin of list_run_py in resilsched.heuristics.moldable._kernel (the oracle, with the engine
 * path ListPolicy under run_engine).  At time 0 and whenever attempts complete (all completions
 * within the float tolerance first, spec 000 §7 item 6) the failed jobs that may still run go
 * back into the queue at their priority position (larger key first, ties by job index), then
 * one pass starts, in queue order, every job whose next attempt fits the free processors
 * (greedy backfilling, no reservation).
 *
 * The queue is a FitIndex (fitindex.h) over the places of every (job, attempt column) pair in
 * the order (-key, job, column), fixed for the whole run since a pair's key never changes: a
 * job has at most one queued attempt, so the queued attempts appear in queue order, and
 * starting the first one that fits, again and again, starts what the scan starts (a job
 * skipped for want of processors never fits later in the pass).  O(log(n G)) per attempt.
 */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "fitindex.h"
#include "moldable.h"

typedef struct { double negkey; int64_t job, col; } place_item;

static int by_place(const void *a, const void *b) {
    const place_item *x = a, *y = b;
    if (x->negkey != y->negkey) return x->negkey < y->negkey ? -1 : 1;
    if (x->job != y->job) return x->job < y->job ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

int rs_moldable_places(int64_t n, int64_t G, const double *key, const int64_t *jobs,
                       int64_t njobs, int64_t *place, int64_t *item) {
    place_item *items = malloc(sizeof(place_item) * (size_t)(njobs * G + 1));
    if (!items) return -1;
    int64_t c = 0;
    for (int64_t i = 0; i < njobs; i++)
        for (int64_t a = 0; a < G; a++) {
            int64_t j = jobs[i];
            items[c].negkey = -key[j * G + a];
            items[c].job = j;
            items[c].col = a;
            c++;
        }
    qsort(items, (size_t)c, sizeof(place_item), by_place);
    for (int64_t x = 0; x < n * G; x++) place[x] = -1;
    for (int64_t x = 0; x < c; x++) {
        place[items[x].job * G + items[x].col] = x;
        item[x] = items[x].job * G + items[x].col;
    }
    free(items);
    return 0;
}

double rs_moldable_run(int64_t n, int64_t P, int64_t G, const double *dur, const int64_t *alloc,
                       const int64_t *fail, const int64_t *cap, const int64_t *jobs,
                       int64_t njobs, double tol, const int64_t *place, const int64_t *item,
                       int64_t *done) {
    size_t m = (size_t)n + 1;
    rs_event *hev = malloc(m * sizeof(rs_event));
    int64_t *comp = malloc(m * sizeof(int64_t));
    rs_fit fit = {0, 0, NULL};
    double makespan = -1.0;
    if (!hev || !comp || rs_fit_init(&fit, njobs * G, P + 1)) goto out;
    rs_heap heap = {hev, 0};
    int64_t free_ = P;
    double t = 0.0;
    makespan = 0.0;
    for (int64_t j = 0; j < n; j++) done[j] = 0;
    for (int64_t i = 0; i < njobs; i++)  /* every job's first attempt is queued */
        rs_fit_leaf(&fit, place[jobs[i] * G], alloc[jobs[i] * G]);
    rs_fit_build(&fit);
    for (;;) {
        /* one pass: the first queued attempt that fits, again and again */
        int64_t pos = rs_fit_first(&fit, free_);
        while (pos >= 0) {
            int64_t x = item[pos], j = x / G;
            free_ -= alloc[x];
            rs_heap_push(&heap, t + dur[x], j);
            rs_fit_set(&fit, pos, P + 1);
            pos = rs_fit_first(&fit, free_);
        }
        if (heap.n == 0) break;
        /* complete every attempt ending at t (within the tolerance) */
        t = heap.ev[0].end;
        int64_t nc = 0;
        while (heap.n > 0 && rs_same(heap.ev[0].end, t, tol)) {
            double e = heap.ev[0].end;
            int64_t j = heap.ev[0].job;
            rs_heap_pop(&heap);
            int64_t a = done[j] < G ? done[j] : G - 1;  /* the column of the attempt that ran */
            free_ += alloc[j * G + a];
            done[j]++;
            if (e > makespan) makespan = e;
            if (done[j] <= fail[j] && (cap[j] == 0 || done[j] < cap[j])) comp[nc++] = j;
        }
        /* failed attempts that may run again: their next attempt joins the queue */
        for (int64_t c = 0; c < nc; c++) {
            int64_t j = comp[c];
            int64_t a = done[j] < G ? done[j] : G - 1;
            rs_fit_set(&fit, place[j * G + a], alloc[j * G + a]);
        }
    }
out:
    rs_fit_free(&fit);
    free(hev); free(comp);
    return makespan;
}
