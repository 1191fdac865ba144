"""The registered heuristics: the four combinations of spec 001 §3 and the three baselines.

{ENDLOCAL, ENDGREEDY} x {SHORTESTAPPLICATIONSFIRST, ITERATEDGREEDY} (§1.5.5, "all four
combinations"), and the baselines of §3.3: faulty without redistribution (the normalization
reference of Figs. 1.5-1.7), fault-free without redistribution (the reference of Fig. 1.4) and
fault-free with redistribution at ends (ENDLOCAL or ENDGREEDY; the "best case", A-19).

Every heuristic has the signature ``fn(instance, scenario=None, priority=None, *, seed=0,
<options>)``: `scenario` is a `FailureTrace` (or None: the trace is drawn from the instance's
mtbf with `seed`, decision MA-3), the options are the switches A-6 to A-16 (`state.Options`).
The result's objective is the realized makespan; its schedule is a `RunPayload`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.heuristics.malleable.policies import (
    end_greedy,
    end_local,
    iterated_greedy,
    shortest_first,
)
from resilsched.heuristics.malleable.simulator import simulate
from resilsched.heuristics.malleable.state import Options
from resilsched.heuristics.malleable.unit import HalfView, to_units
from resilsched.instances.malleable.traces import FailureTrace, trace_for
from resilsched.numeric import readable
from resilsched.solution import HeuristicResult

EndMode = Literal["realized", "expected"]
Progress = Literal["clamp", "literal"]
Baseline = Literal["stale", "fresh"]
ImproveRule = Literal["lookahead", "strict_step"]
OnStuck = Literal["stop", "skip"]
LookaheadPool = Literal["any", "at_end", "faulty_only"]
Step = Literal[2, 1]


@dataclass(frozen=True)
class RunPayload:
    """One simulated execution: allocations, phases and what the trace did.

    Attributes
    ----------
    phases : ``(app, start, restart, count, alpha, end, kind, done)`` per phase of an
        application: from the event at `start` it holds `count` processors, works from `restart`
        (t_lastR) with `alpha` of its work left, until `end`, which is a ``redistributed``,
        ``failure`` or ``finished`` event; `done` is the fraction of the work it counted.
    released : when each application's processors went back to the pool.
    trace : the failures the run read, ``(time, processor)``.
    transfers : with failures (ids are not tracked without), every change of the processor ids
        an application holds, in the order made: ``(time, app, taken, given_back)``, the ids
        as ranges ``(first, last)`` of consecutive ids; the initial allocation is taken at 0.
    fatal : the fatal failures, ``(time, processor, application)``: the buddy of a struck
        processor failed while its application recovered (spec §1.4, a diagnostic only: the run
        goes on, decision MA-21); ``counts["fatal"]`` is their number.
    warning : what the run ignored (a fault-free baseline given a failure trace), also in the
        result's ``extra["warning"]`` (the JSON output's ``"warning"``) and first in `lines`.
    """

    heuristic: str
    makespan: float
    fault_free: bool
    initial: tuple[int, ...]
    finish: tuple[float, ...]
    released: tuple[float, ...]
    phases: tuple[tuple, ...]
    counts: dict[str, int]
    trace: tuple[tuple[float, int], ...]
    trace_source: str
    options: dict[str, Any] = field(default_factory=dict)
    fatal: tuple[tuple[float, int, int], ...] = ()
    warning: str = ""
    transfers: tuple[tuple, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "makespan": self.makespan, "fault_free": self.fault_free,
            "initial": list(self.initial), "finish": list(self.finish),
            "released": list(self.released), "counts": dict(self.counts),
            "trace_source": self.trace_source, "options": dict(self.options),
            "phase_fields": ["app", "start", "restart", "count", "alpha", "end", "kind", "done"],
            "phases": [list(p) for p in self.phases],
            "trace": [list(x) for x in self.trace],
            "fatal": [list(x) for x in self.fatal],
            "transfer_fields": ["time", "app", "taken", "given_back"],
            "transfers": [[t, i, [list(r) for r in a], [list(r) for r in b]]
                          for t, i, a, b in self.transfers],
        }

    def lines(self) -> list[str]:
        c = self.counts
        n = len(self.finish)
        head = (f"{n} applications, makespan {readable(self.makespan)} s"
                f" ({readable(self.makespan / 86400)} days)")
        ctx = "fault-free" if self.fault_free else (
            f"{c['failures']} failures struck, {c['discarded']} discarded ({self.trace_source} "
            f"trace), {c['fatal']} fatal (the buddy failed during recovery; not simulated)")
        init = list(self.initial)
        shown = ", ".join(map(str, init[:12])) + (", ..." if n > 12 else "")
        warn = [f"warning: {self.warning}"] if self.warning else []
        return [*warn, head, ctx, f"initial processors: {shown}",
                f"{c['redistributions']} count changes, END calls {c['end_calls']}, "
                f"FAIL calls {c['fail_calls']}, look-ahead ends {c['lookahead_finished']}"]


def _run(name: str, end, fail, fault_free: bool, instance, scenario, seed: int,
         opts: Options, step: int = 2) -> HeuristicResult:
    ff = fault_free or instance.fault_free
    if step not in (1, 2):
        raise InvalidInstance("step", f"={step!r} must be 1 or 2 (A-18)")
    if step == 1 and not ff:
        raise InvalidInstance("step", f"=1 is for the fault-free context only (A-18): {name} "
                                      "runs with failures")
    warning = ""
    if fault_free and scenario is not None and len(scenario):
        warning = (f"{name} runs without failures (the fault-free baseline): the {len(scenario)} "
                   "failures of the trace given are ignored")
    if ff:
        trace, source = FailureTrace((), ()), "none"
    else:
        trace = trace_for(instance, scenario, seed)
        source = "drawn" if not isinstance(trace, FailureTrace) else (
            "instance" if scenario is None else "given")
    inst = instance
    if step == 1:  # single processors as pairs of half-processors (MA-11)
        inst = HalfView(instance if instance.fault_free
                        else instance.replace(mtbf=None, failures=None))
    st, read = simulate(inst, trace, end, fail, opts, fault_free=fault_free)
    return result_of(name, st, read, ff, source, opts, seed, step, warning)


def result_of(name: str, st, read: list, fault_free: bool, source: str, opts: Options,
              seed: int, step: int = 2, warning: str = "",
              extra: dict[str, Any] | None = None) -> HeuristicResult:
    """The `HeuristicResult` of a finished simulation `st` (its `RunPayload` and counts)."""
    phases = st.phases if step == 2 else to_units(st.phases)
    makespan = float(np.max(st.finish))
    payload = RunPayload(
        heuristic=name, makespan=makespan, fault_free=fault_free,
        initial=tuple(int(x) for x in _initial(phases, st.inst.n)),
        finish=tuple(st.finish.tolist()), released=tuple(st.released.tolist()),
        phases=tuple(phases), counts=dict(st.counts), trace=tuple(read), trace_source=source,
        options={**opts.__dict__, "step": step}, fatal=tuple(st.fatal), warning=warning,
        transfers=tuple(st.transfers))
    out = {"failures_struck": st.counts["failures"], "redistributions":
           st.counts["redistributions"], "fatal_failures": st.counts["fatal"], "seed": seed,
           "trace_source": source, **({"warning": warning} if warning else {}), **(extra or {})}
    return HeuristicResult(makespan, name, None, payload, out)


def _initial(phases: list[tuple], n: int) -> list[int]:
    first: dict[int, int] = {}
    for ph in phases:
        first.setdefault(ph[0], ph[3])
    return [first[i] for i in range(n)]


def _heuristic(name: str, end, fail, fault_free: bool, doc: str):
    def run(instance, scenario=None, priority=None, *, seed: int = 0,
            end_mode: EndMode = "realized", progress: Progress = "clamp",
            baseline: Baseline = "stale", improve_rule: ImproveRule = "lookahead",
            on_stuck: OnStuck = "stop", lookahead_release: bool = True,
            lookahead_pool: LookaheadPool = "faulty_only", refill: bool = False,
            step: Step = 2) -> HeuristicResult:
        opts = Options(end_mode=end_mode, progress=progress, baseline=baseline,
                       improve_rule=improve_rule, on_stuck=on_stuck,
                       lookahead_release=lookahead_release, lookahead_pool=lookahead_pool,
                       refill=refill)
        return _run(name, end, fail, fault_free, instance, scenario, seed, opts, step)
    run.__name__ = run.__qualname__ = name.lower().replace("-", "_")
    run.__doc__ = doc + "\n\nOptions: spec A-6 (end_mode), A-9 (progress), A-10 (baseline), " \
        "A-11 (improve_rule), A-12 (on_stuck), A-14 (lookahead_release, lookahead_pool), " \
        "A-15 (refill), A-18 (step: 1 in the fault-free context)."
    return run


endlocal_saf = _heuristic("ENDLOCAL-SAF", end_local, shortest_first, False,
                          "ENDLOCAL at ends, SHORTESTAPPLICATIONSFIRST at failures (§3.4, §3.6).")
endlocal_ig = _heuristic("ENDLOCAL-IG", end_local, iterated_greedy, False,
                         "ENDLOCAL at ends, ITERATEDGREEDY at failures (§3.4, §3.7).")
endgreedy_saf = _heuristic("ENDGREEDY-SAF", end_greedy, shortest_first, False,
                           "ENDGREEDY at ends, SHORTESTAPPLICATIONSFIRST at failures "
                           "(§3.5, §3.6).")
endgreedy_ig = _heuristic("ENDGREEDY-IG", end_greedy, iterated_greedy, False,
                          "ENDGREEDY at ends, ITERATEDGREEDY at failures (§3.5, §3.7).")
noredist = _heuristic("NOREDIST", None, None, False,
                      "Faulty, no redistribution: the initial allocation kept to the end "
                      "(the normalization of Figs. 1.5-1.7).")
ff_noredist = _heuristic("FF-NOREDIST", None, None, True,
                         "Fault-free, no redistribution: max_i t_{i,sigma_i} with the initial "
                         "allocation on t (the normalization of Fig. 1.4).")
ff_endlocal = _heuristic("FF-ENDLOCAL", end_local, None, True,
                         "Fault-free with ENDLOCAL at ends (no checkpoints, RC of (1.11)).")
ff_endgreedy = _heuristic("FF-ENDGREEDY", end_greedy, None, True,
                          "Fault-free with ENDGREEDY at ends: the best case of §1.5.5 (A-19).")

#: the combinations and baselines, in the order of the figures
HEURISTICS = (endlocal_saf, endlocal_ig, endgreedy_saf, endgreedy_ig, noredist, ff_noredist,
              ff_endlocal, ff_endgreedy)
