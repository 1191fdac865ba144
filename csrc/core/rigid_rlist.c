/* rigid_rlist.c -- R-LIST-1 and R-LIST-Q: list scheduling with m reservations and backfilling
 * (spec 002 §4, Algorithm 1), makespan only.  C twin of RList (resilsched.heuristics.rigid.
 * rlist) under the event engine (resilsched.heuristics.engine.run_engine), the tests' oracle.
 *
 * At time 0 and after every batch of completions (spec 002 §2, A1) the failed jobs go back
 * into Q at their rank and one pass runs (spec 002 §4.3):
 *   - reservation phase: each of the first m jobs of Q gets the earliest start s >= t at which
 *     it fits for its whole duration in the availability profile (running attempts plus the
 *     reservations already placed); a reservation at s = t is a start;
 *   - backfilling: every later job that fits now for its whole duration, without touching a
 *     reservation (A4), starts now.
 * m = 1 is R-LIST-1 (EASY-like), m = |Q| (RS_M_Q) is R-LIST-Q (conservative).  Options:
 * classic_easy (A2) reserves until m jobs hold a future reservation instead of the first m
 * positions; persistent (A3) keeps reservations across successful completions, all cancelled
 * when some attempt fails; a held job whose time has come starts only if it fits now, else it
 * is held at its new earliest fit, and a pass leaving nothing running cancels the held
 * reservations and runs again (the float tolerance is not transitive: decision R27).
 *
 * The profile (spec 002 §11.3) is a step function: seg[0].t = t < seg[1].t < ..., seg[i].a
 * processors free on [seg[i].t, seg[i+1].t).  Its comparisons use the tolerance of
 * Profile in rlist.py: x - y <= tol * max(x, 1) (times are non-negative).
 */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "profile.h"
#include "queue.h"
#include "rigid.h"

