"""What the exact horizon models of the desktop family share (spec 004 §7.1).

- `HorizonOptions`: the solver settings (`SolveOptions`) plus the model-size guard.
- `HorizonData`: the model's data under the rule the instance names: for every interval (i, k),
  k = 1..K_i (all intervals of the trace), its length a_ik and q_ik = e_i(k-1) + u_i(k); for every
  job the admissible intervals (2 t_ij <= a_ik under the slack rule, t_ij <= a_ik without).
- `incumbent`: the best allocation of the heuristics (GreedySlack and DAslack with the five
  local policies) that fit in the time left: the hint, the upper end of lambda's domain and the
  answer when the model cannot run.
- `finish`: the `Solution`, with the schedule checked by the independent validator.

The model (E1-E6, no big-M, the same for CP-SAT and the MILP), with x_jik in {0, 1} for the
admissible (j, i, k), y_ik in {0, 1}, S_ik in [0, a_ik], M_ik in [0, floor(a_ik / 2)]:

    min lambda
    (E1) sum_{i,k} x_jik = 1                      for every job j
    (E2) S_ik = sum_j t_ij x_jik
    (E3) M_ik >= t_ij x_jik
    (E4) S_ik + M_ik' <= a_ik for k' in {k, k+1, k+2}, k' <= K_i    (slack rule: d(k) >= M(k'))
    (E5) x_jik <= y_ik
    (E6) lambda >= q_ik y_ik + S_ik + M_ik

Without the slack rule, M leaves (E4) and (E6): S_ik <= a_ik and lambda >= q_ik y_ik + S_ik. Its
optimum is min over rule-abiding allocations of H(pi) (spec F2, F3), hence <= every heuristic's
horizon.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.bounds.desktop import lb_big, lb_cap
from resilsched.bounds.desktop_slack import lb_slack
from resilsched.deadline import Deadline
from resilsched.errors import HeuristicRefusal
from resilsched.heuristics.desktop import build
from resilsched.heuristics.desktop.minfill import min_fill_search
from resilsched.heuristics.desktop.schedule import DesktopSchedule
from resilsched.heuristics.desktop.sizefit import size_fit_search
from resilsched.instances.desktop import DesktopInstance
from resilsched.models.coschedule.hardlimit import PhaseTimeout, run_limited
from resilsched.models.desktop.budget import (
    DA_RUNS,
    build_cost,
    lb_cap_cost,
    matrix_cost,
    variant_cost,
)
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status
from resilsched.validation.desktop import allocation_horizon, validate_desktop_schedule

#: share of the time left that LB_slack may take: {model built?: share} (the rest is the model's;
#: without a model the answer only waits for the output)
SLACK_SHARE = {True: 0.2, False: 0.5}
#: share of the time left after it that SizeFit's bisection (D-27) may take
SIZEFIT_SHARE = {True: 0.2, False: 0.8}
#: share of the time left after SizeFit that MinFill's bisection (D-32) may take
MINFILL_SHARE = {True: 0.2, False: 0.8}

#: heuristic variants tried for the incumbent, cheapest first (spec 3.4)
INCUMBENTS = [("GreedySlack", "FFI"), ("GreedySlack", "FFD"), ("GreedySlack", "LPT"),
              ("GreedySlack", "SPT"), ("DAslack", "FFI"), ("DAslack", "FFD"),
              ("DAslack", "LPT"), ("GreedySlack", "DPslack"), ("DAslack", "SPT"),
              ("DAslack", "DPslack")]


@dataclass(frozen=True)
class HorizonOptions(SolveOptions):
    """Settings of the horizon models (spec 7.1)."""

    max_vars: int = field(default=300_000, metadata={
        "low": 1, "high": 10**8,
        "help": "largest number of x_jik the model is built with (else: the heuristics' best)"})


@dataclass
class HorizonData:
    """The data of the model under `slack` (see the module docstring)."""

    instance: DesktopInstance
    slack: bool
    a: list[list[int]] = field(default_factory=list)
    q: list[list[int]] = field(default_factory=list)
    pairs: list[tuple[int, int, int]] = field(default_factory=list)  # admissible (j, i, k0)

    @classmethod
    def of(cls, instance: DesktopInstance, slack: bool) -> HorizonData:
        """The model's data: `pairs` in (machine, job, k) order, every admissible (j, i, k)
        listed once, in O(m n + pairs) (the intervals of a machine sorted by length once)."""
        data = cls(instance, slack, [list(m.a) for m in instance.machines],
                   [list(m.q) for m in instance.machines])
        factor = 2 if slack else 1
        order = instance.order
        for i, a in enumerate(data.a):
            arr = np.asarray(a, dtype=np.int64)
            by_length = np.argsort(arr, kind="stable")
            lengths = arr[by_length]
            first = np.empty(instance.n, dtype=np.int64)  # by job: the first long enough
            first[order] = np.searchsorted(lengths, factor * instance.sorted_durations[i],
                                           side="left")
            for j in np.nonzero(first < len(a))[0].tolist():
                data.pairs.extend((j, i, k) for k in np.sort(by_length[first[j]:]).tolist())
        return data

    def t(self, i: int, j: int) -> int:
        return self.instance.t(i, j)


def model_size(instance: DesktopInstance, slack: bool, max_vars: int,
               budget: float) -> tuple[int, bool] | None:
    """(number of admissible x_jik, exact?) without building them: first a lower bound from the
    longest job (every job fits where it fits), returned when it already exceeds `max_vars`;
    else the exact count from the sorted durations, or None when building them would not fit
    in `budget` seconds."""
    factor = 2 if slack else 1
    flat = instance.flat
    owner = np.repeat(np.arange(instance.m), np.diff(flat["off"]))
    longest = int((factor * instance.longest_durations[owner] <= flat["a"]).sum())
    if longest * instance.n > max_vars:
        return longest * instance.n, False
    if matrix_cost(instance, "sorted_durations") > budget:
        return None
    total = 0
    rows = instance.sorted_durations
    for i, mach in enumerate(instance.machines):
        total += int(np.searchsorted(factor * rows[i], np.asarray(mach.a), side="right").sum())
    return total, True


def incumbent(instance: DesktopInstance, slack: bool, opts: HorizonOptions,
              share: float = 0.25) -> DesktopSchedule | None:
    """The best heuristic allocation found within `share` of the time left, cheapest first: the
    next variant runs only if its estimate (`budget.variant_cost`), and the last one's time
    (times 20 for DAslack), still fit."""
    budget = opts.deadline.share(share)
    start = time.perf_counter()
    best, last = None, 0.0
    for global_policy, local in INCUMBENTS:
        spent = time.perf_counter() - start
        guess = max(last * (DA_RUNS if global_policy == "DAslack" else 1),
                    variant_cost(instance, global_policy, local))
        if spent + guess > budget:
            break
        try:
            sched, last = build(instance, global_policy, local, slack)
        except HeuristicRefusal:
            continue  # this variant cannot place every job (or its DP is too large)
        if best is None or sched.horizon < best.horizon:
            best = sched
    return best


def lower_bound_within(instance: DesktopInstance, slack: bool, budget: float,
                       info: dict) -> int:
    """max(LB_big, LB_cap) under `slack` (spec 7.2); LB_big alone (and a note in `info`) when
    LB_cap's estimate does not fit in `budget` seconds."""
    lb = lb_big(instance, None, slack)
    if lb_cap_cost(instance) <= budget:
        return max(lb, lb_cap(instance, None, slack))
    info["lower_bound_note"] = "LB_cap skipped: its estimate exceeds the time left"
    return lb


