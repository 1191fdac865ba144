/* The k-in-p closure of `setpart-cg` searched exactly (spec 001 §2.3; decision C28): included by
 * closure.c (the extension `resilsched._closure` is built from that one source, setup.py), its
 * Python side is `resilsched.models.coschedule.setpart.colgen.closure_search`.
 *
 * sp_search: the cheapest partition of the n tasks (n <= SP_MAX_TASKS) into the listed packs
 * whose cost sum c_B is below `target`. Bound: with the duals of the cut master LP (dual
 * objective D, task duals pi, pack-count dual mu >= 0, subset-row duals sigma_S <= 0; reduced
 * costs rc_B), every partition x costs
 *
 *     cost(x) = D + sum_{B in x} rc_B + mu (|x| - ceil(n/k)) + sum_S (-sigma_S) (1 - a_S(x)),
 *
 * a_S(x) = 1 when a pack of x holds two or more tasks of S (`subset_rows`). At a node (covered
 * tasks, chosen packs) the unknown part is bounded below by: mu times the packs still needed
 * (ceil(uncovered / k)); the cuts already decided to a_S = 0 (two tasks of S covered, none of
 * the chosen packs holding two of them: the packs still to come meet S at most once); and the
 * share bound: each uncovered task i pays at least min ev_B / |B| over the packs B that still
 * fit and hold i, where ev_B = rc_B plus half the penalty of every cut with one task covered
 * of which B holds exactly one of the two others (those two then sit in
 * different packs, a_S = 0, and each of their packs carries one half). A floor
 * min(0, min rc_B / |B|) per task keeps the list cut-offs valid when some rc are negative. A
 * node whose bound reaches the best cost (or `target`) is pruned, and so is a pack whose ev and
 * the other tasks' shares reach it. Branch on the uncovered task held by the fewest fitting
 * packs, of largest share among those (a task held by none ends the branch), its packs by
 * increasing rc; each node keeps the list of the packs that still fit (a child's list is its
 * parent's, filtered). A memo of covered sets keeps the least true cost that reached each (the
 * cost of the rest depends on the covered set only): a node reached again at no lower cost is
 * pruned.
 */

#define SP_WORDS 4
#define SP_MAX_TASKS (64 * SP_WORDS)
#define SP_MAX_CUTS (64 * SP_WORDS)

/* the limits models/coschedule/_cclosure.py shares with this file, checked when it is loaded */
API const int64_t sp_max_tasks = SP_MAX_TASKS;
API const int64_t sp_max_cuts = SP_MAX_CUTS;

typedef uint64_t Bits[SP_WORDS];

typedef struct {
    double rc, cost, share; /* share = rc / |B| */
    Bits mask, cuts;        /* tasks of B; cuts S with |B ∩ S| >= 2 */
    int64_t c;              /* index in the caller's arrays */
    int size;               /* |B| */
} Pk;

/* the memo probes this many slots from a covered set's hash; when all hold other sets, the
 * first is overwritten (a transposition table: a lost entry only prunes less) */
#define SP_PROBES 8

typedef struct {
    const Pk *e;
    int32_t *arena;
    double *ev;       /* beside arena: a pack's rc plus the cut halves it decides (sp_node) */
    char *scratch;    /* per depth: shares, counts and cut pairs of sp_node */
    size_t stride;
    int64_t top, cap;
    int n, w, k, ncuts;
    Bits full;
    const Bits *cutmask;
    const double *cutpen;
    double dual, mu, tol, best, floor; /* floor = min(0, least rc_B / |B|) */
    int64_t min_packs;
    int64_t chosen[SP_MAX_TASKS], best_chosen[SP_MAX_TASKS];
    int depth, best_depth, found, oom;
    int64_t nodes, node_limit;
    double stop;
    uint64_t *memo; /* slots of w + 1 words: the covered set (all zero: empty), its cost */
    uint64_t memo_mask;
} Sp;

static inline int bits_meet(const uint64_t *a, const uint64_t *b, int w) {
    for (int q = 0; q < w; q++)
        if (a[q] & b[q]) return 1;
    return 0;
}

static inline int bits_count(const uint64_t *a, int w) {
    int c = 0;
    for (int q = 0; q < w; q++) c += __builtin_popcountll(a[q]);
    return c;
}