double rs_rigid_rlist(const rs_rigid *in, const int64_t *f, int m, int classic_easy,
                      int persistent) {
    int64_t n = in->n, P = in->P;
    const int64_t *p = in->p;
    const double *t = in->t;
    double tol = in->tol;
    double result = RS_ENOMEM;
    if (m == RS_M_Q && !classic_easy && !persistent)  /* the same passes, kept incrementally */
        return rs_rigid_conservative(in, f);
    double *k1 = RS_NEW(double, n), *k2 = RS_NEW(double, n);
    rs_event *hev = RS_NEW(rs_event, n);
    int64_t *items = RS_NEW(int64_t, n), *done = RS_NEW(int64_t, n);
    int64_t *comp = RS_NEW(int64_t, n), *suffix = RS_NEW(int64_t, n + 1);
    int64_t *started = RS_NEW(int64_t, n), *held = RS_NEW(int64_t, n);
    int64_t *due = RS_NEW(int64_t, n);
    double *held_s = RS_NEW(double, n);
    unsigned char *failed = RS_NEW(unsigned char, n), *mark = RS_NEW(unsigned char, n);
    unsigned char *is_held = RS_NEW(unsigned char, n);
    ending *run = RS_NEW(ending, n);
    profile pr = {RS_NEW(segment, 5 * n + 2), 0, tol, 0};
    if (!k1 || !k2 || !hev || !items || !done || !comp || !suffix || !started ||
        !held || !due || !held_s || !failed || !mark || !is_held || !run || !pr.seg)
        goto out;
    if (rs_rigid_queue(in, k1, k2, items)) goto out;
    rs_heap heap = {hev, 0};
    rs_queue q = {items, n, k1, k2, in->redraw, in->draws, in->ndraws, 0};
    int64_t free_ = P, unfinished = n, nheld = 0;  /* held: persistent reservations, in order */
    double now = 0.0, makespan = 0.0;
    for (;;) {
        /* one pass at `now` (RList._reserve_and_backfill) */
        int64_t ns = 0;
    pass:
        if (q.n) {
            for (int64_t i = 0; i < heap.n; i++) {
                run[i].end = heap.ev[i].end;
                run[i].p = p[heap.ev[i].job];
            }
            profile_build(&pr, now, P, run, heap.n);
            if (persistent) {  /* RList._held: the held reservations, those due placed again */
                int64_t nd = 0, w = 0;
                for (int64_t i = 0; i < q.n; i++) {  /* due now: s <= now, in queue order */
                    int64_t j = q.items[i];
                    if (is_held[j] && rs_le(held_s[j], now, tol)) {
                        due[nd++] = j;
                        is_held[j] = 0;
                    }
                }
                for (int64_t h = 0; h < nheld; h++)  /* the others keep their order */
                    if (is_held[held[h]]) held[w++] = held[h];
                nheld = w;
                for (int64_t h = 0; h < nheld; h++) {
                    int64_t j = held[h];
                    reserve(&pr, held_s[j], held_s[j] + t[j], p[j], -1);
                }
                for (int64_t d = 0; d < nd; d++) {  /* a due job starts only if it fits now */
                    int64_t j = due[d], at = 0;
                    double s = earliest_fit(&pr, p[j], t[j], &at);
                    if (s < 0) { result = RS_EPOLICY; goto out; }
                    reserve(&pr, s, s + t[j], p[j], at);
                    if (rs_same(s, now, tol)) {
                        started[ns++] = j;
                        mark[j] = 1;  /* skipped by the loop below */
                    } else {
                        held[nheld++] = j;
                        held_s[j] = s;
                        is_held[j] = 1;
                    }
                }
            }
            int64_t m_eff = m == RS_M_Q ? q.n : m;
            suffix[q.n] = P + 1;  /* suffix minimum of p over Q */
            for (int64_t i = q.n - 1; i >= 0; i--)
                suffix[i] = p[q.items[i]] < suffix[i + 1] ? p[q.items[i]] : suffix[i + 1];
            int64_t heads = 0, future = 0;
            for (int64_t idx = 0; idx < q.n; idx++) {
                int64_t j = q.items[idx];
                if (!persistent && pr.seg[0].a < suffix[idx]) break;  /* nobody else fits */
                if (persistent && (is_held[j] || mark[j])) continue;
                if (classic_easy ? future < m_eff : heads < m_eff) {  /* reservation phase */
                    heads++;
                    int64_t at = 0;
                    double s = earliest_fit(&pr, p[j], t[j], &at);
                    if (s < 0) { result = RS_EPOLICY; goto out; }
                    reserve(&pr, s, s + t[j], p[j], at);
                    if (rs_same(s, now, tol)) {
                        started[ns++] = j;
                    } else {
                        future++;
                        if (persistent) {
                            held[nheld++] = j;
                            held_s[j] = s;
                            is_held[j] = 1;
                        }
                    }
                } else if (fits_now(&pr, p[j], t[j])) {  /* backfilling (A4) */
                    reserve(&pr, now, now + t[j], p[j], 0);
                    started[ns++] = j;
                }
            }
            for (int64_t c = 0; c < ns; c++) mark[started[c]] = 1;
            if (ns) {
                rs_queue_drop_marked(&q, mark);
            } else if (nheld && heap.n == 0) {  /* no event would ever come: cancel them */
                for (int64_t h = 0; h < nheld; h++) is_held[held[h]] = 0;
                nheld = 0;
                goto pass;
            }
        }
        /* the engine starts them (run_engine.start checks the processors) */
        if (rs_start_all(&heap, started, ns, p, t, now, &free_)) { result = RS_EPOLICY; goto out; }
        if (q.n == 0) {  /* every unfinished job runs: no pass changes anything any more */
            makespan = rs_rigid_drain(&heap, tol, p, t, done, f, failed, &unfinished, makespan,
                                      comp);
            break;
        }
        if (heap.n == 0) break;
        /* complete every attempt ending at `now` (A1) */
        now = heap.ev[0].end;
        int64_t nc = rs_complete_at(&heap, now, tol, p, &free_, done, f, failed, &unfinished,
                                    &makespan, comp);
        /* on_completions: failed jobs back into Q in increasing job index; a failure cancels
         * every persistent reservation (A3) */
        if (nc > 1) qsort(comp, (size_t)nc, sizeof(int64_t), rs_cmp_int64);
        int any_failed = 0;
        for (int64_t c = 0; c < nc; c++) {
            int64_t j = comp[c];
            if (!failed[j]) continue;
            any_failed = 1;
            if (rs_queue_push(&q, j)) { result = RS_EDRAWS; goto out; }
        }
        if (any_failed && persistent) {
            for (int64_t h = 0; h < nheld; h++) is_held[held[h]] = 0;
            nheld = 0;
        }
    }
    result = unfinished ? RS_EPOLICY : makespan;
out:
    free(k1); free(k2); free(hev); free(items); free(done); free(comp);
    free(suffix); free(started); free(held); free(due); free(held_s); free(failed); free(mark);
    free(is_held); free(run); free(pr.seg);
    return result;
}
