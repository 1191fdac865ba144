/* The reduced-cost closure of p-in-p co-scheduling (spec 001 §2.3; decisions C22, C24), built
 * at install time as the optional extension `resilsched._closure` (setup.py). The Python side
 * loads this shared object with ctypes (`resilsched.models.coschedule._cclosure`); the module
 * itself is empty. Each function is the twin of a pure-Python function that stays the oracle
 * (the tests compare both):
 *
 * - pk_enum:  the packs of one threshold T listed by `oracle._packs_at`: every B with
 *             sum w <= p < sum wp (cost exactly T), |B| <= cards (when step) and
 *             pi(B) >= need, pruned by the suffix DP `bound`; packs as bit masks (n <= 63);
 * - pk_cover: `cover.cheapest_cover`: the cheapest exact cover of the n tasks by the listed
 *             packs within a budget of reduced cost (depth-first, candidates by increasing
 *             reduced cost, a memo of covered sets); unlike the Python search, which branches
 *             on the first uncovered task of a static order, it branches on the uncovered task
 *             with the fewest packs that still fit, and a task with none ends the branch.
 *
 * pk_enum does the same operations in the same order as the Python code, built with
 * -ffp-contract=off: the same doubles, the same packs in the same order. pk_cover finds a cover
 * of the same least reduced cost (its partition may differ among equally cheap ones).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#define API __declspec(dllexport)
#else
#define API
#endif

#define CHECK_NODES 8192
#define CHECK_EVERY 4096

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ enumeration (pk_enum) */
typedef struct {
    int n, p, cards, step;
    const int64_t *w, *wp;
    const double *bound, *prof;
    double need, stop;
    int64_t room, count, nodes;
    uint64_t *out_mask;
    double *out_gain;
    uint64_t skip;
    int status; /* 0 running, -1 too many packs, -2 time */
} En;

static inline double bnd(const En *e, int r, int a, int c) {
    return e->bound[((int64_t)r * (e->cards + 1) + a) * (e->p + 1) + c];
}

static int grow(En *e, int r, int a, int c, double gain, uint64_t chosen, int64_t heavy) {
    e->nodes++;
    if (e->nodes % CHECK_NODES == 0 && e->stop > 0 && now() > e->stop) {
        e->status = -2;
        return 0;
    }
    if (gain >= e->need && heavy > e->p) {
        if (e->count >= e->room) {
            e->status = -1;
            return 0;
        }
        e->out_mask[e->count] = chosen;
        e->out_gain[e->count] = gain;
        e->count++;
    }
    for (int j = r; j < e->n; j++) {
        if (gain + bnd(e, j, a, c) < e->need) break;
        int64_t wj = e->w[j];
        if (wj > c || e->step > a || ((e->skip >> j) & 1)) continue;
        double g = gain + e->prof[j];
        if (g + bnd(e, j + 1, a - e->step, c - (int)wj) >= e->need &&
            !grow(e, j + 1, a - e->step, c - (int)wj, g, chosen | ((uint64_t)1 << j),
                  heavy + e->wp[j]))
            return 0;
    }
    return 1;
}

/* Returns the number of packs written, -1 beyond `room` packs, -2 past `seconds` (<= 0: no
 * clock). bound: (n + 1) x (cards + 1) x (p + 1) doubles, C order. */
API int64_t pk_enum(int n, int p, int cards, int step, const int64_t *w, const int64_t *wp,
                    const double *bound, const double *prof, double need, int64_t room,
                    double seconds, uint64_t *out_mask, double *out_gain) {
    En e = {n, p, cards, step, w, wp, bound, prof, need, seconds > 0 ? now() + seconds : 0.0,
            room, 0, 0, out_mask, out_gain, 0, 0};
    for (int i = 0; i < n; i++) {
        if (wp[i] == w[i]) continue;
        e.skip |= (uint64_t)1 << i; /* this critical task and the earlier ones */
        if (w[i] > p || e.prof[i] + bnd(&e, 0, cards - step, p - (int)w[i]) < need) continue;
        if (!grow(&e, 0, cards - step, p - (int)w[i], prof[i], (uint64_t)1 << i, wp[i]))
            return e.status;
    }
    return e.count;
}

