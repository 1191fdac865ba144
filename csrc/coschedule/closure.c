/* The reduced-cost closure of p-in-p co-scheduling (spec 001 §2.3; decisions C22, C24), built
 * at install time as the optional extension `resilsched._closure` (setup.py). The Python side
 * loads this shared object with ctypes (`resilsched.models.coschedule._cclosure`); the module
 * itself is empty. Each function is the twin of a pure-Python function that stays the oracle
 * (the tests compare both):
 *
 * - pk_enum:  the packs of one threshold T listed by `setpart.branchprice.pricing_oracle._packs_at`: every B with
 *             sum w <= p < sum wp (cost exactly T), |B| <= cards (when step) and
 *             pi(B) >= need, pruned by the suffix DP `bound`; packs as bit masks (n <= 63);
 * - pk_cover: `setpart.branchprice.exact_cover.cheapest_cover`: the cheapest exact cover of the n tasks by the listed
 *             packs within a budget of reduced cost (depth-first, candidates by increasing
 *             reduced cost, a memo of covered sets); unlike the Python search, which branches
 *             on the first uncovered task of a static order, each node keeps the list of the
 *             packs that still fit (disjoint from the covered tasks, within the budget) and
 *             branches on the uncovered task held by the fewest of them; a task held by none
 *             ends the branch.
 *
 * - pk_pool:  the explicit pool of k-in-p packs costed by Algorithm 1 (`setpart.pool.build_pool`,
 *             pool.h);
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
    const Entry *e;   /* the packs by increasing reduced cost */
    int32_t *arena;   /* the active lists of the nodes on the current path, stacked */
    int64_t top, cap; /* arena[0 .. top) in use, cap allocated */
    int n;
    uint64_t full;
    double best;
    int64_t chosen[64], best_chosen[64];
    int depth, best_depth, found, oom;
    int64_t nodes, node_limit;
    double stop;
    Slot *memo;
    uint64_t memo_mask;
    int64_t memo_used, memo_cap;
} Cv;

static int64_t scanned_total = 0, nodes_total = 0;

/* Search statistics since the last call (nodes, active entries scanned), then reset. */
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

/* A node: `covered` tasks, `spent` reduced cost, and its active list arena[off .. off + len):
 * the packs disjoint from `covered` with spent + rc <= best when the list was made, by
 * increasing rc. Branch on the uncovered task held by the fewest active packs within the budget
 * (Knuth's dancing-links rule); a task held by none ends the branch. A child's active list is
 * its parent's, less the packs meeting the chosen one and those beyond the new budget. */
static int search(Cv *s, uint64_t covered, double spent, int64_t off, int64_t len) {
    s->nodes++;
    nodes_total++;
    if (s->node_limit >= 0 && s->nodes > s->node_limit) return 0;
    /* a node near the root filters long lists: the clock is read often (~30 ns a read) */
    if (((s->nodes & 15) == 0 || len > 65536) && s->stop > 0 && now() > s->stop) return 0;
    if (covered == s->full) {
        double mag = spent < 0 ? -spent : spent;
        s->best = spent - 1e-12 * (mag > 1.0 ? mag : 1.0);
        memcpy(s->best_chosen, s->chosen, sizeof(int64_t) * (size_t)s->depth);
        s->best_depth = s->depth;
        s->found = 1;
        return 1;
    }
    if (seen(s, covered, spent)) return 1;
    int64_t count[64] = {0}, end = 0;
    for (; end < len; end++) {
        const Entry *en = &s->e[s->arena[off + end]];
        if (spent + en->rc > s->best) break;
        for (uint64_t x = en->mask; x; x &= x - 1) count[__builtin_ctzll(x)]++;
    }
    scanned_total += end;
    int pick = -1;
    for (uint64_t u = ~covered & s->full; u; u &= u - 1) {
        int i = __builtin_ctzll(u);
        if (count[i] == 0) return 1;
        if (pick < 0 || count[i] < count[pick]) pick = i;
    }    uint64_t bit = (uint64_t)1 << pick;
    for (int64_t a = 0; a < end; a++) {
        const Entry *en = &s->e[s->arena[off + a]];
        double now_spent = spent + en->rc;
        if (now_spent > s->best) break;
        if (!(en->mask & bit)) continue;
        int64_t child = s->top;
        if (child + len > s->cap) {
            int64_t cap = 2 * (child + len);
            int32_t *grown = realloc(s->arena, sizeof(int32_t) * (size_t)cap);
            if (!grown) {
                s->oom = 1;
                return 0;
            }
            s->arena = grown;
            s->cap = cap;
        }
        int64_t b = 0;
        for (; b < len; b++) {
            int32_t q = s->arena[off + b];
            const Entry *other = &s->e[q];
            if (now_spent + other->rc > s->best) break;
            if (!(other->mask & en->mask)) s->arena[s->top++] = q;
        }
        scanned_total += b;
        s->chosen[s->depth++] = en->c;
        int ok = search(s, covered | en->mask, now_spent, child, s->top - child);
        s->depth--;
        s->top = child;
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
    s.n = n;
    s.full = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    uint64_t slots = (uint64_t)1 << memo_log2;
    s.memo_mask = slots - 1;
    s.memo_cap = (int64_t)(slots / 2);
    Entry *e = malloc(sizeof(Entry) * (size_t)(m > 0 ? m : 1));
    s.cap = 2 * m + 1024;
    s.arena = malloc(sizeof(int32_t) * (size_t)s.cap);
    s.memo = calloc(slots, sizeof(Slot));
    int64_t k = -3;
    if (!e || !s.arena || !s.memo) goto cleanup;
    for (int64_t c = 0; c < m; c++) {
        Entry en = {rcs[c], masks[c], c};
        e[c] = en;
    }
    qsort(e, (size_t)m, sizeof(Entry), by_rc);
    for (int64_t q = 0; q < m; q++) s.arena[q] = (int32_t)q;
    s.top = m;
    s.e = e;
    *done = search(&s, 0, 0.0, 0, m);
    if (s.oom) {
        *done = 0;
        goto cleanup;
    }
    k = s.found ? s.best_depth : 0;
    for (int64_t q = 0; q < k; q++) out[q] = s.best_chosen[q];
cleanup:
    free(s.arena);
    free(s.memo);
    free(e);
    return k;
}

#include "partition.h"
#include "pool.h"

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_closure",
    "C kernels of the p-in-p reduced-cost closure, called through ctypes (resilsched.models."
    "coschedule._cclosure).", -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__closure(void) { return PyModule_Create(&module); }