static int by_pk_rc(const void *x, const void *y) {
    const Pk *a = x, *b = y;
    if (a->rc != b->rc) return a->rc < b->rc ? -1 : 1;
    return a->c < b->c ? -1 : (a->c > b->c);
}

/* 1 when `covered` was reached before at true cost <= `cost`, else records `cost`. */
static int sp_seen(Sp *s, const uint64_t *covered, double cost) {
    int w = s->w;
    uint64_t h = 0;
    for (int q = 0; q < w; q++) h = hash64(h ^ covered[q]);
    uint64_t *slot = NULL;
    for (int probe = 0; probe < SP_PROBES; probe++) {
        uint64_t *at = s->memo + ((h + (uint64_t)probe) & s->memo_mask) * (uint64_t)(w + 1);
        int empty = 1;
        for (int q = 0; q < w; q++) empty &= at[q] == 0;
        if (empty) {
            slot = at;
            break;
        }
        if (memcmp(at, covered, sizeof(uint64_t) * (size_t)w) == 0) {
            double seen_cost;
            memcpy(&seen_cost, at + w, sizeof(double));
            if (seen_cost <= cost) return 1;
            memcpy(at + w, &cost, sizeof(double));
            return 0;
        }
    }
    if (slot == NULL) slot = s->memo + (h & s->memo_mask) * (uint64_t)(w + 1);
    memcpy(slot, covered, sizeof(uint64_t) * (size_t)w);
    memcpy(slot + w, &cost, sizeof(double));
    return 0;
}

