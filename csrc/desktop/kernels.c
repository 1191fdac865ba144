/* The desktop family's kernels (spec 004), built at install time as the optional extension
 * `resilsched._desktop` (setup.py; decision D-19). The Python side loads this shared object
 * with ctypes (`resilsched.heuristics.desktop._ckernel`); the module itself is empty. Each function is the twin of a pure-Python function that stays the oracle:
 *
 * - list_run:  one LPT/SPT run (lpt.list_policy), placements and H after each one;
 * - bin_run:   one FFI, FFD or DPslack run over the bins of a view (binpack.ffi / ffd,
 *              dpslack.dpslack), placements in allocation order;
 * - dp_select: the bitset dynamic program of DPslack for one bin (dpslack.select); -1 when its
 *              row buffer would exceed `cap` 64-bit words (the caller then runs Python);
 * - exec_rows: the runtime executor of spec 1.5 (executor.execute), last completions only.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#ifdef _WIN32
#define API __declspec(dllexport)
#else
#define API
#endif
#define INF (((int64_t)1) << 62)

typedef struct {
    int64_t m; const int64_t *off, *start, *avail, *q; int slack;
    int64_t *S, *M, *kk, *lo, *c, *w, *lj, *pm;
} St;

static int64_t win(const St* s, int64_t i, int64_t k) {   /* max(M(k), M(k+1), M(k+2)) */
    int64_t a = s->off[i], K = s->off[i + 1] - a, w = s->M[a + k];
    if (k + 1 < K && s->M[a + k + 1] > w) w = s->M[a + k + 1];
    if (k + 2 < K && s->M[a + k + 2] > w) w = s->M[a + k + 2];
    return w;
}

static void refresh(St* s, int64_t i, int64_t t, int64_t floor, int64_t startk) {
    int64_t a = s->off[i], K = s->off[i + 1] - a, k, prevmax; int moving;
    if (startk >= 0) { k = startk; prevmax = s->pm[i]; moving = (startk == s->lo[i]); }
    else { k = s->lo[i]; prevmax = -INF; moving = 1; }
    for (; k < K; k++) {
        int64_t d = s->avail[a + k] - s->S[a + k], w = 0, lj = d;
        if (s->slack) {
            w = win(s, i, k);
            lj = d - w;
            int64_t half = d >= 0 ? d / 2 : -((-d + 1) / 2);   /* floor(d / 2) */
            if (half < lj) lj = half;
            if (k >= 1) { int64_t x = s->avail[a + k - 1] - s->S[a + k - 1]; if (x < lj) lj = x;
                if (k >= 2) { x = s->avail[a + k - 2] - s->S[a + k - 2]; if (x < lj) lj = x; } }
        }
        if (lj >= t) {
            s->kk[i] = k; s->c[i] = s->start[a + k] + s->S[a + k]; s->w[i] = w;
            s->lj[i] = lj; s->pm[i] = prevmax; return;
        }
        if (lj < floor && moving) s->lo[i] = k + 1;
        else { moving = 0; if (lj > prevmax) prevmax = lj; }
    }
    s->kk[i] = -1; s->c[i] = INF; s->lj[i] = INF; s->pm[i] = prevmax;
}

static int64_t account(St* s, int64_t i, int64_t k, int64_t h) {
    int64_t a = s->off[i];
    for (int64_t x = k; x >= k - (s->slack ? 2 : 0); x--) {
        if (x < 0 || !s->S[a + x]) continue;
        int64_t v = s->q[a + x] + s->S[a + x] + (s->slack ? win(s, i, x) : 0);
        if (v > h) h = v;
    }
    return h;
}

