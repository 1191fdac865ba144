/* rigid_refute.c -- the refutation search of the rigid exact model in C (decision R25).
 *
 * Built at install time as the optional extension `resilsched._refute` (setup.py); the module
 * itself is empty and `resilsched.models.rigid.crefute` loads its shared object with ctypes
 * (PyDLL). The search releases the GIL while it runs, so that two searches can run in two
 * threads (decision R29), and takes it back to look for Ctrl-C (PyErr_CheckSignals); the LP
 * callback takes it by itself (ctypes callbacks do). It is the twin of
 * `_Search` in models/rigid/refute.py, which stays the oracle: the same decision problem D(T)
 * (spec 002 §1.3, Eq. 2-3: is there an attempt schedule ending by T?), the same search over
 * active schedules in the same branching order (a waiting job whose hole -- p_j processors
 * free since it became ready -- reaches t_j is dead), the same pruning (chains, the cut pool
 * and its profile cut, the memo of failed states, a configuration-LP cut every `lp_every`-th
 * node through a callback into Python), so the same verdict and the same node count. The pure
 * checks (cuts, memo) run in another order than in Python: each only prunes, so the nodes that
 * reach the LP and the search below are the same.
 *
 * What differs is how the cuts are evaluated. A cut (pi, z) holds when
 * sum_j pi_j d_j <= z (T - tau), d_j = rem_j t_j + max(0, end_j - tau) the remaining work at
 * the decision time tau. Starting an attempt does not change d_j (rem_j t_j falls by t_j,
 * end_j - tau rises by t_j), and moving tau forward lowers d_j of each running job by the
 * step. So each row keeps A = sum_j pi_j (rem_j t_j + in_j end_j) and B = sum_j pi_j in_j,
 * where in_j marks the jobs counted as running (every job with end_j > tau, and possibly some
 * with end_j = tau, whose term end_j - tau is 0): sum_j pi_j d_j = A - tau B. A start or an
 * attempt leaving the running set updates A and B in O(rows), and the check is O(rows) with
 * an early exit, the last row that cut being tried first (the order does not change "some row
 * cuts").
 *
 * All arithmetic is exact int64: the caller checks that pi_j (work + n T) and z T stay below
 * 2^62, T and P below 2^31 (the memo keys are int32).
 *
 * The cut checks are in cuts.h, the memo in memo.h. Several workers (threads) may split the
 * tree and share the memo (decision R29, rs_refute's comment); one worker searches exactly
 * the tree of refute.py.
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
#include <pthread.h>
#define RS_THREADS 1
#endif

/* return codes of rs_refute */
#define RF_INFEASIBLE 0
#define RF_FEASIBLE 1
#define RF_TIMEOUT 2
#define RF_ENOMEM (-1)
#define RF_ECALLBACK (-2) /* the LP callback failed or Ctrl-C: a Python error is pending */
#define RF_EMEMO (-3)     /* no memo, one for another job count, or bad workers */
#define RF_STOPPED 3      /* internal: halted, or another worker ended the search */

#define MAX_WORKERS 16

/* the constants models/rigid/crefute.py shares with this file, checked when it is loaded */
API const int64_t rs_infeasible = RF_INFEASIBLE;
API const int64_t rs_feasible = RF_FEASIBLE;
API const int64_t rs_timeout = RF_TIMEOUT;
API const int64_t rs_enomem = RF_ENOMEM;
API const int64_t rs_ecallback = RF_ECALLBACK;
API const int64_t rs_ememo = RF_EMEMO;
API const int64_t rs_max_workers = MAX_WORKERS;

/* the configuration-LP callback: d (n remaining works), left = T - tau; writes a row (n
 * integers) and z and returns 1 when that cut prunes the node, 0 when not, -1 on error;
 * *lp_work is the LP's work so far, in node units */
typedef int (*lp_callback)(const int64_t *d, int64_t left, int64_t *row, int64_t *z,
                           int64_t *lp_work);

#define CELLS_PER_NODE 20000 /* refute.CELLS_PER_NODE: a node's cost grows with the cuts */
#define CLOCK_EVERY 1024     /* nodes between two looks at the clock */
#define SIGNAL_EVERY 65536   /* nodes between two looks for Ctrl-C */

