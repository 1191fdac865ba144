"""FOLD: co-schedule the longest task with the shortest, two by two (one's own heuristic).

Built from public pieces: the packs are ours, each pack's processors are allocated optimally by
Algorithm 1 (`make_packs`) (docs/own-heuristic.md).
"""

from resilsched import HeuristicResult
from resilsched.heuristics.coschedule import make_packs


def fold(instance, scenario=None, priority=None, *, seed: int = 0, size: int = 2):
    """FOLD: packs of the longest and the shortest remaining tasks (sequential times), at most
    `size` tasks (and k) per pack, each allocated by Algorithm 1."""
    order = sorted(range(instance.n), key=lambda i: instance.t(i, 1))
    width = max(1, min(size, instance.k))
    packs = []
    while order:
        pack = [order.pop()]
        while len(pack) < width and order:
            pack.append(order.pop(0) if len(pack) % 2 else order.pop())
        packs.append(pack)
    schedule = make_packs(instance, packs)
    return HeuristicResult(schedule.makespan, "FOLD", None, schedule)
