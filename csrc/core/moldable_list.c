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
 * The queue is an 8-ary FitIndex (fitindex8.h) over the places of every (job, attempt column)
 * pair in the order (-key, job, column), fixed for the whole run since a pair's key never
 * changes: a job has at most one queued attempt, so the queued attempts appear in queue order,
 * and starting the first one that fits, again and again, starts what the scan starts (a job
 * skipped for want of processors never fits later in the pass).  The running attempts are a
 * tournament tree of their ends (endtree.h).  O(log(n G)) per attempt.  rs_moldable_prepare
 * fixes the places and the initial index once per job set and allocates every buffer, so that
 * the scenarios of a batch (rs_moldable_run) neither sort nor allocate.
 */
#include <stdlib.h>
#include <string.h>

#include "endtree.h"
#include "events.h"
#include "fitindex8.h"
#include "moldable.h"

struct rs_mlist {
    int64_t n, P, G, njobs;
    const int64_t *alloc, *jobs;
    int64_t *item;    /* position -> (job, column) as j G + a */
    int64_t *ijob;    /* position -> job */
    int64_t *place;   /* j G + a -> position (-1: not queued in this run) */
    double *tree0;     /* the index with every job's first attempt queued */
    rs_fit8 fit;
    rs_endtree heap;
};

typedef struct { double negkey; int64_t job, col; } place_item;

static int by_place(const void *a, const void *b) {
    const place_item *x = a, *y = b;
    if (x->negkey != y->negkey) return x->negkey < y->negkey ? -1 : 1;
    if (x->job != y->job) return x->job < y->job ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

void rs_moldable_release(rs_mlist *m) {
    if (!m) return;
    free(m->item); free(m->ijob); free(m->place); free(m->tree0);
    rs_fit8_free(&m->fit);
    rs_endtree_free(&m->heap);
    free(m);
}

rs_mlist *rs_moldable_prepare(int64_t n, int64_t P, int64_t G, const double *key,
                              const int64_t *alloc, const int64_t *jobs, int64_t njobs) {
    rs_mlist *m = calloc(1, sizeof(rs_mlist));
    if (!m) return NULL;
    int64_t c = njobs * G;
    place_item *items = malloc(sizeof(place_item) * (size_t)(c + 1));
    m->n = n; m->P = P; m->G = G; m->njobs = njobs; m->alloc = alloc; m->jobs = jobs;
    m->item = malloc(sizeof(int64_t) * (size_t)(c + 1));
    m->ijob = malloc(sizeof(int64_t) * (size_t)(c + 1));
    m->place = malloc(sizeof(int64_t) * (size_t)(n * G + 1));
    if (!items || !m->item || !m->ijob || !m->place || rs_fit8_init(&m->fit, c, (double)(P + 1)) ||
        rs_endtree_init(&m->heap, njobs + 1))
        goto fail;
    m->tree0 = malloc(sizeof(double) * (size_t)m->fit.total);
    if (!m->tree0) goto fail;
    int64_t k = 0;
    for (int64_t i = 0; i < njobs; i++)
        for (int64_t a = 0; a < G; a++) {
            int64_t j = jobs[i];
            items[k].negkey = -key[j * G + a];
            items[k].job = j;
            items[k].col = a;
            k++;
        }
    int64_t sorted = 1;  /* callers mostly list the jobs in queue order already (G = 1) */
    for (int64_t x = 1; x < c && sorted; x++) sorted = by_place(items + x - 1, items + x) < 0;
    if (!sorted) qsort(items, (size_t)c, sizeof(place_item), by_place);
    for (int64_t x = 0; x < n * G; x++) m->place[x] = -1;
    for (int64_t x = 0; x < c; x++) {
        m->place[items[x].job * G + items[x].col] = x;
        m->item[x] = items[x].job * G + items[x].col;
        m->ijob[x] = items[x].job;
    }
    free(items);
    items = NULL;
    for (int64_t i = 0; i < njobs; i++)  /* every job's first attempt is queued */
        rs_fit8_leaf(&m->fit, m->place[jobs[i] * G], (double)alloc[jobs[i] * G]);
    rs_fit8_build(&m->fit);
    memcpy(m->tree0, m->fit.tree, sizeof(double) * (size_t)m->fit.total);
    return m;
fail:
    free(items);
    rs_moldable_release(m);
    return NULL;
}

double rs_moldable_run(rs_mlist *m, const double *dur, const int64_t *fail, const int64_t *cap,
                       double tol, int64_t *done) {
    const int64_t G = m->G, P = m->P, *alloc = m->alloc, *item = m->item, *ijob = m->ijob;
    const int64_t *place = m->place;
    rs_fit8 *fit = &m->fit;
    rs_endtree *heap = &m->heap;
    rs_endtree_clear(heap);
    memcpy(fit->tree, m->tree0, sizeof(double) * (size_t)fit->total);
    memset(done, 0, sizeof(int64_t) * (size_t)m->n);
    int64_t free_ = P;
    double t = 0.0, makespan = 0.0;
    for (;;) {
        /* one pass: the first queued attempt that fits, again and again */
        int64_t pos = rs_fit8_first(fit, (double)free_);
        while (pos >= 0) {
            int64_t x = item[pos];
            free_ -= alloc[x];
            rs_endtree_push(heap, t + dur[x], ijob[pos]);
            rs_fit8_remove(fit, pos);
            pos = rs_fit8_first(fit, (double)free_);
        }
        if (heap->n == 0) break;
        /* complete every attempt ending at t (within the tolerance); a failed attempt that may
         * run again puts the job's next attempt in the queue (the order inside the group does
         * not matter: the positions are fixed) */
        rs_endtree_settle(heap);
        t = rs_endtree_top(heap);
        for (;;) {
            double e = rs_endtree_top(heap);
            int64_t j = rs_endtree_topjob(heap);
            uint64_t next = rs_endtree_pop(heap);
            int64_t d = done[j];
            free_ += alloc[j * G + (d < G ? d : G - 1)];  /* the column of the attempt that ran */
            done[j] = ++d;
            if (e > makespan) makespan = e;
            if (d <= fail[j] && (cap[j] == 0 || d < cap[j])) {
                int64_t x = j * G + (d < G ? d : G - 1);
                rs_fit8_add(fit, place[x], (double)alloc[x]);
            }
            if (heap->n == 0 || !rs_same(rs_endtree_double(next), t, tol)) break;
            rs_endtree_settle(heap);
        }
    }
    return makespan;
}
