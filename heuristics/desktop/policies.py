"""The global policies GreedySlack and DAslack around the five local policies (spec 004 §3.3,
§3.4, A-5 to A-8, A-10, A-26).

- `greedy_slack` (Algorithm 5): one call of the local policy on `greedy_view`; the horizon is
  lambda_GS = H(pi), "the end date of the last allocated job plus the associated slack" (A-10).
- `da_slack` (Algorithm 6 with the branch fixed, A-5): u = max_i e_i(K_i) must be valid (else
  `HeuristicRefusal`, A-26), l = 0; while u - l > 1, probe
  lambda = floor((u + l) / 2) on a fresh `cut_view`: INVALID -> l = lambda, valid -> u = lambda
  and keep pi. Returns the last valid pi with lambda_DA = u (H(pi) <= u is reported too).

Two shortcuts keep DAslack's output identical while skipping work:

- a probe whose view cannot hold the jobs at all (the capacity test of `capacity_ok`, the bound
  LB_cap of spec 7.2 applied to the cut view) is INVALID for every local policy, without a run;
- for LPT and SPT (which ignore the bin order), a valid run at lambda_1 with H(pi) = h is also
  the run at every lambda in [h, lambda_1]: the cut view at lambda only shrinks bins that pi
  does not fill beyond lambda, so each job still fits where it went and no other machine's
  first fitting interval gets better (spec F1, F3). Such probes reuse pi. More generally, the
  run at lambda < h repeats that run's placements as long as the H of its partial allocation
  stays <= lambda (the same argument, step by step): those are replayed without search, and
  the run goes on from there.

`LOCAL` maps the local policy named by a registered heuristic's priority to its function; the
"without slack rule" variants (§3.4) are the same calls with ``slack=False``.

A variant that cannot place every job raises `resilsched.errors.HeuristicRefusal` (an
`InvalidInstance`: one line on the command line, a refusal row in a campaign) whose message says
what happened (`refusal`): which intervals the global policy kept, whether the longest job fits
one of them alone under the rule, and where it would fit otherwise (GreedySlack drops the last
availability of every machine, A-8: a machine with a single availability keeps none).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from resilsched.bounds.desktop import demand
from resilsched.errors import HeuristicRefusal, InvalidInstance
from resilsched.heuristics.desktop.binpack import ffd, ffi
from resilsched.heuristics.desktop.dpslack import dpslack
from resilsched.heuristics.desktop.firstfit import ffd_by_job, ffi_by_job
from resilsched.heuristics.desktop.lpt import lpt, spt
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.heuristics.desktop.state import (
    CutData,
    State,
    View,
    cached,
    cut_view,
    greedy_view,
)
from resilsched.instances.desktop import DesktopInstance


@dataclass(frozen=True)
class LocalPolicy:
    """A local policy: `fn(view, durations, slack) -> State | None`; `by_job` says whether it
    reads the durations by sorted job position (n, m) instead of by machine (m, n); `ordered`
    whether it follows the view's bin order."""

    name: str
    fn: Callable[..., State | None]
    by_job: bool
    ordered: bool

    def durations(self, instance: DesktopInstance) -> np.ndarray:
        """The t_ij matrix this policy reads (built on first use)."""
        return instance.durations_by_position if self.by_job else instance.sorted_durations

    def __call__(self, instance: DesktopInstance, view: View, slack: bool,
                 **kw) -> State | None:
        return self.fn(view, self.durations(instance), slack, **kw)


LOCAL: dict[str, LocalPolicy] = {
    "LPT": LocalPolicy("LPT", lpt, True, False),
    "SPT": LocalPolicy("SPT", spt, True, False),
    "FFD": LocalPolicy("FFD", ffd, False, True),
    "FFI": LocalPolicy("FFI", ffi, False, True),
    "DPslack": LocalPolicy("DPslack", dpslack, False, True),
}

#: the ways a bin policy may fill (decision D-24): ``interval``, bin after bin (Algorithm 3, the
#: default), or ``job``, each job in the first bin where it fits (the prose; FFD and FFI only)
FILLS = ("interval", "job")
BY_JOB: dict[str, LocalPolicy] = {
    "FFD": LocalPolicy("FFD", ffd_by_job, False, True),
    "FFI": LocalPolicy("FFI", ffi_by_job, False, True),
}


