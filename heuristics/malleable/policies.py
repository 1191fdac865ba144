"""The allocation policies of spec 001 §3.2-3.7 (chapter §1.5.1-1.5.3) on a `RunState`.

- `initial_allocation` (§3.2, Theorem 1.4's greedy): every application starts on 2 processors and
  pairs go to the longest one, on t^R_{i,j}(1), while it improves.
- `end_local` (ENDLOCAL = ENDMETHOD, §3.4): at an application end, the idle processors (all of
  them, A-13) go greedily to the longest applications, counting RC and the checkpoint after it.
- `end_greedy` (ENDGREEDY, §3.5): a new allocation of every eligible application from 2
  processors each, on the estimates est_nf (stale t^U for an unchanged count, A-10).
- `shortest_first` (SHORTESTAPPLICATIONSFIRST, §3.6): the struck application T_f takes idle
  processors, then pairs from the shortest applications while a donor stays shorter than T_f's
  new estimate (A-16).
- `iterated_greedy` (ITERATEDGREEDY, §3.7): ENDGREEDY's reallocation including T_f, estimated
  with est_f.

Only applications whose count changes are committed (alpha^t kept as a temporary, §1.5.2); an
application restarts after RC + C_{i,k} (plus D + R for T_f). The greedy loops are
`greedy.allocate`.
"""

from __future__ import annotations

import heapq

import numpy as np

from resilsched.heuristics.malleable.greedy import allocate
from resilsched.heuristics.malleable.state import RunState

#: steps of the plain greedy loop before the vectorised cut takes over (greedy.allocate)
BUDGET = 48


def initial_allocation(st: RunState) -> np.ndarray:
    """sigma of §3.2: 2 each, then pairs to the longest while t^R(1) improves (p >= 2n)."""
    F, n, p = st.F, st.inst.n, st.inst.p
    idx = np.arange(n)
    start = np.full(n, 2, dtype=np.int64)
    v0 = F.t_r(idx, start, 1.0)
    window = _share_window(p * v0 / v0.sum())
    sigma, _, _ = allocate(start, v0, np.full(n, st.inst.p_even), p - 2 * n,
                           lambda pos, k: F.t_r(pos, k, 1.0), rule=st.opts.improve_rule,
                           on_stuck=st.opts.on_stuck, window=window)
    return sigma


def _share_window(counts: np.ndarray) -> np.ndarray:
    """Pairs worth evaluating first for an application expected to end near `counts`."""
    return np.ceil(0.625 * counts).astype(np.int64) + 1


def _base(st: RunState, apps: np.ndarray, a: np.ndarray, t: float) -> np.ndarray:
    """Estimate without redistribution: stale t^U (A-10 default) or t + t^R(sigma, alpha^t)."""
    if st.opts.baseline == "fresh":
        return t + st.F.t_r(apps, st.sigma[apps], a)
    return st.tU[apps].copy()


def _est_nf(st: RunState, apps: np.ndarray, a: np.ndarray, base: np.ndarray, t: float):
    """est_nf(i, k) of §3.1 over positions of `apps`: base at k = sigma, else the redistributed
    estimate t + RC + C_{i,k} + t^R_{i,k}(alpha^t)."""
    F, sigma = st.F, st.sigma

    def est(pos: np.ndarray, k: np.ndarray) -> np.ndarray:
        i = apps[pos]
        val = t + F.move_then_run(i, sigma[i], k, a[pos])
        same = k == sigma[i]
        if same.any():
            val[same] = base[pos[same]]
        return val
    return est


def _commit_changes(st: RunState, apps: np.ndarray, k: np.ndarray, a: np.ndarray, t: float,
                    extra: np.ndarray | float = 0.0) -> None:
    """Commit the applications whose count changes; restart = t + extra + RC + C_{i,k}."""
    ch = k != st.sigma[apps]
    if not ch.any():
        return
    i, kk = apps[ch], k[ch]
    extra = np.broadcast_to(np.asarray(extra, dtype=float), apps.shape)[ch]
    restart = t + extra + st.F.rc(i, st.sigma[i], kk) + st.F.ckpt_after(i, kk)
    st.commit(i, kk, a[ch], restart, t)


