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
  with est_f; one that would shrink T_f, still recovering on its count, is dropped for the
  reallocation of the others (MA-27).

Only applications whose count changes are committed (alpha^t kept as a temporary, §1.5.2); an
application restarts after RC + C_{i,k} (plus D + R for T_f). The greedy loops are
`greedy.allocate`, the estimates `estimates.NoRedist` / `Failed` / `WithFailed`.
"""

from __future__ import annotations

import heapq

import numpy as np

from resilsched.heuristics.malleable.estimates import Failed, NoRedist, WithFailed
from resilsched.heuristics.malleable.greedy import allocate
from resilsched.heuristics.malleable.state import RunState

#: relative margin of the lower bounds used to skip counts (rounding never skips a count)
SAFE = 1.0 - 1e-12


class _Static:
    """t^R_{i,k}(1), the estimate of the initial allocation."""

    def __init__(self, F) -> None:
        self.F, self.T = F, F.tables

    def one(self, pos: int, k: int) -> float:
        return self.T.t_r(pos, k, 1.0)

    def range(self, pos: int, lo: int, hi: int) -> np.ndarray:
        return self.T.t_r_range(pos, lo, hi, 1.0)

    def vec(self, pos: np.ndarray, k: np.ndarray) -> np.ndarray:
        return self.F.t_r(pos, k, 1.0)


def initial_allocation(st: RunState) -> np.ndarray:
    """sigma of §3.2: 2 each, then pairs to the longest while t^R(1) improves (p >= 2n).

    The counts are capped by the proven bound of j_max (MA-20), which changes nothing: the
    records of t^R(1) never pass its smallest argmin j_max (MA-5)."""
    F, n, p = st.F, st.inst.n, st.inst.p
    start = np.full(n, 2, dtype=np.int64)
    v0 = F.t_r(np.arange(n), start, 1.0)
    sigma, _, _ = allocate(start, v0, F.jmax_upper, p - 2 * n, _Static(st.F),
                           rule=st.opts.improve_rule, on_stuck=st.opts.on_stuck)
    return sigma


def _base(st: RunState, apps: np.ndarray, a: np.ndarray, t: float) -> np.ndarray:
    """Estimate without redistribution: stale t^U (A-10 default) or t + t^R(sigma, alpha^t)."""
    if st.opts.baseline == "fresh":
        return t + st.F.t_r(apps, st.sigma[apps], a)
    return st.tU[apps]


def _commit_changes(st: RunState, apps: np.ndarray, k: np.ndarray, alphas, t: float,
                    extra: np.ndarray | float = 0.0) -> None:
    """Commit the applications whose count changes; restart = t + extra + RC + C_{i,k}.
    `alphas(positions)` gives their alpha^t."""
    ch = np.flatnonzero(k != st.sigma[apps])
    if ch.size == 0:
        return
    i, kk = apps[ch], k[ch]
    if ch.size <= 8 and np.ndim(extra) == 0:  # the same operations, in scalar form
        T, head = st.T, t + float(extra)
        restart = np.array([head + T.rc(a, int(st.sigma[a]), b) + T.ckpt_after(a, b)
                            for a, b in zip(i.tolist(), kk.tolist(), strict=True)])
    else:
        extra = np.broadcast_to(np.asarray(extra, dtype=float), apps.shape)[ch]
        restart = t + extra + st.F.rc(i, st.sigma[i], kk) + st.F.ckpt_after(i, kk)
    st.commit(i, kk, alphas(ch), restart, t)


def _capped(st: RunState, apps: np.ndarray, run):
    """run(cap) with cap = j_max (1.8), known exactly or optimistically (decision MA-5): a run
    whose counts exceed a j_max found on the way is redone with the exact caps. Only counts
    above the current ones need the check (sigma <= j_max holds for every running one)."""
    sig = st.sigma[apps]
    while True:
        out = run(st.F.jmax_cap(apps))
        grew = out[0] > sig
        if not grew.any() or not st.F.exceeds_jmax(apps[grew], out[0][grew]).any():
            return out


def end_local(st: RunState, t: float, elig: np.ndarray) -> None:
    """ENDLOCAL: idle pairs to the longest eligible applications (§3.4)."""
    if elig.size == 0 or st.free < 2:
        return
    if st.opts.baseline == "fresh":
        a = st.alpha_now(elig, t)
        est = NoRedist(st, elig, a, _base(st, elig, a, t), t)
    else:  # alpha^t only for the applications served
        est = NoRedist(st, elig, None, st.tU[elig], t)
    k, _, _ = _capped(st, elig, lambda cap: allocate(
        st.sigma[elig], est.base, cap, st.free, est, rule=st.opts.improve_rule,
        on_stuck=st.opts.on_stuck))
    _commit_changes(st, elig, k, est.alphas, t)


def _regreedy(st: RunState, t: float, apps: np.ndarray, est, pool: int,
              lead: np.ndarray | None = None,
              reserve: tuple[int, int, int] | None = None) -> np.ndarray:
    """From 2 processors each, pairs to the longest (ENDGREEDY / IG core), with A-15 refill.

    Shortcut (exact, decision MA-6): keeping every count is feasible, so theta = max_i
    est_i(sigma_i) bounds the value at which the loop stops, and every chain step from a value
    above theta is taken. Each application therefore starts at its first count k with
    est_i(k) <= theta (counts below it are skipped when the lower bound t + lead + S + M/sigma
    + C_{i,k} + alpha t_{i,k} of est already exceeds theta), and the loop goes on from there.
    With 'strict_step' the chains stop at their first non-decrease, so every application starts
    from 2. `reserve` is passed to `allocate` (A-14 'faulty_only'): it serves only counts above
    sigma, so the jump (to counts <= sigma) takes none of it.
    """
    n = apps.size
    sig = est.sig
    start = sig.copy()
    v0 = np.array(est.base, dtype=float)
    if st.opts.improve_rule == "strict_step":  # chains stop at the first non-decrease: no jump
        start = np.full(n, 2, dtype=np.int64)
        v0 = est.vec(np.arange(n), start)
    else:
        _jump(st, t, apps, est, float(v0.max()), start, v0,
              np.zeros(n) if lead is None else lead)
    left = pool - int(start.sum())
    k, val = start, v0
    if left >= 2 or (reserve and reserve[1] >= 2):
        k, val, left = _capped(st, apps, lambda cap: allocate(
            start, v0, cap, left, est, rule=st.opts.improve_rule, on_stuck=st.opts.on_stuck,
            reserve=reserve))
    if st.opts.refill:
        shrunk = np.flatnonzero(k < sig)
        for pos in shrunk[np.lexsort((apps[shrunk], -val[shrunk]))]:
            need = int(sig[pos] - k[pos])
            if need <= left:
                left -= need
                k[pos] = sig[pos]
    return k


def _jump(st: RunState, t: float, apps: np.ndarray, est, theta: float, start: np.ndarray,
          v0: np.ndarray, lead: np.ndarray) -> None:
    """Move `start`/`v0` to each application's first count with est <= theta (in place)."""
    F = st.F
    sig = est.sig
    low = np.flatnonzero(sig >= 4)
    if low.size == 0:
        return
    a = est.alphas(low)

    def lower(pos: np.ndarray, k: np.ndarray, a: np.ndarray, rc) -> np.ndarray:
        i = apps[pos]
        return t + lead[pos] + rc + F.ckpt_after(i, k) + a * F.t(i, k)
    # est >= lower (t^R >= alpha t), which decreases with k <= sigma - 2, where
    # RC^{sigma -> sigma-2} >= S + M/sigma; a margin keeps rounding from pruning a count
    keep = lower(low, sig[low] - 2, a, F.S + F.M[apps[low]] / sig[low]) * SAFE <= theta
    if not keep.any():
        return
    low, a = low[keep], a[keep]
    # the applications left get k = 2 .. sigma - 2 checked, with the exact RC
    reps = sig[low] // 2 - 1
    rows = np.repeat(low, reps)
    ks = 2 * (np.arange(rows.size) - np.repeat(np.cumsum(reps) - reps, reps) + 1)
    bound = lower(rows, ks, np.repeat(a, reps), F.rc(apps[rows], sig[rows], ks))
    cand = np.flatnonzero(bound * SAFE <= theta)
    if cand.size == 0:
        return
    vals = est.vec(rows[cand], ks[cand])
    ok = cand[vals <= theta]
    if ok.size:
        # first (smallest) admissible count per application: rows[ok] sorted by k
        r_ok, first = np.unique(rows[ok], return_index=True)
        start[r_ok] = ks[ok[first]]
        v0[r_ok] = vals[np.searchsorted(cand, ok[first])]


