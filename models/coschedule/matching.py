"""Exact 2-in-p co-scheduling by matching (spec 001 Thm 1.1, §2.3, spec A-27).

Tasks may run alone (pack {T_i}, cost a_i = t_{i,p}) or in pairs (pack {T_i, T_i'}, cost
w(i,i') = min_j max(t_{i,p-j}, t_{i',j}), the Algorithm 1 cost of the pair, `pair_cost_matrix`).
The paper's graph has loops for the singletons; two loop-free constructions are implemented:

``dup`` (spec §2.3): vertices v_i and copies v'_i; edges (v_i, v'_i) of weight a_i,
    (v_i, v_i') of weight w(i,i') and (v'_i, v'_i') of weight 0. Minimum-weight perfect
    matchings (``nx.min_weight_matching``) are co-schedules of equal cost. Any n, odd included:
    v_i - v'_i always completes a perfect matching.
``gain`` (ours): one vertex per task and an edge (i,i') of weight g = a_i + a_i' - w(i,i')
    when g > 0. Pairing i and i' saves g over running both alone, so
    OPT = sum_i a_i - (maximum-weight matching, not necessarily perfect); unmatched tasks run
    alone, which handles odd n. n vertices instead of 2n and no zero clique.

Backends: ``networkx`` (gain graph, ``nx.max_weight_matching``), ``networkx-dup`` (the spec's
construction) and ``rustworkx`` (gain graph, ``rustworkx.max_weight_matching``, the same blossom
algorithm compiled; optional dependency).

Edge elimination (``prune=True``, gain graph only): the fractional matching LP
max sum g_e x_e, sum_{e ni i} x_e <= 1, x >= 0 is solved by column generation (HiGHS, dense
reduced costs in numpy); its duals u >= 0 give rc_e = u_i + u_j - g_e >= 0 and the bound
sum u. A matching M of gain G satisfies sum u - G = sum_{e in M} rc_e + sum_{i unmatched} u_i, so
every edge of a matching better than a known one of gain G0 has rc_e <= sum u - G0. G0 comes
from an exact matching on the LP's support; the exact matching on the surviving edges (plus
the support) is then optimal on the full graph. The blossom algorithm runs on a sparse graph.

All run on integer weights: exact for integer times;
for float times the weights are scaled by a power of two s (max weight ~ 2^50) and rounded, which
costs at most n/(2s) (the reported bound; ``exact_scaling`` False).
"""

from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.common import make_payload
from resilsched.models.coschedule.onepack import pair_cost_matrix
from resilsched.solution import Solution, Status

BACKENDS = ("auto", "networkx", "networkx-dup", "rustworkx")


def have_rustworkx() -> bool:
    try:
        import rustworkx  # noqa: F401
    except ImportError:
        return False
    return True


def integer_weights(inst: CoscheduleInstance) -> tuple[np.ndarray, np.ndarray, float, bool]:
    """(alone a_i, pair matrix w, scale s, exact) as int64 arrays (w = -1 where infeasible)."""
    w = pair_cost_matrix(inst)
    a = np.diag(w).copy()
    if inst.integral:
        wi = np.where(np.isfinite(w), w, -1).astype(np.int64)
        return a.astype(np.int64), wi, 1.0, True
    top = float(np.max(a)) * 2.0
    s = 2.0 ** math.floor(math.log2(2.0 ** 50 / top))
    wi = np.where(np.isfinite(w), np.rint(w * s), -1).astype(np.int64)
    return np.rint(a * s).astype(np.int64), wi, s, False


def _gain_edges(a: np.ndarray, w: np.ndarray) -> list[tuple[int, int, int]]:
    n = len(a)
    iu, ju = np.triu_indices(n, 1)
    ok = w[iu, ju] >= 0
    g = a[iu] + a[ju] - w[iu, ju]
    keep = ok & (g > 0)
    return list(zip(iu[keep].tolist(), ju[keep].tolist(), g[keep].tolist(), strict=True))