def _limited(fn: Any, seconds: float) -> Any:
    """fn() in a forked child killed after `seconds` (None then): LB_slack's LPs."""
    try:
        return run_limited(fn, seconds)
    except PhaseTimeout:
        return None


def slack_bound_within(instance: DesktopInstance, slack: bool, lb: int,
                       best: DesktopSchedule | None, opts: HorizonOptions, share: float,
                       info: dict) -> int:
    """max(lb, LB_slack) (D-26) within `share` of the time left; `lb` alone (and a note in
    `info`) when the t_ij matrix LB_slack reads does not fit in half of it."""
    budget = opts.deadline.share(share)
    if matrix_cost(instance, "sorted_durations") > 0.5 * budget:
        note = "LB_slack skipped: its matrix exceeds the time left"
        info["lower_bound_note"] = "; ".join(filter(None, [info.get("lower_bound_note"), note]))
        return lb
    phase = Deadline(budget)
    value = lb_slack(instance, None, slack, deadline=phase, start=lb,
                     upper=best.horizon if best is not None else None, runner=_limited)
    info["lb_slack_seconds"] = round(phase.elapsed(), 3)
    return max(lb, value)


def prepare(instance: DesktopInstance,
            opts: HorizonOptions) -> tuple[int, DesktopSchedule | None, dict[str, Any], bool]:
    """The phases before a model (spec 7.1), each sized by the deadline (D-12, D-25): the lower
    bound, the incumbent (a quarter of the time), the model size and the build guard. Returns
    (bound, incumbent, info, build?); when build? is False, ``info["model"]`` says why and the
    incumbent (or nothing) is the answer."""
    slack = instance.slack_rule
    opts.say("lower bounds LB_big, LB_cap")
    info: dict[str, Any] = {}
    lb = lower_bound_within(instance, slack, opts.deadline.share(0.25), info)
    opts.say("incumbent: heuristics")
    best = incumbent(instance, slack, opts)
    info.update({"lower_bound": lb, "slack_rule": slack,
                 "assumption_h1": instance.assumption_h1,
                 "incumbent": best.horizon if best else None,
                 "incumbent_policy": best.policy if best else None})
    size = model_size(instance, slack, opts.max_vars, opts.deadline.share(0.5))
    go = size is not None
    if size is None:
        info["model"] = "not built: no time left to size it (the incumbent is the answer)"
    else:
        pairs, exact = size
        info["x_variables" if exact else "x_variables_at_least"] = pairs
        if pairs > opts.max_vars or build_cost(pairs, instance) > 0.5 * opts.deadline.remaining():
            info["model"] = "not built: too large for the limits (the incumbent is the answer)"
            go = False
    if best is None or lb < best.horizon:
        opts.say("lower bound LB_slack")
        lb = slack_bound_within(instance, slack, lb, best, opts, SLACK_SHARE[go], info)
        info["lower_bound"] = lb
    for name, search, share in (("SizeFit", size_fit_search, SIZEFIT_SHARE),
                                ("MinFill", min_fill_search, MINFILL_SHARE)):
        if best is None or lb >= best.horizon:
            break
        opts.say(f"incumbent: {name}")
        found = search(instance, slack, lb - 1, best.horizon,
                       Deadline(opts.deadline.share(share[go])))
        if found is not None and found.horizon < best.horizon:
            best = found
            info.update({"incumbent": best.horizon, "incumbent_policy": best.policy})
    return lb, best, info, go


