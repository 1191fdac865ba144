/* profile.h -- the availability profile of the reservation engines (spec 002 §11.3): the C
 * twin of Profile in resilsched.heuristics.rigid.rlist, shared by rigid_rlist.c (R-LIST-1/Q)
 * and rigid_conservative.c (R-LIST-Q kept incrementally).
 *
 * A step function: seg[0].t = the current time t < seg[1].t < ..., seg[i].a processors free
 * on [seg[i].t, seg[i+1].t).  Its comparisons use the tolerance of Profile: x - y <= tol *
 * max(x, 1) (times are non-negative).  `inexact` is set whenever that tolerance merges two
 * different times (a breakpoint snapped to a neighbour): rigid_conservative.c reuses a profile
 * across events only while no such merge happened (the breakpoints are then pairwise more than
 * the tolerance apart, and a kept profile with the same times answers as a rebuilt one).  `own`
 * counts what starts or ends at a breakpoint; only rigid_conservative.c reads it.
 */
#ifndef RS_PROFILE_H
#define RS_PROFILE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* breakpoint i of the profile: from time t on (until the next one), a processors are free;
 * both in one struct, the scans read them together */
typedef struct {
    double t;
    int64_t a;
    int64_t own;  /* running attempts and reservations starting or ending here (kept profile) */
} segment;

typedef struct {
    segment *seg;   /* seg[0].t = the current time t < seg[1].t < ... */
    int64_t k;      /* breakpoints */
    double tol;
    int inexact;    /* the tolerance merged two different times */
} profile;

static inline double rs_scale(double x) { return x > 1 ? x : 1; }

typedef struct { double end; int64_t p; } ending;

static int rs_by_end(const void *a, const void *b) {
    double x = ((const ending *)a)->end, y = ((const ending *)b)->end;
    return (x > y) - (x < y);
}

/* Profile.__init__: free processors from t on, given the running attempts (end, p) */
static inline void profile_build(profile *pr, double t, int64_t P, ending *run, int64_t nrun) {
    if (nrun > 16) {
        qsort(run, (size_t)nrun, sizeof(ending), rs_by_end);
    } else {  /* a few running attempts: insertion sort (equal ends merge in any order) */
        for (int64_t i = 1; i < nrun; i++) {
            ending x = run[i];
            int64_t k = i;
            for (; k > 0 && run[k - 1].end > x.end; k--) run[k] = run[k - 1];
            run[k] = x;
        }
    }
    int64_t used = 0;
    for (int64_t i = 0; i < nrun; i++) used += run[i].p;
    pr->seg[0].t = t;
    pr->seg[0].a = P - used;
    pr->seg[0].own = 0;
    pr->k = 1;
    double last = t;
    for (int64_t i = 0; i < nrun; i++) {
        double end = run[i].end;
        if (end - last <= pr->tol * rs_scale(end)) {
            if (end != last) pr->inexact = 1;
            pr->seg[pr->k - 1].a += run[i].p;
            pr->seg[pr->k - 1].own++;
        } else {
            pr->seg[pr->k].t = end;
            pr->seg[pr->k].a = pr->seg[pr->k - 1].a + run[i].p;
            pr->seg[pr->k].own = 1;
            pr->k++;
            last = end;
        }
    }
}

/* bit i - from of the result: breakpoint i (from <= i < to <= from + 64) has >= p free */
static inline uint64_t fit_bits(const segment *seg, int64_t from, int64_t to, int64_t p) {
    uint64_t bits = 0;
    int64_t i = from;
    for (; i + 4 <= to; i += 4) {  /* four at a time: constant shifts */
        uint64_t four = (uint64_t)(seg[i].a >= p) | (uint64_t)(seg[i + 1].a >= p) << 1 |
                        (uint64_t)(seg[i + 2].a >= p) << 2 | (uint64_t)(seg[i + 3].a >= p) << 3;
        bits |= four << (i - from);
    }
    for (; i < to; i++) bits |= (uint64_t)(seg[i].a >= p) << (i - from);
    return bits;
}

