"""Exact search over a k-in-p reduced-cost closure (spec 001 §2.3, decision C28).

The closure rounds of ``setpart-cg`` (`closure_rounds`) ask, for the packs of reduced cost <= delta,
for the cheapest partition of the tasks costing less than a cutoff. HiGHS answers with branch
and bound over the LP; this module answers with the C kernel `sp_search`
(``csrc/coschedule/partition.h``): a depth-first search over the packs that still fit, bounded
by the Lagrangian identity of the cut master (`setpart.subset_rows`)

    cost(x) = D + sum_{B in x} rc_B + mu (|x| - ceil(n/k)) + sum_S (-sigma_S) (1 - a_S(x)),

in which every term is >= 0 and known (or bounded: each uncovered task pays at least the least
rc_B / |B| of the packs that still hold it) at every node, with a memo of covered sets. A
completed search is exact, like a completed MIP: it returns the cheapest partition of the
listed packs below the cutoff, or proves there is none. Packs travel as bit masks of
``ceil(n / 64)`` words (n <= `MAX_TASKS`); without the C kernels (``RESILSCHED_NO_CORE=1`` or
no build) the callers keep HiGHS.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass

import numpy as np

from resilsched.models.coschedule import _cclosure
from resilsched.models.coschedule.setpart.pool import PackPool

#: the kernel's bit masks hold this many tasks, and this many cuts (the largest penalties)
MAX_TASKS, MAX_CUTS = _cclosure.SP_MAX_TASKS, _cclosure.SP_MAX_CUTS
#: log2 of the memo's slots (8 (ceil(n/64) + 1) bytes each: 64 MB at n <= 192). The memo
#: overwrites when its probes are full; when it stopped recording instead, 2^21 slots left the
#: first round of n = 200, k = 3 seed 0 unfinished after 100 s (now 45 s) and 2^18 slots k = 3
#: seed 6's last round (now 6.4 s, as with 2^21)
MEMO_LOG2 = 21


@dataclass(frozen=True)
class Duals:
    """The duals of the cut master behind the reduced costs: dual objective `dual`, pack-count
    dual `mu` >= 0 with its right-hand side `min_packs`, subset-row duals `sigma` <= 0 of the
    `triples`, and k (the largest pack)."""

    dual: float
    mu: float
    min_packs: int
    triples: list[tuple[int, int, int]]
    sigma: np.ndarray
    k: int


@dataclass(frozen=True)
class SearchResult:
    """The search's partition (pack tasks; None: none below the target), its cost, whether the
    search completed, and the number of packs searched."""

    packs: list[tuple[int, ...]] | None
    cost: float
    complete: bool
    columns: int


def available(n: int) -> bool:
    """Whether the C search serves n tasks."""
    return n <= MAX_TASKS and _cclosure.lib() is not None


def words(n: int) -> int:
    return max(1, -(-n // 64))


def bit_masks(members: np.ndarray, n: int) -> np.ndarray:
    """(m, ceil(n/64)) uint64 bit masks of the rows of `members` ((m, s) task indices)."""
    w = words(n)
    out = np.zeros((len(members), w), dtype=np.uint64)
    for j in range(members.shape[1]):
        col = members[:, j].astype(np.int64)
        np.bitwise_or.at(out, (np.arange(len(col)), col // 64),
                         np.left_shift(np.uint64(1), (col % 64).astype(np.uint64)))
    return out


def search(pool: PackPool, keep: dict[int, np.ndarray], rcs: dict[int, np.ndarray],
           duals: Duals, target: float, seconds: float, node_limit: int | None = None,
           memo_log2: int = MEMO_LOG2) -> SearchResult:
    """The cheapest partition of the pool packs where `keep` holds (reduced costs `rcs`, by
    size, w.r.t. `duals`) costing less than `target` (module docstring); `seconds` <= 0: no
    clock; `memo_log2`: log2 of the memo's slots (a small search needs fewer)."""
    dll = _cclosure.lib()
    n = pool.n
    if dll is None or n > MAX_TASKS:
        raise RuntimeError("the closure search needs the C kernels and n <= 256")
    sizes = sorted(s for s in pool.packs if keep[s].any())
    members = [pool.packs[s][keep[s]] for s in sizes]
    masks = np.ascontiguousarray(np.concatenate([bit_masks(a, n) for a in members])
                                 if members else np.zeros((0, words(n)), np.uint64))
    rc = np.ascontiguousarray(np.concatenate([rcs[s][keep[s]] for s in sizes])
                              if sizes else np.zeros(0))
    cost = np.ascontiguousarray(np.concatenate([pool.costs[s][keep[s]] for s in sizes])
                                if sizes else np.zeros(0))
    order = np.argsort(duals.sigma, kind="stable")[:MAX_CUTS]  # dropping a cut only weakens
    order = order[duals.sigma[order] < 0]
    cut_masks = np.ascontiguousarray(
        bit_masks(np.array([duals.triples[q] for q in order], dtype=np.int64).reshape(-1, 3), n))
    pen = np.ascontiguousarray(-duals.sigma[order], dtype=np.float64)
    out = np.zeros(n, dtype=np.int64)
    out_cost = ctypes.c_double(0.0)
    done = ctypes.c_int(0)
    tol = 1e-10 * max(1.0, abs(target) if math.isfinite(target) else abs(duals.dual))
    got = dll.sp_search(n, words(n), duals.k, len(rc), masks, rc, cost, len(order), cut_masks,
                        pen, float(duals.dual), float(duals.mu), int(duals.min_packs),
                        float(target), tol, -1 if node_limit is None else int(node_limit),
                        float(seconds), int(memo_log2), out, ctypes.byref(out_cost),
                        ctypes.byref(done))
    if got == -3:
        raise MemoryError("the closure search could not allocate its lists")
    if got < 0:
        raise ValueError(f"sp_search refused its arguments ({got})")
    packs = None
    if got > 0:
        offsets = np.cumsum([0] + [len(a) for a in members])
        packs = []
        for c in out[:got]:
            a = int(np.searchsorted(offsets, c, side="right")) - 1
            packs.append(tuple(int(x) for x in members[a][c - offsets[a]]))
    return SearchResult(packs, out_cost.value if got > 0 else float("inf"), bool(done.value),
                        len(rc))
