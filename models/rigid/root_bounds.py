"""Lower bounds on the makespan of a scaled scenario, computed before the search (spec 002 §7).

All in integer arithmetic on a `ScaledScenario` (times x scale), cheapest first:

* `chain_area_bound` — ceil(L(f)) of the scaled data: the paper's normaliser L(f) (§7,
  `resilsched.bounds.rigid.lower_bound` on the instance) in scaled units, rounded up;
* `clique_chain_bound` — the attempts of a conflict clique (pairwise p_i + p_j > P) run one by
  one (§7 LB_big, generalised to cliques);
* `dff_energy_bound` — energy bounds with dual-feasible functions [OURS];
* `configuration_lp_bound` — the configuration LP (`resilsched.models.rigid.config_lp`) [OURS].

`lower_bound_scaled` takes the maximum, the expensive ones only while its deadline allows: a
bound cut short is still valid (a maximum over fewer functions, or an LP certificate from
non-optimal duals), only weaker.
"""

from __future__ import annotations

import itertools
import operator
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from resilsched.deadline import Deadline
from resilsched.models.rigid.config_lp import MAX_ROUNDS, affordable, configuration_lp_bound
from resilsched.models.rigid.scaling import ScaledScenario

#: Rows x widths of one numpy block when screening the dual-feasible functions.
_BLOCK = 1 << 20


def _by_width(p: Sequence[int]) -> tuple[list[int], Callable[[int], int]]:
    """The jobs widest first, and x -> how many of them are wider than x (a prefix)."""
    neg_p = -np.asarray(p, dtype=np.int64)
    idx = np.argsort(neg_p, kind="stable")  # widest first, ties by index
    order, neg = idx.tolist(), neg_p[idx].tolist()  # neg ascending
    return order, lambda x: bisect_left(neg, -x)


