"""R-LIST-0 without the engine: the fast path of GREEDY for experiments (spec 002 §4, §11.6).

Same event grouping and the same decisions as `RList` with m = 0 under `run_engine`, hence the
same makespan (tests/heuristics/rigid check it), without the attempt log or the engine's checks.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
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
    minp = min(p)

    def start(free: int, now: Any, heap: list[tuple[Any, int]]) -> int:
        if free >= minp and queue.items:
            rest = []
            items = queue.items
            for i, j in enumerate(items):
                pj = p[j]
                if pj <= free:
                    free -= pj
                    heapq.heappush(heap, (now + t[j], j))
                    if free < minp:
                        rest.extend(items[i + 1:])
                        break
                else:
                    rest.append(j)
            queue.items = rest
        return free

    def requeue(failed: list[int]) -> None:
        failed.sort()
        for j in failed:
            queue.push(j)

    return _events(p, P, f, exact, start, requeue)


def _indexed_makespan(p: Sequence[int], t: Sequence[Any], P: int, f: Sequence[int],
                      queue: PriorityQueue, ranks: list[int], exact: bool) -> Any:
    """`greedy_makespan` with the queue in a `FitIndex` (module `fitindex`): the same passes."""
    order = [0] * len(ranks)
    for j, r in enumerate(ranks):
        order[r] = j
    widths = [P + 1] * len(ranks)
    for j in queue.items:
        widths[ranks[j]] = p[j]
    fit = FitIndex(widths, P + 1)
    minp = min(p)

    def start(free: int, now: Any, heap: list[tuple[Any, int]]) -> int:
        pos = fit.first_fitting(free) if free >= minp else -1
        while pos >= 0:
            j = order[pos]
            free -= p[j]
            heapq.heappush(heap, (now + t[j], j))
            fit.set(pos, P + 1)
            pos = fit.first_fitting(free) if free >= minp else -1
        return free

    def requeue(failed: list[int]) -> None:
        for j in failed:
            fit.set(ranks[j], p[j])

    return _events(p, P, f, exact, start, requeue)


def _events(p: Sequence[int], P: int, f: Sequence[int], exact: bool,
            start: Callable[[int, Any, list[tuple[Any, int]]], int],
            requeue: Callable[[list[int]], None]) -> Any:
    """The event loop of GREEDY, the makespan: at each event time ``now``, one greedy pass
    ``start(free, now, heap)`` starts queued jobs (their ``(end, job)`` on `heap`; it returns
    the processors left free); then the attempts that end at the next event are popped, a
    failed one (attempt counts below its failure count in `f`) goes back to the queue through
    ``requeue(jobs)``, in the order they ended."""
    same = same_time_function(exact)
    done = [0] * len(p)
    heap: list[tuple[Any, int]] = []
    heappop = heapq.heappop
    free = P
    now: Any = 0
    best: Any = 0
    while True:
        free = start(free, now, heap)
        if not heap:
            break
        now = heap[0][0]
        failed = []
        while heap and same(heap[0][0], now):
            end, j = heappop(heap)
            free += p[j]
            done[j] += 1
            if done[j] <= f[j]:
                failed.append(j)
            elif end > best:
                best = end
        if failed:
            requeue(failed)
    return best