/* Profile.earliest_fit: earliest s >= t with avail >= p on all of [s, s + dur); p <= P
 * always fits at the last breakpoint.  *at = the index of breakpoint s.
 *
 * The reference scans the breakpoints: a run of breakpoints with >= p free opens a window at
 * its first one, `first`, which holds once the next breakpoint is past the window's end within
 * the tolerance (need - t <= tol * max(need, 1)); a breakpoint with fewer than p free closes
 * the window.  Breakpoint times increase, so a run [first, g) holds iff it is the last run
 * (g = k) or its end test holds at t = seg[g].t: the same answer, found from bitmaps of the
 * breakpoints with >= p free, 64 at a time, without a branch per breakpoint. */
static inline double earliest_fit(const profile *pr, int64_t p, double dur, int64_t *at) {
    const segment *seg = pr->seg;
    int64_t k = pr->k, base = 0, i = 0;
    uint64_t bits = fit_bits(seg, 0, k < 64 ? k : 64, p);
    for (;;) {
        uint64_t w = bits >> (i - base);  /* the next run starts at the next set bit */
        while (!w) {
            base += 64;
            if (base >= k) return -1.0;  /* p > P: the instance forbids it */
            bits = fit_bits(seg, base, k < base + 64 ? k : base + 64, p);
            w = bits;
            i = base;
        }
        i += __builtin_ctzll(w);
        int64_t first = i;
        uint64_t rest = ~bits >> (i - base);  /* it ends at the next clear bit */
        while (!rest) {  /* past this (full) block */
            base += 64;
            if (base >= k) break;
            bits = fit_bits(seg, base, k < base + 64 ? k : base + 64, p);
            rest = ~bits;
            i = base;
        }
        i = rest ? i + __builtin_ctzll(rest) : k;
        if (i > k) i = k;  /* a partial block's missing breakpoints read as closing it */
        double need = seg[first].t + dur;
        if (i == k || need - seg[i].t <= pr->tol * rs_scale(need)) {
            *at = first;
            return seg[first].t;
        }
    }
}

/* Profile.fits_now: avail >= p on all of [t, t + dur) */
static inline int fits_now(const profile *pr, int64_t p, double dur) {
    if (pr->seg[0].a < p) return 0;
    double need = pr->seg[0].t + dur;
    double tol = pr->tol * rs_scale(need);
    for (int64_t i = 0; i < pr->k - 1; i++) {
        double nxt = pr->seg[i + 1].t;
        if (need - nxt <= tol) return 1;
        if (pr->seg[i + 1].a < p) return 0;
    }
    return 1;
}

/* bisect_left of x among the breakpoints from index `from` on (the few next ones first: the
 * breakpoint looked for is often one of them) */
static inline int64_t profile_bisect(const profile *pr, double x, int64_t from) {
    int64_t lo = from, hi = pr->k;
    for (int64_t near = lo + 8 < hi ? lo + 8 : hi; lo < near; lo++)
        if (!(pr->seg[lo].t < x)) return lo;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (pr->seg[mid].t < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Profile._index: index of breakpoint x, inserted (splitting a segment) if absent.  The
 * bisection starts at `from`, any index with seg[from - 1].t < x (0 always does). */
static inline int64_t profile_index(profile *pr, double x, int64_t from) {
    int64_t k = profile_bisect(pr, x, from);
    if (k < pr->k) {
        double y = pr->seg[k].t;
        if (y - x <= pr->tol * rs_scale(y)) {
            if (y != x) pr->inexact = 1;
            return k;
        }
    }
    double y = pr->seg[k - 1].t;
    if (x - y <= pr->tol * rs_scale(x)) {
        if (y != x) pr->inexact = 1;
        return k - 1;
    }
    memmove(pr->seg + k + 1, pr->seg + k, sizeof(segment) * (size_t)(pr->k - k));
    pr->seg[k].t = x;
    pr->seg[k].a = pr->seg[k - 1].a;
    pr->seg[k].own = 0;
    pr->k++;
    return k;
}

/* Profile.reserve: take p processors on [start, end).  `at` is the index of breakpoint start
 * when known (earliest_fit's answer: _index would find it there), else -1.  The end is looked
 * for from the start's index on: every breakpoint before it is < start <= end. */
static inline void reserve(profile *pr, double start, double end, int64_t p, int64_t at) {
    int64_t a = at >= 0 ? at : profile_index(pr, start, 0);
    int64_t b = profile_index(pr, end, a);
    for (int64_t i = a; i < b; i++) pr->seg[i].a -= p;
    pr->seg[a].own++;
    pr->seg[b].own++;
}

#endif