def local_policy(name: str, fill: str = "interval") -> LocalPolicy:
    """The local policy `name` read the `fill` way (`FILLS`); ``fill="job"`` exists for FFD and
    FFI only (LPT and SPT place job by job already, DPslack fills a bin at once)."""
    if fill == "interval":
        return LOCAL[name]
    if fill not in FILLS:
        raise InvalidInstance("--param fill", f"{fill!r} is not one of {', '.join(FILLS)}")
    if name not in BY_JOB:
        raise InvalidInstance("--param fill", f"fill=job applies to FFD and FFI, not {name} "
                                              "(decision D-24)")
    return BY_JOB[name]


def variant_name(global_policy: str, local: str, slack: bool) -> str:
    """Spec 3.4 naming: ``GS-LPT``, ``DA-FFD-noslack``, ..."""
    prefix = "GS" if global_policy == "GreedySlack" else "DA"
    return f"{prefix}-{local}" + ("" if slack else "-noslack")


#: the 20 variants of spec 3.4, each no-slack baseline left of its slack version (Figs. 5-7)
VARIANTS = tuple(variant_name(g, loc, slack) for g in ("GreedySlack", "DAslack")
                 for loc in ("LPT", "SPT", "FFD", "FFI", "DPslack") for slack in (False, True))


def parse_variant(name: str) -> tuple[str, str, bool]:
    """``DA-FFD-noslack`` -> ("DAslack", "FFD", False)."""
    parts = name.split("-")
    return ("GreedySlack" if parts[0] == "GS" else "DAslack", parts[1],
            not (len(parts) == 3 and parts[2] == "noslack"))


def greedy_slack(instance: DesktopInstance, local: LocalPolicy, slack: bool) -> DesktopSchedule:
    """Algorithm 5: shift, sort by e_i(k), one local call; lambda = H(pi)."""
    view = greedy_view(instance)
    state = local(instance, view, slack)
    name = variant_name("GreedySlack", local.name, slack)
    if state is None:
        raise refusal(instance, view, local.name, slack, name,
                      capacity=_Capacity(instance, slack).ok(view))
    h = state.horizon()
    return state.schedule(instance, h, name, {"global": "GreedySlack", "local": local.name})


class _Capacity:
    """The necessary condition of LB_cap (spec 7.2) for a cut view: cheap INVALID probes."""

    def __init__(self, instance: DesktopInstance, slack: bool):
        b = np.asarray([float(x) for x in instance.b])
        self.demand = demand(instance)
        self.tmin = instance.shortest_durations
        self.inv_b = 1.0 / b
        self.slack = slack

    def ok(self, view: View) -> bool:
        """sum_i (1 / b_i) sum_k (a'(k) - cut_i) over the intervals that can hold machine i's
        shortest job (a' >= 2 t_min with the rule, cut_i = t_min; a' >= t_min, cut 0 without)
        covers the demand."""
        off, _, avail, _ = view.flat()
        owner = np.repeat(np.arange(len(off) - 1), np.diff(off))
        tm = self.tmin[owner]
        need, cut = (2 * tm, tm) if self.slack else (tm, 0)
        usable = np.where(avail >= need, avail - cut, 0)
        per = np.bincount(owner, weights=usable.astype(np.float64), minlength=len(off) - 1)
        return float(per @ self.inv_b) >= self.demand


def da_slack(instance: DesktopInstance, local: LocalPolicy, slack: bool,
             lower: int = 0, shortcuts: bool = True) -> DesktopSchedule:
    """Algorithm 6 (branch fixed, A-5): binary search on lambda from (lower, max e_i(K_i));
    ``shortcuts=False`` runs the local policy at every probe (the reference)."""
    name = variant_name("DAslack", local.name, slack)
    local.durations(instance)  # first, so that the capacity test reads the same matrix
    data = cached(instance, "cut_data", CutData)
    cap = cached(instance, f"capacity_{slack}", lambda inst: _Capacity(inst, slack))
    u, lo = instance.horizon_end, lower
    runs = skipped = refuted = replayed = 0
    best: State | None = None

    def probe(lam: int) -> State | None:
        nonlocal runs, refuted, replayed
        view = cut_view(data, lam, need_order=local.ordered)
        if shortcuts and not cap.ok(view):
            refuted += 1
            return None
        runs += 1
        if shortcuts and not local.ordered and best is not None:
            trace = best.trace
            prefix = trace.steps[:bisect_right(trace.h, lam)]
            replayed += len(prefix)
            return local(instance, view, slack, replay=prefix)
        return local(instance, view, slack)

    best = probe(u)
    if best is None:
        raise refusal(instance, cut_view(data, u), local.name, slack, name,
                      capacity=cap.ok(cut_view(data, u)))
    best_h = best.horizon()
    while u - lo > 1:
        lam = (u + lo) // 2
        if shortcuts and not local.ordered and best_h <= lam:
            skipped += 1  # same run as at u (module docstring)
            u = lam
            continue
        state = probe(lam)
        if state is None:
            lo = lam
        else:
            u, best, best_h = lam, state, state.horizon()
    info = {"global": "DAslack", "local": local.name, "runs": runs, "reused": skipped,
            "refuted_by_capacity": refuted, "replayed_steps": replayed}
    return best.schedule(instance, u, name, info)


