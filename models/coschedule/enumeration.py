"""Exact k-in-p co-scheduling by enumeration of partitions into packs (spec 001 §2.3, Method 1).

Subset DP: F(empty) = 0, F(S) = min over blocks B with min(S) in B, B subset of S, |B| <= k of
cost1pack(B) + F(S \\ B), where cost1pack is Algorithm 1. O(3^n) in the worst case (k = n),
O(2^n n^{k-1}) for fixed k; for n <= ~14. Exact arithmetic in the instance's number type.
"""

from __future__ import annotations

import itertools
import math
import time

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.common import make_payload
from resilsched.models.coschedule.onepack import optimal_pack
from resilsched.solution import Solution, Status

MAX_N = 16


def solve_enumeration(inst: CoscheduleInstance, scenario=None,
                      time_limit: float | None = None) -> Solution:
    """Optimal co-schedule by the subset DP (status optimal unless the time limit stops it)."""
    n, k = inst.n, inst.k
    if n > MAX_N:
        raise InvalidInstance("tasks", f"n={n} is too large for enumeration (n <= {MAX_N})")
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    cost: dict[int, object] = {}
    full = (1 << n) - 1
    f: list[object] = [math.inf] * (full + 1)
    choice = [0] * (full + 1)
    f[0] = 0
    for mask in range(1, full + 1):
        if deadline is not None and (mask & 1023) == 0 and time.perf_counter() > deadline:
            return Solution(objective=None, bound=None, status=Status.NO_SOLUTION,
                            method="enumeration", solver="subset-dp",
                            wall_time=time.perf_counter() - t0)
        low = mask & -mask
        rest = [b for b in range(n) if (mask >> b) & 1 and (1 << b) != low]
        best, best_b = math.inf, 0
        for r in range(0, min(k, len(rest) + 1)):
            for combo in itertools.combinations(rest, r):
                b = low
                for x in combo:
                    b |= 1 << x
                c = cost.get(b)
                if c is None:
                    c = optimal_pack(inst, [x for x in range(n) if (b >> x) & 1])[0]
                    cost[b] = c
                v = c + f[mask ^ b]
                if v < best:
                    best, best_b = v, b
        f[mask], choice[mask] = best, best_b
    packs, mask = [], full
    while mask:
        b = choice[mask]
        packs.append([x for x in range(n) if (b >> x) & 1])
        mask ^= b
    payload = make_payload(inst, packs)
    return Solution(objective=f[full], bound=f[full], status=Status.OPTIMAL,
                    method="enumeration", solver="subset-dp",
                    wall_time=time.perf_counter() - t0, payload=payload)
