/* rigid_conservative.c -- R-LIST-Q (spec 002 §4.3, m = |Q|) in its default options (fresh-
 * round reservations A3, position-based m A2): the engine of rigid_rlist.c, same passes and
 * same makespans, with the availability profile kept from one event to the next instead of
 * rebuilt (decision T14).
 *
 * A pass of R-LIST-Q at time t reserves every queued job in queue order at its earliest fit in
 * the profile of the running attempts plus the reservations already placed, and starts the
 * jobs reserved at t.  Run times are exact (spec 002 §2), so the profile of the next pass, at
 * the next completion time t', is that of this pass cut at t' (a started job's reservation is
 * its running attempt; an attempt ending at t', failed or not, leaves nothing after t'), and
 * every reservation starts at t' or later (a window opens where free processors rise: at a
 * completion).  The greedy reservations of the queue's prefix up to its first new job (a
 * failed job put back at its rank) are therefore those of this pass: the engine keeps them,
 * gives the processors of the later reservations back, and resumes the pass there.  When no
 * attempt failed the prefix is the whole reserved queue and a pass costs O(|Q|).
 *
 * When more reservations would be given back than kept, the profile is rebuilt instead (it is
 * cheaper).  That argument holds for the exact step function; with the float tolerance the
 * breakpoints must match too.  Each breakpoint counts the attempts and reservations starting or
 * ending at it (profile.h, `own`) and a given-back reservation drops the breakpoints left with
 * none, so the kept profile has the breakpoints of a rebuilt one; profile_index's snapping
 * could still differ, but only when two different times lie within the tolerance (profile.h's
 * `inexact`).  So a pass that meets such a merge is run again from a rebuilt profile (the
 * reference's own computation) and the next pass rebuilds too: the makespans are those of
 * rigid_rlist.c, bit for bit (tests/heuristics/rigid/test_compiled.py compares both to the Python
 * reference).
 */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "profile.h"
#include "queue.h"
#include "rigid.h"

#ifndef RS_KEEP_RATIO
#define RS_KEEP_RATIO 1
#endif

/* cut the profile at `now`: drop the breakpoints before it; -1 when `now` is no breakpoint
 * (then the caller rebuilds) */
static int profile_cut(profile *pr, double now) {
    int64_t i = profile_bisect(pr, now, 0);
    if (i == pr->k || pr->seg[i].t != now) return -1;
    memmove(pr->seg, pr->seg + i, sizeof(segment) * (size_t)(pr->k - i));
    pr->k -= i;
    return 0;
}

/* delete breakpoint i (> 0) that nothing starts or ends at any more */
static void profile_drop(profile *pr, int64_t i) {
    memmove(pr->seg + i, pr->seg + i + 1, sizeof(segment) * (size_t)(pr->k - i - 1));
    pr->k--;
}

/* give back p processors on [start, end), both breakpoints, and drop the breakpoints nothing
 * starts or ends at any more (a rebuilt profile would not have them); -1 when one is missing */
static int profile_release(profile *pr, double start, double end, int64_t p) {
    int64_t a = profile_bisect(pr, start, 0);
    if (a == pr->k || pr->seg[a].t != start) return -1;
    int64_t b = profile_bisect(pr, end, a);
    if (b == pr->k || pr->seg[b].t != end) return -1;
    for (int64_t i = a; i < b; i++) pr->seg[i].a += p;
    if (--pr->seg[b].own == 0) profile_drop(pr, b);
    if (--pr->seg[a].own == 0 && a > 0) profile_drop(pr, a);
    return 0;
}