#include "memo.h"

typedef struct {
    /* the scenario and the target */
    int n;
    int64_t P, T;
    const int64_t *p, *t, *m;
    /* the state: attempts left, end of the last started attempt, counted as running */
    int64_t *rem, *end;
    char *in;
    int64_t *hole;        /* a waiting job: how long p_j processors have been free before tau */
    int64_t *undo;        /* stack of (job, old hole) changed by the moves */
    int64_t nundo, undo_cap;
    int *gone, ngone;     /* stack of the jobs taken out of the running set by the moves */
    int64_t *first_start; /* job j's starts are starts[first_start[j] ...] */
    int64_t *starts, *solution;
    int found;
    /* cuts: pi column-major (pi[j * cap + r]), nbase pool rows then a ring of LP rows */
    int nbase, lp_cap, nlp, lp_next, rows, cap;
    int64_t *pi, *z, *A, *B;
    uint32_t *pi32; /* pi as unsigned 32-bit words while every entry fits (`narrow`): the
                     * updates of A and B then multiply 32 by 32 bits, which vectorizes */
    int narrow;
    int64_t *zf;            /* NULL, or zf[r (P + 1) + c]: row r's largest sum over sets of
                             * jobs of width <= c (the profile cut) */
    int *run;               /* scratch: the running jobs by end */
    int *order; /* rows in the order they are checked */
    int64_t node_cost;
    /* limits */
    int64_t nodes, work, lp_work, max_nodes, lp_every;
    double stop; /* CLOCK_MONOTONIC seconds */
    lp_callback cb;
    int status; /* 0 while searching, else RF_TIMEOUT / RF_ENOMEM / RF_ECALLBACK */
    int64_t *d, *row;
    int32_t *key;
    Memo *memo;
    volatile const int32_t *halt; /* NULL, or set (by another thread) to stop the search */
    PyThreadState *ts; /* the calling thread's state while it runs without the GIL (worker 0) */
    /* the split between workers (decision R29): the nodes at depth `split_depth` belong to
     * worker hash(state) mod split_K; the others are skipped and counted in `skipped`, so
     * that a node whose subtree lost one is not stored in the memo as failed */
    int depth, split_depth, split_k, split_K;
    int64_t skipped;
    struct Shared *sh;
    int result;
    int finished; /* run_search returned (set atomically: the calling thread polls it) */
} Search;

/* what the workers of one rs_refute share (besides the memo) */
typedef struct Shared {
    volatile int stop; /* a worker found a schedule or failed: the others stop */
    int threaded;      /* several workers: the LP callback is serialized, the memo shared */
#ifdef RS_THREADS
    pthread_mutex_t cb_lock;
#endif
} Shared;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- cuts (cuts.h) -------------------------------------------------------------------- */

#include "cuts.h"

/* ---- memo (memo.h) ------------------------------------------------------------------ */

/* the key of the state at tau (refute._Search._at): attempts left, and end - tau for a
 * running job, -1 - hole for a waiting one, -1 for a job with no attempt left */
static void make_key(Search *s, int64_t tau) {
    int n = s->n;
    for (int j = 0; j < n; j++) {
        int64_t ahead = s->end[j] - tau, r = s->rem[j];
        s->key[j] = (int32_t)r;
        s->key[n + j] = (int32_t)(ahead > 0 ? ahead : (r ? -1 - s->hole[j] : -1));
    }
    s->key[2 * n] = 0;
}

/* ---- search ---------------------------------------------------------------------------- */

static int at(Search *s, int64_t tau, int64_t free);

static int push_undo(Search *s, int64_t j, int64_t old) {
    if (s->nundo + 2 > s->undo_cap) {
        int64_t cap = 2 * s->undo_cap + 64, *u = realloc(s->undo, sizeof(int64_t) * (size_t)cap);
        if (!u) return -1;
        s->undo = u;
        s->undo_cap = cap;
    }
    s->undo[s->nundo++] = j;
    s->undo[s->nundo++] = old;
    return 0;
}