def end_greedy(st: RunState, t: float, elig: np.ndarray) -> None:
    """ENDGREEDY: a new allocation of the eligible applications from 2 each (§3.5)."""
    if elig.size == 0:
        return
    a = st.alpha_now(elig, t)
    est = NoRedist(st, elig, a, _base(st, elig, a, t), t)
    pool = st.free + int(est.sig.sum())
    k = _regreedy(st, t, elig, est, pool)
    _commit_changes(st, elig, k, est.alphas, t)


def iterated_greedy(st: RunState, t: float, f: int, elig: np.ndarray) -> None:
    """ITERATEDGREEDY: ENDGREEDY's reallocation over the eligible ones and T_f (§3.7).

    T_f recovers on its old count until t + D + R (MA-14), so the processors it would give
    back are not free at t: a reallocation that shrinks T_f is dropped, T_f keeps its count and
    the eligible ones are reallocated among themselves on what is idle now (ENDGREEDY's
    reallocation without T_f, decision MA-27)."""
    apps = np.union1d(elig, [f]).astype(np.int64)
    is_f = apps == f
    fpos = int(np.flatnonzero(is_f)[0])
    a = st.alpha_now(apps, t)
    a[fpos] = st.alpha[f]
    base = np.array(_base(st, apps, a, t), dtype=float)
    base[fpos] = st.tU[f]
    failed = Failed(st, f, t)
    est = WithFailed(NoRedist(st, apps, a, base, t), failed, fpos)
    pool = st.free + int(est.sig.sum())
    lead = np.where(is_f, failed.lead - t, 0.0)
    reserve = (fpos, st.reserved_count(f), int(st.sigma[f]))
    k = _regreedy(st, t, apps, est, pool, lead, reserve if reserve[1] else None)
    if k[fpos] >= st.sigma[f]:
        _commit_changes(st, apps, k, est.alphas, t, lead)
        return
    end_greedy(st, t, elig)  # T_f keeps its count; the others share what is idle now


