"""``static-optimal``: the best even allocation without redistribution (spec 001 Thm 1.4, §2.2).

Problem: choose even sigma_i >= 2 with sum_i sigma_i <= p minimising max_i t^R_{i,sigma_i}(1)
(lambda = 0: max_i t_{i,sigma_i}). Algorithm 1 on pairs is exact only where (1.7) holds, and the
floor in N^ff breaks (1.7) in the paper's own setting (spec §1.5 [DERIVED]); this model does not
rely on it (decision MA-4).

Method: a threshold search. For a threshold theta, application i needs the smallest even count
k_i(theta) whose value is <= theta, i.e. the first count where the prefix minimum of
j -> t^R_{i,j}(1) drops to theta; theta is achievable iff sum_i k_i(theta) <= p. This is
monotone in theta, and the optimum is an attained value, so a bisection over the sorted prefix
minima finds it exactly: O(n K) evaluations of (1.6) and O(n K log(n K)) work, with
K = (p - 2(n-1))/2 counts per application (an application never gets more than the others'
minimum leaves), or fewer: above the proven bound U_i of j_max no count lowers the prefix
minimum (decision MA-20), so the rows stop at U_i / 2. An independent brute force over
processor pairs is the oracle of the tests.

Every phase counts against the deadline: when time runs out the result is ``feasible`` with the
best allocation known (the bisection's feasible side, or 2 processors each) and a valid bound
(its infeasible side, or the fluid bound).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.bounds.malleable import fluid_bound
from resilsched.errors import InvalidInstance
from resilsched.instances.malleable.formulas import formulas_of
from resilsched.numeric import readable
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status

#: largest n * K (evaluations of (1.6)) the model accepts: about 100 MB of prefix minima
MAX_CELLS = 12_000_000
#: evaluations of (1.6) per deadline check (about 0.05-0.2 s of CPU)
CHUNK = 1 << 19
#: seconds per prefix minimum to sort them (np.unique, not interruptible: ~1e-7 measured)
SORT_SECONDS_PER_CELL = 3e-7


@dataclass(frozen=True)
class StaticOptions(SolveOptions):
    """Options of ``static-optimal`` (no knobs of its own)."""


@dataclass(frozen=True)
class AllocationPayload:
    """An even allocation kept to the end: sigma_i and the value t^R_{i,sigma_i}(1) of each."""

    sigma: tuple[int, ...]
    values: tuple[float, ...]
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"sigma": list(self.sigma), "values": list(self.values), **self.info}

    def lines(self) -> list[str]:
        n = len(self.sigma)
        shown = ", ".join(map(str, self.sigma[:16])) + (", ..." if n > 16 else "")
        worst = int(np.argmax(self.values)) if n else -1
        return [f"processors: {shown} (sum {sum(self.sigma)})",
                f"longest: application {worst}, {readable(self.values[worst])} s"]


def solve_static(instance, scenario=None, *, time_limit=None, **options) -> Solution:
    """The optimal static even allocation (status ``optimal``), see the module docstring."""
    opts = StaticOptions.of(time_limit, options)
    t0 = time.perf_counter()
    n, p = instance.n, instance.p_even
    F = formulas_of(instance)
    # counts above the bound of j_max never lower a prefix minimum (MA-20): rows stop there
    width = (p - 2 * (n - 1)) // 2
    widths = np.minimum(width, F.jmax_upper // 2)
    cells = int(widths.sum())
    if cells > MAX_CELLS:
        raise InvalidInstance("instance", f"static-optimal would evaluate (1.6) on {cells} even "
                              f"counts (sum_i min((p-2n+2)/2, U_i/2)), above its maximum "
                              f"{MAX_CELLS}")
    top = int(widths.max())
    opts.say(f"static-optimal: evaluating t^R(1) on {cells} even counts of {n} applications")
    pmin = np.empty((n, top))
    for i in range(n):
        w = int(widths[i])
        best = np.inf
        for lo in range(0, w, CHUNK):
            if opts.deadline.expired():
                return _timed_out(instance, F, opts, t0, None, None)
            ks = 2 * np.arange(lo + 1, min(w, lo + CHUNK) + 1)
            part = np.minimum.accumulate(F.t_r(np.full(ks.size, i), ks, 1.0))
            pmin[i, lo:lo + ks.size] = np.minimum(part, best)
            best = float(pmin[i, lo + ks.size - 1])
        pmin[i, w:] = best  # constant beyond the bound
    opts.say("static-optimal: bisection over the prefix minima")
    if opts.time_limit is not None and \
            pmin.size * SORT_SECONDS_PER_CELL > opts.deadline.remaining():
        return _timed_out(instance, F, opts, t0, None, None)  # the sort would not fit
    cand = np.unique(pmin)
    lo, hi = -1, cand.size - 1  # cand[hi] is feasible (the largest value), cand[lo] is not
    lo_val = None
    while hi - lo > 1:
        if opts.deadline.expired():
            return _timed_out(instance, F, opts, t0, (pmin, cand[hi]), lo_val)
        mid = (lo + hi) // 2
        if _need(pmin, cand[mid]) <= instance.p:
            hi = mid
        else:
            lo, lo_val = mid, float(cand[mid])
    theta = float(cand[hi])
    sigma = _counts(pmin, theta)
    values = pmin[np.arange(n), sigma // 2 - 1]
    payload = AllocationPayload(tuple(int(x) for x in sigma), tuple(values.tolist()),
                                {"method": "threshold search over prefix minima"})
    return Solution(theta, theta, Status.OPTIMAL, "static-optimal", "threshold-search",
                    time.perf_counter() - t0, payload=payload,
                    info={"cells": int(n * width), "candidates": int(cand.size)})


def _counts(pmin: np.ndarray, theta: float) -> np.ndarray:
    """k_i(theta): 2 + 2 * (number of prefix minima above theta) per application."""
    return 2 + 2 * np.count_nonzero(pmin > theta, axis=1)


def _need(pmin: np.ndarray, theta: float) -> float:
    c = np.count_nonzero(pmin > theta, axis=1)
    if np.any(c >= pmin.shape[1]):
        return np.inf
    return float(np.sum(2 + 2 * c))


def _timed_out(instance, F, opts, t0, feasible, lo_val) -> Solution:
    """Out of time: the best allocation known and a valid bound (status feasible)."""
    n = instance.n
    if feasible is not None:
        pmin, theta = feasible
        sigma = _counts(pmin, float(theta))
    else:
        sigma = np.full(n, 2)
    values = F.t_r(np.arange(n), sigma, 1.0)
    bound = lo_val if lo_val is not None else fluid_bound(instance)
    payload = AllocationPayload(tuple(int(x) for x in sigma), tuple(values.tolist()),
                                {"method": "time limit reached"})
    return Solution(float(values.max()), float(bound), Status.FEASIBLE, "static-optimal",
                    "threshold-search", time.perf_counter() - t0, payload=payload,
                    info={"timed_out": True})
