"""Pair-exchange local search on a co-schedule (spec 001 §1.3, §2.3; decision C24).

A heuristic for the incumbent of ``setpart-cg``, never a proof. The makespan is the sum of the
pack times (Algorithm 1's optimal time per pack), so two packs A, B can be replaced by any
partition of A ∪ B into at most two feasible packs (at most k tasks, sum pmin <= p) without
touching the others. One pass costs every such re-split of every pair of packs at once
(vectorised Algorithm 1, `pack_costs_vectorized`, grouped by pack size), then applies the
improving moves of largest gain whose pairs are disjoint; passes repeat until none improves.
At k = 3 a pair has 10 splits into two triples, at k = 4 35 into two quadruples (plus the
uneven ones), so a pass over 50 packs is about 25,000 packs costed.
"""

from __future__ import annotations

import itertools

import numpy as np

from resilsched.heuristics.coschedule import pack_costs_vectorized
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.options import Deadline

#: at most this many passes
MAX_PASSES = 50
#: a move must gain at least this (relative to the pack times) to count
MIN_GAIN = 1e-9


def _splits(tasks: tuple[int, ...], k: int):
    """Partitions of `tasks` into one or two packs of at most k tasks (each unordered pair of
    parts once: the part holding tasks[0] first)."""
    m = len(tasks)
    if m <= k:
        yield (tasks,)
    first, rest = tasks[0], tasks[1:]
    for size in range(0, m - 1):
        for chosen in itertools.combinations(rest, size):
            a = (first, *chosen)
            b = tuple(t for t in rest if t not in chosen)
            if len(a) <= k and len(b) <= k:
                yield (a, b)


def improve(inst: CoscheduleInstance, packs: list[tuple[int, ...]],
            deadline: Deadline | None = None) -> list[tuple[int, ...]]:
    """A partition no worse than `packs` (lists of task indices), by pair exchanges."""
    mat = inst.matrix()
    pmin = np.asarray(inst.pmin, dtype=np.int64)
    cache: dict[tuple[int, ...], float] = {}

    def cost_all(candidates: set[tuple[int, ...]]) -> None:
        by_size: dict[int, list[tuple[int, ...]]] = {}
        for b in candidates:
            if b not in cache:
                by_size.setdefault(len(b), []).append(b)
        for group in by_size.values():
            arr = np.array(group, dtype=np.int64)
            costs, _ = pack_costs_vectorized(mat, pmin, inst.p, arr)
            cache.update(zip(group, costs.tolist(), strict=True))

    current = [tuple(sorted(b)) for b in packs]
    for _ in range(MAX_PASSES):
        if deadline is not None and deadline.expired():
            break
        moves = []
        pairs = list(itertools.combinations(range(len(current)), 2))
        options = {(a, b): list(_splits(tuple(sorted(current[a] + current[b])), inst.k))
                   for a, b in pairs}
        cost_all({tuple(sorted(part)) for opts in options.values() for split in opts
                  for part in split} | set(current))
        for (a, b), opts in options.items():
            before = cache[current[a]] + cache[current[b]]
            best = min(opts, key=lambda split: sum(cache[tuple(sorted(p))] for p in split))
            gain = before - sum(cache[tuple(sorted(p))] for p in best)
            if gain > MIN_GAIN * max(1.0, before):
                moves.append((gain, a, b, best))
        if not moves:
            break
        moves.sort(key=lambda m: -m[0])
        touched: set[int] = set()
        new = []
        for _, a, b, split in moves:
            if a in touched or b in touched:
                continue
            touched.update((a, b))
            new += [tuple(sorted(p)) for p in split]
        current = [b for q, b in enumerate(current) if q not in touched] + new
    return current
