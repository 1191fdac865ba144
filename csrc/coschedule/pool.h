/* The explicit pool of k-in-p packs (spec 001 §2.3; decision C29): included by closure.c (the
 * extension `resilsched._closure` is built from that one source, setup.py), its Python side is
 * `resilsched.models.coschedule.setpart.pool.build_pool`, whose numpy path stays the oracle.
 *
 * pk_pool lists every pack of `s` tasks of range(n) in the order of itertools.combinations,
 * keeps those with sum pmin <= p, and costs each by Algorithm 1 exactly as
 * `pack_costs_vectorized`: from sigma = pmin, the next processor goes to the task of largest
 * current time (ties: the lowest position) until the p processors are spent; the cost is the
 * largest time. Only comparisons and table reads: the same doubles as numpy.
 */

/* Writes the packs (row-major int32, s per row) and their costs; returns their number, -1 when
 * more than `room` packs pass the filter, -2 when `seconds` (> 0) ran out. `mat` is the
 * (n, width) time table (`CoscheduleInstance.matrix()`, width = p + 1). */
API int64_t pk_pool(int n, int s, int p, const int64_t *pmin, const double *mat, int width,
                    int64_t room, double seconds, int32_t *out_packs, double *out_costs) {
    if (s < 1 || s > 64 || n < s) return 0;
    double stop = seconds > 0 ? now() + seconds : 0.0;
    int idx[64], sigma[64];
    double cur[64];
    for (int a = 0; a < s; a++) idx[a] = a;
    int64_t count = 0, seen = 0;
    for (;;) {
        if ((++seen & 65535) == 0 && stop > 0 && now() > stop) return -2;
        int64_t used = 0;
        for (int a = 0; a < s; a++) used += pmin[idx[a]];
        if (used <= p) {
            if (count >= room) return -1;
            int avail = p - (int)used;
            for (int a = 0; a < s; a++) {
                sigma[a] = (int)pmin[idx[a]];
                cur[a] = mat[(int64_t)idx[a] * width + sigma[a]];
            }
            for (; avail > 0; avail--) {
                int j = 0;
                for (int a = 1; a < s; a++)
                    if (cur[a] > cur[j]) j = a;
                sigma[j]++;
                cur[j] = mat[(int64_t)idx[j] * width + sigma[j]];
            }
            double cost = cur[0];
            for (int a = 1; a < s; a++)
                if (cur[a] > cost) cost = cur[a];
            for (int a = 0; a < s; a++) out_packs[count * s + a] = idx[a];
            out_costs[count++] = cost;
        }
        int a = s - 1; /* next combination: the last position that can still move */
        while (a >= 0 && idx[a] == n - s + a) a--;
        if (a < 0) break;
        idx[a]++;
        for (int b = a + 1; b < s; b++) idx[b] = idx[b - 1] + 1;
    }
    return count;
}

/* Reduced costs of the pool's packs of one size: rc = cost - mu - sum of pi over the members
 * (`PackPool.reduced_costs`: the same subtractions in the same order, member by member). */
API void pk_reduced(int64_t m, int s, const int32_t *packs, const double *costs,
                    const double *pi, double mu, double *rc) {
    for (int64_t r = 0; r < m; r++) {
        double v = costs[r] - mu;
        const int32_t *b = packs + r * s;
        for (int a = 0; a < s; a++) v -= pi[b[a]];
        rc[r] = v;
    }
}

/* a max-heap of (value, index) pairs ordered by value, then index */
static inline int heap_above(const double *val, const int64_t *idx, int64_t a, int64_t b) {
    return val[a] > val[b] || (val[a] == val[b] && idx[a] > idx[b]);
}

static inline void heap_swap(double *val, int64_t *idx, int64_t a, int64_t b) {
    double tv = val[a];
    val[a] = val[b];
    val[b] = tv;
    int64_t ti = idx[a];
    idx[a] = idx[b];
    idx[b] = ti;
}

static void heap_down(double *val, int64_t *idx, int64_t size, int64_t at) {
    for (;;) {
        int64_t l = 2 * at + 1, r = l + 1, big = at;
        if (l < size && heap_above(val, idx, l, big)) big = l;
        if (r < size && heap_above(val, idx, r, big)) big = r;
        if (big == at) return;
        heap_swap(val, idx, at, big);
        at = big;
    }
}

/* One pass over m reduced costs: their minimum, how many lie below `below`, and the indices of
 * the (at most `count`) smallest of those, smallest first (ties: the lower index). Returns the
 * number of indices written. */
API int64_t pk_cheapest(int64_t m, const double *rc, double below, int64_t count,
                        int64_t *out, double *out_min, int64_t *out_below) {
    double least = m > 0 ? rc[0] : 0.0;
    int64_t under = 0, size = 0;
    double *val = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    if (!val) return -3;
    for (int64_t r = 0; r < m; r++) {
        double v = rc[r];
        if (v < least) least = v;
        if (!(v < below)) continue;
        under++;
        if (count <= 0) continue;
        if (size < count) { /* push, then sift up */
            int64_t at = size++;
            val[at] = v;
            out[at] = r;
            while (at > 0 && !heap_above(val, out, (at - 1) / 2, at)) {
                heap_swap(val, out, at, (at - 1) / 2);
                at = (at - 1) / 2;
            }
        } else if (v < val[0]) {
            val[0] = v;
            out[0] = r;
            heap_down(val, out, size, 0);
        }
    }
    for (int64_t end = size - 1; end > 0; end--) { /* heap sort: smallest first */
        heap_swap(val, out, 0, end);
        heap_down(val, out, end, 0);
    }
    free(val);
    *out_min = least;
    *out_below = under;
    return size;
}