static int sp_node(Sp *s, const uint64_t *covered, const uint64_t *hit, double spent,
                   double cost, int64_t packs, int64_t off, int64_t len) {
    s->nodes++;
    nodes_total++;
    if (s->node_limit >= 0 && s->nodes > s->node_limit) return 0;
    if (((s->nodes & 15) == 0 || len > 65536) && s->stop > 0 && now() > s->stop) return 0;
    int w = s->w, left = s->n - bits_count(covered, w);
    if (left == 0) {
        if (cost < s->best - s->tol) {
            s->best = cost;
            memcpy(s->best_chosen, s->chosen, sizeof(int64_t) * (size_t)s->depth);
            s->best_depth = s->depth;
            s->found = 1;
        }
        return 1;
    }
    if (s->depth > 0 && sp_seen(s, covered, cost)) return 1;
    /* the decided part of the bound: D + spent rc + packs still needed + cuts decided to 0 */
    int64_t more = packs + (left + s->k - 1) / s->k - s->min_packs;
    double core = s->dual + spent + (more > 0 ? s->mu * (double)more : 0.0);
    /* a cut with one task covered (its pack holding no other task of S) ends at a_S = 0 iff
     * the two others go to different packs: then each of their packs holds exactly one of
     * them, and each is charged half the penalty (pairs: task -> partner, half) */
    /* this depth's scratch (on the heap: threads may have small stacks) */
    double *restrict share = (double *)(s->scratch + (size_t)s->depth * s->stride);
    double *restrict half = share + s->n;
    int *restrict count = (int *)(half + 2 * s->ncuts);
    int *restrict head = count + s->n;
    int *restrict nxt = head + s->n;
    int *restrict partner = nxt + 2 * s->ncuts;
    int npairs = 0;
    for (int i = 0; i < s->n; i++) head[i] = -1;
    for (int q = 0; q < s->ncuts; q++) {
        if ((hit[q >> 6] >> (q & 63)) & 1) continue;
        int got = 0;
        for (int r = 0; r < w; r++) got += __builtin_popcountll(covered[r] & s->cutmask[q][r]);
        if (got >= 2) {
            core += s->cutpen[q];
        } else if (got == 1) {
            int two[2], t = 0;
            for (int r = 0; r < w; r++)
                for (uint64_t x = s->cutmask[q][r] & ~covered[r]; x; x &= x - 1)
                    two[t++] = 64 * r + __builtin_ctzll(x);
            for (int u = 0; u < 2; u++) {
                partner[npairs] = two[1 - u];
                half[npairs] = 0.5 * s->cutpen[q];
                nxt[npairs] = head[two[u]];
                head[two[u]] = npairs++;
            }
        }
    }
    double limit = s->best - s->tol;
    if (core + (double)left * s->floor >= limit) return 1;
    for (int i = 0; i < s->n; i++) {
        count[i] = 0;
        share[i] = 1e300;
    }
    /* the other packs of a completion cost >= floor per task: a pack whose rc reaches
     * limit - core - (left - 1) floor cannot take part, nor can any later one */
    double others = (double)(left - 1) * s->floor;
    int64_t end = 0;
    for (; end < len; end++) {
        const Pk *en = &s->e[s->arena[off + end]];
        if (core + en->rc + others >= limit) break;
        double ev = en->rc, mine = en->share;
        if (npairs > 0) {
            for (int q = 0; q < w; q++)
                for (uint64_t x = en->mask[q]; x; x &= x - 1)
                    for (int a = head[64 * q + __builtin_ctzll(x)]; a >= 0; a = nxt[a])
                        if (!((en->mask[partner[a] >> 6] >> (partner[a] & 63)) & 1))
                            ev += half[a];
            mine = ev / en->size;
        }
        s->ev[off + end] = ev;
        for (int q = 0; q < w; q++)
            for (uint64_t x = en->mask[q]; x; x &= x - 1) {
                int i = 64 * q + __builtin_ctzll(x);
                count[i]++;
                if (mine < share[i]) share[i] = mine;
            }
    }
    scanned_total += end;
    int pick = -1;
    double rest = 0.0;
    for (int q = 0; q < w; q++)
        for (uint64_t u = ~covered[q] & s->full[q]; u; u &= u - 1) {
            int i = 64 * q + __builtin_ctzll(u);
            if (count[i] == 0) return 1;
            rest += share[i];
            if (pick < 0 || count[i] < count[pick] ||
                (count[i] == count[pick] && share[i] > share[pick]))
                pick = i;
        }
    if (core + rest >= limit) return 1;
    /* ev becomes ev_B - the shares of B's tasks: a completion with B costs >= core + rest +
     * that, and with B and B' (disjoint) >= core + rest + both */
    for (int64_t a = 0; a < end; a++) {
        const Pk *en = &s->e[s->arena[off + a]];
        double own = 0.0;
        for (int q = 0; q < w; q++)
            for (uint64_t x = en->mask[q]; x; x &= x - 1) own += share[64 * q + __builtin_ctzll(x)];
        s->ev[off + a] -= own;
    }
    for (int64_t a = 0; a < end; a++) {
        const Pk *en = &s->e[s->arena[off + a]];
        limit = s->best - s->tol;
        if (core + en->rc + others >= limit) break;
        if (!((en->mask[pick >> 6] >> (pick & 63)) & 1)) continue;
        int size = en->size;
        double after = left > size ? (double)(left - size - 1) * s->floor : 0.0;
        double base = core + rest + s->ev[off + a]; /* the child's bound before its own scan */
        if (base >= limit) continue;
        int64_t child = s->top;
        if (child + end > s->cap) {
            int64_t cap = 2 * (child + end);
            int32_t *grown = realloc(s->arena, sizeof(int32_t) * (size_t)cap);
            if (grown) s->arena = grown;
            double *grown_ev = grown ? realloc(s->ev, sizeof(double) * (size_t)cap) : NULL;
            if (!grown_ev) {
                s->oom = 1;
                return 0;
            }
            s->ev = grown_ev;
            s->cap = cap;
        }
        int64_t b = 0;
        for (; b < end; b++) {
            int32_t q2 = s->arena[off + b];
            const Pk *other = &s->e[q2];
            /* core + rc_a + rc_b + (tasks left after both) floor bounds the child's bound
             * with b, and grows along the list */
            if (core + en->rc + other->rc + after >= limit) break;
            if (bits_meet(other->mask, en->mask, w)) continue;
            if (base + s->ev[off + b] >= limit) continue;
            s->arena[s->top++] = q2;
        }
        scanned_total += b;
        Bits cov, hit2;
        for (int q = 0; q < SP_WORDS; q++) {
            cov[q] = covered[q] | en->mask[q];
            hit2[q] = hit[q] | en->cuts[q];
        }
        s->chosen[s->depth++] = en->c;
        int ok = sp_node(s, cov, hit2, spent + en->rc, cost + en->cost, packs + 1, child,
                         s->top - child);
        s->depth--;
        s->top = child;
        if (!ok) return 0;
    }
    return 1;
}