/* refute._Search._choose: start ready attempts of jobs >= first at tau, then move on */
static int choose(Search *s, int64_t tau, int first, int64_t free) {
    int n = s->n;
    const int64_t *p = s->p, *t = s->t;
    for (int j = first; j < n; j++) {
        if (!s->rem[j] || s->end[j] > tau || p[j] > free || tau + s->rem[j] * t[j] > s->T)
            continue;
        if (s->hole[j]) continue; /* could start one unit earlier: not semi-active */
        int64_t ready = s->end[j];
        int was_in = s->in[j];
        if (!was_in) shift(s, j, tau, 1);
        s->starts[s->first_start[j] + s->m[j] - s->rem[j]] = tau;
        s->rem[j]--;
        s->end[j] = tau + t[j];
        s->in[j] = 1;
        int ok = choose(s, tau, j + 1, free - p[j]);
        s->rem[j]++;
        s->end[j] = ready;
        s->in[j] = (char)was_in;
        if (!was_in) shift(s, j, tau, -1);
        if (ok || s->status) return ok;
    }
    int64_t nxt = -1, used_before = 0, used_at = 0;
    for (int j = 0; j < n; j++)
        if (s->end[j] > tau && (nxt < 0 || s->end[j] < nxt)) nxt = s->end[j];
    if (nxt < 0) return 0;
    for (int j = 0; j < n; j++) {
        if (s->end[j] > tau) used_before += p[j];
        if (s->end[j] > nxt) used_at += p[j];
    }
    /* the jobs counted as running that end by tau leave the running set for the move */
    int base = s->ngone;
    for (int j = 0; j < n; j++)
        if (s->in[j] && s->end[j] <= tau) {
            shift(s, j, s->end[j], -1);
            s->in[j] = 0;
            s->gone[s->ngone++] = j;
        }
    /* the waiting jobs' holes grow over [tau, nxt) where p_j processors stay free, else
     * close; a hole of t_j makes the job dead (its attempt could move there: not active) */
    int64_t mark = s->nundo, seg = s->P - used_before;
    int ok = 0, dead = 0;
    for (int j = 0; j < n && !dead; j++) {
        if (!s->rem[j] || s->end[j] > tau) continue;
        int64_t h = seg >= p[j] ? s->hole[j] + nxt - tau : 0;
        if (h != s->hole[j]) {
            if (push_undo(s, j, s->hole[j])) { s->status = RF_ENOMEM; dead = 1; break; }
            s->hole[j] = h;
        }
        if (h >= t[j]) dead = 1;
    }
    if (!dead) ok = at(s, nxt, s->P - used_at);
    while (s->nundo > mark) {
        s->nundo -= 2;
        s->hole[s->undo[s->nundo]] = s->undo[s->nundo + 1];
    }
    while (s->ngone > base) {
        int j = s->gone[--s->ngone];
        shift(s, j, s->end[j], 1);
        s->in[j] = 1;
    }
    return ok;
}

/* Ctrl-C, seen by the calling thread only (the GIL taken back for the look) */
static int interrupted(Search *s) {
    PyEval_RestoreThread(s->ts);
    int bad = PyErr_CheckSignals();
    s->ts = PyEval_SaveThread();
    return bad;
}

static void give_up(Search *s, int status) {
    s->status = status;
    if (status != RF_STOPPED) s->sh->stop = 1; /* the other workers stop too */
}

/* the LP callback, one worker at a time (ctypes takes the GIL for it) */
static int call_lp(Search *s, int64_t tau) {
#ifdef RS_THREADS
    if (s->sh->threaded) pthread_mutex_lock(&s->sh->cb_lock);
#endif
    int c = s->cb(s->d, s->T - tau, s->row, s->row + s->n, &s->lp_work);
#ifdef RS_THREADS
    if (s->sh->threaded) pthread_mutex_unlock(&s->sh->cb_lock);
#endif
    return c;
}

