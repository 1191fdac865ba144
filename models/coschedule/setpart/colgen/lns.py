"""Large-neighbourhood search over a co-schedule, guided by the set-partitioning LP (spec 001
§2.3; decision C29).

A heuristic for the incumbent of ``setpart-cg``, never a proof. A move frees the tasks of
``PACKS_PER_MOVE`` packs of the incumbent and replaces their packs by the cheapest partition of
those tasks into pool packs, if it is cheaper:

- the packs: a first one drawn with weight its reduced cost (the packs the LP prices worst),
  then one at a time a pack holding a task that the root LP's support puts in a pack with a
  task already freed (weight: how many such ties), so that a move frees tasks the LP wants to
  recombine; a random pack when no tie is left;
- the sub-problem: the freed tasks F renumbered 0..|F|-1, the pool packs inside F of reduced
  cost <= ``delta`` (`PackIndex`), and the duals restricted to F: with D_F = pi(F)
  + mu ceil(|F|/k) + sum sigma_S over the cuts S with two or more tasks in F, every partition y
  of F costs D_F + sum_{B in y} rc_B + mu (|y| - ceil(|F|/k)) + sum_S (-sigma_S)(1 - a_S(y))
  (the identity of `setpart.subset_rows`, each term >= 0), so the exact search of
  `closure_search` keeps its bound (the cuts inside F are passed to it, the others only
  weaken it when left out);
- the search looks for a partition cheaper than the freed packs, stopped after
  ``MOVE_NODES`` nodes.

The search runs on the sub-problem, so moves work at any n (the C search serves |F| <= 256).
At n = 200, k = 3 (Amdahl, p = 16) it takes the pair-exchange incumbent from 0.62 % above the
LP bound to 0.05 % in about 20 s on a loaded machine, where LP dives reach 0.16-0.22 %.
"""

from __future__ import annotations

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.coschedule import Packs, make_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.setpart.colgen import closure_search
from resilsched.models.coschedule.setpart.pool import PackPool

#: packs of the incumbent a move frees (45 tasks at k = 3)
PACKS_PER_MOVE = 15
#: node budget of one move's search, and log2 of its memo's slots (the search's default, 2^21
#: slots of 32 bytes, costs more to clear than a move's search takes)
MOVE_NODES = 20_000
MOVE_MEMO_LOG2 = 15
#: the search stops after this many moves in a row without a gain, per pack of the incumbent
STALL_PER_PACK = 8


class PackIndex:
    """The pool packs of reduced cost <= delta, by size, sorted by their first task, so that the
    packs inside a set of tasks are found from the ranges of its members."""

    def __init__(self, pool: PackPool, rcs: dict[int, np.ndarray], delta: float):
        self.n = pool.n
        self.packs, self.costs, self.rcs, self.starts = {}, {}, {}, {}
        for s, arr in pool.packs.items():
            keep = rcs[s] <= delta
            order = np.argsort(arr[keep, 0], kind="stable")
            self.packs[s] = arr[keep][order]
            self.costs[s] = pool.costs[s][keep][order]
            self.rcs[s] = rcs[s][keep][order]
            self.starts[s] = np.searchsorted(self.packs[s][:, 0], np.arange(self.n + 1))

    def inside(self, tasks: np.ndarray) -> tuple[PackPool, dict[int, np.ndarray]]:
        """The packs made of `tasks` only, renumbered to positions in `tasks` (ascending),
        as a pool and its reduced costs."""
        inside = np.zeros(self.n, dtype=bool)
        inside[tasks] = True
        renumber = np.full(self.n, -1, dtype=np.int64)
        renumber[tasks] = np.arange(len(tasks))
        packs, costs, rcs = {}, {}, {}
        for s, arr in self.packs.items():
            rows = np.concatenate([np.arange(self.starts[s][i], self.starts[s][i + 1])
                                   for i in tasks])
            rows = rows[inside[arr[rows]].all(axis=1)]
            packs[s] = renumber[arr[rows]].astype(np.int32)
            costs[s], rcs[s] = self.costs[s][rows], self.rcs[s][rows]
        return PackPool(len(tasks), packs, costs), rcs


def available(inst: CoscheduleInstance) -> bool:
    """Whether the C search serves the moves' sub-problems."""
    return closure_search.available(min(inst.n, PACKS_PER_MOVE * inst.k))


def neighbours(n: int, support: list[tuple[tuple[int, ...], float]]) -> list[set[int]]:
    """For each task, the tasks the LP's support puts in a pack with it."""
    out: list[set[int]] = [set() for _ in range(n)]
    for pack, _ in support:
        for i in pack:
            out[i].update(pack)
    for i in range(n):
        out[i].discard(i)
    return out


