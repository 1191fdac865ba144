"""The p-worker heuristics of spec 003 §3 (group schedules, baselines, granularity).

Every heuristic cuts slices into equal-size chunks (Theorems 3 and 6) and returns a
`PieceSchedule` (pieces = chunks, one chunk per entry). Parameters shared by all:

- ``n``: chunks *per unit of work* (Section 6's n); a slice of size sl gets
  N = max(1, round(n sl)) chunks (§6 Q2). ``n=None`` chooses the chunk count automatically by
  maximising the exact expected work (§3.4, §6 Q9): geometric grid over [1, N_max] then
  recursive refinement and a final exhaustive window, N_max = min(4000, 2 max(1, sl)/eps) (4000
  when eps = 0), and never more than the instance's ``max_chunks`` per worker.
- the instance's epsilon and risk function (the chunk k of a worker ends at k (omega + eps)).

Heuristics (§3.5, §3.6):

- ``group(chart)``: §3.1 partition, then each coterie runs a group chart (cyclic, reverse,
  mirror, snake, fat-snake, greedy) expanded with padding and idle compression (§3.2).
  Greedy uses exact integer products under linear risk and the weights Pr(step (omega + eps))
  otherwise (§3.6, §6 Q7).
- ``brute``: the whole workload replicated on every worker, chunks run in index order.
- ``no_rep``: round robin, chunk c on worker c mod p, no replication (the automatic chunk
  count is searched up to p x the per-worker cap computed from the local load W/p).
- ``cyclic_rep``: round robin continued until every worker holds a local load of maxsl
  (k = floor(maxsl/omega) slots), duplicates dropped (§6 Q11).
- ``random_rep``: k = min(N, floor(maxsl/omega)) distinct chunks per worker drawn without
  replacement in random order, independently per worker (§6 Q12), seeded.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from resilsched.heuristics.worksharing.charts import (
    CHARTS,
    chart_greedy,
    chart_greedy_weights,
    chart_positions,
)
from resilsched.heuristics.worksharing.partition import (
    Coterie,
    default_lambda,
    maxsl_of,
    partition,
)
from resilsched.instances.worksharing.risk import LinearRisk
from resilsched.models.worksharing.evaluate import PieceSchedule

N_CAP = 4000


@dataclass
class Plan:
    """A heuristic's schedule and how it was built."""

    schedule: PieceSchedule
    name: str
    chunk_counts: list[int] = field(default_factory=list)
    coteries: list[Coterie] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {"heuristic": self.name, "chunk_counts": self.chunk_counts,
             "coteries": [{"g": c.g, "sl": c.sl} for c in self.coteries]}
        d.update(self.schedule.to_dict())
        return d


# --- granularity (§3.4) --------------------------------------------------------------------------

def n_max(sl: float, eps: float, per_worker_cap: int | None = None, factor: int = 1) -> int:
    """Largest chunk count searched: min(4000, 2 max(1, sl)/eps), capped by max_chunks."""
    cap = N_CAP if eps <= 0 else max(1, min(N_CAP, int(2 * max(1.0, sl) / eps)))
    if per_worker_cap is not None:
        cap = min(cap, per_worker_cap * factor)
    return max(1, cap)


def argmax_int(f: Callable[[int], float], hi: int, grid: int = 16, refine: int = 8,
               window: int = 6) -> int:
    """Maximise f over integers 1..hi: geometric grid, recursive refinement, exhaustive window.

    Exact maximisation for unimodal f; a robust heuristic otherwise (§3.4, §6 Q9).
    """
    cache: dict[int, float] = {}

    def F(x: int) -> float:
        if x not in cache:
            cache[x] = f(x)
        return cache[x]

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
    return max(cache, key=lambda x: (cache[x], -x))


def chunks_for(sl: float, n: float | None) -> int:
    """N = max(1, round(n sl)) (§6 Q2)."""
    return max(1, int(round(n * sl)))


# --- group schedules (§3.1-§3.3, §3.6) -----------------------------------------------------------

def _chart(name: str, g: int, m: int, risk, step_time: float) -> np.ndarray:
    if name == "greedy":
        if isinstance(risk, LinearRisk):
            return chart_greedy(g, m)
        return chart_greedy_weights(g, m, risk.cdf(np.arange(1, g * m + 1) * step_time))
    return CHARTS[name](g, m)