/* refute._Search._at: the node at decision time tau (its depth counted by `at`) */
static int node(Search *s, int64_t tau, int64_t free) {
    int n = s->n;
    s->nodes++;
    s->work += s->node_cost;
    if (s->max_nodes >= 0 && s->work + s->lp_work > s->max_nodes) {
        give_up(s, RF_TIMEOUT);
        return 0;
    }
    if (!(s->nodes % CLOCK_EVERY)) {
        if (s->sh->stop || (s->halt && *s->halt)) {
            give_up(s, RF_STOPPED);
            return 0;
        }
        if (now() > s->stop) {
            give_up(s, RF_TIMEOUT);
            return 0;
        }
    }
    if (!(s->nodes % SIGNAL_EVERY) && s->ts && interrupted(s)) {
        give_up(s, RF_ECALLBACK);
        return 0;
    }
    int done = 1;
    for (int j = 0; j < n; j++) {
        int64_t r = s->rem[j];
        if (r) {
            done = 0;
            int64_t e = s->end[j];
            if ((e > tau ? e : tau) + r * s->t[j] > s->T) return 0; /* chain */
        }
    }
    if (done) {
        memcpy(s->solution, s->starts, sizeof(int64_t) * (size_t)s->first_start[n]);
        s->found = 1;
        s->sh->stop = 1;
        return 1;
    }
    /* the cuts before the memo (refute.py has the memo first): both only prune, so the
     * nodes that reach the LP and the search below are the same */
    if (cut(s, tau) || (s->zf && profile_cut(s, tau))) return 0;
    make_key(s, tau);
    Memo *m = s->memo;
    uint64_t h = hash_key(s->key, m->K);
    if (memo_left(m, s->key, h) >= s->T - tau) return 0;
    /* another worker's node (decision R29): its owner depends on the state only, so every
     * worker that meets it agrees, whatever each has pruned above it */
    if (s->depth == s->split_depth && (int)((h >> 20) % (uint64_t)s->split_K) != s->split_k) {
        s->skipped++;
        return 0;
    }
    if (s->cb && !(s->nodes % s->lp_every)) {
        for (int j = 0; j < n; j++) {
            int64_t ahead = s->end[j] - tau;
            s->d[j] = s->rem[j] * s->t[j] + (ahead > 0 ? ahead : 0);
        }
        /* Ctrl-C seen here rather than when the callback's Python code starts, where ctypes
         * would report it as ignored (the calling thread only) */
        if (s->ts && interrupted(s)) {
            give_up(s, RF_ECALLBACK);
            return 0;
        }
        int c = call_lp(s, tau);
        if (c < 0) {
            give_up(s, RF_ECALLBACK);
            return 0;
        }
        if (c > 0) {
            add_lp_row(s);
            return 0;
        }
    }
    int64_t skipped = s->skipped;
    if (choose(s, tau, 0, free)) return 1;
    if (s->status || s->skipped != skipped) return 0; /* not all of it searched */
    make_key(s, tau); /* the state is restored: the same key */
    memo_store(m, s->key, s->T - tau, h, s->sh->threaded);
    return 0;
}

static int at(Search *s, int64_t tau, int64_t free) {
    s->depth++;
    int ok = node(s, tau, free);
    s->depth--;
    return ok;
}

static void search_free(Search *s) {
    free(s->rem); free(s->end); free(s->in); free(s->hole); free(s->undo); free(s->first_start);
    free(s->d); free(s->row); free(s->key); free(s->pi); free(s->pi32); free(s->z); free(s->A); free(s->B);
    free(s->order); free(s->run); free(s->zf); free(s->starts); free(s->gone);
    free(s->solution);
}