API int64_t list_run(int64_t m, const int64_t* off, const int64_t* start, const int64_t* avail,
                 const int64_t* q, const int64_t* D, const int64_t* pos, int64_t npos,
                 int slack, int decreasing, int64_t nrep, int64_t* S, int64_t* M,
                 int64_t* work, int64_t* o_pos, int64_t* o_i, int64_t* o_k, int64_t* o_t,
                 int64_t* o_h) {
    St s = {m, off, start, avail, q, slack, S, M, work, work + m, work + 2 * m, work + 3 * m,
            work + 4 * m, work + 5 * m};
    int64_t h = 0, r;
    for (r = 0; r < nrep; r++) {                  /* replayed placements (given in o_*) */
        int64_t a = off[o_i[r]] + o_k[r];
        S[a] += o_t[r]; if (o_t[r] > M[a]) M[a] = o_t[r];
        h = account(&s, o_i[r], o_k[r], h); o_h[r] = h;
    }
    if (nrep >= npos) return npos;
    const int64_t* first = D + pos[nrep] * m;
    const int64_t* last = D + pos[npos - 1] * m;
    for (int64_t i = 0; i < m; i++) {
        s.lo[i] = 0; s.pm[i] = -INF;
        refresh(&s, i, first[i], decreasing ? last[i] : first[i], -1);
    }
    for (r = nrep; r < npos; r++) {
        const int64_t* t = D + pos[r] * m;
        int64_t best = INF, bi = -1;
        for (int64_t i = 0; i < m; i++) {
            int64_t ti = t[i];
            if (decreasing ? (ti <= s.pm[i]) : (ti > s.lj[i]))
                refresh(&s, i, ti, decreasing ? last[i] : ti, -1);
            int64_t e = s.c[i] + ti;
            if (slack) e += (ti > s.w[i]) ? ti : s.w[i];
            if (e < best) { best = e; bi = i; }
        }
        if (bi < 0 || best >= INF) return r;
        int64_t k = s.kk[bi], ti = t[bi], a = off[bi] + k;
        S[a] += ti; if (ti > M[a]) M[a] = ti;
        h = account(&s, bi, k, h);
        o_pos[r] = pos[r]; o_i[r] = bi; o_k[r] = k; o_t[r] = ti; o_h[r] = h;
        refresh(&s, bi, ti, decreasing ? last[bi] : ti, k);
    }
    return npos;
}

static int64_t top(const uint64_t* row, int64_t l) {      /* highest set bit <= l */
    int64_t w = l >> 6; uint64_t x = row[w];
    int b = (int)(l & 63);
    if (b < 63) x &= (((uint64_t)1) << (b + 1)) - 1;
    for (;;) {
        if (x) return (w << 6) + 63 - __builtin_clzll(x);
        if (--w < 0) return -1;
        x = row[w];
    }
}

/* dst = (src | src << c) on words 0..W-1, bits above `width` cleared (src != dst). */
static void shift_or(const uint64_t* restrict src, uint64_t* restrict dst, int64_t W, int64_t c,
                     int64_t width) {
    int64_t qw = c >> 6, w = 0; int r = (int)(c & 63);
    for (; w < W && w < qw; w++) dst[w] = src[w];
    if (w < W) { dst[w] = src[w] | (src[0] << r); w++; }
    if (r) for (; w < W; w++) dst[w] = src[w] | (src[w - qw] << r) | (src[w - qw - 1] >> (64 - r));
    else for (; w < W; w++) dst[w] = src[w] | src[w - qw];
    int b = (int)(width & 63);                          /* keep bits 0..width */
    if (b < 63) dst[W - 1] &= (((uint64_t)1) << (b + 1)) - 1;
}