#: §6 Q7: weigh greedy steps by Pr(step (omega + eps)) (True, recommended) or by the paper's
#: literal Pr(step omega) (False). Identical orders under linear risk.
GREEDY_WEIGHT_WITH_EPS = True


def coterie_positions(name: str, g: int, N: int, risk, omega: float, eps: float,
                      weight_with_eps: bool | None = None) -> np.ndarray:
    """pos[c, i]: position of chunk c in worker i's order (N x g)."""
    if g == 1:
        return np.arange(1, N + 1)[:, None]
    m = -(-N // g)
    with_eps = GREEDY_WEIGHT_WITH_EPS if weight_with_eps is None else weight_with_eps
    return chart_positions(_chart(name, g, m, risk, omega + (eps if with_eps else 0.0)), N)


def coterie_expected(name: str, g: int, sl: float, N: int, risk, eps: float) -> float:
    """Expected work of one coterie (g workers, slice sl in N equal chunks, chart `name`)."""
    omega = sl / N
    pos = coterie_positions(name, g, N, risk, omega, eps)
    fail = np.prod(risk.cdf(pos * (omega + eps)), axis=1)
    return float(omega * np.sum(1.0 - fail))


def _single_worker_theorem(inst, sl: float, N: int | None) -> np.ndarray | None:
    """§6 Q3 "theorem4" option: Theorem 4 (eps > 0) or Theorem 2 chunks for a g = 1 slice."""
    from resilsched.models.worksharing.one_worker import thm2_free_linear, thm4_charged_linear

    if not isinstance(inst.risk, LinearRisk):
        return None
    X = inst.risk.X
    if inst.eps > 0:
        sol = thm4_charged_linear(sl, X, inst.eps, inst.max_chunks)
    else:
        n = inst.max_chunks or N or N_CAP
        sol = thm2_free_linear(sl, X, n)
    chunks = np.array([c for c in sol.chunks if c > 0])
    return chunks if chunks.size else None


def group_schedule(inst, chart: str = "greedy", n: float | None = None,
                   lam: float | None = None, case_a: str = "equal") -> Plan:
    """The group heuristic with the given chart (Σ_greedy for chart='greedy').

    ``case_a="theorem4"`` (§6 Q3 option) gives single-worker coteries the unequal optimal
    chunks of Theorem 4 (Theorem 2 when eps = 0) under linear risk instead of equal chunks.
    """
    risk, eps, p = inst.risk, inst.eps, inst.workers
    lam = default_lambda(risk) if lam is None else lam
    cots = partition(inst.W, p, maxsl_of(risk, lam))
    sizes, seqs, counts = [], [], []
    offset = 0
    memo: dict[tuple[int, float], int] = {}
    for cot in cots:
        key = (cot.g, cot.sl)
        if case_a == "theorem4" and cot.g == 1:
            chunks = _single_worker_theorem(inst, cot.sl, None if n is None
                                            else chunks_for(cot.sl, n))
            if chunks is not None:
                counts.append(len(chunks))
                seqs.append(np.arange(len(chunks)) + offset)
                sizes.append(chunks)
                offset += len(chunks)
                continue
        if n is not None:
            N = min(chunks_for(cot.sl, n), inst.max_chunks or N_CAP * 100)
        elif key in memo:
            N = memo[key]
        else:
            N = argmax_int(lambda N, c=cot: coterie_expected(chart, c.g, c.sl, N, risk, eps),
                           n_max(cot.sl, eps, inst.max_chunks))
            memo[key] = N
        counts.append(N)
        omega = cot.sl / N
        pos = coterie_positions(chart, cot.g, N, risk, omega, eps)
        for i in range(cot.g):
            order = np.empty(N, dtype=np.int64)
            order[pos[:, i] - 1] = np.arange(N)
            seqs.append(order + offset)
        sizes.append(np.full(N, omega))
        offset += N
    sched = PieceSchedule(inst.W, np.concatenate(sizes), tuple(seqs))
    name = "greedy" if chart == "greedy" else f"group-{chart}"
    return Plan(sched, name + ("-thm4" if case_a == "theorem4" else ""), counts, cots)


# --- baselines (§3.5) ----------------------------------------------------------------------------

def _brute_expected(W, p, N, risk, eps):
    omega = W / N
    k = np.arange(1, N + 1)
    return float(omega * np.sum(1.0 - risk.cdf(k * (omega + eps)) ** p))


def brute(inst, n: float | None = None) -> Plan:
    """Σ_brute: all of W replicated on every worker, chunks in index order."""
    W, p, risk, eps = inst.W, inst.workers, inst.risk, inst.eps
    if n is not None:
        N = min(chunks_for(W, n), inst.max_chunks or N_CAP * 100)
    else:
        N = argmax_int(lambda N: _brute_expected(W, p, N, risk, eps),
                       n_max(W, eps, inst.max_chunks))
    seq = np.arange(N)
    return Plan(PieceSchedule(W, np.full(N, W / N), tuple(seq for _ in range(p))), "brute", [N])


def _norep_expected(W, p, N, risk, eps):
    omega = W / N
    pos = np.arange(N) // p + 1
    return float(omega * np.sum(1.0 - risk.cdf(pos * (omega + eps))))


def no_rep(inst, n: float | None = None) -> Plan:
    """Σ_no-rep: chunk c on worker c mod p, increasing index order, no replication."""
    W, p, risk, eps = inst.W, inst.workers, inst.risk, inst.eps
    if n is not None:
        N = chunks_for(W, n)
        if inst.max_chunks:
            N = min(N, inst.max_chunks * p)
    else:
        N = argmax_int(lambda N: _norep_expected(W, p, N, risk, eps),
                       n_max(W / p, eps, inst.max_chunks) * p)
    seqs = tuple(np.arange(j, N, p) for j in range(p))
    return Plan(PieceSchedule(W, np.full(N, W / N), seqs), "no-rep", [N])


def _slots(inst, omega: float, lam: float | None) -> int:
    lam = default_lambda(inst.risk) if lam is None else lam
    load = min(maxsl_of(inst.risk, lam), inst.W)
    k = max(1, int(math.floor(load / omega + 1e-9)))
    return k if inst.max_chunks is None else min(k, inst.max_chunks)


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


def cyclic_rep(inst, n: float | None = None, lam: float | None = None) -> Plan:
    """Σ_cyclic-rep: round robin until each worker holds a local load of maxsl (§6 Q11)."""
    W, p, risk, eps = inst.W, inst.workers, inst.risk, inst.eps

    def build(N: int) -> PieceSchedule:
        omega = W / N
        return PieceSchedule(W, np.full(N, omega), _cyclic_seqs(p, N, _slots(inst, omega, lam)))

    if n is not None:
        N = chunks_for(W, n)
        if inst.max_chunks:
            N = min(N, inst.max_chunks * p)
    else:
        N = argmax_int(lambda N: _cyclic_expected(W, p, N, _slots(inst, W / N, lam), risk, eps),
                       n_max(W / p, eps, inst.max_chunks) * p)
    return Plan(build(N), "cyclic-rep", [N])


def random_rep(inst, n: float | None = None, seed: int = 0, lam: float | None = None) -> Plan:
    """Σ_random-rep: k distinct random chunks per worker in random order (§6 Q12), seeded.

    With ``n=None`` the chunk count is the one chosen for cyclic-rep (same local loads).
    """
    W, p = inst.W, inst.workers
    N = chunks_for(W, n) if n is not None else cyclic_rep(inst, None, lam).chunk_counts[0]
    if inst.max_chunks and n is not None:
        N = min(N, inst.max_chunks * p)
    omega = W / N
    k = min(N, _slots(inst, omega, lam))
    rng = np.random.default_rng(seed)
    seqs = tuple(rng.permutation(N)[:k] for _ in range(p))
    return Plan(PieceSchedule(W, np.full(N, omega), seqs), "random-rep", [N])


GROUP_HEURISTICS = ("greedy", "greedy-thm4", "group-cyclic", "group-reverse", "group-mirror",
                    "group-snake", "group-fat-snake")
BASELINES = ("brute", "no-rep", "cyclic-rep", "random-rep")


def run_heuristic(name: str, inst, n: float | None = None, seed: int = 0) -> Plan:
    """Dispatch by registry name."""
    if name == "greedy":
        return group_schedule(inst, "greedy", n)
    if name == "greedy-thm4":
        return group_schedule(inst, "greedy", n, case_a="theorem4")
    if name.startswith("group-"):
        return group_schedule(inst, name[len("group-"):], n)
    if name == "brute":
        return brute(inst, n)
    if name == "no-rep":
        return no_rep(inst, n)
    if name == "cyclic-rep":
        return cyclic_rep(inst, n)
    if name == "random-rep":
        return random_rep(inst, n, seed)
    raise KeyError(name)
