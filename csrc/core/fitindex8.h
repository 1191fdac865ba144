/* fitindex8.h -- "the first queued attempt, in priority order, that fits the free processors":
 * an 8-ary variant of fitindex.h (the C twin of resilsched.heuristics.rigid.fitindex.FitIndex,
 * spec 002 §4.2) for the moldable LIST engine (moldable_list.c).
 *
 * Positions 0..n-1 are the ranks of a fixed priority order; a position holds its attempt's
 * width while queued, else `never` (P + 1, a width no free count reaches).  Level 0 holds the
 * widths, level l + 1 the minimum of each group of 8 entries of level l, up to a single root:
 * 3 levels below the root for n <= 512 where a binary tree has 9.  Descending, the child to
 * follow is the first of 8 whose minimum is <= free: 8 independent comparisons and a count of
 * trailing zeros instead of 3 dependent, unpredictable branches.  Every level is padded to a
 * multiple of 8 entries with `never` and starts on a 64-byte boundary (a group is one cache
 * line).  Widths are stored as doubles, exact for every integer below 2^53 (the caller checks
 * P < 2^53), so that SSE2, which every x86-64 has, compares and takes minima of 2 at a time;
 * other processors run the same operations in plain C.  Same answers as fitindex.h (the
 * leftmost fitting position), so the engine starts the same attempts.
 */
#ifndef RS_FITINDEX8_H
#define RS_FITINDEX8_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define RS_FIT8_MAXLEV 24

typedef struct {
    int64_t nlev;                  /* levels below the root (>= 1) */
    int64_t off[RS_FIT8_MAXLEV];   /* where level l starts in tree; off[nlev]: the root */
    int64_t total;                 /* entries of tree */
    double never;
    double *tree;                  /* 64-byte aligned, inside `block` */
    void *block;
} rs_fit8;

/* allocate with every position `never`; 0 on success */
static inline int rs_fit8_init(rs_fit8 *f, int64_t n, double never) {
    int64_t len = n < 1 ? 1 : n, total = 0, l = 0;
    for (;;) {
        len = (len + 7) / 8 * 8;
        f->off[l++] = total;
        total += len;
        len /= 8;
        if (len == 1 || l == RS_FIT8_MAXLEV - 1) break;
    }
    f->nlev = l;
    f->off[l] = total;  /* the root */
    f->total = total + 8;
    f->never = never;
    f->block = malloc(sizeof(double) * (size_t)f->total + 64);
    if (!f->block) return -1;
    f->tree = (double *)(((uintptr_t)f->block + 63) & ~(uintptr_t)63);
    for (int64_t i = 0; i < f->total; i++) f->tree[i] = never;
    return 0;
}

static inline void rs_fit8_free(rs_fit8 *f) { free(f->block); f->block = NULL; f->tree = NULL; }

/* the smallest of the 8 entries at c (64-byte aligned) */
static inline double rs_fit8_min8(const double *c) {
    double a = c[0] < c[1] ? c[0] : c[1], b = c[2] < c[3] ? c[2] : c[3];
    double d = c[4] < c[5] ? c[4] : c[5], e = c[6] < c[7] ? c[6] : c[7];
    a = a < b ? a : b;
    d = d < e ? d : e;
    return a < d ? a : d;
}

/* bit k set iff c[k] <= free_ (c 64-byte aligned) */
static inline unsigned rs_fit8_mask(const double *c, double free_) {
#ifdef __SSE2__
    __m128d f = _mm_set1_pd(free_);
    unsigned m0 = (unsigned)_mm_movemask_pd(_mm_cmple_pd(_mm_load_pd(c), f));
    unsigned m1 = (unsigned)_mm_movemask_pd(_mm_cmple_pd(_mm_load_pd(c + 2), f));
    unsigned m2 = (unsigned)_mm_movemask_pd(_mm_cmple_pd(_mm_load_pd(c + 4), f));
    unsigned m3 = (unsigned)_mm_movemask_pd(_mm_cmple_pd(_mm_load_pd(c + 6), f));
    return m0 | m1 << 2 | m2 << 4 | m3 << 6;
#else
    return (unsigned)(c[0] <= free_) | (unsigned)(c[1] <= free_) << 1 |
           (unsigned)(c[2] <= free_) << 2 | (unsigned)(c[3] <= free_) << 3 |
           (unsigned)(c[4] <= free_) << 4 | (unsigned)(c[5] <= free_) << 5 |
           (unsigned)(c[6] <= free_) << 6 | (unsigned)(c[7] <= free_) << 7;
#endif
}

/* set leaf widths with rs_fit8_leaf, then rs_fit8_build: O(n) */
static inline void rs_fit8_leaf(rs_fit8 *f, int64_t pos, double width) { f->tree[pos] = width; }

static inline void rs_fit8_build(rs_fit8 *f) {
    for (int64_t l = 0; l < f->nlev; l++) {
        double *lev = f->tree + f->off[l], *up = f->tree + f->off[l + 1];
        int64_t groups = (f->off[l + 1] - f->off[l]) / 8;
        for (int64_t g = 0; g < groups; g++) up[g] = rs_fit8_min8(lev + 8 * g);
    }
}

/* position pos, queued, leaves the queue (its width becomes never) */
static inline void rs_fit8_remove(rs_fit8 *f, int64_t pos) {
    double *tree = f->tree;
    double old = tree[pos];
    tree[pos] = f->never;
    for (int64_t l = 0; l < f->nlev; l++) {
        int64_t g = pos >> 3;
        double *up = tree + f->off[l + 1] + g;
        if (*up != old) break;  /* a smaller width below: the minimum stays */
        double low = rs_fit8_min8(tree + f->off[l] + 8 * g);
        if (low == old) break;  /* another entry of the same width */
        *up = low;
        pos = g;
    }
}

/* position pos, not queued (never), joins the queue with `width` */
static inline void rs_fit8_add(rs_fit8 *f, int64_t pos, double width) {
    double *tree = f->tree;
    tree[pos] = width;
    for (int64_t l = 0; l < f->nlev; l++) {
        pos >>= 3;
        double *up = tree + f->off[l + 1] + pos;
        if (*up <= width) break;
        *up = width;
    }
}

/* leftmost position whose width is <= free_, or -1 */
static inline int64_t rs_fit8_first(const rs_fit8 *f, double free_) {
    const double *tree = f->tree;
    if (tree[f->off[f->nlev]] > free_) return -1;
    int64_t i = 0;
    for (int64_t l = f->nlev - 1; l >= 0; l--)
        i = 8 * i + __builtin_ctz(rs_fit8_mask(tree + f->off[l] + 8 * i, free_));
    return i;
}

#endif
