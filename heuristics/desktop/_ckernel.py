"""C twins of the two hot loops of the desktop heuristics (decision D-16), with the pure-Python
versions as the fallback and the oracle.

- `list_run`: one LPT/SPT run (`resilsched.heuristics.desktop.lpt.list_policy`): the same
  candidates (first fitting interval per machine, rescans from the last candidate, staleness
  tests), the same E, the same tie-breaking; it returns the placements and H after each one.
- `bin_run`: one FFI, FFD or DPslack run over the bins of a view (`binpack.ffi`,
  `binpack.ffd`, `dpslack.dpslack`), the last one calling `dp_select`; it returns the
  placements in allocation order.
- `exec_rows`: the runtime executor (`executor.execute`), row by row, last completions only.
- `dp_select`: the bitset dynamic program of DPslack for one bin
  (`resilsched.heuristics.desktop.dpslack.select`): the same rows, stopping rule and backtrack,
  hence the same selection; -1 when its row buffer would exceed `DP_WORDS` 64-bit words (the
  caller then uses the Python version).

The source is compiled once with the system C compiler (``$CC``, default ``cc``) into
``$RESILSCHED_CACHE`` (default ``~/.cache/resilsched``) under a name holding its hash, and
loaded with ctypes. Without a compiler, or with ``RESILSCHED_NO_C=1``, `lib()` is None and the
Python code runs. Tests run both and compare them.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import tempfile
from pathlib import Path

#: largest DP row buffer, in 64-bit words (32 MB)
DP_WORDS = 1 << 22

SOURCE = r"""
#include <stdint.h>
#include <string.h>
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

