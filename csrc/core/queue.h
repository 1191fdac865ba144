/* queue.h -- the queue Q of pending rigid jobs in priority order (spec 002 §3, A5, A6): the C
 * twin of resilsched.heuristics.rigid.priorities.PriorityQueue.
 *
 * Job j's key is the triple (k1[j], k2[j], j), smaller first; a failed job is reinserted with
 * its own key, so it regains its rank (A5).  With fixed priorities k1 is the rank and k2 = 0.
 * Random with redraw_on_failure (A6) draws a fresh k2 for every reinserted job whose redraw[j]
 * is set, taking the next value of `draws` (the same numpy stream the Python queue consumes
 * one value at a time).
 */
#ifndef RS_QUEUE_H
#define RS_QUEUE_H

#include <stdint.h>
#include <string.h>

typedef struct {
    int64_t *items;               /* queued jobs, highest priority first */
    int64_t n;
    double *k1, *k2;              /* keys, per job */
    const unsigned char *redraw;  /* NULL, or a flag per job */
    const double *draws;          /* fresh keys, consumed in order */
    int64_t ndraws, used;
} rs_queue;

static inline int rs_key_less(const rs_queue *q, int64_t a, int64_t b) {
    if (q->k1[a] != q->k1[b]) return q->k1[a] < q->k1[b];
    if (q->k2[a] != q->k2[b]) return q->k2[a] < q->k2[b];
    return a < b;
}

/* insert job j at the rank of its current key (bisect.insort, i.e. after equal keys; keys are
 * unique) */
static inline void rs_queue_insert(rs_queue *q, int64_t j) {
    int64_t lo = 0, hi = q->n;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (rs_key_less(q, j, q->items[mid])) hi = mid; else lo = mid + 1;
    }
    memmove(q->items + lo + 1, q->items + lo, sizeof(int64_t) * (size_t)(q->n - lo));
    q->items[lo] = j;
    q->n++;
}

/* PriorityQueue.push: reinsert job j at its rank, after drawing its fresh key when it redraws.
 * Returns -1 when the draws ran out (the caller sized them too small). */
static inline int rs_queue_push(rs_queue *q, int64_t j) {
    if (q->redraw && q->redraw[j]) {
        if (q->used >= q->ndraws) return -1;
        q->k2[j] = q->draws[q->used++];
    }
    rs_queue_insert(q, j);
    return 0;
}

/* PriorityQueue.keep: drop the jobs whose mark is set, keeping the order (marks cleared) */
static inline void rs_queue_drop_marked(rs_queue *q, unsigned char *mark) {
    int64_t w = 0;
    for (int64_t i = 0; i < q->n; i++) {
        int64_t j = q->items[i];
        if (mark[j]) mark[j] = 0; else q->items[w++] = j;
    }
    q->n = w;
}

#endif