def _fits_alone(view: View, t: np.ndarray, slack: bool) -> np.ndarray:
    """Per interval of the view: a job of duration t[i] (machine i) placed alone keeps the rule
    (2 t <= a(k), t <= a(k-1), a(k-2) on the same machine; t <= a(k) without the rule)."""
    off, _, avail, _ = view.flat()
    owner = np.repeat(np.arange(len(off) - 1), np.diff(off))
    tt = t[owner]
    if not slack:
        return avail >= tt
    ok = avail >= 2 * tt
    pos = np.arange(len(avail)) - off[owner]  # k - 1 within the machine
    for back in (1, 2):
        prev = np.roll(avail, back)
        ok &= (pos < back) | (prev >= tt)
    return ok


def _keep_none(items: list[int]) -> str:
    """``machine 3 keeps none`` / ``machines 0, 3 and 7 more keep none``."""
    shown = ", ".join(map(str, items[:5])) + (f" and {len(items) - 5} more"
                                               if len(items) > 5 else "")
    return f"machine {shown} keeps none" if len(items) == 1 else f"machines {shown} keep none"


def refusal(instance: DesktopInstance, view: View, local: str, slack: bool, name: str,
            capacity: bool = True) -> HeuristicRefusal:
    """Why `local` left jobs over on `view` (GreedySlack's kept intervals, or DAslack's whole
    trace), as a `HeuristicRefusal` naming the variant (module docstring)."""
    off = view.flat()[0]
    j = instance.longest_job
    t = instance.longest_durations
    rule = "2 t <= a(k), t <= a(k-1), a(k-2)" if slack else "t <= a(k)"
    alone = _fits_alone(view, t, slack)
    if view.kind == "GreedySlack":
        kept = int(off[-1])
        bare = [i for i in range(instance.m) if off[i + 1] == off[i]]
        what = (f"cannot place every job in the {kept} of {instance.K} intervals GreedySlack "
                "keeps (it drops each machine's last availability, A-8"
                + (f"; {_keep_none(bare)}" if bare else "") + ")")
        last = [(i, mach.K, mach.a[-1]) for i, mach in enumerate(instance.machines)
                if (2 * t[i] if slack else t[i]) <= mach.a[-1]]
        if not alone.any():
            i = last[0][0] if last else int(t.argmin())
            where = ", ".join(f"machine {i} interval {k} (a = {a} s)" for i, k, a in last[:3])
            why = (f"job {j}, the longest (t = {int(t[i])} s on machine {i}), fits none of them "
                   f"under the rule {rule}" + (f", only a dropped last interval: {where}"
                                                if last else ""))
        elif not capacity:
            why = "they cannot hold the demand (the capacity test of LB_cap)"
        else:
            why = (f"each job fits one of them alone, but {local} leaves some over once the "
                   "others are placed (longestJob, Algorithm 1)")
        return HeuristicRefusal(name, f"{what}: {why}; DAslack and the exact models use every "
                                      "interval")
    what = f"cannot place every job even with every interval of the trace (up to {view.lam} s)"
    if not capacity:
        why = ("the intervals cannot hold the demand (the capacity test of LB_cap): the trace "
               "is too short for these jobs (A-26)")
    elif not alone.any():
        why = f"job {j} fits no interval alone under the rule {rule} (A-26)"
    else:
        why = (f"each job fits an interval alone and the capacity suffices, but {local} leaves "
               "some over once the others are placed (longestJob, Algorithm 1; A-26); an exact "
               "model may place them")
    return HeuristicRefusal(name, f"{what}: {why}")


GLOBAL: dict[str, Callable[[DesktopInstance, LocalPolicy, bool], DesktopSchedule]] = {
    "GreedySlack": greedy_slack,
    "DAslack": da_slack,
}
