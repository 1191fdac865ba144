"""Reduced-cost closure solved as an exact cover (spec 001 §2.3, decisions C22, C24).

With converged duals pi of the set-partitioning LP (every pack has rc_B = c_B - pi(B) >= -eps)
the cost of any partition x is sum_i pi_i + sum_{B in x} rc_B. A partition costing less than
the incumbent UB therefore uses only packs with rc_B <= UB - sum pi (the reduced-cost closure,
listed here by `pricing_oracle.PackOracle.enumerate_masks`), and its packs' reduced costs
add up to at most that gap. `cheapest_cover` finds, among the listed packs, the partition of
the tasks of least total reduced cost below a budget by depth-first search: branch on the first
uncovered task (tasks ordered by how few packs hold them), over the packs whose first task it is, in
increasing reduced cost, and stop a branch when its reduced costs exceed the budget. Exact when
the search completes: it then either returns the cheapest such partition or proves there is
none. HiGHS's MIP on the same closure (17,000 packs of ~12 tasks, p-in-p at n = 40) found no
feasible point in two minutes; in p-in-p a partition has few packs and the budget prunes hard.

With the C kernels built (`_cclosure`, n <= 63) the search runs in C and branches instead on the
uncovered task with the fewest packs that still fit (disjoint from the covered tasks, within the
budget), ending a branch at once when some task has none (decision C24): same least reduced
cost, 10x fewer nodes than the static order on the closures of p-in-p at n = 40.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.coschedule import Packs, make_packs
from resilsched.models.coschedule import _cclosure
from resilsched.models.coschedule._cclosure import masks_of, tasks_of
from resilsched.models.coschedule.setpart.branchprice.task_moves import improve_packs

#: the deadline is checked every this many search nodes
CHECK_EVERY = 4096
#: candidate lists longer than this are filtered with numpy (masks as int64) at each node
NUMPY_SCAN = 64
#: the closure is searched only when it holds at most this many packs (C kernels; the Python
#: search, `CLOSURE_LIMIT_PYTHON`, would spend minutes and gigabytes on the larger ones)
CLOSURE_LIMIT = 8_000_000
CLOSURE_LIMIT_PYTHON = 1_000_000
#: the first closure round lists packs of rc up to this share of the gap to the incumbent
FIRST_DELTA_SHARE = 1 / 16
#: delta grows by this factor per round (the number of packs listed grows ~5x per round)
DELTA_GROWTH = 1.4
#: node budget of the search for a better incumbent among the packs of a closure round (the
#: Python search; the C kernel's, `UPPER_BOUND_NODES_NATIVE`, is larger: it is ~50x faster)
UPPER_BOUND_NODES = 10_000
UPPER_BOUND_NODES_NATIVE = 200_000


def cheapest_cover(n: int, packs: Sequence[tuple[int, ...]], rcs: Sequence[float],
                   budget: float, deadline: Deadline | None = None,
                   node_limit: int | None = None, native: bool = True
                   ) -> tuple[list[int] | None, bool]:
    """(indices of the packs of the cheapest partition of range(n) with sum rc <= budget, or
    None when there is none; whether the search completed). An incomplete search may still
    return a partition (the best found), without proof."""
    return cheapest_cover_masks(n, masks_of(list(packs), n), np.asarray(rcs, dtype=float),
                                budget, deadline, node_limit, native)


def cheapest_cover_masks(n: int, masks: np.ndarray, rcs: np.ndarray, budget: float,
                         deadline: Deadline | None = None, node_limit: int | None = None,
                         native: bool = True) -> tuple[list[int] | None, bool]:
    """`cheapest_cover` over packs given as bit masks (`_cclosure.masks_of`); the search runs
    in C (`_cclosure.pk_cover`) when the kernels are built, n <= 63 and `native`."""
    dll = _cclosure.lib() if native and n <= _cclosure.MAX_TASKS else None
    if dll is not None:
        if deadline is not None and deadline.expired():
            return None, False
        seconds = max(deadline.remaining(), 1e-6) if deadline is not None else 0.0
        return _cclosure.cover(dll, n, masks, rcs, budget, node_limit, seconds)
    return _cheapest(n, masks.tolist(), rcs.tolist(), budget, deadline, node_limit)


def _cheapest(n: int, task_masks: list[int], rcs: list[float], budget: float,
              deadline: Deadline | None, node_limit: int | None
              ) -> tuple[list[int] | None, bool]:
    """The Python search of `cheapest_cover` (the oracle of the C kernel)."""
    count = [0] * n
    for m in task_masks:
        for i in tasks_of(m):
            count[i] += 1
    order = sorted(range(n), key=lambda i: (count[i], i))
    bit = {task: pos for pos, task in enumerate(order)}
    lists: list[list[tuple[float, int, int]]] = [[] for _ in range(n)]
    for c, b in enumerate(task_masks):
        if c % 65536 == 0 and deadline is not None and deadline.expired():
            return None, False
        mask = 0
        for i in tasks_of(b):
            mask |= 1 << bit[i]
        first = (mask & -mask).bit_length() - 1
        lists[first].append((float(rcs[c]), mask, c))
    for lst in lists:
        lst.sort()
    full = (1 << n) - 1
    # for n < 63 the masks fit int64: the compatible candidates of a node are found by numpy
    arrays = None
    if n < 63:
        arrays = [(np.array([e[0] for e in lst], dtype=float),
                   np.array([e[1] for e in lst], dtype=np.int64)) for lst in lists]
    best: list = [budget, None]
    chosen: list[int] = []
    seen: dict[int, float] = {}
    nodes = 0

    def search(covered: int, spent: float) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes % CHECK_EVERY == 0 and (
                (deadline is not None and deadline.expired())
                or (node_limit is not None and nodes > node_limit)):
            return False
        if covered == full:
            best[0], best[1] = spent - 1e-12 * max(1.0, abs(spent)), list(chosen)
            return True
        if seen.get(covered, math.inf) <= spent:
            return True  # this set of tasks was covered as cheaply before: nothing new below
        seen[covered] = spent
        first = (~covered & (covered + 1)).bit_length() - 1
        lst = lists[first]
        if arrays is not None and len(lst) > NUMPY_SCAN:
            rc_arr, mask_arr = arrays[first]
            end = int(np.searchsorted(rc_arr, best[0] - spent, side="right"))
            candidates = [lst[q] for q in np.flatnonzero((mask_arr[:end] & covered) == 0)]
        else:
            candidates = lst
        for rc, mask, c in candidates:
            if spent + rc > best[0]:
                break
            if mask & covered:
                continue
            chosen.append(c)
            ok = search(covered | mask, spent + rc)
            chosen.pop()
            if not ok:
                return False
        return True

    done = search(0, 0.0)
    return best[1], done


def close_by_cover(inst, oracle, pi: np.ndarray, min_rc: float, best: Packs, step: float,
                   deadline: Deadline, stats: dict, limit: int | None = None
                   ) -> tuple[Packs, bool, float | None, bool]:
    """Rounds of growing closures (decision C22): (best packs, proven optimal, lower bound or
    None, stopped by `limit` rather than by the deadline).

    `pi` are converged duals (every rc >= min_rc, min_rc <= 0), `oracle` a
    `pricing_oracle.PackOracle`. Round r lists every pack with rc <= delta_r (+ slack for
    min_rc) and
    searches the cheapest cover of reduced cost <= delta_r: one found is optimal (any other
    partition either uses listed packs only, and costs no less, or holds a pack of rc >
    delta_r); none found proves every partition costs more than sum pi + delta_r, a lower bound.
    delta grows by `DELTA_GROWTH` from `FIRST_DELTA_SHARE` of the gap to the incumbent up to
    that gap (less `step`: 1/D on exact data, a relative 1e-9 on float times), where the
    incumbent is proven.
    """
    n = inst.n
    native = _cclosure.lib() is not None and n <= _cclosure.MAX_TASKS
    if limit is None:
        limit = CLOSURE_LIMIT if native else CLOSURE_LIMIT_PYTHON
    dual = float(pi.sum())
    neg = -min(0.0, min_rc)
    tol = 1e-9 * max(1.0, abs(float(best.makespan)))
    lb = None
    rounds = stats.setdefault("closure_rounds", [])

    def gap_to(ub: float) -> float:
        return ub - (step if step else tol) - dual

    delta = gap_to(float(best.makespan)) * FIRST_DELTA_SHARE
    while True:
        full = gap_to(float(best.makespan))
        if full < -tol - n * neg:
            return best, True, lb, False
        delta = min(delta, full)
        listed = oracle.enumerate_masks(pi, 0.0, delta + (n - 1) * neg + tol, limit, deadline)
        if listed is None:
            rounds.append({"delta": delta, "packs": None, "seconds": deadline.elapsed()})
            return best, False, lb, not deadline.expired()
        masks, costs, gains = listed
        if deadline.expired():
            rounds.append({"delta": delta, "packs": len(masks), "complete": False})
            return best, False, lb, False
        # the incumbent's packs (a safety net)
        masks = np.concatenate([masks, masks_of([b.tasks for b in best], n)])
        rcs = np.concatenate([costs - gains, [float(b.time) - float(pi[list(b.tasks)].sum())
                                              for b in best]])
        chosen, done = cheapest_cover_masks(n, masks, rcs, delta + tol + n * neg, deadline)
        rounds.append({"delta": delta, "packs": len(masks), "complete": done,
                       "seconds": deadline.elapsed()})
        value = None
        if chosen is not None:
            value = float(sum(rcs[c] for c in chosen))
            best = _better(inst, oracle, masks, chosen, best, deadline)
        if not done:
            return best, False, lb, False
        if value is not None and value <= delta + tol:
            return best, True, lb, False  # the cheapest cover of all
        if delta >= full:
            return best, True, lb, False  # no partition beats the incumbent
        lb = dual + delta
        # a heuristic: the listed packs may still combine into a partition better than the
        # incumbent (sum rc up to the full gap); a bounded search looks for one
        nodes = UPPER_BOUND_NODES_NATIVE if native else UPPER_BOUND_NODES
        chosen, _ = cheapest_cover_masks(n, masks, rcs, full + tol, deadline, nodes)
        if chosen is not None:
            best = _better(inst, oracle, masks, chosen, best, deadline)
        delta *= DELTA_GROWTH


def _better(inst, oracle, masks: np.ndarray, chosen: list[int], best: Packs,
            deadline: Deadline) -> Packs:
    """The partition of the chosen packs, improved by local search (`task_moves`, Algorithm 1's
    times), if it beats `best`."""
    packs = improve_packs(oracle, [tasks_of(int(masks[c])) for c in chosen], deadline)
    found = make_packs(inst, packs)
    return found if found.makespan < best.makespan else best