def finish(data: HorizonData, method: str, solver: str, status: Status,
           chosen: dict[tuple[int, int], list[int]] | None, objective: int | None, bound: int,
           best: DesktopSchedule | None, started: float, info: dict) -> Solution:
    """The `Solution`: the model's allocation (or the incumbent when it is as good), checked."""
    sched = None
    if chosen is not None:
        intervals = {(i, k + 1): tuple(sorted(js)) for (i, k), js in sorted(chosen.items())}
        h = allocation_horizon(data.instance, intervals, data.slack)
        sched = DesktopSchedule(intervals, h, h, data.slack, method, {})
        objective = h
    if best is not None and (sched is None or best.horizon < sched.horizon):
        sched, objective = best, best.horizon
        if status is Status.OPTIMAL:  # cannot happen: the model is <= the incumbent
            status = Status.FEASIBLE
    if sched is not None:
        validate_desktop_schedule(data.instance, sched, data.slack)
        if status is Status.NO_SOLUTION:
            status = Status.FEASIBLE
    if status is Status.OPTIMAL:
        bound = objective
    elif objective is not None:
        bound = min(bound, objective)
    return Solution(objective, bound, status, method, solver, time.perf_counter() - started,
                    payload=sched if sched is not None else {}, info=info)


Search = Callable[[HorizonData, int, int, "DesktopSchedule | None", HorizonOptions, dict],
                  tuple[Status, "dict[tuple[int, int], list[int]] | None", "int | None"]]


def solve_with(instance: DesktopInstance, time_limit: float | None, options: dict[str, Any],
               method: str, solver: str, what: str, search: Search) -> Solution:
    """An exact model's `solve` around its back end `search`.

    The phases before the model (`prepare`: bounds, incumbents, the size check), then
    ``search(data, lb, ub, incumbent, opts, info) -> (status, allocation, bound)`` on the
    instance's data with lambda in [lb, ub] (`allocation`: (machine, interval) -> jobs, None
    without a feasible point; `bound`: the back end's proven lower bound or None), then
    `finish`: the allocation checked, the incumbent kept when it is as good, an
    ``optimal`` status only on the back end's proof with an allocation. `what` names the
    model in the progress lines.
    """
    opts = HorizonOptions.of(time_limit, options)
    started = time.perf_counter()
    slack = instance.slack_rule
    lb, best, info, go = prepare(instance, opts)
    if not go:
        status = Status.FEASIBLE if best else Status.NO_SOLUTION
        return finish(HorizonData(instance, slack), method, "heuristics", status, None, None,
                      lb, best, started, info)
    opts.say(f"building the {what} ({info['x_variables']} x variables)")
    data = HorizonData.of(instance, slack)
    ub = max(q + a for qs, as_ in zip(data.q, data.a, strict=True)
             for q, a in zip(qs, as_, strict=True))
    if best is not None:
        ub = min(ub, best.horizon)
    status, chosen, bound = search(data, lb, ub, best, opts, info)
    if status is Status.INFEASIBLE and best is None:
        return Solution(None, None, Status.INFEASIBLE, method, solver,
                        time.perf_counter() - started, info=info)
    if status is not Status.OPTIMAL or chosen is None:
        status = Status.FEASIBLE if chosen is not None or best else Status.NO_SOLUTION
        bound = lb if bound is None else max(lb, bound)
    opts.say("checking the allocation")
    return finish(data, method, solver, status, chosen, None, bound, best, started, info)