def shortest_first(st: RunState, t: float, f: int, elig: np.ndarray) -> None:
    """SHORTESTAPPLICATIONSFIRST (§3.6, A-16): idle pairs, then pairs of the shortest donors.

    Phase 1 gives idle pairs to T_f while it improves. Phase 2 walks T_f's chain of better
    counts (its targets): to reach the next target it takes one pair at a time from the donor
    with the smallest estimate (a min-heap, the donor re-inserted with its new estimate), accepts
    it only if the donor's new estimate stays below T_f's estimate at the target (a donor that
    fails is dropped for this event), keeps donors at >= 2 processors, and rolls back a target
    it cannot reach.
    """
    opts = st.opts
    j = int(st.sigma[f])
    est_f = Failed(st, f, t)
    top = st.F.jmax_exact(f)
    k, ef, _ = allocate(np.array([j]), np.array([st.tU[f]]), np.array([top]),
                        st.free + st.reserved_count(f), est_f,
                        rule=opts.improve_rule, on_stuck=opts.on_stuck)
    k, ef = int(k[0]), float(ef[0])
    donors = elig[(elig != f) & (st.sigma[elig] >= 4)]
    ks: dict[int, int] = {}
    targets = _chain(k, top, est_f, ef, opts.improve_rule)
    if donors.size and targets:
        ks = dict(zip(donors.tolist(), st.sigma[donors].tolist(), strict=True))
        k = _take_pairs(st, t, donors, ks, k, targets)
    moved = [s for s, kk in ks.items() if kk != st.sigma[s]]
    if moved:
        dn = np.array(sorted(moved), dtype=np.int64)
        kd = np.array([ks[s] for s in dn.tolist()], dtype=np.int64)
        _commit_changes(st, dn, kd, lambda pos: st.alpha_now(dn[pos], t), t)
    if k != j:
        _commit_changes(st, np.array([f]), np.array([k]), lambda pos: st.alpha[[f]], t,
                        est_f.lead - t)


