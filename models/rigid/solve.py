"""The exact models of the rigid family: entry points and the time budget (spec 002 §1.3, §11.2).

Three models, all ``solve(instance, scenario=None, *, time_limit=None, **options) -> Solution``
with the options of `RigidSolveOptions`:

* `solve_scenario` — the clairvoyant optimum T_OPT(f) for a known failure scenario f: one
  interval per attempt (`resilsched.models.rigid.constraints`);
* `solve_failure_free` — P|size_j|C_max, one interval per job (the scenario is ignored);
* `solve_scenario_merged` — one interval of length m_j t_j per job. Its optimum is only an
  UPPER bound on T_OPT(f) (the split-vs-merged counterexample of §11.2): never ``optimal``.

Phases, every one under the call's deadline (``time_limit`` seconds in all, less the time the
output will take; the shares and rates are in `resilsched.models.rigid.budget`):

1. scale the times to integers (`scaling`), take out the isolated jobs (`reductions`) and
   build the greedy schedules (`greedy`, O(A log n) each): the incumbent if nothing better
   comes;
2. root bounds (`root_bounds`): the cheap ones, then the dual-feasible functions and the
   configuration LP within `ROOT_SHARE` of the remaining time; then, within `IMPROVE_SHARE`,
   knapsack list schedules, forward-backward passes and window rounds (`improve`, decisions
   R30, R33) improve the incumbent until it meets the root bound or stalls. When the bound
   meets the incumbent, or the CP-SAT model cannot be built in time (`model_fits`), the
   incumbent is the answer;
3. the CP-SAT model (`constraints`), its optional cliques and clauses within `BUILD_SHARE`;
4. CP-SAT for (1 - ``refute_share``) of what remains;
5. when CP-SAT stops without a proof, the refutation search (`refute`, decision R7) with the
   rest: each refuted T raises the bound by one, a schedule found at T is optimal. The C
   search runs on as many threads as CP-SAT had (decision R29).

With ``deterministic=True`` the phases are limited by work instead of wall time (greedy
schedules, dual-feasible cells, knapsacks, clauses, enumeration steps, CP-SAT's deterministic
time, search nodes, all proportional to ``time_limit`` at rates set below what a loaded machine
does), so that two runs give the same result; the wall-clock deadline then only acts as a
safety net, which an overloaded machine can reach (the result is then still valid, but may
differ between runs: ``info["seconds"]`` shows the time of each phase).

Times that had to be rounded (``exact_scaling=False``) give at best ``feasible`` with the
paper's L(f) as bound. Objective and bound are reported in the instance's time unit: an int for
integer times, a `Fraction` for rational ones, a float when rounded.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from resilsched.bounds.rigid import lower_bound, scenario_of
from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.models.rigid import crefute, improve
from resilsched.models.rigid.budget import (
    BUILD_SHARE,
    C_NODES_PER_SECOND,
    GREEDY_SHARE,
    IMPROVE_SHARE,
    IMPROVE_SHARE_LARGE,
    LARGE_ATTEMPTS,
    NODES_PER_SECOND,
    OUTPUT_SECONDS_PER_ATTEMPT,
    POOL_SHARE,
    ROOT_SHARE,
    model_fits,
    phase,
    safety_net,
)
from resilsched.models.rigid.constraints import build_model
from resilsched.models.rigid.greedy import greedy_upper_bound, makespan_of
from resilsched.models.rigid.reductions import (
    compress_starts,
    isolated_jobs,
    place_isolated,
    split_isolated,
)
from resilsched.models.rigid.refute import CutPool, RefuteMemo, refute_makespan
from resilsched.models.rigid.root_bounds import RootBound, root_bound
from resilsched.models.rigid.scaling import (
    MAX_SCALE,
    ScaledScenario,
    scale_hint,
    scale_scenario,
    to_time,
)
from resilsched.options import SolveOptions
from resilsched.schedule import Attempt, Schedule, SchedulePayload
from resilsched.solution import Solution, Status
from resilsched.solvers import SolverRun, cpsat_solver, run_cpsat, threads

if TYPE_CHECKING:  # OR-Tools (and the pandas it loads) is imported when a model is solved
    from ortools.sat.python import cp_model

SOLVER = "cp-sat"  # "cp-sat+refute" when the refutation search ran too

#: Share of the time left for the refutation search after CP-SAT (decisions R7, R25: 0.9 since
#: the search runs in C over active schedules; 0.75 before).
REFUTE_SHARE = 0.9
#: Most attempts sum_j (f_j + 1) an exact model accepts: every failure-free instance within the
#: 10^4-job limit. Each attempt is a CP-SAT interval, built only when it fits the budget
#: (`model_fits`: 0.3 ms per attempt), and a line of the output.
MAX_ATTEMPTS = 10_000


@dataclass(frozen=True)
class RigidSolveOptions(SolveOptions):
    """Options of the rigid exact models (``--param NAME=VALUE``), besides `SolveOptions`'.

    Attributes
    ----------
    strengthen : add the redundant constraints and the isolated-job reduction (False gives the
        plain cumulative model of §11.2, kept as a baseline).
    forbidden_set_size : largest minimal forbidden set turned into clauses (0 disables them).
    refute_share : share of the time left after the root phases kept for the refutation search
        when CP-SAT stops without a proof (decision R7; 0 gives CP-SAT all of it). Only used by
        `solve_scenario` and `solve_failure_free` with `strengthen` and an exact scaling.
    """

    strengthen: bool = field(default=True, metadata={
        "help": "redundant constraints and the isolated-job reduction (false: plain model)"})
    forbidden_set_size: int = field(default=3, metadata={
        "low": 0, "high": 4, "help": "largest minimal forbidden set made into clauses"})
    refute_share: float = field(default=REFUTE_SHARE, metadata={
        "low": 0.0, "high": 1.0, "help": "share of the time for the refutation search (R7)"})


@dataclass
class ScaledResult:
    """Outcome of `solve_scaled` in scaled integer units.

    ``status`` is "OPTIMAL" when optimality is proven (by CP-SAT, by the refutation search, or
    because the reduction leaves nothing to solve), else CP-SAT's status name ("FEASIBLE",
    "INFEASIBLE", "UNKNOWN", ...); ``starts`` the start times per job and attempt (None without
    a schedule); ``bound`` the proven lower bound; ``lower`` the root bound and ``horizon`` the
    greedy (or hinted) upper bound, both of the whole scenario; ``isolated`` the jobs taken out
    by `split_isolated`; ``refuted`` how many makespans the refutation search ruled out;
    ``cp_sat_status`` CP-SAT's own; ``searched`` whether the refutation search ran; ``root``
    the parts of the root bound; ``seconds`` the time of each phase.
    """

    status: str
    starts: list[list[int]] | None
    objective: int | None
    bound: int
    lower: int
    horizon: int
    isolated: list[int]
    refuted: int = 0
    cp_sat_status: str = ""
    searched: bool = False
    root: RootBound | None = None
    seconds: dict[str, float] = field(default_factory=dict)


def _cp_sat(built_model: cp_model.CpModel, opts: RigidSolveOptions, share: float
            ) -> tuple[cp_model.CpSolver, SolverRun]:
    """Run CP-SAT (the solver runner, `resilsched.solvers`) for (1 - share) of the remaining
    time; under ``deterministic=True`` for that share of the time limit's CP-SAT budget, in
    deterministic time, with `safety_net` as the wall-clock stop."""
    seconds = wall = None
    if opts.time_limit is not None:
        if opts.deterministic:
            seconds = opts.time_limit * (1.0 - share) * (1.0 - ROOT_SHARE - BUILD_SHARE)
            wall = safety_net(opts).remaining()
        else:
            seconds = max(opts.deadline.remaining() * (1.0 - share), 0.0)
    solver = cpsat_solver(opts, "rigid", seconds=seconds, wall=wall)
    return solver, run_cpsat(solver, built_model)


def search_rate(data: ScaledScenario) -> float:
    """Refutation-search nodes per second of budget under ``deterministic=True``: the C rate
    when the compiled search is built and takes this scenario (`crefute`: at most
    `crefute.MAX_ATTEMPTS` attempts, times and P below 2^31), else the Python rate. The same
    call in the same installation gets the same budget."""
    small = sum(data.m) <= crefute.MAX_ATTEMPTS and max(data.P, sum(data.work())) < 2**31
    return C_NODES_PER_SECOND if small and crefute.library() is not None else NODES_PER_SECOND


def solve_scaled(data: ScaledScenario, opts: RigidSolveOptions,
                 hint: list[list[int]] | None = None, refute: bool = True) -> ScaledResult:
    """Solve the scaled attempt model under `opts` (module docstring, phases 1-5).

    The jobs that fit beside no other job are taken out, the rest is solved, and the schedule
    is rebuilt with the isolated attempts back to back at time 0 (decision R6): objective and
    bound both grow by their total length, which is exact by `split_isolated`. `refute` allows
    the refutation search (only sound for the attempt model on exactly scaled times).
    """
    seconds: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[name] = round(now - clock, 6)
        clock = now

    strengthen = opts.strengthen
    wall = safety_net(opts) if opts.deterministic else opts.deadline  # the wall-clock stop
    limited = opts.time_limit is not None
    isolated = isolated_jobs(data.p, data.P) if strengthen else []
    rest, kept = split_isolated(data, isolated)
    offset = sum(data.m[j] * data.t[j] for j in isolated)
    rest_hint = None if hint is None else compress_starts(data, hint, isolated)
    if rest.n == 0:
        starts = place_isolated(data, isolated, kept, [])
        return ScaledResult("OPTIMAL", starts, offset, offset, offset, offset, isolated, 0,
                            "NOT_RUN")
    greedy = phase(opts, GREEDY_SHARE)
    upper = greedy_upper_bound(rest, greedy.deadline, greedy.schedules(sum(rest.m)))
    if rest_hint is not None and makespan_of(rest, rest_hint) < upper[0]:
        upper = (makespan_of(rest, rest_hint), rest_hint)
    lap("greedy")
    def sec(value: int) -> str:  # a scaled time of the progress lines, in seconds
        return f"{value / data.scale:.6g} s"

    opts.say(f"greedy schedule {sec(upper[0] + offset)}; root bounds")
    roots = phase(opts, ROOT_SHARE)
    max_k, rounds = roots.max_k(len(set(rest.p))), roots.rounds(rest.n, rest.P)
    root = root_bound(rest, strengthen, roots.deadline, max_k=max_k, max_rounds=rounds)
    lap("root_bounds")
    if strengthen and root.value < upper[0] \
            and improve.MIN_ATTEMPTS <= sum(rest.m) <= improve.MAX_ATTEMPTS:
        large = not data.exact or sum(rest.m) >= LARGE_ATTEMPTS
        # a share of the time limit under deterministic=True, where the phases add up
        better = phase(opts, IMPROVE_SHARE_LARGE if large and not opts.deterministic
                       else IMPROVE_SHARE)
        mk, starts, _ = improve.improve_schedule(
            rest, upper, root.value, better.deadline, seed=opts.seed,
            max_rounds=better.improve_rounds(sum(rest.m)),
            stall_rounds=improve.STALL_ROUNDS if large else improve.STALL_ROUNDS_SMALL,
            restart=improve.RESTART_STALL if large else None)
        upper = (mk, starts) if mk < upper[0] else upper
        lap("improve")
        opts.say(f"improved schedule {sec(upper[0] + offset)}")
    if root.value >= upper[0] or wall.expired() or not model_fits(opts, sum(rest.m)):
        # the greedy schedule is optimal, or no time is left for CP-SAT: it is the answer
        lower, (horizon, starts) = min(root.value, upper[0]), upper
        status = "OPTIMAL" if lower >= horizon else "FEASIBLE"
        opts.say(f"root bound {sec(lower + offset)}: the greedy schedule "
                 + ("is optimal" if status == "OPTIMAL" else "is the answer (no time for CP-SAT)"))
        return ScaledResult(status, place_isolated(data, isolated, kept, starts),
                            horizon + offset, lower + offset, lower + offset, horizon + offset,
                            isolated, 0, "NOT_RUN", root=root, seconds=seconds)
    opts.say(f"root bound {sec(root.value + offset)}; building the model")
    build = phase(opts, BUILD_SHARE)
    built = build_model(rest, strengthen=strengthen, forbidden_set_size=opts.forbidden_set_size,
                        lower=root.value, deadline=build.deadline, upper=upper,
                        max_steps=build.max_steps(), max_clauses=build.max_clauses())
    lap("build")
    share = min(max(float(opts.refute_share), 0.0), 1.0) if refute else 0.0
    opts.say("CP-SAT")
    solver, run = _cp_sat(built.model, opts, share)
    lap("cp_sat")
    seconds["cp_sat_deterministic"] = round(solver.deterministic_time, 6)
    lower, horizon = built.lower + offset, built.horizon + offset
    if run.has_solution:
        status = run.solver_status
        rest_starts = [[solver.value(s) for s in row] for row in built.vars.start]
        objective = int(run.objective)
        bound = built.lower if run.bound is None else max(math.ceil(run.bound - 1e-9),
                                                          built.lower)
    elif run.solver_status == "UNKNOWN":  # no schedule in time: the greedy one is the incumbent
        status, rest_starts, objective, bound = "FEASIBLE", built.greedy, built.horizon, built.lower
    else:
        return ScaledResult(run.solver_status, None, None, lower, lower, horizon,
                            isolated, 0, run.solver_status, root=root, seconds=seconds)
    refuted, searched = 0, False
    if share > 0 and status != "OPTIMAL" and bound < objective:
        opts.say(f"refutation search from {sec(bound + offset)} (incumbent "
                 f"{sec(objective + offset)})")
        nodes = (None if not opts.deterministic or not limited
                 else int(opts.time_limit * share * search_rate(rest)))
        pooling = phase(opts, POOL_SHARE * share)
        pool = CutPool(rest, pooling.deadline, max_k=max_k, max_rounds=rounds,
                       max_seconds=pooling.seconds if pooling.capped else None)
        memo = RefuteMemo(rest.n)  # the states refuted for T prune the search for T + 1
        # the C search on `threads` cores (decision R29); one under deterministic=True, where
        # the node count must not depend on the timing of the threads
        search_workers = 1 if opts.deterministic else min(threads(opts), crefute.MAX_WORKERS)
        while bound < objective and not wall.expired() and (nodes is None or nodes > 0):
            res = refute_makespan(rest, bound, wall.remaining(), pool=pool, max_nodes=nodes,
                                  memo=memo, workers=search_workers)
            searched = True
            if nodes is not None:
                nodes -= res.work
            if res.status == "infeasible":
                bound += 1
                refuted += 1
            elif res.status == "feasible" and res.starts is not None:
                rest_starts = res.starts  # ends by `bound`, and every smaller T was refuted
                objective = makespan_of(rest, rest_starts)
            else:
                break
        lap("refute")
    if bound >= objective:
        status = "OPTIMAL"
    return ScaledResult(status, place_isolated(data, isolated, kept, rest_starts),
                        objective + offset, bound + offset, lower, horizon, isolated, refuted,
                        run.solver_status, searched, root, seconds)


def _schedule(instance: RigidInstance, scenario: Scenario, data: ScaledScenario,
              starts: list[list[int]], merged: bool) -> Schedule:
    """Attempt schedule in the instance's unit; a merged job is split back into its attempts."""
    attempts = []
    f, t, p = scenario.failures, instance.t, instance.p  # `instance.t` is built on each access
    integral = all(isinstance(tj, int) for tj in t)
    for j in range(instance.n):
        tj = t[j]
        if merged:
            begin = to_time(starts[j][0], data, integral)
            begins = [begin + k * tj for k in range(f[j] + 1)]
        else:
            begins = [to_time(s, data, integral) for s in starts[j]]
        for k, s in enumerate(begins):
            attempts.append(Attempt(j, k + 1, s, s + tj, p[j], k < f[j]))
    return Schedule(tuple(attempts), max(a.end for a in attempts))