def end_local(st: RunState, t: float, elig: np.ndarray) -> None:
    """ENDLOCAL: idle pairs to the longest eligible applications (§3.4)."""
    if elig.size == 0 or st.free < 2:
        return
    a_all = st.alpha_now(elig, t)
    v_all = _base(st, elig, a_all, t)
    # only the free/2 + 1 longest applications can be served (each step takes >= 2)
    top = st.free // 2 + 1
    if elig.size > top and st.opts.on_stuck == "stop":
        keep = np.sort(np.lexsort((elig, -v_all))[:top])
        elig, a_all, v_all = elig[keep], a_all[keep], v_all[keep]
    k0 = st.sigma[elig]
    est = _est_nf(st, elig, a_all, v_all, t)
    k = _capped(st, elig, lambda cap: allocate(
        k0, v_all, cap, st.free, est, rule=st.opts.improve_rule, on_stuck=st.opts.on_stuck,
        window=np.full(elig.size, 2), budget=BUDGET)[0])
    _commit_changes(st, elig, k, a_all, t)


def _capped(st: RunState, apps: np.ndarray, run) -> np.ndarray:
    """run(cap) with cap = j_max (1.8), known exactly or optimistically: a run whose counts
    exceed a j_max found on the way is redone with the exact caps."""
    while True:
        k = run(st.F.jmax_cap(apps))
        if not st.F.exceeds_jmax(apps, k).any():
            return k


def _regreedy(st: RunState, t: float, apps: np.ndarray, a: np.ndarray, base: np.ndarray,
              est, pool: int, lead: np.ndarray | None = None):
    """From 2 processors each, pairs to the longest (ENDGREEDY / IG core), with A-15 refill.

    Shortcut (exact, decision MA-6): keeping every count is feasible, so theta = max_i
    est_i(sigma_i) bounds the value at which the loop stops, and every chain step from a value
    above theta is taken. Each application therefore starts at its first count k with
    est_i(k) <= theta (counts below it are skipped when the lower bound t + lead + S + M/sigma
    + C_{i,k} + alpha t_{i,k} of est already exceeds theta), and only the pool/2 + 1 longest
    applications from there can still move. With 'strict_step' the chains stop at their first
    non-decrease, so every application starts from 2.
    """
    F = st.F
    n = apps.size
    sig = st.sigma[apps]
    theta = float(base.max())
    lead = np.zeros(n) if lead is None else lead
    start = sig.copy()
    v0 = base.copy()
    if st.opts.improve_rule == "strict_step":  # chains stop at the first non-decrease: no jump
        start = np.full(n, 2, dtype=np.int64)
        v0 = est(np.arange(n), start)
    else:
        # the lower bound decreases with k: an application whose bound at sigma - 2 exceeds
        # theta keeps its count; the others get their cells k = 2 .. sigma - 2 checked
        def lower(pos: np.ndarray, k: np.ndarray) -> np.ndarray:
            i = apps[pos]
            return t + lead[pos] + F.S + F.M[i] / sig[pos] + F.ckpt_after(i, k) \
                + a[pos] * F.t(i, k)
        low = np.flatnonzero(sig >= 4)
        low = low[lower(low, sig[low] - 2) <= theta]
        reps = sig[low] // 2 - 1
        rows = np.repeat(low, reps)
        ks = 2 * (np.arange(rows.size) - np.repeat(np.cumsum(reps) - reps, reps) + 1)
        cand = np.flatnonzero(lower(rows, ks) <= theta) if rows.size else rows
        if cand.size:
            vals = est(rows[cand], ks[cand])
            ok = cand[vals <= theta]
            if ok.size:
                # first (smallest) admissible count per application: rows[ok] sorted by k
                r_ok, first = np.unique(rows[ok], return_index=True)
                start[r_ok] = ks[ok[first]]
                v0[r_ok] = vals[np.searchsorted(cand, ok[first])]
    left = pool - int(start.sum())
    k, val = start.copy(), v0.copy()
    top = n if st.opts.on_stuck == "skip" else left // 2 + 1
    sub = np.arange(n) if n <= top else np.sort(np.lexsort((np.arange(n), -v0))[:top])
    if left >= 2 and sub.size:
        out: list = []

        def run(cap: np.ndarray) -> np.ndarray:
            out[:] = allocate(start[sub], v0[sub], cap, left, lambda pos, kk: est(sub[pos], kk),
                              rule=st.opts.improve_rule, on_stuck=st.opts.on_stuck,
                              window=np.maximum(sig[sub] - start[sub], 0) // 2 + 2,
                              budget=BUDGET)
            return out[0]
        _capped(st, apps[sub], run)
        k[sub], val[sub], left = out
    if st.opts.refill:
        shrunk = np.flatnonzero(k < sig)
        for pos in shrunk[np.lexsort((apps[shrunk], -val[shrunk]))]:
            need = int(sig[pos] - k[pos])
            if need <= left:
                left -= need
                k[pos] = sig[pos]
    return k


