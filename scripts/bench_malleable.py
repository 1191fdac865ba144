"""Benchmark of the malleable simulator (issue 11, docs/performance.md "Malleable").

Times one simulated execution per heuristic combination at n = 1000, p = 5000, MTBF 100 years
(goal: <= 0.5 s each), estimates the Figure 1.5 grid at 50 repetitions, and checks the fast
implementation against `Reference`, a straightforward one kept here: the pseudo-code of spec 001
§3.2-3.7 line by line, one scalar estimate at a time (math, heapq, Python lists), j_max over the
whole even range per application, no shortcut. Both must give the same makespans. Times are
medians of `--repeat` runs in this one process (reference and fast code alternate, so a load
change hits both); the load average is printed before and after.

With ``--large``, one execution of each failure-aware heuristic on the largest platform an
instance may have (p = 10^7, decision MA-23) at a few n: what a run costs there, where no goal
is set (``--time-limit`` bounds a run).

    python scripts/bench_malleable.py [--n 1000 --p 5000] [--ref-n 100 --ref-p 1000]
                                      [--repeat 3] [--grid] [--large] [--write]

``--write`` replaces its section of docs/performance.md (scripts/benchpage.py).
"""

from __future__ import annotations

import argparse
import heapq
import math
import os
import statistics
import time

from benchpage import Row, Run, add_write_option

from resilsched.heuristics.malleable import HEURISTICS
from resilsched.instances.malleable import DrawnTrace, paper_instance

TITLE = "Malleable simulator (`scripts/bench_malleable.py`)"
INTRO = """One simulated execution per heuristic at the paper's setting (spec 001 §4: n = 1000,
p = 5000, MTBF 100 years, `paper_instance(7, 1000, 5000)`, about 50 failures per run) on a
cold instance (j_max and every cache computed inside the run): median CPU seconds of the
repeats and the mean wall time; the fast code against `Reference` (the pseudo-code of spec
001 §3.2-3.7 line by line) at n = 100, p = 1000 on two seeds, with the same makespans
(checked); with `--grid`, one repetition of the Figure 1.5 grid, scaled to the paper's 50;
with `--large`, one execution per heuristic on the largest platform an instance may have
(p = 10^7, decision MA-23), where the cost grows with n, most for ITERATEDGREEDY, which
reallocates every application after each struck failure. Goals: issue 11's."""

COMBOS = {"ENDLOCAL-SAF": ("local", "saf"), "ENDLOCAL-IG": ("local", "ig"),
          "ENDGREEDY-SAF": ("greedy", "saf"), "ENDGREEDY-IG": ("greedy", "ig"),
          "NOREDIST": (None, None)}


