"""Co-scheduling heuristics (spec 001 §2.4): MAKE-PACK (Algorithm 2) and PACK-APPROX (Algorithm 3).

`make_pack` and `pack_approx` are the algorithms; `run_make_pack` and `run_pack_approx` are the
registered heuristics (contract of `resilsched.plugin`): they return a `HeuristicResult` whose
schedule is the `Packs` built (packs and allocations, not just a cost, spec A-28).
PACK-APPROX's `priority` is its loop bound (``fixed``, the default, or ``printed``, spec A-28),
the one rule it has; MAKE-PACK has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.heuristics.coschedule.packs import make_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.solution import HeuristicResult

LOOP_BOUNDS = ("fixed", "printed")


def make_pack(inst: CoscheduleInstance, sigma: Sequence[int],
              k: int | None = None) -> tuple[list[list[int]], Any]:
    """Algorithm 2, MAKE-PACK(n, p, k, sigma): First-Fit-Decreasing-Height, O(n log n + n #packs).

    Tasks are taken by non-increasing t_{i,sigma(i)} (stable: ties by lowest index); each goes
    into the first existing pack with at least sigma(i) free processors and fewer than k tasks,
    else opens a new pack. The cost of a pack is the time of its first (longest) task.

    Returns ``(packs, cost)`` with packs as lists of task indices in opening order.

    >>> inst = CoscheduleInstance(p=4, k=4, times=((8, 4, 3, 3), (6, 3, 2, 2), (4, 2, 2, 2)))
    >>> make_pack(inst, [2, 2, 1])
    ([[0, 2], [1]], 7)
    """
    k = inst.k if k is None else k
    order = sorted(range(inst.n), key=lambda i: (-inst.t(i, sigma[i]), i))
    packs: list[list[int]] = []
    free: list[int] = []
    cost: Any = 0
    for i in order:
        for b, pack in enumerate(packs):
            if free[b] >= sigma[i] and len(pack) < k:
                pack.append(i)
                free[b] -= sigma[i]
                break
        else:
            packs.append([i])
            free.append(inst.p - sigma[i])
            cost += inst.t(i, sigma[i])
    return packs, cost


@dataclass(frozen=True)
class PackApproxResult:
    """Outcome of PACK-APPROX: the best cost, its allocation sigma, its packs, iterations run."""

    cost: Any
    sigma: tuple[int, ...]
    packs: list[list[int]]
    iterations: int


def pack_approx(inst: CoscheduleInstance, loop_bound: str = "fixed",
                k: int | None = None) -> PackApproxResult:
    """Algorithm 3, PACK-APPROX (Thm 1.6: a 3-approximation for p-in-p, i.e. k = p).

    sigma starts at pmin_i (1 in the paper). At each iteration: A_tot = sum_j t_{j,sigma(j)}
    sigma(j); j* = the longest task (ties: lowest index); run MAKE-PACK(n, p, k, sigma) and keep
    the best cost; exit when A_tot/p > t_{j*,sigma(j*)} or sigma(j*) = p, else sigma(j*) += 1.

    ``loop_bound="fixed"`` (default, spec A-28) runs iterations i = 0..N inclusive with
    N = sum_i (p - pmin_i) (= n(p-1) in the paper), so the last state is evaluated and p = 1
    works; ``"printed"`` stops after N iterations as printed (returns +inf cost if none ran).
    MAKE-PACK is called with the instance's k (the paper calls it with k = p); the factor 3 is
    proven only for k = p. O(n p (n log n)) as implemented.
    """
    if loop_bound not in LOOP_BOUNDS:
        raise ValueError(f"loop_bound must be one of {LOOP_BOUNDS}")
    k = inst.k if k is None else k
    sigma = list(inst.pmin)
    n_iter = sum(inst.p - s for s in sigma) + (1 if loop_bound == "fixed" else 0)
    best = PackApproxResult(float("inf"), tuple(sigma), [], 0)
    for it in range(n_iter):
        a_tot = sum(inst.t(j, sigma[j]) * sigma[j] for j in range(inst.n))
        jstar = max(range(inst.n), key=lambda j: (inst.t(j, sigma[j]), -j))
        packs, cost = make_pack(inst, sigma, k)
        if cost < best.cost:
            best = PackApproxResult(cost, tuple(sigma), packs, it + 1)
        if a_tot > inst.p * inst.t(jstar, sigma[jstar]) or sigma[jstar] == inst.p:
            return PackApproxResult(best.cost, best.sigma, best.packs, it + 1)
        sigma[jstar] += 1
    return PackApproxResult(best.cost, best.sigma, best.packs, n_iter)


def run_pack_approx(inst: CoscheduleInstance, scenario=None, priority: str | None = None, *,
                    seed: int = 0) -> HeuristicResult:
    """PACK-APPROX (Algorithm 3) as a registered heuristic; `priority` is the loop bound
    (``fixed`` by default, or ``printed``). Deterministic: `seed` is unused.

    The printed loop runs no iteration when every pmin_i = p (N = 0, e.g. p = 1); that case is
    refused (`InvalidInstance`) instead of returning no packs.
    """
    loop = priority or "fixed"
    if loop not in LOOP_BOUNDS:
        raise InvalidInstance("priority", f"{loop!r} is unknown for PACK-APPROX "
                                          f"(choose from {', '.join(LOOP_BOUNDS)})")
    res = pack_approx(inst, loop_bound=loop)
    if not res.packs:
        raise InvalidInstance("priority", "=printed runs no iteration when every pmin_i = p "
                                          "(N = 0); use the fixed loop bound")
    packs = make_packs(inst, res.packs, [[res.sigma[i] for i in b] for b in res.packs])
    return HeuristicResult(objective=packs.makespan, heuristic="PACK-APPROX", priority=priority,
                           schedule=packs, extra={"iterations": res.iterations})


def run_make_pack(inst: CoscheduleInstance, scenario=None, priority: str | None = None, *,
                  seed: int = 0) -> HeuristicResult:
    """MAKE-PACK alone with sigma = pmin (1 processor per task unless pmin says more), the first
    state of PACK-APPROX; the baseline that shows what the sigma search buys. Deterministic."""
    sigma = list(inst.pmin)
    packs, _ = make_pack(inst, sigma)
    result = make_packs(inst, packs, [[sigma[i] for i in b] for b in packs])
    return HeuristicResult(objective=result.makespan, heuristic="MAKE-PACK", priority=priority,
                           schedule=result)