def lns(inst: CoscheduleInstance, index: PackIndex, duals: closure_search.Duals,
        pi: np.ndarray, rc_of, near: list[set[int]], best: Packs, deadline: Deadline,
        seed: int = 0) -> Packs:
    """`best` improved by moves (module docstring) until `deadline` or a stall; never worse.

    `duals` are the cut master's (`closure_search.Duals`), `pi` its task duals, `rc_of(pack, cost)`
    the reduced cost of a pack, `near` the LP neighbours of each task (`neighbours`).
    """
    if not available(inst):
        return best
    rng = np.random.default_rng(seed)
    triples = np.array(duals.triples, dtype=np.int64).reshape(-1, 3)
    sigma = np.asarray(duals.sigma, dtype=float)
    current = {b.tasks: float(b.time) for b in best}
    rc = {b: rc_of(b, c) for b, c in current.items()}
    stall = 0
    while not deadline.expired() and stall < STALL_PER_PACK * len(current):
        packs = list(current)
        chosen = _choose(packs, rc, near, rng)
        tasks = np.array(sorted(i for b in chosen for i in b), dtype=np.int64)
        target = sum(current[b] for b in chosen)
        try:
            found = _move(index, duals, pi, triples, sigma, tasks, target, deadline, inst.k)
        except MemoryError:  # the search could not allocate its lists: keep what was found
            break
        if found is None:
            stall += 1
            continue
        mine = make_packs_of(inst, found)
        if sum(mine.values()) >= target - 1e-9 * max(1.0, target):
            stall += 1
            continue
        stall = 0
        for b in chosen:
            del current[b], rc[b]
        current.update(mine)
        rc.update({b: rc_of(b, c) for b, c in mine.items()})
    result = make_packs(inst, list(current))
    return result if result.makespan < best.makespan else best


def make_packs_of(inst: CoscheduleInstance, packs: list[tuple[int, ...]]) -> dict:
    """pack -> its time by Algorithm 1 (the packs of a part of the tasks)."""
    from resilsched.heuristics.coschedule.onepack import optimal_pack

    return {b: float(optimal_pack(inst, b)[0]) for b in packs}


def _choose(packs: list[tuple[int, ...]], rc: dict, near: list[set[int]],
            rng: np.random.Generator) -> list[tuple[int, ...]]:
    """The packs of one move (module docstring)."""
    weight = np.array([max(rc[b], 0.0) + 1e-3 for b in packs])
    chosen = [packs[int(rng.choice(len(packs), p=weight / weight.sum()))]]
    holder = {i: b for b in packs for i in b}
    while len(chosen) < min(PACKS_PER_MOVE, len(packs)):
        ties: dict[tuple[int, ...], int] = {}
        for b in chosen:
            for i in b:
                for j in near[i]:
                    other = holder[j]
                    if other not in chosen:
                        ties[other] = ties.get(other, 0) + 1
        if ties:
            keys = list(ties)
            w = np.array([ties[b] for b in keys], dtype=float)
            chosen.append(keys[int(rng.choice(len(keys), p=w / w.sum()))])
        else:
            rest = [b for b in packs if b not in chosen]
            chosen.append(rest[int(rng.integers(len(rest)))])
    return chosen


def _move(index: PackIndex, duals: closure_search.Duals, pi: np.ndarray, triples: np.ndarray,
          sigma: np.ndarray, tasks: np.ndarray, target: float, deadline: Deadline,
          k: int) -> list[tuple[int, ...]] | None:
    """The cheapest partition of `tasks` into the indexed packs below `target` (the search of
    `closure_search` on the sub-problem, stopped after `MOVE_NODES` nodes), or None."""
    sub, rcs = index.inside(tasks)
    inside = np.zeros(index.n, dtype=bool)
    inside[tasks] = True
    hits = inside[triples].sum(axis=1) if len(triples) else np.zeros(0, dtype=np.int64)
    whole = hits == 3
    renumber = np.full(index.n, -1, dtype=np.int64)
    renumber[tasks] = np.arange(len(tasks))
    least = -(-len(tasks) // k)
    dual = float(pi[tasks].sum()) + duals.mu * least + float(sigma[hits >= 2].sum())
    sub_duals = closure_search.Duals(dual, duals.mu, least,
                                 [tuple(int(x) for x in renumber[t]) for t in triples[whole]],
                                 sigma[whole], k)
    keep = {s: np.ones(len(c), dtype=bool) for s, c in sub.costs.items()}
    res = closure_search.search(sub, keep, rcs, sub_duals, target - 1e-9 * max(1.0, target),
                            max(deadline.remaining(), 1e-3), MOVE_NODES, MOVE_MEMO_LOG2)
    if res.packs is None:
        return None
    return [tuple(sorted(int(tasks[i]) for i in b)) for b in res.packs]