/* The cheapest partition of range(n) by the m packs (masks: m x w words; reduced costs rcs,
 * true costs costs) costing less than `target` (module comment). Cuts: ncuts <= SP_MAX_CUTS
 * masks (ncuts x w words) with penalties -sigma_S >= 0. Writes the chosen pack indices to `out`
 * (n entries) and their true cost to *out_cost; returns their number, 0 when none was found,
 * -3 out of memory, -4 bad arguments; *done = 1 when the search completed (node_limit < 0:
 * none; seconds <= 0: no clock). `tol`: partitions within tol of the best are not searched. */
API int64_t sp_search(int n, int w, int k, int64_t m, const uint64_t *masks, const double *rcs,
                      const double *costs, int ncuts, const uint64_t *cutmasks,
                      const double *cutpen, double dual, double mu, int64_t min_packs,
                      double target, double tol, int64_t node_limit, double seconds,
                      int64_t memo_log2, int64_t *out, double *out_cost, int *done) {
    *done = 0;
    if (n < 1 || n > SP_MAX_TASKS || w < 1 || w > SP_WORDS || 64 * w < n || k < 1 ||
        ncuts < 0 || ncuts > SP_MAX_CUTS)
        return -4;
    Sp s;
    memset(&s, 0, sizeof s);
    s.stop = seconds > 0 ? now() + seconds : 0.0;
    s.node_limit = node_limit;
    s.n = n;
    s.w = w;
    s.k = k;
    s.ncuts = ncuts;
    s.dual = dual;
    s.mu = mu;
    s.min_packs = min_packs;
    s.tol = tol;
    s.best = target;
    for (int i = 0; i < n; i++) s.full[i >> 6] |= (uint64_t)1 << (i & 63);
    Bits *cm = calloc((size_t)(ncuts > 0 ? ncuts : 1), sizeof(Bits));
    Pk *e = calloc((size_t)(m > 0 ? m : 1), sizeof(Pk));
    uint64_t slots = (uint64_t)1 << memo_log2;
    s.memo_mask = slots - 1;
    s.memo = calloc(slots * (uint64_t)(w + 1), sizeof(uint64_t));
    s.cap = 4 * m + 1024;
    s.arena = malloc(sizeof(int32_t) * (size_t)s.cap);
    s.ev = malloc(sizeof(double) * (size_t)s.cap);
    s.stride = sizeof(double) * (size_t)(n + 2 * ncuts) + sizeof(int) * (size_t)(2 * n + 4 * ncuts);
    s.stride = (s.stride + 7) / 8 * 8;
    s.scratch = malloc(s.stride * (size_t)(n + 1));
    int64_t got = -3;
    if (!cm || !e || !s.memo || !s.arena || !s.ev || !s.scratch) goto cleanup;
    for (int q = 0; q < ncuts; q++)
        for (int r = 0; r < w; r++) cm[q][r] = cutmasks[(int64_t)q * w + r];
    s.cutmask = (const Bits *)cm;
    s.cutpen = cutpen;
    s.floor = 0.0;
    for (int64_t c = 0; c < m; c++) {
        Pk *en = &e[c];
        for (int r = 0; r < w; r++) en->mask[r] = masks[c * w + r];
        int size = bits_count(en->mask, w);
        en->size = size > 0 ? size : 1;
        en->rc = rcs[c];
        en->cost = costs[c];
        en->share = size > 0 ? rcs[c] / size : 0.0;
        if (en->share < s.floor) s.floor = en->share;
        en->c = c;
        for (int q = 0; q < ncuts; q++) {
            int meet = 0;
            for (int r = 0; r < w; r++) meet += __builtin_popcountll(en->mask[r] & cm[q][r]);
            if (meet >= 2) en->cuts[q >> 6] |= (uint64_t)1 << (q & 63);
        }
    }
    qsort(e, (size_t)m, sizeof(Pk), by_pk_rc);
    for (int64_t q = 0; q < m; q++) s.arena[q] = (int32_t)q;
    s.top = m;
    s.e = e;
    Bits none = {0};
    *done = sp_node(&s, none, none, 0.0, 0.0, 0, 0, m);
    if (s.oom) {
        *done = 0;
        goto cleanup;
    }
    got = s.found ? s.best_depth : 0;
    for (int64_t q = 0; q < got; q++) out[q] = s.best_chosen[q];
    *out_cost = s.found ? s.best : 0.0;
cleanup:
    free(s.arena);
    free(s.ev);
    free(s.scratch);
    free(s.memo);
    free(e);
    free(cm);
    return got;
}
