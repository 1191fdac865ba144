"""Exact 2-in-p co-scheduling by matching (spec 001 Thm 1.1, §2.3, spec A-27).

Tasks may run alone (pack {T_i}, cost a_i = t_{i,p}) or in pairs (pack {T_i, T_i'}, cost
w(i,i') = min_j max(t_{i,p-j}, t_{i',j}), the Algorithm 1 cost of the pair, `pair_costs`).
The paper's graph has loops for the singletons; two loop-free constructions are implemented:

``dup`` (spec §2.3): vertices v_i and copies v'_i; edges (v_i, v'_i) of weight a_i,
    (v_i, v_i') of weight w(i,i') and (v'_i, v'_i') of weight 0. Minimum-weight perfect
    matchings (``nx.min_weight_matching``) are co-schedules of equal cost. Any n, odd included.
``gain`` (ours): one vertex per task and an edge (i,i') of weight g = a_i + a_i' - w(i,i')
    when g > 0. Pairing i and i' saves g over running both alone, so
    OPT = sum_i a_i - (maximum-weight matching, not necessarily perfect); unmatched tasks run
    alone, which handles odd n.

Backends (option ``backend``): ``networkx`` (gain graph, ``nx.max_weight_matching``),
``networkx-dup`` (the spec's construction) and ``rustworkx`` (gain graph, the same blossom
algorithm compiled); ``auto`` = rustworkx when installed. ``matching-networkx`` is the registered
name of the networkx backend (`solve_matching_networkx`).

Exactness (decision C15): the weights are the exact integers T = t D of `integer_times.exact_times`
(D = 1 for integer times, a power of two for floats), the blossom codes work on them exactly,
and the result is verified: the makespan of the packs, computed exactly, must equal
(sum_i a_i - G) / D for the matching's gain G. Only then is the status ``optimal``.

Edge elimination (option ``prune``, gain graph, int64 weights): the fractional matching LP
max sum g_e x_e, sum_{e ni i} x_e <= 1, x >= 0 is solved by column generation (HiGHS, dense
reduced costs in numpy); its duals, rounded up to integers u and repaired until
u_i + u_j >= g_e holds exactly for every edge, give rc_e = u_i + u_j - g_e >= 0 and
sum u - G = sum_{e in M} rc_e + sum_{i unmatched} u_i for a matching M of gain G. So every
edge of a matching better than one of gain G0 has rc_e <= sum u - G0 (exact integers). G0 comes
from an exact matching on the LP's support; the exact matching on the surviving edges (plus
the support) is then optimal on the full graph.

The matching runs in a forked child under the time limit (`hardlimit`); networkx's dense
blossom is cubic (about 19 s at n = 300). When time runs out the answer is PACK-APPROX's
packs with the combined pack bound, status ``feasible``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.coschedule import make_packs, pair_costs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.answer import fallback, finish, makespan_unit
from resilsched.models.coschedule.hardlimit import PhaseTimeout, preload, run_limited
from resilsched.models.coschedule.integer_times import exact_times
from resilsched.models.coschedule.options import MatchingNetworkxOptions, MatchingOptions
from resilsched.solution import Solution
from resilsched.solvers import new_highs, run_highs

BACKENDS = ("auto", "networkx", "networkx-dup", "rustworkx")


def have_rustworkx() -> bool:
    try:
        import rustworkx  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise InvalidInstance("backend", f"{backend!r} is unknown (choose from "
                                         f"{', '.join(BACKENDS)})")
    if backend == "auto":
        return "rustworkx" if have_rustworkx() else "networkx"
    if backend == "rustworkx" and not have_rustworkx():
        raise InvalidInstance("backend", "rustworkx is not installed (pip install rustworkx, "
                                         "or choose networkx)")
    return backend


@dataclass
class PairWeights:
    """Exact integer weights of the 2-in-p graph: a_i alone, w(i,i') paired (>= `big`: the
    pair does not fit), and the common denominator D of the times."""

    alone: np.ndarray
    pair: np.ndarray
    d: int
    big: Any

    @classmethod
    def of(cls, inst: CoscheduleInstance) -> PairWeights:
        mat, d, big = exact_times(inst)
        w = pair_costs(mat, inst.p, big)
        return cls(np.diag(w).copy(), w, d, big)

    def gain_edges(self) -> list[tuple[int, int, int]]:
        """(i, j, g) with i < j, the pair feasible and g = a_i + a_j - w(i,j) > 0 (Python ints)."""
        n = len(self.alone)
        iu, ju = np.triu_indices(n, 1)
        w = self.pair[iu, ju]
        g = self.alone[iu] + self.alone[ju] - w
        keep = (w < self.big) & (g > 0)
        return list(zip(iu[keep].tolist(), ju[keep].tolist(), [int(x) for x in g[keep]],
                        strict=True))


@dataclass
class MatchResult:
    """The pairs matched (the other tasks run alone), their exact gain, and facts."""

    pairs: list[tuple[int, int]]
    gain: int
    info: dict = field(default_factory=dict)


def _max_matching(n: int, edges: list[tuple[int, int, int]], backend: str) -> list[tuple[int, int]]:
    """Maximum-weight matching of an integer-weighted graph on vertices 0..n-1."""
    if backend == "networkx":
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_weighted_edges_from(edges)
        return sorted((min(u, v), max(u, v)) for u, v in nx.max_weight_matching(g))
    import rustworkx as rx

    g = rx.PyGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    mate = rx.max_weight_matching(g, max_cardinality=False, weight_fn=lambda x: x,
                                  verify_optimum=False)
    return sorted((min(u, v), max(u, v)) for u, v in mate)


def fractional_matching_duals(gain: np.ndarray, tol: float = 1e-9,
                              start_per_vertex: int = 8) -> tuple[np.ndarray, set]:
    """Optimal duals u of the fractional matching LP (module docstring) by column generation.

    `gain` is a dense symmetric (n, n) float array (<= 0 where pairing is useless). Returns u
    (floats) and the set of generated edges (i < j).
    """
    import highspy

    n = len(gain)
    h = new_highs()
    h.addRows(n, np.full(n, -highspy.kHighsInf), np.ones(n), 0, np.zeros(0, np.int32),
              np.zeros(0, np.int32), np.zeros(0))
    g = np.where(np.isfinite(gain), gain, 0.0).copy()
    np.fill_diagonal(g, 0.0)
    iu, ju = np.triu_indices(n, 1)
    cols: set[tuple[int, int]] = set()

    def add(pairs) -> int:
        new = [(int(i), int(j)) for i, j in pairs if (int(i), int(j)) not in cols]
        if not new:
            return 0
        m = len(new)
        idx = np.array([v for e in new for v in e], np.int32)
        h.addCols(m, -np.array([g[i, j] for i, j in new]), np.zeros(m),
                  np.full(m, highspy.kHighsInf), 2 * m, np.arange(0, 2 * m, 2, dtype=np.int32),
                  idx, np.ones(2 * m))
        cols.update(new)
        return m

    top = np.argsort(-g, axis=1)[:, :start_per_vertex]
    add({(min(i, int(j)), max(i, int(j))) for i in range(n) for j in top[i]
         if g[i, j] > 0 and i != j})
    scale = max(1.0, float(g.max()))
    while True:
        if cols:
            run_highs(h)
            u = -np.array(h.getSolution().row_dual)
        else:
            u = np.zeros(n)
        rc = u[iu] + u[ju] - g[iu, ju]
        bad = np.nonzero(rc < -tol * scale)[0]
        if bad.size == 0:
            return np.maximum(u, 0.0), cols
        m = min(bad.size, max(4 * n, 200))
        pick = bad[np.argpartition(rc[bad], m - 1)[:m]]
        if add(zip(iu[pick], ju[pick], strict=True)) == 0:
            return np.maximum(u, 0.0), cols


def exact_duals(u: np.ndarray, gain: np.ndarray, useful: np.ndarray) -> np.ndarray:
    """Integer duals >= the float duals `u` with u_i + u_j >= gain_ij exactly wherever `useful`
    (int64): round up, then raise each vertex by its largest remaining violation."""
    ui = np.ceil(u).astype(np.int64)
    viol = np.where(useful, gain - ui[:, None] - ui[None, :], 0)
    return ui + np.maximum(viol.max(axis=1), 0)


def pruned_edges(weights: PairWeights, backend: str) -> tuple[list[tuple[int, int, int]], dict]:
    """The gain edges that can belong to an optimal matching (exact LP reduced-cost
    elimination, module docstring). Needs int64 weights."""
    a, w = weights.alone, weights.pair
    n = len(a)
    gain = a[:, None] + a[None, :] - w
    useful = (w < weights.big) & (gain > 0)
    np.fill_diagonal(useful, False)
    u_float, support = fractional_matching_duals(np.where(useful, gain, 0).astype(float))
    u = exact_duals(u_float, gain, useful)
    edges = {(i, j): g for i, j, g in weights.gain_edges()}
    sup_edges = [(i, j, edges[i, j]) for i, j in support if (i, j) in edges]
    m0 = _max_matching(n, sup_edges, backend)
    g0 = sum(edges[e] for e in m0)
    threshold = sum(int(x) for x in u) - g0  # exact Python ints
    iu, ju = np.triu_indices(n, 1)
    rc = u[iu] + u[ju] - gain[iu, ju]
    ok = useful[iu, ju] & (rc <= min(threshold, INT63))
    keep = set(zip(iu[ok].tolist(), ju[ok].tolist(), strict=True)) | support
    kept = [(i, j, edges[i, j]) for i, j in keep if (i, j) in edges]
    return kept, {"lp_columns": len(support), "edges_kept": len(kept),
                  "lp_gain_bound": float(Fraction(sum(int(x) for x in u), weights.d)),
                  "support_gain": float(Fraction(g0, weights.d))}


INT63 = 2**63 - 1


def match_pairs(inst: CoscheduleInstance, backend: str = "auto",
                prune: bool = False) -> MatchResult:
    """The optimal set of pairs and its exact gain (in units of 1/D)."""
    backend = resolve_backend(backend)
    weights = PairWeights.of(inst)
    n = inst.n
    info: dict[str, Any] = {"backend": backend, "denominator": weights.d}
    if inst.k < 2 or n == 1:
        return MatchResult([], 0, info)
    if backend == "networkx-dup":
        import networkx as nx

        g = nx.Graph()
        a, w = weights.alone, weights.pair
        for i in range(n):
            g.add_edge(("v", i), ("c", i), weight=int(a[i]))
            for j in range(i + 1, n):
                if w[i, j] < weights.big:
                    g.add_edge(("v", i), ("v", j), weight=int(w[i, j]))
                g.add_edge(("c", i), ("c", j), weight=0)
        mate = nx.min_weight_matching(g)
        pairs = sorted((min(u[1], v[1]), max(u[1], v[1])) for u, v in mate
                       if u[0] == v[0] == "v")
    elif prune and weights.pair.dtype == np.int64:
        edges, stats = pruned_edges(weights, backend)
        info.update(stats)
        pairs = _max_matching(n, edges, backend)
    else:
        pairs = _max_matching(n, weights.gain_edges(), backend)
    a, w = weights.alone, weights.pair
    gain = sum(int(a[i]) + int(a[j]) - int(w[i, j]) for i, j in pairs)
    return MatchResult(pairs, gain, info)


def _solve(inst: CoscheduleInstance, opts, backend: str, prune: str, method: str) -> Solution:
    if inst.k > 2:
        raise InvalidInstance("k", f"={inst.k}: the matching model solves k <= 2 only (Thm 1.1)")
    resolved = resolve_backend(backend)
    use_prune = resolved == "rustworkx" if prune == "auto" else prune == "on"
    best, lb = fallback(inst)
    preload(("networkx",) if resolved.startswith("networkx") else ("rustworkx",),
            opts.deadline.remaining())
    opts.say(f"maximum-weight matching ({resolved})")
    try:
        res = run_limited(lambda: match_pairs(inst, resolved, use_prune),
                          opts.deadline.remaining())
    except PhaseTimeout:
        opts.say("time limit: answering with PACK-APPROX's packs and the pack bound")
        return finish(inst, opts, method, resolved, best, lb, False, {"killed": True},
                      makespan_unit(inst))
    used = {i for pr in res.pairs for i in pr}
    packs = make_packs(inst, [list(pr) for pr in res.pairs]
                       + [[i] for i in range(inst.n) if i not in used])
    d = res.info["denominator"]
    alone = sum((Fraction(inst.t(i, inst.p)) for i in range(inst.n)), Fraction(0))
    optimum = alone - Fraction(res.gain, d)
    info = {**res.info, "optimality": "exact"}
    proven = packs.exact_makespan == optimum
    if not proven:  # the pack costs disagree with the weights: keep only the proven bound
        info["optimality"] = f"unverified: packs cost {packs.exact_makespan}, matching {optimum}"
    return finish(inst, opts, method, resolved, packs, lb, proven, info, makespan_unit(inst))


def solve_matching(instance: CoscheduleInstance, scenario=None, *,
                   time_limit: float | None = None, **options: Any) -> Solution:
    """Exact 2-in-p by matching (k <= 2 only). Options: `MatchingOptions` (``backend``,
    ``prune``)."""
    opts = MatchingOptions.of(time_limit, options)
    return _solve(instance, opts, opts.backend, opts.prune, "matching")


def solve_matching_networkx(instance: CoscheduleInstance, scenario=None, *,
                            time_limit: float | None = None, **options: Any) -> Solution:
    """Exact 2-in-p with networkx's blossom code on the gain graph (the cross-check of
    ``matching``). Options: `MatchingNetworkxOptions` (``prune``, default off)."""
    opts = MatchingNetworkxOptions.of(time_limit, options)
    return _solve(instance, opts, "networkx", opts.prune, "matching-networkx")