def _take_pairs(st: RunState, t: float, donors: np.ndarray, ks: dict[int, int], k: int,
                targets: list[tuple[int, float]]) -> int:
    """SAF's phase 2 (see `shortest_first`): T_f's count after taking donors' pairs; `ks`
    (donor -> count) is updated in place.

    The min-heap of donors is split in two streams merged by (estimate, index): the donors not
    tried yet, sorted by t^U, and a heap of the donors that gave a pair (keyed by their last
    estimate). A donor not tried yet is tried at its estimate one pair down, evaluated for all
    at once; since T_f's target estimates decrease, one that fails a target fails every later
    one, so for each target only the untried donors below its estimate are visited (a numpy
    filter) and the others are skipped as the heap would drop them.
    """
    a = st.alpha_now(donors, t)
    donor_est = NoRedist(st, donors, a, st.tU[donors], t)
    order = np.lexsort((donors, st.tU[donors]))
    fresh_s = donors[order].tolist()
    fresh_key = st.tU[donors][order].tolist()
    first = donor_est.vec(order, donor_est.sig[order] - 2)  # each donor one pair down
    where = {s: pos for pos, s in enumerate(donors.tolist())}
    ptr = 0                                   # untried donors fresh_s[ptr:]
    again: list[tuple[float, int]] = []       # donors that gave a pair: (estimate, donor)
    log: list[tuple[int, int]] = []
    for target, target_e in targets:
        ok = (np.flatnonzero(first[ptr:] < target_e) + ptr).tolist()
        q = 0
        while k < target:
            use_fresh = q < len(ok) and (not again or (fresh_key[ok[q]], fresh_s[ok[q]])
                                         < again[0])
            if use_fresh:
                s, e_s = fresh_s[ok[q]], float(first[ok[q]])
                ptr = ok[q] + 1
                q += 1
            elif again:
                s = heapq.heappop(again)[1]
                e_s = donor_est.one(where[s], ks[s] - 2)
                if e_s >= target_e:
                    continue
            else:
                break
            log.append((s, ks[s]))
            ks[s] -= 2
            k += 2
            if ks[s] >= 4:
                heapq.heappush(again, (e_s, s))
        if k < target:  # donors ran out: roll the partial jump back
            for s, old in reversed(log):
                ks[s] = old
                k -= 2
            break
        log = []
    return k


def _chain(k: int, top: int, est, v0: float, rule: str) -> list[tuple[int, float]]:
    """T_f's targets beyond its count k: the counts up to `top` whose estimate is below every
    earlier one (from `v0`), or the run of strict decreases ('strict_step')."""
    if k + 2 > top:
        return []
    vals = est.range(0, k + 2, top)
    cand = np.arange(k + 2, top + 1, 2)
    if rule == "strict_step":
        dec = np.logical_and.accumulate(vals < np.r_[v0, vals[:-1]])
        keep = np.flatnonzero(dec)
    else:
        keep = np.flatnonzero(vals < np.minimum.accumulate(np.r_[v0, vals])[:-1])
    return list(zip(cand[keep].tolist(), vals[keep].tolist(), strict=True))
