/* rigid_fixed.c -- R-LIST-1 and R-LIST-Q with fixed reservations (reservations="fixed", issue
 * 14; spec 002 §4.3, A3; decision R21), makespan only.  C twin of RList in "fixed" mode
 * (resilsched.heuristics.rigid.rlist) under the event engine, the tests' oracle.
 *
 * The authors' simulator semantics: a pass runs at time 0 and after every batch of completions
 * (A1; a reserved start triggers none, it always falls on a completion).  A reservation, once
 * made, is never cancelled or moved, neither on completions nor on failures (float noise
 * aside, decision R28: below).  A pass
 *   - starts the held reservations whose time has come (s <= t up to the tolerance), in the
 *     order they were made, each only if it fits now (RList._held; else it is held at its
 *     earliest fit);
 *   - handles the m highest-priority waiting jobs (m = 1, or RS_M_Q: all of them), each at its
 *     earliest fit s >= t in the profile of the running attempts plus the held reservations
 *     (a start if s = t, else a new held reservation); either way it leaves the queue.  With
 *     classic_easy (A2) the phase goes on until m jobs got a future reservation;
 *   - starts every other waiting job, in priority order, that fits now for its whole duration.
 * A failed job re-enters the queue at its rank.  A pass that starts nothing while nothing runs
 * and reservations are held cancels them (the held jobs wait again at their rank) and runs
 * again.  The profile is profile.h's (the twin of Profile; "fits at T" = the profile test over
 * [T, T + t_j), completions before reserved starts at equal times).
 *
 * Float noise (R28): "within the tolerance" is not transitive, so a held job due now may not
 * fit now (the profile that made its reservation merged an end that the event loop does not
 * group with now), and a start within the tolerance of its reserved time ends that much off
 * the reserved end, which can carry a held start past the last completion.  The two rules
 * above (a due job re-checks its fit; nothing running cancels the holds) handle both; with
 * exact times a due job always fits now and a pass with nothing running holds nothing, so
 * no reservation is ever moved or cancelled.
 *
 * Held jobs stay in the Python queue, skipped by the pass; here they leave it (the queue holds
 * the waiting jobs only), which changes neither the order of the waiting jobs nor any pass.
 *
 * Kept profile.  Nothing is ever given back in this mode: between two passes the profile (the
 * running attempts plus the held reservations) only loses what lies before the next completion
 * time t', so the profile of the pass at t' is the last one cut at t' -- the same breakpoints,
 * the same availabilities, as RList's rebuilt profile -- as long as the float tolerance never
 * snapped a time to a neighbour (profile.h's `inexact`) and every start at t was at t exactly
 * (a start within the tolerance of t runs until t + t_j, not s + t_j).  The held reservations
 * due at t then start at t exactly: their windows [t, t + t_j) are in the kept profile, and
 * without them the earliest fit of each is t, so placing them again changes nothing.
 * Otherwise (or when a due reservation is not at t exactly) the pass rebuilds the profile the
 * way RList does: running ends, then the held reservations not due in the order they were
 * made, then the due ones placed again.  Integer times (tol = 0) never rebuild.  Same
 * makespans as the Python engine, bit for bit (tests/heuristics/rigid/test_compiled_fixed.py,
 * tests/heuristics/rigid/test_rlist_held_tolerance.py).
 */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "profile.h"
#include "queue.h"
#include "rigid.h"

/* profile at `now` from the last pass's: drop the breakpoints before `now`; -1 when `now` is
 * no breakpoint (the caller rebuilds) */
static int cut_at(profile *pr, double now) {
    int64_t i = profile_bisect(pr, now, 0);
    if (i == pr->k || pr->seg[i].t != now) return -1;
    memmove(pr->seg, pr->seg + i, sizeof(segment) * (size_t)(pr->k - i));
    pr->k -= i;
    return 0;
}

/* RList's profile at `now`: the running attempts, then the held reservations in order */
static void rebuild(profile *pr, double now, int64_t P, const rs_heap *heap, ending *run,
                    const int64_t *p, const double *t, const int64_t *held,
                    const double *held_s, int64_t nheld) {
    for (int64_t i = 0; i < heap->n; i++) {
        run[i].end = heap->ev[i].end;
        run[i].p = p[heap->ev[i].job];
    }
    pr->inexact = 0;
    profile_build(pr, now, P, run, heap->n);
    for (int64_t h = 0; h < nheld; h++) {
        int64_t j = held[h];
        double s = held_s[j];
        reserve(pr, s > now ? s : now, s + t[j], p[j], -1);
    }
}

/* reserve a job of p processors for dur at its earliest fit s >= the profile's time; returns
 * s, or -1 when p exceeds the platform */
static inline double place(profile *pr, int64_t p, double dur) {
    int64_t at = 0;
    double s = earliest_fit(pr, p, dur, &at);
    if (s >= 0) reserve(pr, s, s + dur, p, at);
    return s;
}

