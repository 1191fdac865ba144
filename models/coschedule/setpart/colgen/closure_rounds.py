"""Closure rounds with a cutoff for ``setpart-cg`` (spec 001 §2.3, decisions C27, C28).

After column generation (duals with dual objective D and smallest reduced cost m = min rc <= 0),
every partition x costs cost(x) >= D + sum_{B in x} rc_B (`setpart.subset_rows` module doc). A
partition holding a pack with rc_B > delta therefore costs at least

    thr(delta) = D + delta + (n - 1) min(0, m).

Round r takes the packs with rc <= delta_r (the closure) and asks for the cheapest partition
among them that costs less than thr(delta_r): by the exact search of `closure_search` (C kernel,
decision C28; it looks below min(thr, UB), so a completed round with UB < thr proves the
incumbent) when the C kernels serve n tasks, else by HiGHS (``objective_bound``: nodes whose
bound reaches it are pruned). When the search completes:

- it found a partition costing v < thr(delta_r): v is optimal (every partition outside the
  closure costs >= thr(delta_r) > v, every one inside >= v);
- it found none: every partition costs >= thr(delta_r), a lower bound; delta grows by
  `DELTA_GROWTH` and the next round runs.

The last round has delta = the gap to the incumbent UB (thr = UB - 1/D on exact data): the
full closure of decision C10, seeded with the incumbent, whose completion proves the incumbent
optimal. A round stopped by the time limit gives min(thr, HiGHS's bound) as a lower bound.
Unlike one full closure, the rounds raise the bound step by step and keep each MIP small; a
partition better than the incumbent is found by the first round whose closure holds it.

The search answers the rounds of n = 150, k = 3 and n = 80, k = 4 10-100x faster than HiGHS
(a 5,500-pack round in 0.3 s instead of ~20 s, docs/performance.md). The proof MIPs run with
HiGHS's primal heuristics off and reliability branching at 0 (they search for a proof, the
incumbent is known), and without presolve above `PRESOLVE_MAX_COLUMNS` (HiGHS's presolve ran
> 150 s on an 82,000-pack closure at n = 150, 8 s on 9,000 packs; without it the 9,000-pack
closure was not solved in 150 s, with it in 94 s).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from resilsched.heuristics.coschedule import Packs, make_packs
from resilsched.models.coschedule.answer import best_bound
from resilsched.models.coschedule.hardlimit import PhaseTimeout, run_limited
from resilsched.models.coschedule.setpart.colgen import closure_search
from resilsched.models.coschedule.setpart.master import Master
from resilsched.models.coschedule.setpart.pool import PackPool

#: delta grows by this factor per round (the closure grows ~1.7x; at 1.5 the optimum of
#: n = 80, k = 4 seed 2 sat 0.0003 above a cutoff and the next closure did not fit)
DELTA_GROWTH = 1.3
#: ... and by at least this share of the gap to the incumbent (delta may start at 0)
MIN_STEP = 1e-3
#: HiGHS's presolve is off for closures above this many packs
PRESOLVE_MAX_COLUMNS = 25_000
#: HiGHS settings of the proof rounds: no primal heuristics, no strong-branching warm-up
PROOF_SETTINGS: dict[str, Any] = {
    "mip_heuristic_effort": 0.0,
    "mip_heuristic_run_rens": False,
    "mip_heuristic_run_rins": False,
    "mip_heuristic_run_root_reduced_cost": False,
    "mip_heuristic_run_feasibility_jump": False,
    "mip_pscost_minreliable": 0,
}
#: the bound claimed after a round without a partition below its cutoff is the cutoff less
#: this amount (s): HiGHS prunes within its absolute gap 1e-6
CUTOFF_SLACK = 2e-6


@dataclass(frozen=True)
class RoundResult:
    """A closure MIP: its packs (None: none found), HiGHS's bound, whether the search
    completed (status optimal or infeasible), and the number of columns."""

    packs: list[tuple[int, ...]] | None
    bound: float
    complete: bool
    columns: int


def proof_settings(settings: dict, columns: int) -> dict:
    """`settings` with `PROOF_SETTINGS`, and presolve off for large closures."""
    out = {**settings, **PROOF_SETTINGS}
    if columns > PRESOLVE_MAX_COLUMNS:
        out["presolve"] = "off"
    return out


def cutoff_mip(template: Master, pool: PackPool, keep: dict[int, np.ndarray], incumbent: Packs,
               settings: dict, end: float, cutoff: float | None) -> RoundResult:
    """The MIP over the incumbent's packs and the pool packs where `keep` holds, with the
    template's cuts, pruned at `cutoff` (None: seeded with the incumbent instead); runs inside
    the forked child of `run_limited`."""
    import highspy
    columns = pool.select(keep)
    mip = Master(template.n, template.min_packs, template.cuts,
                 proof_settings(settings, len(columns)))
    mip.add([b.tasks for b in incumbent], [float(b.time) for b in incumbent])
    mip.add([b for b, _ in columns], [c for _, c in columns])
    if cutoff is not None:
        mip.h.setOptionValue("objective_bound", float(cutoff))
    res = mip.run_mip(end - time.monotonic(), None if cutoff is not None
                      else incumbent.task_lists())
    status = mip.h.getModelStatus()
    complete = status in (highspy.HighsModelStatus.kOptimal,
                          highspy.HighsModelStatus.kInfeasible)
    return RoundResult(res.packs, res.bound, complete, len(mip.cols))


def cutoff_rounds(inst, cg, pool: PackPool, master: Master, best: Packs, lb: Any,
                  delta: float, gap_to_close: Callable[[float], float], deadline,
                  settings: dict, rounds: list, say: Callable[[str], None] = lambda m: None,
                  use_search: bool = True) -> tuple[Packs, bool, Any]:
    """Closure rounds from `delta` (module docstring): (best packs, proven, lower bound).

    `cg` is the converged `root_lp.Pricing`, `gap_to_close(ub)` the largest rc of a pack that can
    take part in a partition better than ub; each round appends its facts to `rounds`. Each
    round is solved by the exact search of `closure_search` when `use_search` and the C kernels
    serve n tasks, else by HiGHS (`cutoff_mip`).
    """
    n = inst.n
    slack = (n - 1) * min(0.0, cg.min_rc)
    duals = search_duals(inst, cg, master) if use_search else None
    while True:
        ub = float(best.makespan)
        full_gap = gap_to_close(ub)
        if full_gap < 0:
            return best, True, lb
        full = delta >= full_gap
        delta = min(delta, full_gap)
        thr = cg.dual + delta + slack
        keep = {s: cg.rcs[s] <= delta for s in cg.rcs}
        budget = deadline.remaining()
        kind = "search" if duals is not None else "MIP"
        say(f"closure {kind} ({'full' if full else 'cutoff'} round, delta {delta:.4g})")
        try:
            if duals is not None:
                res = search_round(pool, keep, cg.rcs, duals, min(thr, ub), budget)
            else:
                res = run_limited(partial(cutoff_mip, master, pool, keep, best, settings,
                                          time.monotonic() + budget, None if full else thr),
                                  budget)
        except PhaseTimeout:
            rounds.append({"delta": delta, "killed": True, "seconds": deadline.elapsed()})
            return best, False, lb
        value = None
        if res.packs is not None:
            found = make_packs(inst, res.packs)
            value = float(found.makespan)
            if found.makespan < best.makespan:
                best = found
        below = value is not None and value < thr
        if duals is not None:  # the search looked below min(thr, ub): the incumbent may be it
            below = float(best.makespan) < thr
        rounds.append({"delta": delta, "columns": res.columns, "cutoff": None if full else thr,
                       "method": "search" if duals is not None else "mip",
                       "complete": res.complete, "found_below": below, "ub": best.makespan,
                       "seconds": deadline.elapsed()})
        if not res.complete:  # time is up
            cap = float(best.makespan) if full else thr
            return best, False, best_bound(lb, min(cap, res.bound))
        if full or below:
            return best, True, lb
        lb = best_bound(lb, thr - CUTOFF_SLACK - 1e-12 * abs(thr))
        delta = max(delta * DELTA_GROWTH, delta + MIN_STEP * full_gap)


def search_duals(inst, cg, master: Master) -> closure_search.Duals | None:
    """The duals `closure_search` bounds with, or None when its C search cannot serve `inst`."""
    if not closure_search.available(inst.n):
        return None
    return cut_duals(inst, cg, master)


def cut_duals(inst, cg, master: Master) -> closure_search.Duals | None:
    """The duals of the cut master behind `cg`'s reduced costs (None before any LP)."""
    if cg.pi is None:
        return None
    triples = list(master.cuts.triples) if master.cuts is not None else []
    sigma = cg.sigma if cg.sigma is not None and len(cg.sigma) == len(triples) \
        else np.zeros(len(triples))
    return closure_search.Duals(cg.dual, cg.mu, master.min_packs or 0, triples, sigma, inst.k)


def search_round(pool: PackPool, keep: dict[int, np.ndarray], rcs: dict[int, np.ndarray],
                 duals: closure_search.Duals, target: float, budget: float) -> RoundResult:
    """A closure round solved by `closure_search.search`: the cheapest partition of the kept packs
    costing less than `target`; an incomplete search bounds nothing (bound -inf)."""
    if budget <= 0:
        raise PhaseTimeout("no time left")
    try:
        res = closure_search.search(pool, keep, rcs, duals, target, budget)
    except MemoryError:  # an unfinished round: the caller answers with what it has
        return RoundResult(None, -np.inf, False, sum(int(k.sum()) for k in keep.values()))
    return RoundResult(res.packs, -np.inf, res.complete, res.columns)
