"""The global policies GreedySlack and DAslack around the five local policies (spec 004 §3.3,
§3.4, A-5 to A-8, A-10, A-26).

- `greedy_slack` (Algorithm 5): one call of the local policy on `greedy_view`; the horizon is
  lambda_GS = H(pi), "the end date of the last allocated job plus the associated slack" (A-10).
- `da_slack` (Algorithm 6 with the branch fixed, A-5): u = max_i e_i(K_i) must be valid (else
  `InvalidInstance`: the trace is too short, A-26), l = 0; while u - l > 1, probe
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
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.desktop.binpack import ffd, ffi
from resilsched.heuristics.desktop.dpslack import dpslack
from resilsched.heuristics.desktop.lpt import lpt, spt
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.heuristics.desktop.state import CutData, State, View, cut_view, greedy_view
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

    def __call__(self, instance: DesktopInstance, view: View, slack: bool,
                 **kw) -> State | None:
        data = instance.durations_by_position if self.by_job else instance.sorted_durations
        return self.fn(view, data, slack, **kw)


LOCAL: dict[str, LocalPolicy] = {
    "LPT": LocalPolicy("LPT", lpt, True, False),
    "SPT": LocalPolicy("SPT", spt, True, False),
    "FFD": LocalPolicy("FFD", ffd, False, True),
    "FFI": LocalPolicy("FFI", ffi, False, True),
    "DPslack": LocalPolicy("DPslack", dpslack, False, True),
}


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
    state = local(instance, greedy_view(instance), slack)
    name = variant_name("GreedySlack", local.name, slack)
    if state is None:
        raise InvalidInstance("machines", f"{name} cannot place every job: the trace is too "
                                          "short (generate or read a longer one)")
    h = state.horizon()
    return state.schedule(instance, h, name, {"global": "GreedySlack", "local": local.name})


class _Capacity:
    """The necessary condition of LB_cap (spec 7.2) for a cut view: cheap INVALID probes."""

    def __init__(self, instance: DesktopInstance, slack: bool):
        T = instance.durations
        b = np.asarray([float(x) for x in instance.b])
        self.demand = float((T / b[:, None]).min(axis=0).sum()) * (1 - 1e-9)
        self.tmin = T.min(axis=1).tolist()
        self.inv_b = (1.0 / b).tolist()
        self.slack = slack

    def ok(self, view: View) -> bool:
        total = 0.0
        for i, avail in enumerate(view.avail):
            tm = self.tmin[i]
            need = 2 * tm if self.slack else tm
            cut = tm if self.slack else 0
            total += self.inv_b[i] * sum(a - cut for a in avail if a >= need)
        return total >= self.demand


def da_slack(instance: DesktopInstance, local: LocalPolicy, slack: bool,
             lower: int = 0, shortcuts: bool = True) -> DesktopSchedule:
    """Algorithm 6 (branch fixed, A-5): binary search on lambda from (lower, max e_i(K_i));
    ``shortcuts=False`` runs the local policy at every probe (the reference)."""
    name = variant_name("DAslack", local.name, slack)
    data = CutData(instance)
    cap = _Capacity(instance, slack)
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
        raise InvalidInstance("machines", f"{name} cannot place every job even at the end of "
                                          f"the trace ({u} s): the trace is too short (A-26)")
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


GLOBAL: dict[str, Callable[[DesktopInstance, LocalPolicy, bool], DesktopSchedule]] = {
    "GreedySlack": greedy_slack,
    "DAslack": da_slack,
}
