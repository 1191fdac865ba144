/* The explicit pool of k-in-p packs (spec 001 §2.3; decision C29): included by closure.c (the
 * extension `resilsched._closure` is built from that one source, setup.py), its Python side is
 * `resilsched.models.coschedule.pool.build_pool`, whose numpy path stays the oracle.
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
