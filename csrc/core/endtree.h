/* endtree.h -- the running attempts of the moldable LIST engine (moldable_list.c): a tournament
 * (winner) tree over slots, each slot holding one running attempt's end and job.
 *
 * The engine only needs the attempts in the order of their ends: it takes out the earliest end
 * t, then every end within the float tolerance of t (spec 002 §2, ambiguity A1, events.h), and
 * what it does with a group of completions (processors back, counts per job, the largest end,
 * failed attempts back into the queue index at their fixed positions) does not depend on the
 * order inside the group.  So equal ends need no tie-break by job (events.h's rs_heap breaks
 * them as heapq does; any order gives the same schedule).
 *
 * Leaves cap..2 cap - 1 are the slots (+inf when empty); internal node i holds the smaller end
 * of its children and the slot it comes from, node 1 the earliest of all.  Ends are kept as the
 * bits of the double read as an unsigned integer, which sort as the doubles do when they are
 * >= 0 (the caller's durations are checked >= 0, so every end is).  Putting or removing an end
 * replays its leaf's path to the root: log2(cap) steps of one comparison and two conditional
 * moves, no data-dependent branch or address (a binary heap's sift branches at every level on
 * the order of the ends).  A freed slot is reused first (a stack), so the slots in use never
 * exceed the most attempts running at once, and cap doubles (rebuilt in O(cap)) when they reach
 * it: the tree is as deep as the run needs, not as deep as the job count allows.
 *
 * Taking out the earliest end leaves its slot as a pending hole: the next end is read off the
 * siblings of the hole's path (what a replay would compute), and the path is replayed by the
 * next push, which reuses that slot, or by rs_endtree_settle.  In the event loop a completion is
 * mostly followed by a start, so one replay serves both.
 */
#ifndef RS_ENDTREE_H
#define RS_ENDTREE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RS_ENDTREE_EMPTY UINT64_MAX  /* above the bits of every double >= 0, +inf and NaN */

typedef struct {
    uint64_t *key;    /* 2 maxcap entries: node i's end, as bits */
    int64_t *win;     /* 2 maxcap entries: the slot of node i's end */
    int64_t *job;     /* per slot */
    int64_t *spare;   /* stack of freed slots, the hole (if any) on top */
    int64_t nspare, fresh;  /* slots 0..fresh-1 have been used */
    int64_t cap, maxcap, n;
    int64_t hole;     /* a slot taken out whose path is not replayed yet, or -1 */
} rs_endtree;

static inline uint64_t rs_endtree_bits(double e) {
    uint64_t k;
    memcpy(&k, &e, sizeof k);
    return k;
}

static inline double rs_endtree_double(uint64_t k) {
    double e;
    memcpy(&e, &k, sizeof e);
    return e;
}

/* room for `most` attempts at once; 0 on success */
static inline int rs_endtree_init(rs_endtree *h, int64_t most) {
    int64_t maxcap = 2;
    while (maxcap < most) maxcap *= 2;
    h->maxcap = maxcap;
    h->key = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(2 * maxcap));
    h->win = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * maxcap));
    h->job = (int64_t *)malloc(sizeof(int64_t) * (size_t)maxcap);
    h->spare = (int64_t *)malloc(sizeof(int64_t) * (size_t)maxcap);
    return h->key && h->win && h->job && h->spare ? 0 : -1;
}

static inline void rs_endtree_free(rs_endtree *h) {
    free(h->key); free(h->win); free(h->job); free(h->spare);
    h->key = NULL; h->win = NULL; h->job = NULL; h->spare = NULL;
}

/* the internal nodes from the leaves (cap leaves at cap..2 cap - 1) */
static inline void rs_endtree_build(rs_endtree *h) {
    int64_t cap = h->cap;
    for (int64_t s = 0; s < cap; s++) h->win[cap + s] = s;
    for (int64_t i = cap - 1; i >= 1; i--) {
        int64_t l = 2 * i, r = l + 1;
        int right = h->key[r] < h->key[l];
        h->key[i] = right ? h->key[r] : h->key[l];
        h->win[i] = right ? h->win[r] : h->win[l];
    }
}

/* empty, with 2 slots */
static inline void rs_endtree_clear(rs_endtree *h) {
    h->cap = 2;
    h->n = h->nspare = h->fresh = 0;
    h->hole = -1;
    for (int64_t i = 0; i < 4; i++) h->key[i] = RS_ENDTREE_EMPTY;
    rs_endtree_build(h);
}

/* slot s's leaf changed: its path to the root again */
static inline void rs_endtree_replay(rs_endtree *h, int64_t s) {
    uint64_t *key = h->key;
    int64_t *win = h->win;
    int64_t i = h->cap + s, w = s;
    uint64_t k = key[i];
    while (i > 1) {
        int64_t sib = i ^ 1;
        uint64_t ks = key[sib];
        int64_t ws = win[sib];
        int take = ks < k;
        k = take ? ks : k;
        w = take ? ws : w;
        i >>= 1;
        key[i] = k;
        win[i] = w;
    }
}

/* replay the pending hole's path, if any */
static inline void rs_endtree_settle(rs_endtree *h) {
    if (h->hole >= 0) {
        rs_endtree_replay(h, h->hole);
        h->hole = -1;
    }
}

/* twice the slots, the tree rebuilt (cap < maxcap, no hole) */
static inline void rs_endtree_grow(rs_endtree *h) {
    int64_t cap = h->cap;
    for (int64_t s = 0; s < cap; s++) h->key[2 * cap + s] = h->key[cap + s];
    for (int64_t s = cap; s < 2 * cap; s++) h->key[2 * cap + s] = RS_ENDTREE_EMPTY;
    h->cap = 2 * cap;
    rs_endtree_build(h);
}

/* job j's attempt ends at e >= 0 */
static inline void rs_endtree_push(rs_endtree *h, double e, int64_t j) {
    int64_t s;
    if (h->nspare) {
        s = h->spare[--h->nspare];  /* the hole, if there is one */
        h->hole = -1;
    } else {
        s = h->fresh++;
        if (s == h->cap) rs_endtree_grow(h);
    }
    h->n++;
    h->job[s] = j;
    h->key[h->cap + s] = rs_endtree_bits(e);
    rs_endtree_replay(h, s);
}

/* the earliest end and its job (n > 0, no hole) */
static inline double rs_endtree_top(const rs_endtree *h) { return rs_endtree_double(h->key[1]); }
static inline int64_t rs_endtree_topjob(const rs_endtree *h) { return h->job[h->win[1]]; }

/* take out the earliest end (n > 0, no hole), leaving its slot as the hole; returns the end
 * that is now the earliest (as bits, RS_ENDTREE_EMPTY when none is left) */
static inline uint64_t rs_endtree_pop(rs_endtree *h) {
    int64_t s = h->win[1];
    h->n--;
    h->spare[h->nspare++] = s;
    h->hole = s;
    uint64_t *key = h->key;
    int64_t i = h->cap + s;
    key[i] = RS_ENDTREE_EMPTY;
    uint64_t k = RS_ENDTREE_EMPTY;
    for (; i > 1; i >>= 1) {
        uint64_t ks = key[i ^ 1];
        k = ks < k ? ks : k;
    }
    return k;
}

#endif
