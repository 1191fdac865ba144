"""Brute-force oracles for tiny moldable instances (independent of the package's algorithms).

`brute_opt` — clairvoyant optimum T_OPT(J, f) by a semi-active search: decision times are 0 and
attempt ends; at a decision time the search starts any ready attempt with any allocation p in
1..P that fits (attempts started at one time in increasing job order), or moves on to the next
end. An optimal schedule can be left-justified (every attempt starts at 0 or at another
attempt's end, moving an attempt earlier into a window where others only start keeps capacity
and chains), and the search reaches it, so the result is exact. Exact arithmetic on the
instance's scalar times ``instance.time(j, p)``.

`brute_lpa` — Algorithm 2 written literally with Python scalars (strict ``<``, ascending p).

`brute_L_star` — min over all per-attempt allocation multisets of max(t_max, A/P).
"""

from __future__ import annotations

import itertools
from fractions import Fraction


def brute_opt(instance, failures) -> Fraction:
    n, P = instance.n, instance.P
    m = [f + 1 for f in failures]
    times = [[instance.time(j, p) for p in range(1, P + 1)] for j in range(n)]
    best = [None]
    lb_chain = [mj * min(tj) for mj, tj in zip(m, times, strict=True)]
    done0 = [0] * n

    def rec(t, running, nxt, ready, free, last_j, mk):
        # running: tuple of (end, j, p)
        if best[0] is not None:
            bound = max([mk] + [ready[j] if nxt[j] == m[j] else
                                max(ready[j], t) + (m[j] - nxt[j]) * min(times[j])
                                for j in range(n)])
            if bound >= best[0]:
                return
        if all(nxt[j] == m[j] for j in range(n)) and not running:
            if best[0] is None or mk < best[0]:
                best[0] = mk
            return
        busy = {j for _, j, _ in running}
        for j in range(last_j + 1, n):
            if nxt[j] < m[j] and j not in busy and ready[j] <= t:
                for p in range(1, free + 1):
                    e = t + times[j][p - 1]
                    nxt2 = list(nxt)
                    nxt2[j] += 1
                    ready2 = list(ready)
                    ready2[j] = e
                    rec(t, running + ((e, j, p),), nxt2, ready2, free - p, j, max(mk, e))
        if running:
            t2 = min(e for e, _, _ in running)
            still = tuple(r for r in running if r[0] > t2)
            freed = sum(p for e, _, p in running if e <= t2)
            rec(t2, still, nxt, ready, free + freed, -1, mk)

    del lb_chain, done0
    rec(0, (), [0] * n, [0] * n, P, -1, 0)
    return best[0]


def brute_lpa(instance) -> list[int]:
    P = instance.P
    out = []
    for j in range(instance.n):
        ts = [float(instance.T[j, p - 1]) for p in range(1, P + 1)]
        tmin = min(ts)
        amin = min(p * ts[p - 1] for p in range(1, P + 1))
        pj, rmin = 0, float("inf")
        for p in range(1, P + 1):
            a = p * ts[p - 1] / amin
            b = ts[p - 1] / tmin
            if P == 1:
                r = max(a, b)
            elif a >= b:
                r = 2 * a
            else:
                r = P / (P - 1) * a + (P - 2) / (P - 1) * b
            if r < rmin:
                pj, rmin = p, r
        out.append(pj)
    return out


def brute_L_star(instance, chains) -> float:
    P = instance.P
    best = float("inf")
    per_job = []
    for j, mj in enumerate(chains):
        opts = []
        for combo in itertools.combinations_with_replacement(range(1, P + 1), mj):
            t = sum(float(instance.T[j, p - 1]) for p in combo)
            a = sum(p * float(instance.T[j, p - 1]) for p in combo)
            opts.append((t, a))
        per_job.append(opts)
    for choice in itertools.product(*per_job):
        val = max(max(t for t, _ in choice), sum(a for _, a in choice) / P)
        best = min(best, val)
    return best
