"""Builders of the p-worker schedules of spec 003 §3 (group schedules, baselines, granularity).

Every builder cuts slices into equal-size chunks (Theorems 3 and 6) and returns a `Plan`: a
`PieceSchedule` (pieces = chunks, one chunk per entry) and how it was built. The registered
heuristics (`resilsched.heuristics.worksharing.run`) are thin wrappers; the exact model reuses
the builders with a `Budget` and a cap on the schedule's size. Arguments shared by all:

- ``n``: chunks *per unit of work* (Section 6's n); a slice of size sl gets
  N = max(1, round(n sl)) chunks (§6 Q2). ``n=None`` chooses the chunk count automatically by
  maximising the exact expected work (§3.4, §6 Q9): geometric grid over [1, N_max] then
  recursive refinement and a final exhaustive window, N_max = min(4000, 2 max(1, sl)/eps) (4000
  when eps = 0), never more than the instance's ``max_chunks`` (nor ``chunk_cap``) per worker;
  a `Budget` stops the search early with the best count seen;
- the instance's epsilon and risk function (the chunk k of a worker ends at k (omega + eps)).

Builders (§3.5, §3.6):

- `group_plan(inst, rule)`: §3.1 partition, then each coterie runs a group chart (a
  `ChartRule`: `GREEDY` or `chart_rule(chart_cyclic)`, ...) expanded with padding and idle
  compression (§3.2). Greedy uses exact integer products under linear risk and the weights
  Pr(step (omega + eps)) otherwise (§3.6, §6 Q7).
- `brute_plan`: the whole workload replicated on every worker, chunks run in index order.
- `no_rep_plan`: round robin, chunk c on worker c mod p, no replication (the automatic chunk
  count is searched up to p x the per-worker cap computed from the local load W/p).
- `cyclic_rep_plan`: round robin continued until every worker holds a local load of maxsl
  (k = floor(maxsl/omega) slots), duplicates dropped (§6 Q11).
- `random_rep_plan`: k = min(N, floor(maxsl/omega)) distinct chunks per worker drawn without
  replacement in random order, independently per worker (§6 Q12), seeded.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from resilsched.heuristics.worksharing.budget import Budget
from resilsched.heuristics.worksharing.charts import (
    chart_greedy,
    chart_greedy_weights,
    chart_positions,
)
from resilsched.heuristics.worksharing.one_worker import thm2_free_linear, thm4_charged_linear
from resilsched.heuristics.worksharing.partition import default_lambda, maxsl_of, partition
from resilsched.heuristics.worksharing.plan import Plan
from resilsched.instances.worksharing.evaluate import PieceSchedule
from resilsched.instances.worksharing.risk import LinearRisk

N_CAP = 4000


# --- granularity (§3.4) --------------------------------------------------------------------------

def n_max(sl: float, eps: float, per_worker_cap: int | None = None, factor: int = 1) -> int:
    """Largest chunk count searched: min(4000, 2 max(1, sl)/eps), capped by max_chunks.

    ``per_worker_cap`` (max_chunks, or the caller's size cap) times ``factor`` (the workers a
    round robin spreads the chunks on) caps it further."""
    cap = N_CAP if eps <= 0 else max(1, min(N_CAP, int(2 * max(1.0, sl) / eps)))
    if per_worker_cap is not None:
        cap = min(cap, per_worker_cap * factor)
    return max(1, cap)


class _Stop(Exception):
    """The budget of a search ran out."""


def _memoised(f: Callable[[int], float], cache: dict[int, float], budget: Budget | None,
              unit: float) -> Callable[[int], float]:
    """f with its values kept in `cache`, each new x spending ``unit * x`` of `budget`;
    raises `_Stop` once the budget is spent (never before the first evaluation)."""

    def F(x: int) -> float:
        if x not in cache:
            if cache and budget is not None and budget.expired():
                raise _Stop
            cache[x] = f(x)
            if budget is not None:
                budget.spend(unit * x)
        return cache[x]

    return F


def argmax_int(f: Callable[[int], float], hi: int, grid: int = 16, refine: int = 8,
               window: int = 6, budget: Budget | None = None, unit: float = 1.0) -> int:
    """Maximise f over integers 1..hi: geometric grid, recursive refinement, exhaustive window.

    Exact maximisation for unimodal f; a robust heuristic otherwise (§3.4, §6 Q9). Evaluating
    f(x) spends ``unit * x`` of `budget`; once it is spent the best x seen is returned (x = 1,
    the cheapest, is always evaluated first).
    """
    cache: dict[int, float] = {}
    F = _memoised(f, cache, budget, unit)

    try:
        _search(F, hi, grid, refine, window)
    except _Stop:
        pass
    return max(cache, key=lambda x: (cache[x], -x))


def _search(F: Callable[[int], float], hi: int, grid: int, refine: int, window: int) -> None:
    """The evaluations of `argmax_int`, cheapest first."""
    lo = 1
    pts = sorted({int(round(x)) for x in np.geomspace(1, hi, grid)} | {1, hi})
    while True:
        vals = [F(x) for x in pts]
        b = int(np.argmax(vals))
        lo = pts[max(b - 1, 0)]
        up = pts[min(b + 1, len(pts) - 1)]
        if up - lo <= 2 * window:
            break
        pts = sorted({int(round(x)) for x in np.linspace(lo, up, refine + 2)})
    for x in range(lo, up + 1):
        F(x)


def argmax_binary(f: Callable[[int], float], hi: int, budget: Budget | None = None,
                  unit: float = 1.0) -> int:
    """Maximise f over 1..hi by binary search, assuming f unimodal (§3.4, the paper's rule):
    compare f(mid) and f(mid + 1) and keep the half that holds the rise; ties keep the
    smaller n. On a function that is not unimodal it may stop at a local maximum. Evaluating
    f(x) spends ``unit * x`` of `budget`; once it is spent the best x seen is returned."""
    cache: dict[int, float] = {}
    F = _memoised(f, cache, budget, unit)

    lo, up = 1, max(1, hi)
    try:
        F(lo)
        while lo < up:
            mid = (lo + up) // 2
            if F(mid) < F(mid + 1):
                lo = mid + 1
            else:
                up = mid
    except _Stop:
        return max(cache, key=lambda x: (cache[x], -x))
    return lo


#: most chunks per slice the binary search considers when X / eps is larger (or infinite)
BINARY_CAP = 100_000


def binary_hi(risk, eps: float, cap: int | None) -> int:
    """The interval [1 .. X/eps] of the paper's search (§3.4), X the risk's horizon (the time
    by which an interruption is certain; `BINARY_CAP` for an unbounded risk or eps = 0),
    within the instance's ``max_chunks``."""
    X = risk.horizon
    hi = BINARY_CAP if eps <= 0 or not math.isfinite(X) else int(min(BINARY_CAP, X / eps))
    return max(1, hi if cap is None else min(hi, cap))


def chunks_for(sl: float, n: float) -> int:
    """N = max(1, round(n sl)) (§6 Q2)."""
    return max(1, int(round(n * sl)))


def _cap(inst, chunk_cap: int | None) -> int | None:
    """Chunks per worker allowed: the instance's max_chunks and the caller's cap, if any."""
    caps = [c for c in (inst.max_chunks, chunk_cap) if c is not None]
    return min(caps) if caps else None


def _fixed_count(sl: float, n: float, cap: int | None, factor: int = 1) -> int:
    """The chunk count of a slice for a given n (chunks per unit of work), within the caps."""
    return min(chunks_for(sl, n), (cap if cap is not None else N_CAP * 100) * factor)


# --- group schedules (§3.1-§3.3, §3.6) -----------------------------------------------------------

#: chart(g, m, weights) of one coterie; `weights` are the failure weights Pr(step time) of the
#: steps 1..g m under a non-linear risk, None under linear risk (exact integer steps)
ChartRule = Callable[[int, int, "np.ndarray | None"], np.ndarray]


def GREEDY(g: int, m: int, weights: np.ndarray | None) -> np.ndarray:
    """(f) the greedy chart: exact integer products, or the risk's step weights (§3.3, §6 Q7)."""
    return chart_greedy(g, m) if weights is None else chart_greedy_weights(g, m, weights)


def chart_rule(chart: Callable[[int, int], np.ndarray]) -> ChartRule:
    """The `ChartRule` of a fixed chart (cyclic, reverse, mirror, snake, fat-snake)."""
    def rule(g: int, m: int, weights: np.ndarray | None) -> np.ndarray:
        return chart(g, m)

    rule.__name__ = chart.__name__
    return rule


#: §6 Q7: weigh greedy steps by Pr(step (omega + eps)) (True, recommended) or by the paper's
#: literal Pr(step omega) (False). Identical orders under linear risk.
GREEDY_WEIGHT_WITH_EPS = True


def coterie_positions(rule: ChartRule, g: int, N: int, risk, omega: float, eps: float,
                      weight_with_eps: bool | None = None) -> np.ndarray:
    """pos[c, i]: position of chunk c in worker i's order (N x g)."""
    if g == 1:
        return np.arange(1, N + 1)[:, None]
    m = -(-N // g)
    weights = None
    if not isinstance(risk, LinearRisk):
        with_eps = GREEDY_WEIGHT_WITH_EPS if weight_with_eps is None else weight_with_eps
        weights = risk.cdf(np.arange(1, g * m + 1) * (omega + (eps if with_eps else 0.0)))
    return chart_positions(rule(g, m, weights), N)


def coterie_expected(rule: ChartRule, g: int, sl: float, N: int, risk, eps: float) -> float:
    """Expected work of one coterie (g workers, slice sl in N equal chunks, chart `rule`)."""
    omega = sl / N
    pos = coterie_positions(rule, g, N, risk, omega, eps)
    fail = np.prod(risk.cdf(pos * (omega + eps)), axis=1)
    return float(omega * np.sum(1.0 - fail))


def _single_worker_theorem(inst, sl: float, n_cap: int) -> np.ndarray | None:
    """§6 Q3 "theorem4" option: Theorem 4 (eps > 0) or Theorem 2 chunks for a g = 1 slice,
    with at most `n_cap` chunks (the optimum among such schedules)."""
    if not isinstance(inst.risk, LinearRisk):
        return None
    X = inst.risk.X
    if inst.eps > 0:
        sol = thm4_charged_linear(sl, X, inst.eps, n_cap)
    else:
        sol = thm2_free_linear(sl, X, n_cap)
    chunks = np.asarray(sol.chunks, dtype=float)
    chunks = chunks[chunks > 0]
    return chunks if chunks.size else None


def group_plan(inst, rule: ChartRule = GREEDY, *, n: float | None = None,
               lam: float | None = None, thm4_single: bool = False, name: str = "greedy",
               budget: Budget | None = None, chunk_cap: int | None = None,
               chunk_search: str = "grid") -> Plan:
    """The group heuristic with chart `rule` (Σ_greedy for `GREEDY`), spec §3.1-§3.4.

    ``chunk_search`` (with ``n=None``) chooses each slice's chunk count: ``grid`` maximises
    the exact expected work by `argmax_int` over [1, `n_max`] (§6 Q9), ``binary`` is the
    paper's rule of §5.2.3: binary search over [1 .. X/eps] on the expected work (Eq. 9,
    which the exact evaluator equals), assuming it unimodal (`argmax_binary`, `binary_hi`).

    ``thm4_single`` (§6 Q3 option) gives single-worker coteries the unequal optimal chunks of
    Theorem 4 (Theorem 2 when eps = 0) under linear risk instead of equal chunks, with at most
    min(max_chunks, 4000) chunks (without max_chunks: 4000, or N = round(n sl) when eps = 0 and
    ``n`` is given).
    ``lam`` is the partition's lambda (None: `default_lambda`).
    """
    risk, eps, p = inst.risk, inst.eps, inst.workers
    lam = default_lambda(risk) if lam is None else lam
    cap = _cap(inst, chunk_cap)
    cots = partition(inst.W, p, maxsl_of(risk, lam))
    sizes, seqs, counts = [], [], []
    offset = 0
    memo: dict[tuple[int, float], int] = {}
    for cot in cots:
        key = (cot.g, cot.sl)
        if thm4_single and cot.g == 1:
            if cap is not None:
                n_cap = min(cap, N_CAP)
            else:
                n_cap = chunks_for(cot.sl, n) if n is not None and eps == 0 else N_CAP
            chunks = _single_worker_theorem(inst, cot.sl, n_cap)
            if chunks is not None:
                counts.append(len(chunks))
                seqs.append(np.arange(len(chunks)) + offset)
                sizes.append(chunks)
                offset += len(chunks)
                continue
        if n is not None:
            N = _fixed_count(cot.sl, n, cap)
        elif key in memo:
            N = memo[key]
        else:
            def work(N: int, c=cot) -> float:
                return coterie_expected(rule, c.g, c.sl, N, risk, eps)

            if chunk_search == "binary":
                N = argmax_binary(work, binary_hi(risk, eps, cap), budget=budget, unit=cot.g)
            else:
                N = argmax_int(work, n_max(cot.sl, eps, cap), budget=budget, unit=cot.g)
            memo[key] = N
        counts.append(N)
        omega = cot.sl / N
        pos = coterie_positions(rule, cot.g, N, risk, omega, eps)
        for i in range(cot.g):
            order = np.empty(N, dtype=np.int64)
            order[pos[:, i] - 1] = np.arange(N)
            seqs.append(order + offset)
        sizes.append(np.full(N, omega))
        offset += N
    sched = PieceSchedule(inst.W, np.concatenate(sizes), tuple(seqs))
    return Plan(sched, name, tuple(counts), tuple(cots))


# --- baselines (§3.5) ----------------------------------------------------------------------------

def _brute_expected(W, p, N, risk, eps):
    omega = W / N
    k = np.arange(1, N + 1)
    return float(omega * np.sum(1.0 - risk.cdf(k * (omega + eps)) ** p))


def brute_plan(inst, *, n: float | None = None, budget: Budget | None = None,
               chunk_cap: int | None = None) -> Plan:
    """Σ_brute: all of W replicated on every worker, chunks in index order."""
    W, p, risk, eps = inst.W, inst.workers, inst.risk, inst.eps
    cap = _cap(inst, chunk_cap)
    if n is not None:
        N = _fixed_count(W, n, cap)
    else:
        N = argmax_int(lambda N: _brute_expected(W, p, N, risk, eps), n_max(W, eps, cap),
                       budget=budget)
    seq = np.arange(N)
    return Plan(PieceSchedule(W, np.full(N, W / N), tuple(seq for _ in range(p))), "brute",
                (N,))


def _norep_expected(W, p, N, risk, eps):
    omega = W / N
    pos = np.arange(N) // p + 1
    return float(omega * np.sum(1.0 - risk.cdf(pos * (omega + eps))))


#: how Σ_no-rep chooses its chunk count N when ``n`` is not given (`no_rep_plan`); the paper
#: does not say (spec 003 §6 Q9, decision WS-20)
NO_REP_RULES = ("grid", "binary", "per-worker", "greedy")
#: most chunks no-rep's binary search considers: E5's largest interval (p = 100 workers times
#: X/eps = 10^4), so that p X/eps stays a bounded size at any p and eps
NO_REP_BINARY_CAP = 1_000_000


def no_rep_count(inst, rule: str = "grid", cap: int | None = None,
                 budget: Budget | None = None) -> int:
    """The chunk count N of Σ_no-rep under `rule` (one of `NO_REP_RULES`).

    - ``grid``: maximise no-rep's exact expected work over N by `argmax_int` (§6 Q9);
    - ``binary``: the paper's binary search (§5.2.3) on the same function, N in
      [1 .. p X/eps] (`binary_hi` per worker, at most `NO_REP_BINARY_CAP`), assuming it
      unimodal;
    - ``per-worker``: N = p m, every worker the same m chunks, m maximising one worker's
      expected work on its share W/p;
    - ``greedy``: the chunk size of Σ_greedy (N = its distinct chunks, grid counts).
    """
    W, p, risk, eps = inst.W, inst.workers, inst.risk, inst.eps

    def work(N: int) -> float:
        return _norep_expected(W, p, N, risk, eps)

    if rule == "grid":
        return argmax_int(work, n_max(W / p, eps, cap) * p, budget=budget)
    if rule == "binary":
        return argmax_binary(work, min(binary_hi(risk, eps, cap) * p, NO_REP_BINARY_CAP),
                             budget=budget)
    if rule == "per-worker":
        m = argmax_int(lambda m: work(m * p), n_max(W / p, eps, cap), budget=budget, unit=p)
        return m * p
    if rule == "greedy":
        return int(sum(group_plan(inst, GREEDY, budget=budget, chunk_cap=cap).chunk_counts))
    raise ValueError(f"no-rep chunk rule {rule!r} is not one of {', '.join(NO_REP_RULES)}")


def no_rep_plan(inst, *, n: float | None = None, budget: Budget | None = None,
                chunk_cap: int | None = None, rule: str = "grid") -> Plan:
    """Σ_no-rep: chunk c on worker c mod p, increasing index order, no replication; with
    ``n=None`` the chunk count by `rule` (`no_rep_count`)."""
    W, p = inst.W, inst.workers
    cap = _cap(inst, chunk_cap)
    N = _fixed_count(W, n, cap, p) if n is not None else no_rep_count(inst, rule, cap, budget)
    seqs = tuple(np.arange(j, N, p) for j in range(p))
    return Plan(PieceSchedule(W, np.full(N, W / N), seqs), "no-rep", (N,))


def _slots(inst, omega: float, lam: float | None, cap: int | None) -> int:
    lam = default_lambda(inst.risk) if lam is None else lam
    load = min(maxsl_of(inst.risk, lam), inst.W)
    k = max(1, int(math.floor(load / omega + 1e-9)))
    return k if cap is None else min(k, cap)


def _cyclic_slots(p: int, N: int, k: int) -> np.ndarray:
    """Slots t of the round robin, chunk t mod N to worker t mod p, duplicates dropped.

    The pair (t mod p, t mod N) repeats exactly with period lcm(p, N) (Chinese remainder), so
    dropping duplicates = keeping t < min(p k, lcm(p, N)); worker t mod p runs its slots in
    order, slot t at position t // p + 1.
    """
    return np.arange(min(p * max(k, 1), math.lcm(p, N)))


def _cyclic_seqs(p: int, N: int, k: int) -> tuple[np.ndarray, ...]:
    t = _cyclic_slots(p, N, k)
    return tuple(t[j::p] % N for j in range(p))


def _cyclic_expected(W, p, N, k, risk, eps):
    omega = W / N
    t = _cyclic_slots(p, N, k)
    with np.errstate(divide="ignore"):
        lf = np.log(risk.cdf((t // p + 1) * (omega + eps)))
    logfail = np.bincount(t % N, weights=lf, minlength=N)
    held = np.bincount(t % N, minlength=N) > 0
    return float(omega * np.sum(np.where(held, 1.0 - np.exp(logfail), 0.0)))


def cyclic_rep_plan(inst, *, n: float | None = None, lam: float | None = None,
                    budget: Budget | None = None, chunk_cap: int | None = None) -> Plan:
    """Σ_cyclic-rep: round robin until each worker holds a local load of maxsl (§6 Q11)."""
    W, p, risk, eps = inst.W, inst.workers, inst.risk, inst.eps
    cap = _cap(inst, chunk_cap)
    if n is not None:
        N = _fixed_count(W, n, cap, p)
    else:
        N = argmax_int(
            lambda N: _cyclic_expected(W, p, N, _slots(inst, W / N, lam, cap), risk, eps),
            n_max(W / p, eps, cap) * p, budget=budget)
    omega = W / N
    seqs = _cyclic_seqs(p, N, _slots(inst, omega, lam, cap))
    return Plan(PieceSchedule(W, np.full(N, omega), seqs), "cyclic-rep", (N,))


def random_rep_plan(inst, *, n: float | None = None, seed: int = 0, lam: float | None = None,
                    budget: Budget | None = None, chunk_cap: int | None = None) -> Plan:
    """Σ_random-rep: k distinct random chunks per worker in random order (§6 Q12), seeded.

    With ``n=None`` the chunk count is the one chosen for cyclic-rep (same local loads).
    """
    W, p = inst.W, inst.workers
    cap = _cap(inst, chunk_cap)
    if n is not None:
        N = _fixed_count(W, n, cap, p)
    else:
        N = cyclic_rep_plan(inst, lam=lam, budget=budget, chunk_cap=chunk_cap).chunk_counts[0]
    omega = W / N
    k = min(N, _slots(inst, omega, lam, cap))
    rng = np.random.default_rng(seed)
    seqs = tuple(rng.permutation(N)[:k] for _ in range(p))
    return Plan(PieceSchedule(W, np.full(N, omega), seqs), "random-rep", (N,))
