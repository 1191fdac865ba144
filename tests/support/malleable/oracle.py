"""Independent oracles for the malleable tests: brute force with its own transition code."""

from __future__ import annotations

import itertools
import math


def rc(inst, i: int, j: int, k: int) -> float:
    """(1.11), written again."""
    if j == k:
        return 0.0
    m = inst.tasks[i].m * inst.checkpoint_factor
    return inst.S + max(min(j, k), abs(k - j)) * (m / (j * k) + inst.beta)


def even_allocations(n: int, p: int):
    """Every n-tuple of even counts >= 2 with sum <= p."""
    ks = range(2, p + 1, 2)
    for combo in itertools.product(ks, repeat=n):
        if sum(combo) <= p:
            yield combo


def static_brute(inst, value) -> float:
    """min over even allocations of max_i value(i, sigma_i)."""
    return min(max(value(i, k) for i, k in enumerate(c)) for c in even_allocations(inst.n, inst.p))


def faultfree_brute(inst) -> float:
    """Fault-free optimum with redistribution at ends, by exhaustive recursion (no pruning)."""
    n, p = inst.n, inst.p
    t = {(i, k): inst.time(i, k) for i in range(n) for k in range(2, p + 1, 2)}

    def advance(state, free):
        live = [(s[2] + s[1] * t[i, s[0]], i) for i, s in enumerate(state) if s is not None]
        tc, ic = min(live)
        if len(live) == 1:
            return tc
        new = list(state)
        free += state[ic][0]
        new[ic] = None
        return decide(tc, tuple(new), free)

    def decide(now, state, free):
        elig = [i for i, s in enumerate(state) if s is not None and s[2] <= now]
        pool = free + sum(state[i][0] for i in elig)
        best = math.inf
        for combo in even_allocations(len(elig), pool):
            new = list(state)
            for i, k in zip(elig, combo, strict=True):
                j, a, tl = state[i]
                if k != j:
                    new[i] = (k, max(0.0, a - (now - tl) / t[i, j]), now + rc(inst, i, j, k))
            best = min(best, advance(tuple(new), pool - sum(combo)))
        return best

    return min(advance(tuple((k, 1.0, 0.0) for k in c), p - sum(c))
               for c in even_allocations(n, p))
