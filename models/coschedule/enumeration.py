"""Exact k-in-p co-scheduling by enumeration of partitions into packs (spec 001 §2.3, Method 1).

Subset DP: F(empty) = 0, F(S) = min over blocks B with min(S) in B, B subset of S, |B| <= k of
cost1pack(B) + F(S \\ B), where cost1pack is Algorithm 1. O(3^n) in the worst case (k = n),
O(2^n n^{k-1}) for fixed k; for n <= 16 (larger n is refused).

Exact arithmetic (decision C15): pack costs are the exact integers t D of `integer_times`
(floats are the dyadic rationals they denote), so the DP compares exact sums and the status
``optimal`` is a proof. The DP checks the deadline every `CHECK_EVERY` blocks; when time runs
out the answer is PACK-APPROX's packs with the combined pack bound, status ``feasible``.
"""

from __future__ import annotations

import itertools
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.heuristics.coschedule import make_packs, optimal_pack
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.answer import fallback, finish, makespan_unit
from resilsched.models.coschedule.integer_times import exact_times, scaled
from resilsched.options import SolveOptions
from resilsched.solution import Solution

MAX_N = 16
#: blocks evaluated between two looks at the clock
CHECK_EVERY = 4096


def solve_enumeration(instance: CoscheduleInstance, scenario=None, *,
                      time_limit: float | None = None, **options: Any) -> Solution:
    """Optimal co-schedule by the subset DP (module docstring). Options: `SolveOptions`."""
    opts = SolveOptions.of(time_limit, options)
    inst = instance
    n, k = inst.n, inst.k
    if n > MAX_N:
        raise InvalidInstance("tasks", f"n={n} is too large for enumeration (n <= {MAX_N})")
    unit = makespan_unit(inst)
    _, d, _ = exact_times(inst)
    cost: dict[int, int] = {}
    full = (1 << n) - 1
    f: list[int | None] = [None] * (full + 1)
    choice = [0] * (full + 1)
    f[0] = 0
    work = 0
    opts.say("subset DP over partitions into packs")
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = [b for b in range(n) if (mask >> b) & 1 and (1 << b) != low]
        best: int | None = None
        best_b = 0
        for r in range(0, min(k, len(rest) + 1)):
            for combo in itertools.combinations(rest, r):
                work += 1
                if work % CHECK_EVERY == 0 and opts.deadline.expired():
                    opts.say("time limit: answering with PACK-APPROX's packs and the pack bound")
                    packs, lb = fallback(inst)
                    return finish(inst, opts, "enumeration", "subset-dp", packs, lb, False,
                                  {"subsets_done": mask}, unit)
                b = low
                for x in combo:
                    b |= 1 << x
                c = cost.get(b)
                if c is None:
                    time, _ = optimal_pack(inst, [x for x in range(n) if (b >> x) & 1])
                    c = cost[b] = scaled(time, d) if time != float("inf") else -1
                if c < 0 or f[mask ^ b] is None:
                    continue
                v = c + f[mask ^ b]
                if best is None or v < best:
                    best, best_b = v, b
        f[mask], choice[mask] = best, best_b
    if f[full] is None:  # unreachable for a valid instance (every task fits alone)
        raise InvalidInstance("tasks", "no co-schedule has a finite makespan")
    chosen, mask = [], full
    while mask:
        b = choice[mask]
        chosen.append([x for x in range(n) if (b >> x) & 1])
        mask ^= b
    packs = make_packs(inst, chosen)
    proven = scaled(packs.exact_makespan, d) == f[full]
    return finish(inst, opts, "enumeration", "subset-dp", packs, None, proven,
                  {"optimality": "exact"}, unit)