class Reference:
    """Spec §3.1-3.7 with default options (realized ends, clamped progress, stale t^U,
    lookahead, stop, look-ahead release, no refill) but A-14's literal pool ('any': released
    processors go to every policy), written as plainly as possible."""

    def __init__(self, inst, end, fail, seed):
        self.inst, self.end_h, self.fail_h = inst, end, fail
        self.n, self.p = inst.n, inst.p
        self.mu, self.D = float(inst.mtbf), float(inst.downtime)
        self.lam = 1.0 / self.mu
        self.M = [t.m * inst.checkpoint_factor for t in inst.tasks]
        self.trace = DrawnTrace(inst.p, self.mu, seed).cursor()
        self.jmax = [self.argmin_tr(i) for i in range(self.n)]

    # formulas (§3.1)
    def t(self, i, k):
        return self.inst.time(i, k)

    def C(self, i, k):
        return self.M[i] / k + self.inst.beta

    def tau(self, i, k):
        return math.sqrt(2 * (self.mu / k) * self.C(i, k)) + self.C(i, k)

    def tR(self, i, k, a):
        c, tau = self.C(i, k), self.tau(i, k)
        w = tau - c
        nff = math.floor(a * self.t(i, k) / w)
        last = max(a * self.t(i, k) - nff * w, 0.0)
        x = self.lam * k
        return math.exp(x * c) * (1 / x + self.D) * (nff * math.expm1(x * tau)
                                                     + math.expm1(x * last))

    def RC(self, i, j, k):
        if j == k:
            return 0.0
        return self.inst.S + max(min(j, k), abs(k - j)) * (self.M[i] / (j * k) + self.inst.beta)

    def argmin_tr(self, i):
        best, arg = math.inf, 2
        for k in range(2, self.inst.p_even + 1, 2):
            v = self.tR(i, k, 1.0)
            if v < best:
                best, arg = v, k
        return arg

    def improvable(self, i, k, est, cur, avail):
        for kk in range(k + 2, min(self.jmax[i], k + avail) + 1, 2):
            if est(kk) < cur:
                return kk
        return None

    def alpha_now(self, i, now):
        j, d = self.sigma[i], now - self.tlast[i]
        c, tau = self.C(i, j), self.tau(i, j)
        n = math.floor(d / tau)
        done = (n * (tau - c) + min(d - n * tau, tau - c)) / self.t(i, j)
        return max(0.0, self.alpha[i] - done)

    def est_nf(self, i, k, now, a):
        if k == self.sigma[i]:
            return self.tU[i]
        return now + self.RC(i, self.sigma[i], k) + self.C(i, k) + self.tR(i, k, a)

    def est_f(self, f, k, now):
        a, j = self.alpha[f], self.sigma[f]
        head = now + self.D + self.C(f, j)
        if k == j:
            return head + self.tR(f, k, a)
        return head + self.RC(f, j, k) + self.C(f, k) + self.tR(f, k, a)

    # state
    def set_end(self, i):
        k, a = self.sigma[i], self.alpha[i]
        w = self.tau(i, k) - self.C(i, k)
        at = a * self.t(i, k)
        self.E[i] = self.tlast[i] + at + math.floor(at / w) * self.C(i, k)

    def commit(self, changes, now):
        """changes: [(i, k, a, restart)]; shrinks release first, then grows take."""
        for i, k, _, _ in sorted(changes):
            d = k - self.sigma[i]
            if d < 0:
                out = self.ids[i][d:]
                del self.ids[i][d:]
                for q in out:
                    self.owner[q] = -1
                self.pool.extend(out)
        for i, k, _, _ in sorted(changes):
            d = k - self.sigma[i]
            for _ in range(max(d, 0)):
                q = self.pool.pop(0)
                self.ids[i].append(q)
                self.owner[q] = i
        for i, k, a, restart in changes:
            self.sigma[i], self.alpha[i], self.tlast[i] = k, a, restart
            self.tU[i] = restart + self.tR(i, k, a)
            self.set_end(i)

    def finish(self, i, when):
        self.finish_at[i] = when
        self.running[i] = False
        for q in self.ids[i]:
            self.owner[q] = -1
        self.pool.extend(self.ids[i])
        self.ids[i] = []
        self.sigma[i] = 0

    def greedy(self, apps, start, est_of, pool):
        k = {i: start for i in apps}
        val = {i: est_of(i, start) for i in apps}
        heap = [(-val[i], i) for i in apps]
        heapq.heapify(heap)
        while pool >= 2 and heap:
            _, l = heap[0]  # noqa: E741
            nxt = self.improvable(l, k[l], lambda kk, l=l: est_of(l, kk), val[l], pool)  # noqa: E741
            if nxt is None:
                break
            pool -= nxt - k[l]
            k[l], val[l] = nxt, est_of(l, nxt)
            heapq.heapreplace(heap, (-val[l], l))
        return k, pool

    # policies (§3.2-3.7)
    def run(self):
        n, p = self.n, self.p
        self.alpha, self.tlast = [1.0] * n, [0.0] * n
        self.tU, self.E = [0.0] * n, [0.0] * n
        self.running, self.finish_at = [True] * n, [0.0] * n
        self.sigma = [0] * n
        k, _ = self.greedy(list(range(n)), 2, lambda i, kk: self.tR(i, kk, 1.0), p - 2 * n)
        self.sigma = [k[i] for i in range(n)]
        self.owner, self.ids, q = [-1] * p, [], 0
        for i in range(n):
            self.ids.append(list(range(q, q + self.sigma[i])))
            for x in self.ids[i]:
                self.owner[x] = i
            q += self.sigma[i]
        self.pool = list(range(q, p))
        for i in range(n):
            self.tU[i] = self.tR(i, self.sigma[i], 1.0)
            self.set_end(i)
        while any(self.running):
            ic = min((i for i in range(n) if self.running[i]), key=lambda i: (self.E[i], i))
            tc = self.E[ic]
            if self.trace.time < tc:
                tf, proc = self.trace.time, self.trace.proc
                self.trace.advance()
                f = self.owner[proc]
                if f >= 0 and self.running[f] and tf >= self.tlast[f]:
                    self.on_failure(f, tf)
                continue
            self.finish(ic, tc)
            if self.end_h and len(self.pool) >= 2:
                elig = [i for i in range(n) if self.running[i] and self.tlast[i] <= tc]
                if elig:
                    (self.end_local if self.end_h == "local" else self.end_greedy)(tc, elig)
        return max(self.finish_at)

    def on_failure(self, f, now):
        j = self.sigma[f]
        c, tau = self.C(f, j), self.tau(f, j)
        done = math.floor((now - self.tlast[f]) / tau) * (tau - c) / self.t(f, j)
        self.alpha[f] = max(0.0, self.alpha[f] - done)
        self.tlast[f] = now + self.D + c
        self.tU[f] = self.tlast[f] + self.tR(f, j, self.alpha[f])
        self.set_end(f)
        for i in range(self.n):
            if i != f and self.running[i] and self.E[i] <= self.tlast[f]:
                self.finish(i, self.E[i])
        live = [i for i in range(self.n) if self.running[i]]
        if self.fail_h and self.tU[f] >= max(self.tU[i] for i in live):
            elig = [i for i in live if i != f and self.tlast[i] <= now]
            (self.saf if self.fail_h == "saf" else self.ig)(now, f, elig)

    def end_local(self, now, elig):
        a = {i: self.alpha_now(i, now) for i in elig}
        k = {i: self.sigma[i] for i in elig}
        est = {i: self.tU[i] for i in elig}
        heap = [(-est[i], i) for i in elig]
        heapq.heapify(heap)
        free = len(self.pool)
        while free >= 2 and heap:
            _, l = heap[0]  # noqa: E741
            def e(kk, l=l):  # noqa: E741
                return now + self.RC(l, self.sigma[l], kk) + self.C(l, kk) + self.tR(l, kk, a[l])
            nxt = self.improvable(l, k[l], e, est[l], free)
            if nxt is None:
                break
            free -= nxt - k[l]
            k[l], est[l] = nxt, e(nxt)
            heapq.heapreplace(heap, (-est[l], l))
        self.commit([(i, k[i], a[i], now + self.RC(i, self.sigma[i], k[i]) + self.C(i, k[i]))
                     for i in elig if k[i] != self.sigma[i]], now)

    def end_greedy(self, now, elig):
        a = {i: self.alpha_now(i, now) for i in elig}
        pool = len(self.pool) + sum(self.sigma[i] for i in elig) - 2 * len(elig)
        k, _ = self.greedy(elig, 2, lambda i, kk: self.est_nf(i, kk, now, a[i]), pool)
        self.commit([(i, k[i], a[i], now + self.RC(i, self.sigma[i], k[i]) + self.C(i, k[i]))
                     for i in elig if k[i] != self.sigma[i]], now)

    def ig(self, now, f, elig):
        apps = sorted(elig + [f])
        a = {i: self.alpha_now(i, now) for i in elig}
        a[f] = self.alpha[f]
        pool = len(self.pool) + sum(self.sigma[i] for i in apps) - 2 * len(apps)

        def est(i, kk):
            return self.est_f(f, kk, now) if i == f else self.est_nf(i, kk, now, a[i])
        k, _ = self.greedy(apps, 2, est, pool)
        lead = {f: self.D + self.C(f, self.sigma[f])}
        self.commit([(i, k[i], a[i], now + lead.get(i, 0.0) + self.RC(i, self.sigma[i], k[i])
                      + self.C(i, k[i])) for i in apps if k[i] != self.sigma[i]], now)

    def saf(self, now, f, elig):
        j, kf = self.sigma[f], self.sigma[f]
        ef = self.tU[f]
        free = len(self.pool)
        while free >= 2:
            nxt = self.improvable(f, kf, lambda kk: self.est_f(f, kk, now), ef, free)
            if nxt is None:
                break
            free -= nxt - kf
            kf, ef = nxt, self.est_f(f, nxt, now)
        donors = [s for s in elig if s != f and self.sigma[s] >= 4]
        a = {s: self.alpha_now(s, now) for s in donors}
        ks = {s: self.sigma[s] for s in donors}
        queue = [(self.tU[s], s) for s in donors]
        heapq.heapify(queue)
        best_k, best_e, log = kf, ef, []
        while donors:
            target = self.improvable(f, best_k, lambda kk: self.est_f(f, kk, now), best_e,
                                     self.p)
            if target is None:
                break
            te = self.est_f(f, target, now)
            while kf < target and queue:
                _, s = heapq.heappop(queue)
                kk = ks[s] - 2
                e_s = now + self.RC(s, self.sigma[s], kk) + self.C(s, kk) + self.tR(s, kk, a[s])
                if e_s < te:
                    log.append((s, ks[s]))
                    ks[s] = kk
                    kf += 2
                    if kk >= 4:
                        heapq.heappush(queue, (e_s, s))
            if kf < target:
                for s, old in reversed(log):
                    ks[s] = old
                    kf -= 2
                break
            best_k, best_e, log = kf, te, []
        self.commit([(s, ks[s], a[s], now + self.RC(s, self.sigma[s], ks[s]) + self.C(s, ks[s]))
                     for s in donors if ks[s] != self.sigma[s]], now)
        if kf != j:
            self.commit([(f, kf, self.alpha[f], now + self.D + self.C(f, j) + self.RC(f, j, kf)
                          + self.C(f, kf))], now)