def iter_conflict_cliques(p: Sequence[int], P: int) -> Iterator[list[int]]:
    """The cliques of `conflict_cliques`, unsorted: W first, then the C_k, largest first.

    Lazy, so that a caller with a budget stops early: their total size can be quadratic in n.
    O(n log n) before the first one, then O(|C| log |C|) each.
    """
    order, wider = _by_width(p)
    narrow = [k for k in order if 2 * p[k] <= P]  # widest first
    n_wide = wider(P // 2)
    covered = bool(narrow) and n_wide > 0 and wider(P - p[narrow[0]]) >= n_wide
    if n_wide >= 2 and not covered:
        yield sorted(order[:n_wide])
    for k in narrow:
        size = wider(P - p[k])
        if size == 0:
            break  # narrower jobs conflict with no job either
        yield sorted([k, *order[:size]])


def conflict_cliques(p: Sequence[int], P: int) -> list[list[int]]:
    """Maximal sets of jobs with pairwise p_i + p_j > P (spec 002 §7, "[INFERRED] chain").

    A set is such a clique iff its two narrowest members already sum to more than P. So every
    maximal clique is W = {j : p_j > P/2} extended by at most one job k with p_k <= P/2, namely
    C_k = {k} u {j : p_j > P - p_k}; the list holds W and each C_k not contained in another,
    only those with at least two jobs. No C_k lies in another C_l (k is in C_l only if
    p_k > P - p_l >= P/2) nor in W (k is not wide); W lies in C_k iff every wide job is wider
    than P - p_k, for the widest such k if for any. Sorted; `iter_conflict_cliques` is the
    lazy form.
    """
    return sorted(iter_conflict_cliques(p, P))


def chain_area_bound(data: ScaledScenario) -> int:
    """ceil(L(f)) on the scaled data: max(max_j m_j t_j, ceil(sum_j m_j p_j t_j / P)) (§7).

    With an exact scaling this is ceil(scale x L(f)); the one L(f) of the toolkit, in the
    instance's unit, is `resilsched.bounds.rigid.lower_bound`.
    """
    work = data.work()
    area = sum(w * pj for w, pj in zip(work, data.p, strict=True))
    return max(max(work), -(-area // data.P))


def clique_chain_bound(data: ScaledScenario) -> int:
    """max over conflict cliques K of sum_{j in K} m_j t_j (§7 LB_big, generalised to cliques).

    Jobs of a clique never run at the same time, so their attempts are processed one by one.
    Every clique of `conflict_cliques` is W or {k} plus a prefix of the jobs sorted by width:
    prefix sums give each weight without listing it, O(n log n) in all (a non-maximal W weighs
    less than the C_k holding it, so it may be counted too).
    """
    work, P = data.work(), data.P
    order, wider = _by_width(data.p)
    prefix = [0, *itertools.accumulate(work[j] for j in order)]
    n_wide = wider(P // 2)
    best = prefix[n_wide] if n_wide >= 2 else 0
    for k in order[n_wide:]:
        size = wider(P - data.p[k])
        if size == 0:
            break
        best = max(best, work[k] + prefix[size])
    return best


@dataclass(frozen=True)
class DualFeasible:
    """A dual-feasible function u, scaled to integers: ``values[i] = den u(x_i) / u(P)`` for the
    widths ``x``, so that sum_j u(p_j) / u(P) <= 1 reads sum_j values(p_j) <= den on every
    set of jobs that fit together. ``name`` says which member of the two families it is."""

    name: str
    values: dict[int, int]
    den: int

    def row(self, p: Sequence[int]) -> list[int]:
        return [self.values[x] for x in p]


def _u_eps(x: np.ndarray, P: int, eps: np.ndarray) -> np.ndarray:
    """u_eps(x) = P if x > P - eps, 0 if x < eps, x otherwise (rows: eps, columns: x)."""
    X = np.broadcast_to(x, (len(eps), len(x)))
    E = eps[:, None]
    return np.where(X > P - E, P, np.where(X < E, 0, X))


def _eps_energies(widths: np.ndarray, wf: np.ndarray, P: int, eps: np.ndarray) -> np.ndarray:
    """sum_x wf_x u_eps(x) / P for each eps <= P/2, by prefix sums over the sorted `widths`
    (= ``_u_eps(widths, P, eps) @ wf / P`` in O((n + |eps|) log n) instead of n |eps|): the
    widths in [eps, P - eps] count x, those above P - eps count P."""
    cw = np.concatenate([[0.0], np.cumsum(wf)])
    cxw = np.concatenate([[0.0], np.cumsum(widths * wf)])
    lo = np.searchsorted(widths, eps, side="left")  # first x >= eps
    hi = np.searchsorted(widths, P - eps, side="right")  # first x > P - eps
    return (cxw[hi] - cxw[lo] + P * (cw[-1] - cw[hi])) / P


def _k_u_k(x: np.ndarray, P: int, k: np.ndarray) -> np.ndarray:
    """k u^(k)(x) = k x if (k+1) x / P is an integer, else floor((k+1) x / P) P."""
    K = k[:, None]
    q, r = np.divmod((K + 1) * x[None, :], P)
    return np.where(r == 0, K * x[None, :], q * P)


def _eps_candidates(widths: np.ndarray, P: int) -> np.ndarray:
    """The eps in 1..P/2 at which u_eps changes on `widths` (x < eps starts at eps = x + 1,
    x > P - eps at eps = P - x + 1), and eps = 1: every value of the family is met there."""
    cands = {1} | {int(x) + 1 for x in widths} | {P - int(x) + 1 for x in widths}
    return np.array(sorted(e for e in cands if 1 <= e <= P // 2), dtype=np.int64)


@dataclass
class DffScreen:
    """The dual-feasible functions ranked by their energy bound on a work vector."""

    best: int = 0
    top: list[DualFeasible] = field(default_factory=list)
    complete: bool = True


def dff_screen(data: ScaledScenario, keep: int = 8, deadline: Deadline | None = None,
               max_k: int | None = None) -> DffScreen:
    """Energy bounds with dual-feasible functions: ceil(sum_j w_j u(p_j) / u(P)) [OURS].

    At every instant the running jobs use at most P processors, so for a dual-feasible u
    (sum_i p_i <= P implies sum_i u(p_i) <= u(P)) sum_j u(p_j) x (time j runs) <= u(P) x C;
    integrating gives C >= sum_j w_j u(p_j) / u(P), w_j = m_j t_j. With u = identity this is
    the area bound of Eq. (6). The two classical families of Fekete and Schepers (2001), for
    every parameter:

    * u_eps(x) = P if x > P - eps, 0 if x < eps, x otherwise, for 1 <= eps <= P/2;
    * u^(k)(x) = x if (k+1) x / P is an integer, else floor((k+1) x / P) P / k, for k = 1..P.

    Screened in floating point, block by block of k (stopping at `deadline`, or after `max_k`
    values of k, a work limit that does not depend on the clock), then the `keep`
    best functions are evaluated exactly in integers; ``best`` is the largest exact bound and
    ``top`` those functions (for the cuts of the refutation search).
    """
    P = data.P
    widths = np.array(sorted(set(data.p)), dtype=np.int64)
    weight = {x: 0 for x in widths.tolist()}
    for w, x in zip(data.work(), data.p, strict=True):
        weight[x] += w
    wf = np.array([float(weight[x]) for x in widths.tolist()])
    scored: list[tuple[float, str, int]] = []  # (approximate bound, family, parameter)
    eps = _eps_candidates(widths, P)
    if len(eps):
        vals = _eps_energies(widths, wf, P, eps)
        scored += [(float(v), "eps", int(e)) for v, e in zip(vals, eps, strict=True)]
    step = max(1, _BLOCK // max(1, len(widths)))
    last = P if max_k is None else min(P, max_k)
    complete = last == P
    for lo in range(1, last + 1, step):
        if deadline is not None and deadline.expired():
            complete = False
            break
        k = np.arange(lo, min(last, lo + step - 1) + 1, dtype=np.int64)
        vals = (_k_u_k(widths, P, k).astype(float) @ wf) / (k * P)
        order = np.argsort(-vals)[: 4 * keep]
        scored += [(float(vals[i]), "k", int(k[i])) for i in order]
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    xs = widths.tolist()
    ws = [weight[x] for x in xs]
    top, rows, best = [], set(), 0
    for _, family, param in scored[: 16 * keep]:  # duplicates skipped, within reason
        if len(top) >= keep or top and deadline is not None and deadline.expired():
            break
        if family == "eps":
            u = _u_eps(widths, P, np.array([param]))[0]
            den = P
        else:
            u = _k_u_k(widths, P, np.array([param]))[0]
            den = param * P
        us = u.tolist()  # exact Python ints from here on
        key = (tuple(us), den)
        if key in rows:
            continue
        rows.add(key)
        num = sum(map(operator.mul, ws, us))
        best = max(best, -(-num // den))
        top.append(DualFeasible(f"u_{family}={param}", dict(zip(xs, us, strict=True)), den))
    return DffScreen(best, top, complete)


def dff_energy_bound(data: ScaledScenario, deadline: Deadline | None = None) -> int:
    """The best dual-feasible-function energy bound of `dff_screen`."""
    return dff_screen(data, deadline=deadline).best


@dataclass
class RootBound:
    """`lower_bound_scaled`'s value, which bounds it took, and whether all of them finished."""

    value: int
    parts: dict[str, int]
    complete: bool


def lower_bound_scaled(data: ScaledScenario, strengthen: bool = True,
                       deadline: Deadline | None = None) -> int:
    """Proven lower bound on the scaled optimum: `chain_area_bound`, and with `strengthen` the
    clique chain, dual-feasible-function and configuration-LP bounds (module docstring)."""
    return root_bound(data, strengthen, deadline).value


def root_bound(data: ScaledScenario, strengthen: bool = True,
               deadline: Deadline | None = None, max_k: int | None = None,
               max_rounds: int = MAX_ROUNDS) -> RootBound:
    """`lower_bound_scaled` with its parts; the costly bounds stop at `deadline`, and after
    `max_k` dual-feasible functions u^(k) and `max_rounds` column-generation rounds (0: no
    configuration LP); the LP is also skipped when two of its knapsacks are not `affordable`."""
    parts = {"chain_area": chain_area_bound(data)}
    complete = True
    if strengthen:
        parts["clique_chain"] = clique_chain_bound(data)
        screen = dff_screen(data, deadline=deadline, max_k=max_k)
        parts["dff"] = screen.best
        complete = screen.complete
        if max_rounds > 0 and affordable(data.n, data.P, deadline, 2):
            parts["configuration_lp"] = configuration_lp_bound(data, max_rounds, deadline)
        else:
            complete = False
        if deadline is not None and deadline.expired():
            complete = False
    return RootBound(max(parts.values()), parts, complete)
