"""The clairvoyant construction of the malleable family (issue 23, decision MA-25): a run on the
failure trace that reads the trace in advance. It is not a heuristic of the chapter (SAF and IG
learn of a failure when it strikes), so the family registers it as the *construction*
``CLAIRVOYANT``: the portfolio of ``resilsched solve`` takes its schedule, checked by the
family's validator like every heuristic's.

A failure strikes only a processor that works for an application; one on an idle processor is
discarded (spec §3.3, A-7). A run that knows where the failures fall can therefore keep the
processors that fail before its end idle and meet no failure at all. The construction

1. tabulates the realized time of each application on each even count without failure,
   d_i(k) = t_{i,k} + N^ff_{i,k}(1) C_{i,k} (A-6; t_{i,k} without failures);
2. takes the static allocation that minimises max_i d_i(k_i) subject to sum_i k_i <= cap
   (`static_allocation`: a threshold search over the values of d, where k_i(theta) is the
   first count with d_i(k) <= theta; exact, like MA-4, since d is not monotone in k);
3. keeps idle the processors the trace fails before that makespan (times `1 + MARGIN`), the
   earliest failing first and at most p - 2n of them, and recomputes the allocation with
   cap = p minus those, until the set no longer grows;
4. runs the allocation on the trace with the family's simulator and no END or FAIL policy
   (`simulate(..., initial=, order=)`, the idle processors handed out last), so a failure it
   could not dodge strikes as it does in every run.

With every failure dodged the run is the static optimum of the realized times on p minus the
idle processors. In the fault-free context (mtbf null) it is the static optimum of t.
"""

from __future__ import annotations

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.malleable.run import result_of
from resilsched.heuristics.malleable.simulator import simulate
from resilsched.heuristics.malleable.state import Options
from resilsched.instances.malleable.formulas import formulas_of
from resilsched.instances.malleable.traces import FailureTrace, trace_for
from resilsched.solution import HeuristicResult

#: most cells (applications x even counts) the construction tabulates
MAX_CELLS = 4_000_000
#: the processors failing before (1 + MARGIN) times the planned makespan are kept idle
MARGIN = 0.02
#: most rounds of step 3 (the idle set only grows, so it stops sooner in practice)
ROUNDS = 8


def clairvoyant(instance, scenario=None, *, seed: int = 0) -> HeuristicResult:
    """The run of the module docstring on `scenario` (None: the instance's trace, else the one
    drawn from its mtbf with `seed`, as the heuristics do, MA-3).

    Returns
    -------
    HeuristicResult
        objective = the realized makespan, schedule = the `RunPayload`; ``extra`` adds
        ``idle_processors`` (the ids kept idle) and ``planned_makespan`` (the static optimum
        planned, met when no failure strikes).
    """
    ks = np.arange(2, instance.p_even + 1, 2)
    n, p = instance.n, instance.p
    if n * ks.size > MAX_CELLS:
        raise InvalidInstance("CLAIRVOYANT", f"n x p/2 = {n * ks.size} cells exceed "
                                             f"{MAX_CELLS} (too large to tabulate)")
    ff = instance.fault_free
    trace = FailureTrace((), ()) if ff else trace_for(instance, scenario, seed)
    source = "none" if ff else ("drawn" if not isinstance(trace, FailureTrace) else
                                "instance" if scenario is None else "given")
    F = formulas_of(instance)
    idx = np.repeat(np.arange(n), ks.size)
    kk = np.tile(ks, n)
    d = F.duration(idx, kk, np.ones(idx.size)).reshape(n, ks.size)
    idle: list[int] = []
    planned, sigma = static_allocation(d, ks, p)
    for _ in range(ROUNDS):
        more = first_failures(trace, planned * (1.0 + MARGIN))[: p - 2 * n]
        if len(more) <= len(idle):
            break
        idle = more
        planned, sigma = static_allocation(d, ks, p - len(idle))
    kept = set(idle)
    order = [q for q in range(p) if q not in kept] + idle
    st, read = simulate(instance, trace, None, None, Options(), initial=sigma, order=order)
    return result_of("CLAIRVOYANT", st, read, ff, source, Options(), seed,
                     extra={"idle_processors": sorted(idle), "planned_makespan": planned})


def static_allocation(d: np.ndarray, ks: np.ndarray, cap: int) -> tuple[float, np.ndarray]:
    """min over even allocations with sum_i k_i <= cap of max_i d_i(k_i), and the allocation.

    `d` is (applications x counts `ks`); k_i(theta) = the first count with d_i <= theta, the
    fewest processors that meet theta, so theta is feasible iff sum_i k_i(theta) <= cap, and
    the optimum is the smallest feasible value of d (bisection over the sorted values).
    """
    best = np.minimum.accumulate(d, axis=1)  # prefix minima: k_i(theta) from their first hit
    values = np.unique(best)
    values = values[values >= best[:, -1].max()]

    def counts(theta: float) -> np.ndarray:
        return ks[np.argmax(best <= theta, axis=1)]

    lo, hi = 0, values.size - 1  # counts(values[-1]) is all 2s: feasible when cap >= 2n
    while lo < hi:
        mid = (lo + hi) // 2
        if int(counts(values[mid]).sum()) <= cap:
            hi = mid
        else:
            lo = mid + 1
    return float(values[lo]), counts(values[lo]).astype(np.int64)


def first_failures(trace, until: float) -> list[int]:
    """The processors the trace fails at or before `until`, by their first failure time."""
    seen: dict[int, float] = {}
    cur = trace.cursor()
    while cur.time <= until:
        seen.setdefault(cur.proc, cur.time)
        cur.advance()
    return sorted(seen, key=lambda q: (seen[q], q))
