/* rigid_common.c -- the initial queue Q of a rigid run (spec 002 §3): every job, sorted by its
 * key (k1, k2, j), as PriorityQueue.__init__ sorts them.  A merge sort (O(n log n)), so that
 * keys drawn per scenario (Random) need no sort on the Python side. */
#include <stdlib.h>
#include <string.h>

#include "rigid.h"

static int less(const double *k1, const double *k2, int64_t a, int64_t b) {
    if (k1[a] != k1[b]) return k1[a] < k1[b];
    if (k2[a] != k2[b]) return k2[a] < k2[b];
    return a < b;
}

int rs_cmp_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* copy the keys of `in` into k1, k2 (they change with redraws) and fill items (n jobs) in
 * priority order; 0 on success, -1 out of memory */
int rs_rigid_queue(const rs_rigid *in, double *k1, double *k2, int64_t *items) {
    int64_t n = in->n;
    memcpy(k1, in->k1, sizeof(double) * (size_t)n);
    memcpy(k2, in->k2, sizeof(double) * (size_t)n);
    if (in->fixed) {  /* the keys are the ranks */
        for (int64_t j = 0; j < n; j++) items[(int64_t)k1[j]] = j;
        return 0;
    }
    int64_t *tmp = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!tmp) return -1;
    for (int64_t j = 0; j < n; j++) items[j] = j;
    for (int64_t width = 1; width < n; width *= 2) {  /* bottom-up merge sort */
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n;
            int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t a = lo, b = mid, w = lo;
            while (a < mid && b < hi)  /* stable: a tie takes the left run's job */
                tmp[w++] = less(k1, k2, items[b], items[a]) ? items[b++] : items[a++];
            while (a < mid) tmp[w++] = items[a++];
            while (b < hi) tmp[w++] = items[b++];
        }
        memcpy(items, tmp, sizeof(int64_t) * (size_t)n);
    }
    free(tmp);
    return 0;
}

/* rs_rigid_drain (decision T15).  A list-scheduling pass (R-LIST-0/1/Q, spec 002 §4) that
 * leaves Q empty has started every unfinished job: they all run now, side by side, on at most
 * P processors.  From then on Q holds only the jobs whose attempts just failed, and the next
 * pass restarts them all at once: each one fits, with its whole duration, next to the attempts
 * still running, because it ran next to them (and next to the others that failed with it) a
 * moment ago, and a running attempt only frees processors when it ends.  So the pass is the
 * identity "restart every failed job at `now`", Q is empty after it again, and the run goes on
 * without passes: complete the attempts ending at `now` (A1, rs_complete_at), push each failed
 * job back at now + t[j], as the engines do.  With one attempt left the chain is a loop of
 * additions (its completion times are the only events). */
double rs_rigid_drain(rs_heap *h, double tol, const int64_t *p, const double *t, int64_t *done,
                      const int64_t *f, unsigned char *failed, int64_t *unfinished,
                      double makespan, int64_t *comp) {
    while (h->n > 1) {
        double now = h->ev[0].end;
        int64_t nc = rs_complete_at(h, now, tol, p, NULL, done, f, failed, unfinished,
                                    &makespan, comp);
        for (int64_t c = 0; c < nc; c++)
            if (failed[comp[c]]) rs_heap_push(h, now + t[comp[c]], comp[c]);
    }
    if (h->n == 1) {  /* attempts done[j] + 1 .. f[j] fail, each restarts at its end */
        int64_t j = h->ev[0].job;
        double end = h->ev[0].end;
        h->n = 0;
        for (int64_t k = f[j] - done[j]; k > 0; k--) end = end + t[j];
        done[j] = f[j] + 1;
        (*unfinished)--;
        if (end > makespan) makespan = end;
    }
    return makespan;
}