/* a worker's state at the root (rs_refute's arguments); 0, or RF_ENOMEM */
static int search_init(Search *s, int n, int64_t P, int64_t T, const int64_t *p,
                       const int64_t *t, const int64_t *m, int nbase, const int64_t *pi,
                       const int64_t *z, const int64_t *zf, int lp_cap, int64_t lp_every,
                       lp_callback cb, int64_t max_nodes, double stop, Memo *memo,
                       Shared *sh) {
    memset(s, 0, sizeof *s);
    s->n = n; s->P = P; s->T = T; s->p = p; s->t = t; s->m = m;
    s->nbase = nbase; s->lp_cap = cb ? lp_cap : 0; s->rows = nbase;
    s->lp_every = lp_every > 0 ? lp_every : 1;
    s->cb = cb; s->max_nodes = max_nodes; s->stop = stop;
    s->memo = memo; s->sh = sh; s->split_K = 1;
    int cap = nbase + s->lp_cap > 0 ? nbase + s->lp_cap : 1;
    s->cap = cap;
    s->rem = malloc(sizeof(int64_t) * (size_t)n);
    s->end = calloc((size_t)n, sizeof(int64_t));
    s->in = calloc((size_t)n, 1);
    s->hole = calloc((size_t)n, sizeof(int64_t));
    s->first_start = malloc(sizeof(int64_t) * (size_t)(n + 1));
    s->d = malloc(sizeof(int64_t) * (size_t)n);
    s->row = malloc(sizeof(int64_t) * (size_t)(n + 1 + (zf ? P + 1 : 0)));
    s->key = malloc(sizeof(int32_t) * (size_t)memo->K);
    s->pi = calloc((size_t)cap * (size_t)n + 1, sizeof(int64_t));
    s->pi32 = calloc((size_t)cap * (size_t)n + 1, sizeof(uint32_t));
    s->narrow = 1;
    s->z = calloc((size_t)cap, sizeof(int64_t));
    s->A = calloc((size_t)cap, sizeof(int64_t));
    s->B = calloc((size_t)cap, sizeof(int64_t));
    s->order = malloc(sizeof(int) * (size_t)cap);
    s->run = malloc(sizeof(int) * (size_t)(n + 1));
    if (zf) s->zf = malloc(sizeof(int64_t) * (size_t)cap * (size_t)(P + 1));
    if (!s->rem || !s->end || !s->in || !s->hole || !s->first_start || !s->d || !s->row ||
        !s->key || !s->pi || !s->pi32 || !s->z || !s->A || !s->B || !s->order || !s->run || (zf && !s->zf))
        return RF_ENOMEM;
    s->first_start[0] = 0;
    for (int j = 0; j < n; j++) {
        s->rem[j] = m[j];
        s->first_start[j + 1] = s->first_start[j] + m[j];
    }
    s->starts = malloc(sizeof(int64_t) * (size_t)(s->first_start[n] + 1));
    s->solution = malloc(sizeof(int64_t) * (size_t)(s->first_start[n] + 1));
    s->gone = malloc(sizeof(int) * (size_t)(s->first_start[n] + n + 1));
    if (!s->starts || !s->solution || !s->gone) return RF_ENOMEM;
    for (int r = 0; r < nbase; r++) {
        for (int j = 0; j < n; j++) set_pi(s, j, r, pi[(int64_t)r * n + j]);
        s->z[r] = z[r];
        if (zf) memcpy(s->zf + r * (P + 1), zf + r * (P + 1), sizeof(int64_t) * (size_t)(P + 1));
        s->order[r] = r;
        row_sums(s, r);
    }
    set_node_cost(s);
    return 0;
}

static void *run_search(void *arg) {
    Search *s = arg;
    s->result = at(s, 0, s->P);
#ifdef RS_THREADS
    __atomic_store_n(&s->finished, 1, __ATOMIC_RELEASE);
#endif
    return NULL;
}

#ifdef RS_THREADS
/* Wait for workers 1..started-1 after worker 0 (the calling thread) ended its part: Ctrl-C is
 * still looked for every 5 ms meanwhile, or it would wait for the slowest worker's end (its
 * time limit: minutes) */
static void wait_for_workers(Search *w, pthread_t *th, int started) {
    for (int k = 1; k < started; k++) {
        while (!__atomic_load_n(&w[k].finished, __ATOMIC_ACQUIRE)) {
            if (w[0].status != RF_ECALLBACK && interrupted(&w[0])) give_up(&w[0], RF_ECALLBACK);
            struct timespec nap = {0, 5000000};
            nanosleep(&nap, NULL);
        }
        pthread_join(th[k], NULL);
    }
}
#endif