double rs_rigid_conservative(const rs_rigid *in, const int64_t *f) {
    int64_t n = in->n, P = in->P;
    const int64_t *p = in->p;
    const double *t = in->t;
    double tol = in->tol;
    double result = RS_ENOMEM;
    int64_t cap = 6 * n + 4;  /* breakpoints: a pass starts from at most 3n + 1, adds <= 2n + 1 */
    double *k1 = RS_NEW(double, n), *k2 = RS_NEW(double, n);
    rs_event *hev = RS_NEW(rs_event, n);
    int64_t *items = RS_NEW(int64_t, n), *done = RS_NEW(int64_t, n);
    int64_t *comp = RS_NEW(int64_t, n), *suffix = RS_NEW(int64_t, n + 1);
    int64_t *started = RS_NEW(int64_t, n);
    double *res_s = RS_NEW(double, n);  /* start of job j's reservation, if has_res[j] */
    unsigned char *failed = RS_NEW(unsigned char, n);
    unsigned char *has_res = RS_NEW(unsigned char, n);
    ending *run = RS_NEW(ending, n);
    profile pr = {RS_NEW(segment, cap), 0, tol, 0};
    if (!k1 || !k2 || !hev || !items || !done || !comp || !suffix || !started || !res_s ||
        !failed || !has_res || !run || !pr.seg)
        goto out;
    if (rs_rigid_queue(in, k1, k2, items)) goto out;
    rs_heap heap = {hev, 0};
    rs_queue q = {items, n, k1, k2, in->redraw, in->draws, in->ndraws, 0};
    int64_t free_ = P, unfinished = n;
    int kept = 0;  /* pr is the last pass's profile, valid to cut at `now` */
    int64_t nres = 0;  /* queued jobs holding a reservation in pr (has_res) */
    double now = 0.0, makespan = 0.0;
    for (;;) {
        int64_t ns = 0;
        if (q.n) {
            int64_t r = 0, stop = 0;  /* the pass resumes at queue position r, stops at `stop` */
            if (kept && pr.k <= 3 * n + 1 && profile_cut(&pr, now) == 0) {
                while (r < q.n && has_res[q.items[r]]) r++;
                int64_t tail = nres - r;  /* reservations to give back */
                if (RS_KEEP_RATIO * tail > r) kept = 0;  /* cheaper rebuilt */
                for (int64_t i = r; i < q.n && kept && nres > r; i++) {
                    int64_t j = q.items[i];
                    if (!has_res[j]) continue;
                    has_res[j] = 0;
                    nres--;
                    if (profile_release(&pr, res_s[j], res_s[j] + t[j], p[j])) kept = 0;
                }
            } else {
                kept = 0;
            }
            for (;;) {
                if (!kept) {  /* rebuild: RList's own pass */
                    for (int64_t i = 0; i < q.n; i++) has_res[q.items[i]] = 0;
                    nres = 0;
                    for (int64_t i = 0; i < heap.n; i++) {
                        run[i].end = heap.ev[i].end;
                        run[i].p = p[heap.ev[i].job];
                    }
                    pr.inexact = 0;
                    profile_build(&pr, now, P, run, heap.n);
                    r = 0;
                }
                suffix[q.n] = P + 1;  /* suffix minimum of p over Q */
                for (int64_t i = q.n - 1; i >= r; i--)
                    suffix[i] = p[q.items[i]] < suffix[i + 1] ? p[q.items[i]] : suffix[i + 1];
                for (stop = r; stop < q.n; stop++) {
                    int64_t j = q.items[stop];
                    if (pr.seg[0].a < suffix[stop]) break;  /* nobody else fits (A4b) */
                    int64_t at = 0;
                    double s = earliest_fit(&pr, p[j], t[j], &at);
                    if (s < 0) { result = RS_EPOLICY; goto out; }
                    reserve(&pr, s, s + t[j], p[j], at);
                    has_res[j] = 1;
                    nres++;
                    res_s[j] = s;
                    if (kept && pr.inexact) break;
                }
                if (kept && pr.inexact) { kept = 0; continue; }  /* run it again, rebuilt */
                break;
            }
            kept = !pr.inexact;
            int64_t w = 0;  /* the jobs reserved at `now` (before `stop`) start, leaving Q */
            for (int64_t i = 0; i < stop; i++) {
                int64_t j = q.items[i];
                if (has_res[j] && rs_same(res_s[j], now, tol)) {
                    has_res[j] = 0;
                    nres--;
                    started[ns++] = j;
                } else {
                    q.items[w++] = j;
                }
            }
            if (ns) {
                memmove(q.items + w, q.items + stop, sizeof(int64_t) * (size_t)(q.n - stop));
                q.n -= ns;
            }
        } else {
            kept = 0;
        }
        /* the engine starts them (run_engine.start checks the processors) */
        if (rs_start_all(&heap, started, ns, p, t, now, &free_)) { result = RS_EPOLICY; goto out; }
        if (q.n == 0) {  /* every unfinished job runs: no pass changes anything any more */
            makespan = rs_rigid_drain(&heap, tol, p, t, done, f, failed, &unfinished, makespan,
                                      comp);
            break;
        }
        if (heap.n == 0) break;
        now = heap.ev[0].end;  /* complete every attempt ending at `now` (A1) */
        int64_t nc = rs_complete_at(&heap, now, tol, p, &free_, done, f, failed, &unfinished,
                                    &makespan, comp);
        /* on_completions: failed jobs back into Q in increasing job index */
        if (rs_requeue_failed(&q, comp, nc, failed)) { result = RS_EDRAWS; goto out; }
    }
    result = unfinished ? RS_EPOLICY : makespan;
out:
    free(k1); free(k2); free(hev); free(items); free(done); free(comp); free(suffix);
    free(started); free(res_s); free(failed); free(has_res); free(run); free(pr.seg);
    return result;
}