def end_greedy(st: RunState, t: float, elig: np.ndarray) -> None:
    """ENDGREEDY: a new allocation of the eligible applications from 2 each (§3.5)."""
    if elig.size == 0:
        return
    a = st.alpha_now(elig, t)
    base = _base(st, elig, a, t)
    pool = st.free + int(st.sigma[elig].sum())
    k = _regreedy(st, t, elig, a, base, _est_nf(st, elig, a, base, t), pool)
    _commit_changes(st, elig, k, a, t)


def _est_f(st: RunState, f: int, t: float):
    """est_f(f, k) of §3.1 for the struck application (its alpha and t_lastR already updated)."""
    F = st.F
    j = int(st.sigma[f])
    a_f = float(st.alpha[f])
    lead = t + F.D + float(F.ckpt(np.array([f]), j)[0])

    def est(k: np.ndarray) -> np.ndarray:
        i = np.full(k.shape, f)
        val = lead + F.move_then_run(i, j, k, a_f)
        same = k == j
        if same.any():
            val[same] = lead + F.t_r(i[same], k[same], a_f)
        return val
    return est, lead - t


def iterated_greedy(st: RunState, t: float, f: int, elig: np.ndarray) -> None:
    """ITERATEDGREEDY: ENDGREEDY's reallocation over the eligible ones and T_f (§3.7)."""
    apps = np.union1d(elig, [f]).astype(np.int64)
    is_f = apps == f
    a = st.alpha_now(apps, t)
    a[is_f] = st.alpha[f]
    base = _base(st, apps, a, t)
    base[is_f] = st.tU[f]
    est_nf = _est_nf(st, apps, a, base, t)
    est_f, lead = _est_f(st, f, t)
    fpos = int(np.flatnonzero(is_f)[0])

    def est(pos: np.ndarray, k: np.ndarray) -> np.ndarray:
        val = est_nf(pos, k)
        mine = pos == fpos
        if mine.any():
            val[mine] = est_f(k[mine])
        return val
    pool = st.free + int(st.sigma[apps].sum())
    k = _regreedy(st, t, apps, a, base, est, pool, np.where(is_f, lead, 0.0))
    _commit_changes(st, apps, k, a, t, np.where(is_f, lead, 0.0))