/* Decide D(T): n jobs (p, t, m), capacity P; `nbase` pool cuts, pi row-major (nbase x n) and
 * z, and NULL or their profile tables zf (nbase x (P + 1)); at most `lp_cap`
 * configuration-LP cuts from `cb` (NULL: none) every `lp_every`-th node; stop after `seconds`,
 * when the work exceeds `max_nodes` (< 0: no limit; each worker gets its share) or when
 * `halt` (NULL, or a flag another thread may set) is set: a timeout. `memo` (rs_memo_new with
 * K = 2n + 1) keeps the failed states, also for the next targets. `starts` (sum_j m_j, job
 * by job) receives a schedule ending by T when one is found; stats = (nodes, work, lp_work)
 * summed over the workers. Returns an RF_ code. The GIL is released while the search runs.
 *
 * `workers` > 1 split the tree (decision R29): worker k searches every node above depth
 * `split_depth` and the subtrees of the nodes at that depth whose state hashes to k; they
 * share the memo. `only` < 0 runs every worker, each in a thread (one after the other where
 * threads are missing); `only` = k runs worker k alone (tests). D(T) is refuted when every
 * worker refutes its part. */
API int rs_refute(int n, int64_t P, int64_t T, const int64_t *p, const int64_t *t,
                  const int64_t *m, int nbase, const int64_t *pi, const int64_t *z,
                  const int64_t *zf, int lp_cap, int64_t lp_every, lp_callback cb,
                  int64_t max_nodes, double seconds, Memo *memo, volatile const int32_t *halt,
                  int workers, int split_depth, int only, int64_t *starts, int64_t *stats) {
    Search w[MAX_WORKERS];
    Shared sh;
    memset(&sh, 0, sizeof sh);
    stats[0] = stats[1] = stats[2] = 0;
    if (!memo || memo->K != 2 * n + 1 || workers < 1 || workers > MAX_WORKERS ||
        only >= workers)
        return RF_EMEMO;
    int K = only >= 0 ? 1 : workers;
    if (lp_cap <= 0) cb = NULL;
    double stop = now() + seconds;
    int64_t budget = max_nodes < 0 ? -1 : max_nodes / workers;
    int code = 0, made = 0;
    sh.threaded = K > 1;
    if (sh.threaded && memo->count >= memo->max) memo_clear(memo); /* full: start again */
    for (; made < K && !code; made++) {
        code = search_init(&w[made], n, P, T, p, t, m, nbase, pi, z, zf, lp_cap, lp_every, cb,
                           budget, stop, memo, &sh);
        w[made].halt = halt;
        w[made].split_K = workers;
        w[made].split_k = only >= 0 ? only : made;
        w[made].split_depth = workers > 1 ? split_depth : 0;
    }
    if (!code) {
        w[0].ts = PyEval_SaveThread();
        int started = 1;
#ifdef RS_THREADS
        pthread_t th[MAX_WORKERS];
        if (K > 1) pthread_mutex_init(&sh.cb_lock, NULL);
        for (; started < K; started++)
            if (pthread_create(&th[started], NULL, run_search, &w[started])) break;
#endif
        for (int k = started; k < K; k++) run_search(&w[k]); /* no thread for it */
        run_search(&w[0]);
#ifdef RS_THREADS
        wait_for_workers(w, th, started);
        if (K > 1) pthread_mutex_destroy(&sh.cb_lock);
#endif
        PyEval_RestoreThread(w[0].ts);
        w[0].ts = NULL;
        code = RF_INFEASIBLE;
        for (int k = 0; k < K; k++) /* a schedule first, then an error, then a timeout */
            if (w[k].found) {
                code = RF_FEASIBLE;
                memcpy(starts, w[k].solution, sizeof(int64_t) * (size_t)w[k].first_start[n]);
                break;
            }
        for (int k = 0; k < K && code != RF_FEASIBLE; k++)
            if (w[k].status < 0) code = w[k].status;
        for (int k = 0; k < K && code == RF_INFEASIBLE; k++)
            if (w[k].status == RF_TIMEOUT || w[k].status == RF_STOPPED) code = RF_TIMEOUT;
    }
    for (int k = 0; k < made; k++) {
        stats[0] += w[k].nodes;
        stats[1] += w[k].work;
        if (w[k].lp_work > stats[2]) stats[2] = w[k].lp_work;
        search_free(&w[k]);
    }
    return code;
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_refute",
    "The rigid refutation search in C, called through ctypes (resilsched.models.rigid.crefute).",
    -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__refute(void) { return PyModule_Create(&module); }