static int64_t lower_le(const int64_t* row, int64_t n, int64_t x) {  /* #{r : row[r] <= x} */
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = (lo + hi) >> 1;
        if (row[mid] <= x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int64_t dmax(int64_t c, int64_t m1, int64_t m2) {     /* max(c, M(k+1), M(k+2)) */
    return c > m1 ? (c > m2 ? c : m2) : (m1 > m2 ? m1 : m2);
}

/* Rows top..1 of the table (row j at rows + phys[j] * W): j is selected when
 * P(j, l) != P(j - 1, l), then l -= c_j. Rows sharing a physical row are equal. */
static int64_t backtrack(const uint64_t* rows, const int64_t* phys, int64_t W, const int64_t* c,
                         int64_t topr, int64_t l, int64_t* out, int64_t n) {
    int64_t below = top(rows + phys[topr] * W, l);
    for (int64_t j = topr; j >= 1; j--) {
        if (l < 0) break;
        if (phys[j - 1] == phys[j]) continue;              /* equal rows: P unchanged */
        int64_t here = below;
        below = top(rows + phys[j - 1] * W, l);
        if (here != below) {
            out[n++] = j - 1; l -= c[j - 1];
            if (j - 1 >= 1 && l >= 0) below = top(rows + phys[j - 1] * W, l);
        }
    }
    return n;
}

/* Row r = row r-1 | row r-1 << c, words 0..(limit >> 6). A row equal to the previous one on
 * that range shares its physical row; a row computed from a row that was itself unchanged by
 * the same value is unchanged too (closed under + c on the range, which only shrinks), so runs
 * of equal durations (the clipped p_max, rounding) cost no word operation once saturated.
 * Returns 0, or -1 when the buffer is full. */
typedef struct { uint64_t* rows; int64_t* phys; int64_t W, cap, nphys; int stable; } Rows;

static int next_row(Rows* t, int64_t r, const int64_t* c, int64_t limit) {
    if (t->stable && r >= 2 && c[r - 1] == c[r - 2]) { t->phys[r] = t->phys[r - 1]; return 0; }
    if ((t->nphys + 1) * t->W > t->cap) return -1;
    const uint64_t* src = t->rows + t->phys[r - 1] * t->W;
    uint64_t* dst = t->rows + t->nphys * t->W;
    int64_t nw = (limit >> 6) + 1;
    shift_or(src, dst, nw, c[r - 1], limit);
    int b = (int)(limit & 63);
    uint64_t topmask = b < 63 ? (((uint64_t)1) << (b + 1)) - 1 : ~(uint64_t)0;
    t->stable = memcmp(src, dst, (nw - 1) * sizeof(uint64_t)) == 0
                && (src[nw - 1] & topmask) == dst[nw - 1];
    if (t->stable) t->phys[r] = t->phys[r - 1];
    else t->phys[r] = t->nphys++;
    return 0;
}

API int64_t dp_select(const int64_t* c, int64_t N, int64_t A, int64_t m1, int64_t m2, int slack,
                      int64_t* out, uint64_t* buf, int64_t cap) {
    if (N == 0) return 0;
    Rows t = {buf + N + 1, (int64_t*)buf, 0, cap - N - 1, 1, 0};
    if (!slack) {
        int64_t sum = 0, r;
        for (int64_t j = 0; j < N; j++) sum += c[j];
        if (sum <= A) { for (int64_t j = 0; j < N; j++) out[j] = N - 1 - j; return N; }
        if (N >= 2 && c[0] + c[1] > A) {
            /* no two jobs fit together: every row is {0} and the single durations <= A, and
             * the backtrack selects the first job of the largest duration <= A (none if none) */
            int64_t p = lower_le(c, N, A);
            if (p == 0) return 0;
            int64_t lo = 0, hi = p - 1;                 /* first index of c[p - 1] */
            while (lo < hi) { int64_t mid = (lo + hi) >> 1;
                if (c[mid] < c[p - 1]) lo = mid + 1; else hi = mid; }
            out[0] = lo;
            return 1;
        }
        t.W = (A >> 6) + 1;
        if (t.cap < t.W) return -1;
        memset(t.rows, 0, t.W * sizeof(uint64_t)); t.rows[0] = 1; t.phys[0] = 0;
        for (r = 1; r <= N; r++) {
            if (next_row(&t, r, c, A) < 0) return -1;
            if ((t.rows[t.phys[r] * t.W + (A >> 6)] >> (A & 63)) & 1) break;
        }
        if (r > N) r = N;
        return backtrack(t.rows, t.phys, t.W, c, r, A, out, 0);
    }
    int64_t d0 = dmax(c[0], m1, m2);
    int64_t width = A - 2 * c[0];
    if (width < 0 || c[0] + d0 > A) return 0;
    int64_t sum = 0, dn = c[N - 1];
    for (int64_t j = 0; j < N; j++) sum += c[j];
    dn = dmax(dn, m1, m2);
    if (sum + dn <= A) { for (int64_t j = 0; j < N; j++) out[j] = N - 1 - j; return N; }
    int64_t best = 0, rstar = 0, r;
    t.W = (width >> 6) + 1;
    if (t.cap < t.W) return -1;
    memset(t.rows, 0, t.W * sizeof(uint64_t)); t.rows[0] = 1; t.phys[0] = 0;
    for (r = 1; r <= N; r++) {
        int64_t cr = c[r - 1], dr = dmax(cr, m1, m2);
        int64_t lr = A - cr - dr;
        if (lr < 0 || A - dr <= best) break;
        int64_t val = cr + top(t.rows + t.phys[r - 1] * t.W, lr);
        if (val > best) { best = val; rstar = r; }
        if (r == N) break;
        /* row r is read at l_{r+1} and below only (the queries never go up again) */
        int64_t cn = c[r], dn1 = dmax(cn, m1, m2);
        int64_t ln = A - cn - dn1;
        if (ln < 0 || A - dn1 <= best) break;
        if (next_row(&t, r, c, ln) < 0) return -1;
    }
    if (rstar == 0) return 0;
    int64_t cr = c[rstar - 1], dr = dmax(cr, m1, m2);
    out[0] = rstar - 1;
    return backtrack(t.rows, t.phys, t.W, c, rstar - 1, A - cr - dr, out, 1);
}

static int64_t find(int64_t* parent, int64_t x) {
    int64_t root = x;
    while (parent[root] != root) root = parent[root];
    while (parent[x] != root) { int64_t nx = parent[x]; parent[x] = root; x = nx; }
    return root;
}

/* The executor of spec 1.5 row by row (`executor.execute`): last completion of each queue. */
API void exec_rows(int64_t R, const int64_t* e0, const int64_t* qoff, const int64_t* qdur,
               const int64_t* starts, const int64_t* ends, int64_t L, int64_t* last) {
    for (int64_t r = 0; r < R; r++) {
        const int64_t *st = starts + r * L, *en = ends + r * L;
        int64_t t = e0[r], p = 0;
        for (int64_t j = qoff[r]; j < qoff[r + 1]; j++) {
            int64_t dur = qdur[j];
            if (st[p] <= t) { t = en[p]; p++; }
            while (st[p] < t + dur) { t = en[p]; p++; }
            t += dur;
        }
        last[r] = qoff[r + 1] > qoff[r] ? t : 0;
    }
}

/* bin_run's kinds, exported for heuristics/desktop/_ckernel.py (checked when it is loaded) */
#define BIN_FFI 0
#define BIN_FFD 1
#define BIN_DPSLACK 2
API const int64_t bin_ffi = BIN_FFI;
API const int64_t bin_ffd = BIN_FFD;
API const int64_t bin_dpslack = BIN_DPSLACK;

/* FFI, FFD, DPslack (kind) over the bins (order_i, order_k); T: m x n ascending. */
API int64_t bin_run(int kind, int64_t m, const int64_t* off, const int64_t* avail,
                const int64_t* T, int64_t n, const int64_t* oi, const int64_t* ok, int64_t nb,
                int slack, int64_t* S, int64_t* M, int64_t* work, uint64_t* rows, int64_t cap,
                int64_t* o_pos, int64_t* o_i, int64_t* o_k, int64_t* o_t) {
    St s = {m, off, 0, avail, 0, slack, S, M, 0, 0, 0, 0, 0, 0};  /* win() only */
    int64_t placed = 0, nxt = 0, left = n;
    int64_t *parent = work, *alive = work + n + 1, *cval = work + 2 * n + 1,
            *sel = work + 3 * n + 1;
    if (kind == BIN_FFD) for (int64_t r = 0; r <= n; r++) parent[r] = r;
    if (kind == BIN_DPSLACK) for (int64_t r = 0; r < n; r++) alive[r] = r;
    for (int64_t b = 0; b < nb && left > 0; b++) {
        int64_t i = oi[b], k = ok[b], a = off[i], K = off[i + 1] - a;
        const int64_t* row = T + i * n;
        int64_t d = avail[a + k] - S[a + k], w = 0, prev = d, lj = d;
        if (slack) {
            w = win(&s, i, k);
            if (k >= 1) { prev = avail[a + k - 1] - S[a + k - 1];
                if (k >= 2 && avail[a + k - 2] - S[a + k - 2] < prev)
                    prev = avail[a + k - 2] - S[a + k - 2]; }
            int64_t half = d >= 0 ? d / 2 : -((-d + 1) / 2);
            lj = prev; if (half < lj) lj = half; if (d - w < lj) lj = d - w;
        }
        int64_t total = 0, longest = 0, first = placed;
        if (kind == BIN_FFI) {
            while (nxt < n && row[nxt] <= lj) {
                int64_t t = row[nxt];
                o_pos[placed] = nxt; o_t[placed] = t; placed++; nxt++; left--;
                total += t; longest = t; d -= t;
                if (slack) { if (longest > w) w = longest;
                    int64_t half = d >= 0 ? d / 2 : -((-d + 1) / 2);
                    lj = prev; if (half < lj) lj = half; if (d - w < lj) lj = d - w; }
                else lj = d;
            }
        } else if (kind == BIN_FFD) {
            while (lj >= 1) {
                int64_t r = find(parent, lower_le(row, n, lj));
                if (r == 0) break;
                int64_t t = row[r - 1];
                o_pos[placed] = r - 1; o_t[placed] = t; placed++;
                parent[r] = r - 1; left--;
                total += t; if (t > longest) longest = t;
                if (left == 0) break;
                d -= t;
                if (slack) { if (t > w) w = t;
                    int64_t half = d >= 0 ? d / 2 : -((-d + 1) / 2);
                    lj = prev; if (half < lj) lj = half; if (d - w < lj) lj = d - w; }
                else lj = d;
            }
        } else {
            if (lj < 1) continue;
            int64_t bound = lower_le(row, n, lj), cnt = 0, lo = 0, hi = left;
            while (lo < hi) { int64_t mid = (lo + hi) >> 1;
                if (alive[mid] < bound) lo = mid + 1; else hi = mid; }
            cnt = lo;
            if (cnt == 0) continue;
            for (int64_t x = 0; x < cnt; x++) cval[x] = row[alive[x]];
            int64_t m1 = k + 1 < K ? M[a + k + 1] : 0, m2 = k + 2 < K ? M[a + k + 2] : 0;
            int64_t ns = dp_select(cval, cnt, d, m1, m2, slack, sel, rows, cap);
            if (ns < 0) return -1;
            if (ns == 0) continue;
            for (int64_t x = 0; x < ns; x++) {
                int64_t t = cval[sel[x]];
                o_pos[placed] = alive[sel[x]]; o_t[placed] = t; placed++;
                total += t; if (t > longest) longest = t;
                alive[sel[x]] = -1;
            }
            int64_t keep = 0;
            for (int64_t x = 0; x < left; x++) if (alive[x] >= 0) alive[keep++] = alive[x];
            left = keep;
        }
        for (int64_t x = first; x < placed; x++) { o_i[x] = i; o_k[x] = k; }
        S[a + k] += total; if (longest > M[a + k]) M[a + k] = longest;
    }
    return placed;
}

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_desktop",
    "C kernels of the desktop heuristics, called through ctypes (resilsched.heuristics.desktop."
    "_ckernel).", -1, NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__desktop(void) { return PyModule_Create(&module); }
