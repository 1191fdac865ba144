"""``setpart-cg``: column generation + cuts + reduced-cost column closure over the explicit pool
("price, cut and branch"; spec 001 §2.3, decisions C10, C13-C14, C26-C29).

The model of `resilsched.models.coschedule.setpart` (HiGHS, ``mip_rel_gap = 0``), in steps:

1. restricted master LP over singletons and the PACK-APPROX packs, plus the pack-count cut
   and subset-row cuts (`root_lp`); LB = D + n min(0, min rc) at every round;
2. closure: cost(x) >= D + sum_{B in x} rc_B for every partition x (`setpart.subset_rows`
   module doc), so a partition with cost(x) < T uses only packs with
   rc_B < T - D - (n-1) min(0, min rc) =: gap(T). With T = UB (UB - 1/D for exact data
   whose makespans are multiples of 1/D, `answer.makespan_unit`), the integer program
   over those packs (with the cuts) is exact;
3. an incumbent (decision C26): pair exchanges (`pair_exchange`) on PACK-APPROX's packs and
   ``DIVES`` LP dives (`lp_dive`) over the ``DIVE_COLUMNS * n`` packs of smallest rc, each
   polished by pair exchanges, within ``DIVE_SHARE`` of the time left; with the C kernels the
   large-neighbourhood search of `lns` instead of the dives (C29); then an early MIP
   over the ``FIRST_CLOSURE_COLUMNS * n`` packs of smallest rc seeded with that incumbent
   (stopped at a relative gap of ``EARLY_ROUND_GAP`` or after ``FIRST_ROUND_SHARE`` of
   the time left, C14; skipped when the closure search of `closure_search` answers the rounds,
   C28). Neither ever proves anything;
4. closure rounds (`closure_rounds`): the full closure over gap(UB) when it holds at most
   ``DIRECT_FULL_COLUMNS`` packs, else cutoff rounds from the ``CUTOFF_CLOSURE_COLUMNS * n``
   packs of smallest rc, each either finding the optimum or raising the bound, up to the
   full closure, which proves the incumbent optimal. Each round is solved by the exact C
   search of `closure_search` (option ``closure``: ``auto`` = it when built, ``search``,
   ``mip`` = HiGHS).

Time limits (decision C16): every phase runs under ``opts.deadline``: the pool and its pair
index are built in chunks checked against it, each LP gets the time left, and each MIP (built
and solved) runs in a forked child killed when its budget is spent (`hardlimit`). When time
runs out the answer is ``feasible`` with the best packs known (PACK-APPROX's at worst) and the
best bound (LB, the combined pack bound, a completed cutoff round's cutoff, or the last
closure MIP's bound).
``info["closure_rounds"]`` lists the rounds.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import numpy as np

from resilsched.deadline import Deadline
from resilsched.heuristics.coschedule import Packs, make_packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.answer import best_bound, fallback, finish, makespan_unit
from resilsched.models.coschedule.hardlimit import PhaseTimeout, run_limited
from resilsched.models.coschedule.options import SetpartCGOptions
from resilsched.models.coschedule.setpart.colgen import closure_search
from resilsched.models.coschedule.setpart.colgen.closure_rounds import cut_duals, cutoff_rounds
from resilsched.models.coschedule.setpart.colgen.lns import PackIndex, lns, neighbours
from resilsched.models.coschedule.setpart.colgen.lns import available as lns_available
from resilsched.models.coschedule.setpart.colgen.lp_dive import lp_dive
from resilsched.models.coschedule.setpart.colgen.pair_exchange import improve
from resilsched.models.coschedule.setpart.colgen.root_lp import root_relaxation
from resilsched.models.coschedule.setpart.master import (
    Master,
    min_packs,
    mip_over_pool,
    pack_columns,
    singletons,
)
from resilsched.models.coschedule.setpart.pool import PackPool, build_pool, check_pool_size
from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts
from resilsched.solution import Solution

__all__ = ["solve_setpart_cg"]

#: the early MIP of ``setpart-cg`` holds the FIRST_CLOSURE_COLUMNS * n packs of smallest
#: reduced cost (step 3 of the module docstring); the full closure follows.
FIRST_CLOSURE_COLUMNS = 15
#: share of the time left that an early (not yet closed) round may use
FIRST_ROUND_SHARE = 0.2
#: relative MIP gap at which an early round stops (it never proves anything)
EARLY_ROUND_GAP = 1e-4
#: the first cutoff round (`closure_rounds`) holds the CUTOFF_CLOSURE_COLUMNS * n packs of smallest
#: reduced cost; later rounds grow delta by `closure_rounds.DELTA_GROWTH`
CUTOFF_CLOSURE_COLUMNS = 30
#: a full closure up to this many packs is solved at once; a larger one is approached by
#: cutoff rounds (`closure_rounds`), which raise the bound step by step
DIRECT_FULL_COLUMNS = 15_000
#: LP dives (`lp_dive`, ranks 0 .. DIVES-1) over the DIVE_COLUMNS * n packs of smallest
#: reduced cost and pair exchanges (`pair_exchange`), within DIVE_SHARE of the time left, seed
#: the early round
DIVES = 2
DIVE_COLUMNS = 30
DIVE_SHARE = 0.2
#: the large-neighbourhood search (`lns`, in place of the dives when the C kernels serve its
#: moves) takes at most this share of the time left, over the packs of reduced cost
#: <= min(LNS_DELTA, the gap to the incumbent); without the closure search (n > 256) the
#: closure rounds (HiGHS) rarely finish, so it takes the larger share
LNS_SHARE = 0.5
LNS_SHARE_WITHOUT_SEARCH = 0.9
LNS_DELTA = 1.5


def solve_setpart_cg(instance: CoscheduleInstance, scenario=None, *,
                     time_limit: float | None = None, hint: Any = None,
                     **options: Any) -> Solution:
    """Column generation + reduced-cost closure (module docstring); exact when it says optimal.

    Options: `SetpartCGOptions` (``max_pool``, ``cuts``, and the common ones); `hint`: a
    co-schedule to start from (`answer.fallback`).
    """
    opts = SetpartCGOptions.of(time_limit, options)
    inst, n, deadline = instance, instance.n, opts.deadline
    check_pool_size(inst, opts.max_pool)
    unit = makespan_unit(inst)
    best, lb = fallback(inst, hint)
    info: dict[str, Any] = {"heuristic_ub": best.makespan, "closure_rounds": []}
    proven = False
    try:
        opts.say("building the pool of packs")
        pool = build_pool(inst, deadline, opts.max_pool)
        info["pool"] = pool.size
        cuts = SubsetRowCuts(n, pool.packs, deadline) if opts.cuts else None
        master = Master(n, min_packs(inst), cuts, opts.highs_settings())
        master.add(*singletons(inst))
        master.add(*pack_columns(best))
        opts.say("root LP: column generation and subset-row cuts")
        cg = root_relaxation(pool, master, deadline)
        lb = best_bound(lb, cg.lb)
        info.update({"columns_generated": len(master.cols), "lp_bound": cg.lb,
                     "subset_row_cuts": len(cuts) if cuts is not None else 0})
        if cg.converged:
            best, proven, lb = _closure(inst, opts, pool, master, cg, best, lb, unit, info)
    except PhaseTimeout:
        opts.say("time limit: answering with the best packs and bound known")
    return finish(inst, opts, "setpart-cg", "highs", best, lb, proven, info, unit)


def _closure(inst: CoscheduleInstance, opts: SetpartCGOptions, pool: PackPool, master: Master,
             cg, best: Packs, lb: Any, unit, info: dict) -> tuple[Packs, bool, Any]:
    """Closure rounds (module docstring, steps 2-3): (best packs, proven, bound)."""
    n, deadline = inst.n, opts.deadline
    step = float(unit) if unit is not None else 0.0

    def gap_to_close(ub: float) -> float:
        # packs that can appear in a partition better than ub (by >= 1/D for exact data)
        return cg.closure_gap(ub - step) + 1e-7 * max(1.0, ub)

    if gap_to_close(float(best.makespan)) < 0:
        return best, True, lb  # no pack can take part in a better partition
    rcs = cg.rcs
    flat = np.concatenate([rcs[s] for s in sorted(rcs)])

    def smallest(count: int) -> float:
        kth = min(len(flat), count) - 1
        return float(np.partition(flat, kth)[kth])

    delta = smallest(FIRST_CLOSURE_COLUMNS * n)
    search = opts.closure != "mip" and closure_search.available(n)
    moves = opts.lns and lns_available(inst)
    if opts.closure == "search" and not search:
        opts.say("the closure search is unavailable (no C kernels or n > 256): HiGHS's MIP")
    if delta < gap_to_close(float(best.makespan)):
        if moves:
            share = LNS_SHARE if search else LNS_SHARE_WITHOUT_SEARCH
            best = _lns(inst, opts, pool, master, cg, best, gap_to_close, share, info)
        else:
            best = _dives(inst, opts, pool, master, best, rcs, smallest(DIVE_COLUMNS * n), info)
    if not search and not moves and delta < gap_to_close(float(best.makespan)):
        keep = {s: rcs[s] <= delta for s in rcs}
        best = _early_round(inst, opts, pool, master, best, keep, delta, info)
        best = _polish(inst, best, Deadline(deadline.remaining() * DIVE_SHARE))
    full_gap = gap_to_close(float(best.makespan))
    if sum(int((rcs[s] <= full_gap).sum()) for s in rcs) > DIRECT_FULL_COLUMNS:
        full_gap = smallest(CUTOFF_CLOSURE_COLUMNS * n)  # the full closure is too large
    return cutoff_rounds(inst, cg, pool, master, best, lb, full_gap, gap_to_close, deadline,
                         opts.highs_settings(), info["closure_rounds"], opts.say, search)


def _polish(inst: CoscheduleInstance, packs: Packs, deadline: Deadline) -> Packs:
    """`packs` improved by pair exchanges (`pair_exchange`), never worse."""
    found = make_packs(inst, improve(inst, packs.task_lists(), deadline))
    return found if found.makespan < packs.makespan else packs


def _dives(inst: CoscheduleInstance, opts: SetpartCGOptions, pool: PackPool, master: Master,
           best: Packs, rcs: dict[int, np.ndarray], delta: float, info: dict) -> Packs:
    """The incumbent for the early round: the best of `best` and `DIVES` LP dives over the
    packs of rc <= delta, each polished by pair exchanges, within `DIVE_SHARE` of the time."""
    opts.say("LP dives and pair exchanges for an upper bound")
    near = pool.subset({s: rcs[s] <= delta for s in rcs})
    dive_deadline = Deadline(opts.deadline.remaining() * DIVE_SHARE)
    best = _polish(inst, best, dive_deadline)
    info["local_search_ub"] = best.makespan
    for rank in range(DIVES):
        dived = lp_dive(near, master, dive_deadline, opts.highs_settings(), rank)
        if dived is None:
            break
        found = _polish(inst, make_packs(inst, dived), dive_deadline)
        info.setdefault("dive_ub", []).append(found.makespan)
        best = found if found.makespan < best.makespan else best
    return best


def _lns(inst: CoscheduleInstance, opts: SetpartCGOptions, pool: PackPool, master: Master,
         cg, best: Packs, gap_to_close, share: float, info: dict) -> Packs:
    """`best` polished by pair exchanges, then improved by the large-neighbourhood search of
    `lns`, within `share` of the time left (decision C29)."""
    opts.say("pair exchanges and large-neighbourhood search for an upper bound")
    duals = cut_duals(inst, cg, master)
    if duals is None:
        return best
    stop = Deadline(opts.deadline.remaining() * share)
    best = _polish(inst, best, stop)
    info["local_search_ub"] = best.makespan
    cuts = master.cuts
    sigma = duals.sigma

    def rc_of(pack: tuple[int, ...], cost: float) -> float:
        hit = cuts.cuts_of(pack) if cuts is not None else []
        return cost - float(cg.pi[list(pack)].sum()) - cg.mu - float(sigma[hit].sum())

    index = PackIndex(pool, cg.rcs, min(LNS_DELTA, gap_to_close(float(best.makespan))))
    found = lns(inst, index, duals, cg.pi, rc_of, neighbours(inst.n, master.support()), best,
                stop, opts.seed)
    info["lns_ub"] = found.makespan
    return found


def _early_round(inst: CoscheduleInstance, opts: SetpartCGOptions, pool: PackPool,
                 master: Master, best: Packs, keep: dict[int, np.ndarray], delta: float,
                 info: dict) -> Packs:
    """The early MIP over the packs where `keep` holds, for a better incumbent only (C14):
    stopped at a relative gap of `EARLY_ROUND_GAP` or after `FIRST_ROUND_SHARE` of the time
    left; it never proves anything."""
    deadline = opts.deadline
    budget = deadline.remaining() * FIRST_ROUND_SHARE
    opts.say("closure MIP (early round)")
    round_mip = partial(mip_over_pool, master, pool, keep, best, opts.highs_settings(),
                        time.monotonic() + budget, EARLY_ROUND_GAP)
    try:
        res, ncols = run_limited(round_mip, budget)
    except PhaseTimeout:
        info["closure_rounds"].append({"delta": delta, "killed": True,
                                       "seconds": deadline.elapsed()})
        return best
    if res.packs is not None:
        found = make_packs(inst, res.packs)
        if found.makespan < best.makespan:
            best = found
    info["closure_rounds"].append({"delta": delta, "columns": ncols, "early": True,
                                   "ub": best.makespan, "seconds": deadline.elapsed()})
    return best