def _max_matching(n: int, edges: list[tuple[int, int, int]], backend: str) -> list[tuple[int, int]]:
    """Maximum-weight matching of an integer-weighted graph on vertices 0..n-1."""
    if backend == "networkx":
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
    and the set of generated edges (i < j).
    """
    import highspy

    n = len(gain)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
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
            h.run()
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


def pruned_edges(inst: CoscheduleInstance, a: np.ndarray, w: np.ndarray,
                 backend: str) -> tuple[list[tuple[int, int, int]], dict]:
    """The gain edges that can belong to an optimal matching (LP reduced-cost elimination)."""
    wf = pair_cost_matrix(inst)
    af = np.diag(wf)
    gain = af[:, None] + af[None, :] - wf
    u, support = fractional_matching_duals(gain)
    n = len(a)
    ia = {(i, j): g for i, j, g in _gain_edges(a, w)}
    sup_edges = [(i, j, ia[i, j]) for i, j in support if (i, j) in ia]
    m0 = _max_matching(n, sup_edges, backend)
    g0 = float(sum(gain[i, j] for i, j in m0))
    thr = float(u.sum()) - g0 + 1e-7 * max(1.0, float(u.sum()))
    iu, ju = np.triu_indices(n, 1)
    rc = u[iu] + u[ju] - np.where(np.isfinite(gain[iu, ju]), gain[iu, ju], -np.inf)
    keep = set(zip(iu[rc <= thr].tolist(), ju[rc <= thr].tolist(), strict=True)) | support
    edges = [(i, j, ia[i, j]) for i, j in keep if (i, j) in ia]
    return edges, {"lp_columns": len(support), "edges_kept": len(edges),
                   "lp_gain_bound": float(u.sum()), "support_gain": g0}


def match_pairs(inst: CoscheduleInstance, backend: str = "auto", prune: bool = False,
                info: dict | None = None) -> tuple[list[tuple[int, int]], float, bool]:
    """The optimal set of pairs (the other tasks run alone); also (scale, exact)."""
    if backend not in BACKENDS:
        raise InvalidInstance("backend", f"{backend!r} is unknown (choose from {BACKENDS})")
    if backend == "auto":
        backend = "rustworkx" if have_rustworkx() else "networkx"
    a, w, s, exact = integer_weights(inst)
    n = inst.n
    if inst.k < 2 or n == 1:
        return [], s, exact
    if prune and backend != "networkx-dup":
        edges, stats = pruned_edges(inst, a, w, backend)
        if info is not None:
            info.update(stats)
        return _max_matching(n, edges, backend), s, exact
    if backend == "networkx-dup":
        g = nx.Graph()
        for i in range(n):
            g.add_edge(("v", i), ("c", i), weight=int(a[i]))
            for j in range(i + 1, n):
                if w[i, j] >= 0:
                    g.add_edge(("v", i), ("v", j), weight=int(w[i, j]))
                g.add_edge(("c", i), ("c", j), weight=0)
        mate = nx.min_weight_matching(g)
        pairs = [(min(u[1], v[1]), max(u[1], v[1])) for u, v in mate if u[0] == v[0] == "v"]
    else:
        pairs = _max_matching(n, _gain_edges(a, w), backend)
    return sorted(pairs), s, exact


def solve_matching(inst: CoscheduleInstance, scenario=None, time_limit: float | None = None,
                   backend: str = "auto", prune: bool | None = None) -> Solution:
    """Exact 2-in-p by matching (k <= 2 only). The time limit is not enforced (polynomial).

    `prune` eliminates edges by LP reduced costs before the blossom algorithm; by default it is
    on for rustworkx (whose blossom code profits from sparsity) and off for networkx.
    """
    if prune is None:
        resolved = backend if backend != "auto" else (
            "rustworkx" if have_rustworkx() else "networkx")
        prune = resolved == "rustworkx"
    if inst.k > 2:
        raise InvalidInstance("k", f"={inst.k}: the matching model solves k <= 2 only (Thm 1.1)")
    t0 = time.perf_counter()
    info: dict = {}
    pairs, s, exact = match_pairs(inst, backend, prune=prune, info=info)
    used = {i for pr in pairs for i in pr}
    packs = [list(pr) for pr in pairs] + [[i] for i in range(inst.n) if i not in used]
    payload = make_payload(inst, packs)
    obj = sum((d["time"] for d in payload["packs"]), 0)
    bound = obj if exact else obj - inst.n / (2 * s)
    payload.update(info)
    name = "matching" if backend == "auto" else f"matching-{backend}"
    solver = backend if backend != "auto" else ("rustworkx" if have_rustworkx() else "networkx")
    return Solution(obj, bound, Status.OPTIMAL, name, solver, time.perf_counter() - t0,
                    scale=int(s), exact_scaling=exact, payload=payload)
