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
            while (a < mid && b < hi) tmp[w++] = less(k1, k2, items[b], items[a]) ? items[b++] : items[a++];
            while (a < mid) tmp[w++] = items[a++];
            while (b < hi) tmp[w++] = items[b++];
        }
        memcpy(items, tmp, sizeof(int64_t) * (size_t)n);
    }
    free(tmp);
    return 0;
}