def _solve(instance: RigidInstance, scenario: Scenario, method: str, merged: bool,
           opts: RigidSolveOptions, hint: Sequence[Sequence[Any]] | None) -> Solution:
    t0 = time.perf_counter()
    if scenario.attempts > MAX_ATTEMPTS:
        raise InvalidInstance("failures", f"{scenario.attempts} attempts in all: the exact "
                                          f"models take at most {MAX_ATTEMPTS} (one CP-SAT "
                                          "interval each)")
    if opts.time_limit is not None:  # the phases end early enough for the output to fit
        reserve = OUTPUT_SECONDS_PER_ATTEMPT * scenario.attempts
        opts = dataclasses.replace(opts, time_limit=max(opts.time_limit - reserve, 0.01))
    data = scale_scenario(instance, scenario, merged=merged, max_scale=MAX_SCALE)
    int_hint = scale_hint(data, hint) if hint is not None and data.exact and not merged else None
    refute = opts.strengthen and not merged and data.exact
    res = solve_scaled(data, opts, int_hint, refute=refute)
    paper_lb = lower_bound(instance, scenario)
    integral = all(isinstance(tj, int) for tj in instance.t)
    info: dict[str, Any] = {
        "lower_bound_scaled": res.lower,
        "horizon_scaled": res.horizon,
        "attempt_intervals": sum(data.m) if not merged else data.n,
        "isolated_jobs": res.isolated,
        "refuted_by_search": res.refuted,
        "strengthened": bool(opts.strengthen),
        "cp_sat_status": res.cp_sat_status,
    }
    facts: dict[str, Any] = {"seconds": res.seconds}
    if res.root is not None:
        facts["root_bounds_scaled"] = res.root.parts
        facts["root_bounds_complete"] = res.root.complete
    if res.starts is None:
        status = Status.INFEASIBLE if res.status == "INFEASIBLE" else Status.NO_SOLUTION
        exact_model = data.exact and not merged
        bound = max(paper_lb, to_time(res.lower, data, integral)) if exact_model else paper_lb
        return Solution(None, bound, status, method, SOLVER, time.perf_counter() - t0,
                        data.scale, data.exact, {"info": info}, facts)
    sched = _schedule(instance, scenario, data, res.starts, merged)
    if data.exact:
        objective = to_time(res.objective, data, integral)
        bound = to_time(res.bound, data, integral)
        if bound > objective:  # a wrong "proven" bound: fail loudly rather than report it
            raise RuntimeError(f"lower bound {bound} exceeds the schedule found ({objective})")
        status = Status.OPTIMAL if res.status == "OPTIMAL" and not merged else Status.FEASIBLE
        if merged:
            bound = paper_lb  # the merged optimum is an upper bound on T_OPT(f), not below it
    else:
        objective = sched.makespan  # true makespan with the original durations
        bound = paper_lb
        status = Status.FEASIBLE
    solver = SOLVER + "+refute" if res.searched else SOLVER
    return Solution(objective, bound, status, method, solver, time.perf_counter() - t0,
                    data.scale, data.exact, SchedulePayload(sched, info), facts)