def shortest_first(st: RunState, t: float, f: int, elig: np.ndarray) -> None:
    """SHORTESTAPPLICATIONSFIRST (§3.6, A-16): idle pairs, then pairs of the shortest donors.

    Phase 1 gives idle pairs to T_f while it improves. Phase 2 walks T_f's chain of better
    counts (its targets): to reach the next target it takes one pair at a time from the donor
    with the smallest estimate (a min-heap, the donor re-inserted with its new estimate), accepts
    it only if the donor's new estimate stays below T_f's estimate at the target (a donor that
    fails is dropped for this event), keeps donors at >= 2 processors, and rolls back a target
    it cannot reach.
    """
    F, opts = st.F, st.opts
    j = int(st.sigma[f])
    est_f, lead = _est_f(st, f, t)
    top = F.jmax_exact(f)
    k, ef, _ = allocate(np.array([j]), np.array([st.tU[f]]), np.array([top]), st.free,
                        lambda pos, kk: est_f(kk), rule=opts.improve_rule,
                        on_stuck=opts.on_stuck, window=np.array([2]), budget=BUDGET)
    k, ef = int(k[0]), float(ef[0])
    donors = elig[(elig != f) & (st.sigma[elig] >= 4)]
    ks: dict[int, int] = {}
    targets = _chain(np.arange(k + 2, top + 1, 2), est_f, ef, opts.improve_rule)
    if donors.size and targets:
        ks = {int(s): int(st.sigma[s]) for s in donors}
        table = _donor_table(st, donors, t)
        queue = [(float(st.tU[s]), int(s)) for s in donors]
        heapq.heapify(queue)
        log: list[tuple[int, int]] = []
        for target, target_e in targets:
            while k < target and queue:
                _, s = heapq.heappop(queue)
                vals, off = table[s]
                e_s = vals[off + ks[s] // 2 - 2]  # estimate of s on ks[s] - 2 processors
                if e_s < target_e:
                    log.append((s, ks[s]))
                    ks[s] -= 2
                    k += 2
                    if ks[s] >= 4:
                        heapq.heappush(queue, (e_s, s))
            if k < target:  # donors ran out: roll the partial jump back
                for s, old in reversed(log):
                    ks[s] = old
                    k -= 2
                break
            log = []
    moved = [s for s, kk in ks.items() if kk != st.sigma[s]]
    if moved:
        dn = np.array(sorted(moved), dtype=np.int64)
        kd = np.array([ks[s] for s in dn.tolist()], dtype=np.int64)
        _commit_changes(st, dn, kd, st.alpha_now(dn, t), t)
    if k != j:
        _commit_changes(st, np.array([f]), np.array([k]), np.array([st.alpha[f]]), t, lead)


def _chain(cand: np.ndarray, est, v0: float, rule: str) -> list[tuple[int, float]]:
    """T_f's targets beyond its count: the counts whose estimate is below every earlier one
    (from `v0`), or the run of strict decreases ('strict_step')."""
    if cand.size == 0:
        return []
    vals = est(cand)
    if rule == "strict_step":
        dec = np.logical_and.accumulate(vals < np.r_[v0, vals[:-1]])
        keep = np.flatnonzero(dec)
    else:
        keep = np.flatnonzero(vals < np.minimum.accumulate(np.r_[v0, vals])[:-1])
    return list(zip(cand[keep].tolist(), vals[keep].tolist(), strict=True))


def _donor_table(st: RunState, donors: np.ndarray, t: float) -> dict[int, tuple[list, int]]:
    """est of every donor s on 2, 4, ..., sigma_s - 2 processors: table[s] = (values, offset),
    the value on k processors being values[offset + k/2 - 1]."""
    F = st.F
    sig = st.sigma[donors]
    a = st.alpha_now(donors, t)
    reps = sig // 2 - 1
    offsets = np.cumsum(reps) - reps
    rows = np.repeat(np.arange(donors.size), reps)
    ks = 2 * (np.arange(rows.size) - np.repeat(offsets, reps) + 1)
    vals = (t + F.move_then_run(donors[rows], sig[rows], ks, a[rows])).tolist()
    return {s: (vals, o) for s, o in zip(donors.tolist(), offsets.tolist(), strict=True)}
