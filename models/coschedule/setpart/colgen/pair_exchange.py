"""Pair-exchange local search on a co-schedule (spec 001 §1.3, §2.3; decision C26).

A heuristic for the incumbent of ``setpart-cg``, never a proof. The makespan is the sum of the
pack times (Algorithm 1's optimal time per pack), so two packs A, B can be replaced by any
partition of A ∪ B into at most two feasible packs (at most k tasks, sum pmin <= p) without
touching the others. One pass costs every such re-split of every pair of packs at once
(vectorised Algorithm 1, `pack_costs_vectorized`, grouped by pack size), then applies the
improving moves of largest gain whose pairs are disjoint; passes repeat until none improves
(a pair's best re-split is computed once: later passes only cost the pairs of new packs).
At k = 3 a pair has 10 splits into two triples, at k = 4 35 into two quadruples (plus the
uneven ones), so a pass over 50 packs is about 25,000 packs costed.
"""

from __future__ import annotations

import itertools

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.coschedule import pack_costs_vectorized
from resilsched.instances.coschedule import CoscheduleInstance

#: at most this many passes
MAX_PASSES = 50
#: a move must gain at least this (relative to the pack times) to count
MIN_GAIN = 1e-9


def _patterns(m: int, k: int) -> list[tuple[tuple[int, ...], ...]]:
    """Partitions of positions 0..m-1 into one or two parts of at most k positions (each
    unordered pair of parts once: the part holding position 0 first)."""
    out: list[tuple[tuple[int, ...], ...]] = [(tuple(range(m)),)] if m <= k else []
    for size in range(0, m - 1):
        for chosen in itertools.combinations(range(1, m), size):
            a = (0, *chosen)
            b = tuple(t for t in range(1, m) if t not in chosen)
            if len(a) <= k and len(b) <= k:
                out.append((a, b))
    return out


def _splits(tasks: tuple[int, ...], k: int):
    """The re-splits of `tasks` (`_patterns` applied to them)."""
    for parts in _patterns(len(tasks), k):
        yield tuple(tuple(tasks[i] for i in part) for part in parts)


def improve(inst: CoscheduleInstance, packs: list[tuple[int, ...]],
            deadline: Deadline | None = None) -> list[tuple[int, ...]]:
    """A partition no worse than `packs` (lists of task indices), by pair exchanges."""
    mat = inst.matrix()
    pmin = np.asarray(inst.pmin, dtype=np.int64)
    patterns: dict[int, list] = {}

    def cost(arr: np.ndarray) -> np.ndarray:
        return pack_costs_vectorized(mat, pmin, inst.p, arr)[0]

    current = [tuple(sorted(b)) for b in packs]
    price = {b: float(cost(np.array([b], dtype=np.int64))[0]) for b in current}
    moves_of: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[float, tuple]] = {}
    for _ in range(MAX_PASSES):
        if deadline is not None and deadline.expired():
            break
        fresh: dict[int, list] = {}
        for a, b in itertools.combinations(current, 2):
            if (a, b) not in moves_of:
                fresh.setdefault(len(a) + len(b), []).append((a, b))
        for m, pairs in fresh.items():  # best re-split of each new pair, all at once
            pats = patterns.setdefault(m, _patterns(m, inst.k))
            unions = np.array([sorted(a + b) for a, b in pairs], dtype=np.int64)
            total = np.zeros((len(pats), len(pairs)))
            for q, parts in enumerate(pats):
                for part in parts:
                    total[q] += cost(unions[:, list(part)])
            pick = total.argmin(axis=0)
            for r, (a, b) in enumerate(pairs):
                row, parts = unions[r].tolist(), pats[pick[r]]
                split = tuple(tuple(row[i] for i in part) for part in parts)
                moves_of[(a, b)] = (price[a] + price[b] - total[pick[r], r], split)
        moves = []
        for a, b in itertools.combinations(current, 2):
            gain, split = moves_of[(a, b)]
            if gain > MIN_GAIN * max(1.0, price[a] + price[b]):
                moves.append((gain, a, b, split))
        if not moves:
            break
        moves.sort(key=lambda mv: -mv[0])
        touched: set[tuple[int, ...]] = set()
        new = []
        for _, a, b, split in moves:
            if a in touched or b in touched:
                continue
            touched.update((a, b))
            new += list(split)
        current = [b for b in current if b not in touched] + new
        for b in new:
            if b not in price:
                price[b] = float(cost(np.array([b], dtype=np.int64))[0])
    return current