/* ------------------------------------------------------------------ exact cover (pk_cover) */
typedef struct {
    double rc;
    uint64_t mask;
    int64_t c;
} Entry;

static int by_rc(const void *x, const void *y) {
    const Entry *a = x, *b = y;
    if (a->rc != b->rc) return a->rc < b->rc ? -1 : 1;
    if (a->mask != b->mask) return a->mask < b->mask ? -1 : 1;
    return a->c < b->c ? -1 : (a->c > b->c);
}

typedef struct {
    uint64_t key;
    double spent;
} Slot;

typedef struct {
    const Entry *e;      /* the packs by increasing reduced cost */
    int32_t **list;      /* list[i]: positions in e of the packs holding task i, ascending */
    int64_t *len;
    int n, order[64];
    uint64_t full;
    double best;
    int64_t chosen[64], best_chosen[64];
    int64_t skip[65][64]; /* skip[d][i]: list[i]'s leading packs that meet the covered set */
    int depth, best_depth, found;
    int64_t nodes, node_limit;
    double stop;
    Slot *memo;
    uint64_t memo_mask;
    int64_t memo_used, memo_cap;
} Cv;

static int64_t scanned_total = 0, nodes_total = 0;

/* Search statistics since the last call (nodes, list entries scanned), then reset. */
API void pk_stats(int64_t *out) {
    out[0] = nodes_total;
    out[1] = scanned_total;
    nodes_total = scanned_total = 0;
}

static uint64_t hash64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* The memo of covered sets (`seen` in cover.py): returns 1 when `covered` was searched before
 * with spent <= `spent` (nothing new below), else records `spent`. A full table records nothing
 * more (less pruning, same answers). */
static int seen(Cv *s, uint64_t covered, double spent) {
    if (covered == 0) return 0;
    uint64_t h = hash64(covered) & s->memo_mask;
    while (s->memo[h].key != 0) {
        if (s->memo[h].key == covered) {
            if (s->memo[h].spent <= spent) return 1;
            s->memo[h].spent = spent;
            return 0;
        }
        h = (h + 1) & s->memo_mask;
    }
    if (s->memo_used < s->memo_cap) {
        s->memo[h].key = covered;
        s->memo[h].spent = spent;
        s->memo_used++;
    }
    return 0;
}

/* Branch on the uncovered task with the fewest packs that still fit (disjoint from `covered`,
 * spent + rc <= best), as in Knuth's dancing links; a task with none ends the branch. */
static int search(Cv *s, uint64_t covered, double spent) {
    s->nodes++;
    nodes_total++;
    if (s->nodes % CHECK_EVERY == 0 &&
        ((s->stop > 0 && now() > s->stop) || (s->node_limit >= 0 && s->nodes > s->node_limit)))
        return 0;
    if (covered == s->full) {
        double mag = spent < 0 ? -spent : spent;
        s->best = spent - 1e-12 * (mag > 1.0 ? mag : 1.0);
        memcpy(s->best_chosen, s->chosen, sizeof(int64_t) * (size_t)s->depth);
        s->best_depth = s->depth;
        s->found = 1;
        return 1;
    }
    if (seen(s, covered, spent)) return 1;
    int pick = -1, d = s->depth;
    int64_t fewest = INT64_MAX, *skip = s->skip[d];
    for (int pos = 0; pos < s->n; pos++) { /* tasks by increasing number of packs */
        int i = s->order[pos];
        if ((covered >> i) & 1) continue;
        const int32_t *l = s->list[i];
        int64_t cnt = 0, a = skip[i];
        for (; a < s->len[i]; a++) { /* leading packs that meet `covered` meet it below too */
            const Entry *en = &s->e[l[a]];
            scanned_total++;
            if (spent + en->rc > s->best || !(en->mask & covered)) break;
        }
        skip[i] = a;
        for (; a < s->len[i]; a++) {
            const Entry *en = &s->e[l[a]];
            scanned_total++;
            if (spent + en->rc > s->best) break;
            if (en->mask & covered) continue;
            if (++cnt >= fewest) break;
        }
        if (cnt == 0) return 1;
        if (cnt < fewest) {
            fewest = cnt;
            pick = i;
        }
    }
    const int32_t *l = s->list[pick];
    for (int64_t a = skip[pick]; a < s->len[pick]; a++) {
        const Entry *en = &s->e[l[a]];
        if (spent + en->rc > s->best) break;
        if (en->mask & covered) continue;
        memcpy(s->skip[d + 1], skip, sizeof(int64_t) * 64);
        s->chosen[s->depth++] = en->c;
        int ok = search(s, covered | en->mask, spent + en->rc);
        s->depth--;
        if (!ok) return 0;
    }
    return 1;
}

