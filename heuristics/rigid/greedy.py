"""R-LIST-0 without the engine: the fast path of GREEDY for experiments (spec 002 §4, §11.6).

Same event grouping and the same decisions as `RList` with m = 0 under `run_engine`, hence the
same makespan (tests/heuristics/rigid check it), without the attempt log or the engine's checks.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import Any

from resilsched.heuristics.engine import same_time_function
from resilsched.heuristics.rigid.fitindex import FitIndex
from resilsched.heuristics.rigid.priorities import PriorityQueue


def greedy_makespan(p: Sequence[int], t: Sequence[Any], P: int, f: Sequence[int],
                    queue: PriorityQueue, exact: bool) -> Any:
    """Makespan of GREEDY (R-LIST-0) with queue Q `queue` under failure counts `f` (by
    `FitIndex` when the priorities are fixed: O(A log n) instead of O(A n))."""
    ranks = queue.fixed_ranks()
    if ranks is not None:
        return _indexed_makespan(p, t, P, f, queue, ranks, exact)
    same = same_time_function(exact)
    push = queue.push
    minp = min(p)
    done = [0] * len(p)
    heap: list[tuple[Any, int]] = []
    heappush = heapq.heappush
    free = P
    now: Any = 0
    best: Any = 0
    while True:
        # one greedy pass at time `now`
        if free >= minp and queue.items:
            rest = []
            items = queue.items
            for i, j in enumerate(items):
                pj = p[j]
                if pj <= free:
                    free -= pj
                    heappush(heap, (now + t[j], j))
                    if free < minp:
                        rest.extend(items[i + 1:])
                        break
                else:
                    rest.append(j)
            queue.items = rest
        if not heap:
            break
        now = heap[0][0]
        freed, best, failed_jobs = _ends(heap, now, same, p, done, f, best)
        free += freed
        if failed_jobs:
            failed_jobs.sort()
            for j in failed_jobs:
                push(j)
    return best


def _indexed_makespan(p: Sequence[int], t: Sequence[Any], P: int, f: Sequence[int],
                      queue: PriorityQueue, ranks: list[int], exact: bool) -> Any:
    """`greedy_makespan` with the queue in a `FitIndex` (module `fitindex`): the same passes."""
    same = same_time_function(exact)
    order = [0] * len(ranks)
    for j, r in enumerate(ranks):
        order[r] = j
    widths = [P + 1] * len(ranks)
    for j in queue.items:
        widths[ranks[j]] = p[j]
    fit = FitIndex(widths, P + 1)
    minp = min(p)
    done = [0] * len(p)
    heap: list[tuple[Any, int]] = []
    heappush = heapq.heappush
    free = P
    now: Any = 0
    best: Any = 0
    while True:
        pos = fit.first_fitting(free) if free >= minp else -1
        while pos >= 0:  # one greedy pass at time `now`
            j = order[pos]
            free -= p[j]
            heappush(heap, (now + t[j], j))
            fit.set(pos, P + 1)
            pos = fit.first_fitting(free) if free >= minp else -1
        if not heap:
            break
        now = heap[0][0]
        freed, best, failed_jobs = _ends(heap, now, same, p, done, f, best)
        free += freed
        for j in failed_jobs:
            fit.set(ranks[j], p[j])
    return best


def _ends(heap: list[tuple[Any, int]], now: Any, same: Any, p: Sequence[int], done: list[int],
          f: Sequence[int], best: Any) -> tuple[int, Any, list[int]]:
    """Pop the attempts of `heap` that end at `now` (`same` time): the processors they free,
    `best` raised to the end of each job that succeeds, and the jobs whose attempt failed
    (attempt counts in `done`, failure counts `f`), in the order they ended."""
    freed = 0
    failed = []
    while heap and same(heap[0][0], now):
        end, j = heapq.heappop(heap)
        freed += p[j]
        done[j] += 1
        if done[j] <= f[j]:
            failed.append(j)
        elif end > best:
            best = end
    return freed, best, failed