int64_t list_run(int64_t m, const int64_t* off, const int64_t* start, const int64_t* avail,
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

static void shift_or(const uint64_t* src, uint64_t* dst, int64_t W, int64_t c, int64_t width) {
    int64_t qw = c >> 6; int r = (int)(c & 63);
    for (int64_t w = W - 1; w >= 0; w--) {
        uint64_t v = src[w];
        int64_t j = w - qw;
        if (j >= 0) { v |= src[j] << r; if (r && j - 1 >= 0) v |= src[j - 1] >> (64 - r); }
        dst[w] = v;
    }
    int b = (int)(width & 63);                          /* keep bits 0..width */
    if (b < 63) dst[W - 1] &= (((uint64_t)1) << (b + 1)) - 1;
}

static int64_t backtrack(uint64_t* rows, int64_t W, const int64_t* c, int64_t topr, int64_t l,
                         int64_t* out, int64_t n) {
    int64_t below = top(rows + topr * W, l);
    for (int64_t j = topr; j >= 1; j--) {
        if (l < 0) break;
        int64_t here = below;
        below = top(rows + (j - 1) * W, l);
        if (here != below) {
            out[n++] = j - 1; l -= c[j - 1];
            if (j - 1 >= 1 && l >= 0) below = top(rows + (j - 1) * W, l);
        }
    }
    return n;
}

int64_t dp_select(const int64_t* c, int64_t N, int64_t A, int64_t m1, int64_t m2, int slack,
                  int64_t* out, uint64_t* rows, int64_t cap) {
    if (N == 0) return 0;
    if (!slack) {
        int64_t sum = 0;
        for (int64_t j = 0; j < N; j++) sum += c[j];
        if (sum <= A) { for (int64_t j = 0; j < N; j++) out[j] = N - 1 - j; return N; }
        int64_t W = (A >> 6) + 1, r;
        if ((N + 1) * W > cap) return -1;
        memset(rows, 0, W * sizeof(uint64_t)); rows[0] = 1;
        for (r = 1; r <= N; r++) {
            shift_or(rows + (r - 1) * W, rows + r * W, W, c[r - 1], A);
            if ((rows[r * W + (A >> 6)] >> (A & 63)) & 1) break;
        }
        if (r > N) r = N;
        return backtrack(rows, W, c, r, A, out, 0);
    }
    int64_t d0 = c[0]; if (m1 > d0) d0 = m1; if (m2 > d0) d0 = m2;
    int64_t width = A - 2 * c[0];
    if (width < 0 || c[0] + d0 > A) return 0;
    int64_t sum = 0, dn = c[N - 1];
    for (int64_t j = 0; j < N; j++) sum += c[j];
    if (m1 > dn) dn = m1; if (m2 > dn) dn = m2;
    if (sum + dn <= A) { for (int64_t j = 0; j < N; j++) out[j] = N - 1 - j; return N; }
    int64_t W = (width >> 6) + 1, best = 0, rstar = 0, r;
    if (W > cap) return -1;
    memset(rows, 0, W * sizeof(uint64_t)); rows[0] = 1;
    for (r = 1; r <= N; r++) {
        int64_t cr = c[r - 1], dr = cr;
        if (m1 > dr) dr = m1; if (m2 > dr) dr = m2;
        int64_t lr = A - cr - dr;
        if (lr < 0 || A - dr <= best) break;
        int64_t val = cr + top(rows + (r - 1) * W, lr);
        if (val > best) { best = val; rstar = r; }
        if (r == N) break;
        /* row r is read at l_{r+1} and below only (the queries never go up again) */
        int64_t cn = c[r], dn1 = cn;
        if (m1 > dn1) dn1 = m1; if (m2 > dn1) dn1 = m2;
        int64_t ln = A - cn - dn1;
        if (ln < 0 || A - dn1 <= best) break;
        if ((r + 1) * W > cap) return -1;
        shift_or(rows + (r - 1) * W, rows + r * W, (ln >> 6) + 1, cr, ln);
    }
    if (rstar == 0) return 0;
    int64_t cr = c[rstar - 1], dr = cr;
    if (m1 > dr) dr = m1; if (m2 > dr) dr = m2;
    out[0] = rstar - 1;
    return backtrack(rows, W, c, rstar - 1, A - cr - dr, out, 1);
}

static int64_t lower_le(const int64_t* row, int64_t n, int64_t x) {  /* #{r : row[r] <= x} */
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = (lo + hi) >> 1;
        if (row[mid] <= x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int64_t find(int64_t* parent, int64_t x) {
    int64_t root = x;
    while (parent[root] != root) root = parent[root];
    while (parent[x] != root) { int64_t nx = parent[x]; parent[x] = root; x = nx; }
    return root;
}

/* The executor of spec 1.5 row by row (`executor.execute`): last completion of each queue. */
void exec_rows(int64_t R, const int64_t* e0, const int64_t* qoff, const int64_t* qdur,
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

/* FFI (kind 0), FFD (1), DPslack (2) over the bins (order_i, order_k); T: m x n ascending. */
int64_t bin_run(int kind, int64_t m, const int64_t* off, const int64_t* avail,
                const int64_t* T, int64_t n, const int64_t* oi, const int64_t* ok, int64_t nb,
                int slack, int64_t* S, int64_t* M, int64_t* work, uint64_t* rows, int64_t cap,
                int64_t* o_pos, int64_t* o_i, int64_t* o_k, int64_t* o_t) {
    St s = {m, off, 0, avail, 0, slack, S, M};
    int64_t placed = 0, nxt = 0, left = n;
    int64_t *parent = work, *alive = work + n + 1, *cval = work + 2 * n + 1,
            *sel = work + 3 * n + 1;
    if (kind == 1) for (int64_t r = 0; r <= n; r++) parent[r] = r;
    if (kind == 2) for (int64_t r = 0; r < n; r++) alive[r] = r;
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
        if (kind == 0) {
            while (nxt < n && row[nxt] <= lj) {
                int64_t t = row[nxt];
                o_pos[placed] = nxt; o_t[placed] = t; placed++; nxt++; left--;
                total += t; longest = t; d -= t;
                if (slack) { if (longest > w) w = longest;
                    int64_t half = d >= 0 ? d / 2 : -((-d + 1) / 2);
                    lj = prev; if (half < lj) lj = half; if (d - w < lj) lj = d - w; }
                else lj = d;
            }
        } else if (kind == 1) {
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
"""

_LIB: ctypes.CDLL | None = None
_TRIED = False


FLAGS = os.environ.get("RESILSCHED_CFLAGS", "-O3 -funroll-loops").split()


def _compile(target: Path) -> None:
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        src, out = Path(tmp) / "desktop.c", Path(tmp) / "desktop.so"
        src.write_text(SOURCE)
        subprocess.run([os.environ.get("CC", "cc"), *FLAGS, "-shared", "-fPIC", "-o", str(out),
                        str(src)], check=True, capture_output=True, timeout=120)
        os.replace(out, target)


def lib() -> ctypes.CDLL | None:
    """The compiled kernels (compiled on first use), or None (no compiler, RESILSCHED_NO_C)."""
    global _LIB, _TRIED
    if _TRIED:
        return _LIB
    _TRIED = True
    if os.environ.get("RESILSCHED_NO_C"):
        return None
    base = os.environ.get("RESILSCHED_CACHE") or str(Path.home() / ".cache" / "resilsched")
    digest = hashlib.sha256((SOURCE + " ".join(FLAGS)).encode()).hexdigest()[:16]
    target = Path(base) / f"desktop_{digest}.so"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            _compile(target)
        dll = ctypes.CDLL(str(target))
    except (OSError, subprocess.SubprocessError):
        return None
    P, i64, cint = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
    dll.list_run.argtypes = [i64, P, P, P, P, P, P, i64, cint, cint, i64, P, P, P, P, P, P, P, P]
    dll.list_run.restype = i64
    dll.dp_select.argtypes = [P, i64, i64, i64, i64, cint, P, P, i64]
    dll.dp_select.restype = i64
    dll.bin_run.argtypes = [cint, i64, P, P, P, i64, P, P, i64, cint, P, P, P, P, i64, P, P, P,
                            P]
    dll.bin_run.restype = i64
    dll.exec_rows.argtypes = [i64, P, P, P, P, P, i64, P]
    dll.exec_rows.restype = None
    _LIB = dll
    return _LIB


def set_enabled(flag: bool) -> None:
    """Tests: force the Python versions (False) or allow the C ones again (True)."""
    global _LIB, _TRIED
    _LIB, _TRIED = None, not flag