double rs_rigid_fixed(const rs_rigid *in, const int64_t *f, int m, int classic_easy) {
    int64_t n = in->n, P = in->P;
    const int64_t *p = in->p;
    const double *t = in->t;
    double tol = in->tol;
    double result = RS_ENOMEM;
    /* breakpoints: a rebuilt profile has at most 1 + n + 2n, a kept one is rebuilt above that;
     * a pass adds at most 2 per waiting job */
    int64_t cap = 5 * n + 2;
    double *k1 = RS_NEW(double, n), *k2 = RS_NEW(double, n);
    rs_event *hev = RS_NEW(rs_event, n);
    int64_t *items = RS_NEW(int64_t, n), *done = RS_NEW(int64_t, n);
    int64_t *comp = RS_NEW(int64_t, n), *started = RS_NEW(int64_t, n);
    int64_t *held = RS_NEW(int64_t, n);  /* held reservations, in the order they were made */
    double *held_s = RS_NEW(double, n);   /* start of job j's held reservation */
    int64_t *due = RS_NEW(int64_t, n);   /* the held reservations due at a pass */
    unsigned char *failed = RS_NEW(unsigned char, n);
    ending *run = RS_NEW(ending, n);
    profile pr = {RS_NEW(segment, cap), 0, tol, 0};
    if (!k1 || !k2 || !hev || !items || !done || !comp || !started || !held || !held_s ||
        !due || !failed || !run || !pr.seg)
        goto out;
    if (rs_rigid_queue(in, k1, k2, items)) goto out;
    rs_heap heap = {hev, 0};
    rs_queue q = {items, n, k1, k2, in->redraw, in->draws, in->ndraws, 0};
    int64_t free_ = P, unfinished = n, nheld = 0;
    int kept = 0;  /* pr is the last pass's profile, valid to cut at `now` */
    double now = 0.0, makespan = 0.0;
    for (;;) {
        int64_t ns = 0;
    pass:
        if (q.n || nheld) {
            /* the held reservations due now (s <= now up to the tolerance) leave the held
             * list, in the order they were made; `moved`: one is not at `now` exactly */
            int64_t nd = 0, w = 0;
            int moved = 0;
            for (int64_t h = 0; h < nheld; h++) {
                int64_t j = held[h];
                if (rs_le(held_s[j], now, tol)) {
                    due[nd++] = j;
                    if (held_s[j] != now) moved = 1;
                } else {
                    held[w++] = j;
                }
            }
            nheld = w;
            int exact = 1;  /* every start of this pass is at `now` exactly */
            if (!kept || moved || pr.k > 3 * n + 1 || cut_at(&pr, now)) {
                /* RList._held: the profile of the running attempts and the other held
                 * reservations; a due job starts only if it fits now, else it is held at its
                 * earliest fit (R28) */
                rebuild(&pr, now, P, &heap, run, p, t, held, held_s, nheld);
                for (int64_t d = 0; d < nd; d++) {
                    int64_t j = due[d];
                    double s = place(&pr, p[j], t[j]);
                    if (s < 0) { result = RS_EPOLICY; goto out; }
                    if (rs_same(s, now, tol)) {
                        started[ns++] = j;
                        if (s != now) exact = 0;
                    } else {
                        held[nheld++] = j;
                        held_s[j] = s;
                    }
                }
            } else {
                /* kept profile, every due start at `now` exactly: its window [now, now + t_j)
                 * is in the profile, and the earliest fit without it is `now` */
                for (int64_t d = 0; d < nd; d++) started[ns++] = due[d];
            }
            int64_t m_eff = m == RS_M_Q ? q.n : m;  /* every waiting job, for R-LIST-Q */
            int64_t heads = 0, future = 0;
            w = 0;  /* the waiting jobs that stay in the queue */
            for (int64_t idx = 0; idx < q.n; idx++) {
                int64_t j = q.items[idx];
                if (classic_easy ? future < m_eff : heads < m_eff) {  /* reservation phase */
                    heads++;
                    double s = place(&pr, p[j], t[j]);
                    if (s < 0) { result = RS_EPOLICY; goto out; }
                    if (rs_same(s, now, tol)) {
                        started[ns++] = j;
                        if (s != now) exact = 0;
                    } else {
                        future++;
                        held[nheld++] = j;
                        held_s[j] = s;
                    }
                } else if (fits_now(&pr, p[j], t[j])) {  /* backfilling (A4) */
                    reserve(&pr, now, now + t[j], p[j], 0);
                    started[ns++] = j;
                } else {
                    q.items[w++] = j;
                }
            }
            q.n = w;
            kept = exact && !pr.inexact;
            if (ns == 0 && nheld && heap.n == 0) {
                /* no event would ever come (float noise only): the held jobs wait again at
                 * their rank and the pass runs again (RList: R27, R28) */
                for (int64_t h = 0; h < nheld; h++) rs_queue_insert(&q, held[h]);
                nheld = 0;
                kept = 0;
                goto pass;
            }
        }
        /* the engine starts them (run_engine.start checks the processors) */
        if (rs_start_all(&heap, started, ns, p, t, now, &free_)) { result = RS_EPOLICY; goto out; }
        if (heap.n == 0) break;
        /* complete every attempt ending at `now` (A1) */
        now = heap.ev[0].end;
        int64_t nc = rs_complete_at(&heap, now, tol, p, &free_, done, f, failed, &unfinished,
                                    &makespan, comp);
        /* on_completions: failed jobs back into Q in increasing job index; no reservation is
         * cancelled */
        if (rs_requeue_failed(&q, comp, nc, failed)) { result = RS_EDRAWS; goto out; }
    }
    result = unfinished ? RS_EPOLICY : makespan;
out:
    free(k1); free(k2); free(hev); free(items); free(done); free(comp); free(started);
    free(held); free(held_s); free(due); free(failed); free(run); free(pr.seg);
    return result;
}