def solve_scenario(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
                   *, time_limit: float | None = None,
                   hint: Sequence[Sequence[Any]] | None = None, **options: Any) -> Solution:
    """Clairvoyant optimum T_OPT(f) with one interval per attempt (spec 002 §1.3, §11.2).

    Parameters
    ----------
    instance : the rigid instance.
    scenario : failure counts f (a checked `Scenario`, or a list checked here); default: the
        instance's stored scenario, else failure-free.
    time_limit : seconds for the whole call (every phase); None: no limit.
    hint : optional start times per job and attempt (instance units), used as the hint and
        horizon when better than the built-in greedy schedule.
    **options : the fields of `RigidSolveOptions` (workers, seed, deterministic, progress,
        strengthen, forbidden_set_size, refute_share).

    Returns
    -------
    Solution with ``status`` OPTIMAL only when optimality is proven (by CP-SAT, or by refuting
    every smaller makespan) on an exactly scaled instance, ``bound`` the proven lower bound
    (>= L(f)), ``payload.schedule`` the schedule, ``info`` the time of each phase.
    """
    opts = RigidSolveOptions.of(time_limit, options)
    return _solve(instance, scenario_of(instance, scenario), "cpsat-scenario", False, opts, hint)


def solve_failure_free(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None,
                       *, time_limit: float | None = None,
                       hint: Sequence[Sequence[Any]] | None = None, **options: Any) -> Solution:
    """P|size_j|C_max: the failure-free optimum (spec 002 §11.2), one interval per job.

    `scenario` is ignored (the registry passes one to every model); the options are those of
    `solve_scenario`.
    """
    opts = RigidSolveOptions.of(time_limit, options)
    return _solve(instance, Scenario.failure_free(instance.n), "cpsat-failure-free", False, opts,
                  hint)


def solve_scenario_merged(instance: RigidInstance,
                          scenario: Scenario | Sequence[int] | None = None, *,
                          time_limit: float | None = None, **options: Any) -> Solution:
    """Merged shortcut: one interval of length (f_j+1) t_j per job (spec 002 §11.2).

    Only an UPPER bound on T_OPT(f): it forces the attempts of a job to run back to back on the
    same processors. Its status is therefore at best FEASIBLE (a schedule of the real problem
    whose optimality is not claimed), and ``bound`` is L(f). No refutation search.
    """
    opts = RigidSolveOptions.of(time_limit, options)
    return _solve(instance, scenario_of(instance, scenario), "cpsat-merged", True, opts, None)
