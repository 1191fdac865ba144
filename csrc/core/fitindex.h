/* fitindex.h -- "the first queued job, in priority order, that fits the free processors" in
 * O(log n): the C twin of resilsched.heuristics.rigid.fitindex.FitIndex (spec 002 §4.2).
 *
 * Positions 0..n-1 are the ranks of a fixed priority order; a position holds its job's width
 * while the job is queued, else `never` (a width no free count reaches, P + 1).  A min-width
 * segment tree answers first_fitting / next_fitting.  Starting the first job that fits, again
 * and again, gives the same starts as a scan of the queue: a job skipped for want of
 * processors never fits later in the same pass.
 */
#ifndef RS_FITINDEX_H
#define RS_FITINDEX_H

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    int64_t size;   /* leaves: the smallest power of two >= n */
    int64_t never;
    int64_t *tree;  /* tree[1] is the root, leaves at size..2 size - 1 */
} rs_fit;

/* allocate with every position `never`; 0 on success */
static inline int rs_fit_init(rs_fit *f, int64_t n, int64_t never) {
    int64_t size = 1;
    while (size < n) size *= 2;
    f->size = size;
    f->never = never;
    f->tree = (int64_t *)malloc(sizeof(int64_t) * 2 * size);
    if (!f->tree) return -1;
    for (int64_t i = 0; i < 2 * size; i++) f->tree[i] = never;
    return 0;
}

static inline void rs_fit_free(rs_fit *f) { free(f->tree); f->tree = NULL; }

/* position pos now holds width */
static inline void rs_fit_set(rs_fit *f, int64_t pos, int64_t width) {
    int64_t *tree = f->tree;
    int64_t i = pos + f->size;
    tree[i] = width;
    i /= 2;
    while (i) {
        int64_t a = tree[2 * i], b = tree[2 * i + 1];
        int64_t low = a < b ? a : b;
        if (tree[i] == low) break;
        tree[i] = low;
        i /= 2;
    }
}

/* set every leaf first (rs_fit_leaf), then rs_fit_build: O(n) */
static inline void rs_fit_leaf(rs_fit *f, int64_t pos, int64_t width) { f->tree[f->size + pos] = width; }

static inline void rs_fit_build(rs_fit *f) {
    for (int64_t i = f->size - 1; i >= 1; i--) {
        int64_t a = f->tree[2 * i], b = f->tree[2 * i + 1];
        f->tree[i] = a < b ? a : b;
    }
}

/* leftmost position whose width is <= free, or -1 */
static inline int64_t rs_fit_first(const rs_fit *f, int64_t free_) {
    const int64_t *tree = f->tree;
    if (tree[1] > free_) return -1;
    int64_t i = 1;
    while (i < f->size) i = tree[2 * i] <= free_ ? 2 * i : 2 * i + 1;
    return i - f->size;
}

/* leftmost position >= start whose width is <= free, or -1 */
static inline int64_t rs_fit_next(const rs_fit *f, int64_t free_, int64_t start) {
    if (start >= f->size) return -1;
    const int64_t *tree = f->tree;
    int64_t i = start + f->size;
    while (tree[i] > free_) {     /* to the next subtree on the right */
        while (i & 1) {           /* a right child (or the root): climb */
            i >>= 1;
            if (i == 0) return -1;
        }
        i += 1;
    }
    while (i < f->size) i = tree[2 * i] <= free_ ? 2 * i : 2 * i + 1;
    return i - f->size;
}

#endif