/* Cheapest partition of range(n) (n <= 63) by the m packs (bit masks over the tasks, reduced
 * costs rcs) with sum rc <= budget. Writes the chosen pack indices to `out` (n entries) and
 * returns their number, 0 when no cover exists within the budget, -3 out of memory; *done = 1
 * when the search completed (node_limit < 0: none; seconds <= 0: no clock). */
API int64_t pk_cover(int n, int64_t m, const uint64_t *masks, const double *rcs, double budget,
                     int64_t node_limit, double seconds, int64_t memo_log2, int64_t *out,
                     int *done) {
    Cv s;
    memset(&s, 0, sizeof s);
    s.stop = seconds > 0 ? now() + seconds : 0.0;
    s.node_limit = node_limit;
    s.best = budget;
    s.full = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    uint64_t slots = (uint64_t)1 << memo_log2;
    s.memo_mask = slots - 1;
    s.memo_cap = (int64_t)(slots / 2);
    Entry *e = malloc(sizeof(Entry) * (size_t)(m > 0 ? m : 1));
    s.list = calloc(64, sizeof(int32_t *));
    s.len = calloc(64, sizeof(int64_t));
    s.memo = calloc(slots, sizeof(Slot));
    int64_t k = -3;
    if (!e || !s.list || !s.len || !s.memo) goto cleanup;
    for (int64_t c = 0; c < m; c++) {
        Entry en = {rcs[c], masks[c], c};
        e[c] = en;
        for (uint64_t x = masks[c]; x; x &= x - 1) s.len[__builtin_ctzll(x)]++;
    }
    qsort(e, (size_t)m, sizeof(Entry), by_rc);
    for (int i = 0; i < n; i++) {
        s.list[i] = malloc(sizeof(int32_t) * (size_t)(s.len[i] > 0 ? s.len[i] : 1));
        if (!s.list[i]) goto cleanup;
        s.len[i] = 0;
    }
    for (int64_t q = 0; q < m; q++)
        for (uint64_t x = e[q].mask; x; x &= x - 1) {
            int i = __builtin_ctzll(x);
            s.list[i][s.len[i]++] = (int32_t)q;
        }
    s.e = e;
    s.n = n;
    for (int i = 0; i < n; i++) s.order[i] = i;
    for (int i = 1; i < n; i++) { /* stable insertion sort by number of packs */
        int v = s.order[i], j = i - 1;
        while (j >= 0 && s.len[s.order[j]] > s.len[v]) {
            s.order[j + 1] = s.order[j];
            j--;
        }
        s.order[j + 1] = v;
    }
    *done = search(&s, 0, 0.0);
    k = s.found ? s.best_depth : 0;
    for (int64_t q = 0; q < k; q++) out[q] = s.best_chosen[q];
cleanup:
    if (s.list)
        for (int i = 0; i < 64; i++) free(s.list[i]);
    free(s.list);
    free(s.len);
    free(s.memo);
    free(e);
    return k;
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_closure",
    "C kernels of the p-in-p reduced-cost closure, called through ctypes (resilsched.models."
    "coschedule._cclosure).", -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__closure(void) { return PyModule_Create(&module); }