def fast(name):
    return next(h for h in HEURISTICS if h.__name__ == name.lower().replace("-", "_"))


def _load() -> str:
    return "load average (1, 5, 15 min): " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def cpu(fn, repeat):
    """Median CPU seconds of `repeat` calls, and the last result."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), out


def large_rows(ns: list[int], p: int) -> list[Row]:
    """One execution (CPU seconds) of every failure-aware heuristic at each n of `ns` on p
    processors, MTBF 100 years, a cold instance."""
    print(f"fast, p={p}, MTBF 100 y, one execution each (CPU s)")
    rows = []
    for n in ns:
        for name in COMBOS:
            t, res = cpu(lambda name=name, n=n: fast(name)(paper_instance(7, n, p), seed=7), 1)
            failures = res.schedule.counts["failures"]
            print(f"  n={n:<6d} {name:14s} {t:8.2f} s cpu  {failures} failures struck")
            rows.append(Row(f"{name}, n = {n}, p = {p:,}: CPU seconds of one "
                            "execution", "none (`--time-limit` bounds a run)",
                            f"{t:.2f} s ({failures} failures struck)"))
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--p", type=int, default=5000)
    ap.add_argument("--ref-n", type=int, default=100)
    ap.add_argument("--ref-p", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--grid", action="store_true", help="also time one Fig 1.5 repetition")
    ap.add_argument("--large", action="store_true",
                    help="also time one execution per heuristic at p = --large-p")
    ap.add_argument("--large-n", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--large-p", type=int, default=10**7)
    add_write_option(ap)
    args = ap.parse_args(argv)
    if args.large and not (min(args.large_n) >= 1 and 2 * max(args.large_n) <= args.large_p
                           <= 10**7):
        ap.error("--large-n must be >= 1 and --large-p in [2 max(--large-n), 10^7] (MA-23)")
    bench = Run(__file__, argv)
    page: list[Row] = []
    speedups: dict[str, list[float]] = {}
    print(_load())
    print(f"reference vs fast, n={args.ref_n}, p={args.ref_p}, MTBF 100 y (median CPU seconds "
          f"of {args.repeat}, cold instances)")
    for seed in (1, 2):
        inst = paper_instance(seed, args.ref_n, args.ref_p)
        for name, (end, fail) in COMBOS.items():
            t_ref, ref = cpu(lambda inst=inst, end=end, fail=fail, seed=seed:
                             Reference(inst, end, fail, seed).run(), args.repeat)
            t_fast, res = cpu(lambda name=name, seed=seed: fast(name)(  # the literal A-14
                paper_instance(seed, args.ref_n, args.ref_p), seed=seed, lookahead_pool="any"),
                args.repeat)
            ok = math.isclose(ref, res.objective, rel_tol=1e-9)
            print(f"  seed {seed} {name:14s} ref {t_ref:7.3f}  fast {t_fast:6.3f}  "
                  f"x{t_ref / max(t_fast, 1e-9):6.1f}  same makespan: {ok}")
            assert ok, (name, ref, res.objective)
            speedups.setdefault(name, []).append(t_ref / max(t_fast, 1e-9))
    for name, x in speedups.items():
        page.append(Row(f"{name}: fast code against the reference, n = {args.ref_n}, p = "
                        f"{args.ref_p} (CPU)", "same makespans",
                        f"{min(x):.0f}-{max(x):.0f}x faster, same makespans ({len(x)} seeds)"))
    print(f"fast, n={args.n}, p={args.p}, MTBF 100 y, cold instance (j_max included); "
          f"median of {args.repeat} (CPU s), mean wall")
    for h in HEURISTICS:
        t0 = time.perf_counter()
        best, res = cpu(lambda h=h: h(paper_instance(7, args.n, args.p), seed=7), args.repeat)
        wall = (time.perf_counter() - t0) / args.repeat
        label = h.__name__.upper().replace("_", "-")
        print(f"  {label:14s} {best:6.3f} s cpu  {wall:6.3f} s wall  "
              f"{res.objective / 86400:8.2f} days  {res.schedule.counts['failures']} failures")
        page.append(Row(f"{label}, n = {args.n}, p = {args.p}: CPU / wall seconds per execution",
                        "<= 0.5 s (issue 11)",
                        f"{best:.3f} / {wall:.3f} s ({res.objective / 86400:.1f} days, "
                        f"{res.schedule.counts['failures']} failures)"))
    if args.grid:
        from resilsched.reproduce.malleable import FIGURES, run_point, settings

        total = 0.0
        for n in FIGURES["1.5"][1]:
            payload = {"settings": settings("1.5", n, 1), "seed": [0, 1, n, 0],
                       "methods": ["NOREDIST", *FIGURES["1.5"][3]]}
            t0 = time.process_time()
            run_point(payload)
            total += time.process_time() - t0
        print(f"one repetition of the Fig 1.5 grid: {total:.1f} s CPU; 50 repetitions: "
              f"{50 * total / 60:.1f} min CPU, {25 * total / 60:.1f} min on 2 processes")
        page.append(Row("Figure 1.5 grid at 50 repetitions (one timed, CPU)",
                        "< 10 min on 2 processes (issue 11)",
                        f"{50 * total / 60:.1f} min CPU, so {25 * total / 60:.1f} min on 2 "
                        f"processes ({total:.1f} s per repetition)"))
    if args.large:
        page += large_rows(args.large_n, args.large_p)
    print(_load())
    if args.write:
        bench.write(args.write, TITLE, INTRO, page)


if __name__ == "__main__":
    main()
