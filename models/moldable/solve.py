"""Exact models of the moldable family (spec 000 §1.5, §8): entry points, options and phases.

* `solve_scenario` (``cpsat-scenario``): the clairvoyant optimum T_OPT(J, f) of a known failure
  scenario (§1.5, §1.6), each attempt choosing its own allocation;
* `solve_failure_free` (``cpsat-failure-free``): the same model with one attempt per job.

Both follow the exact-model contract (`resilsched.plugin`): ``solve(instance, scenario=None, *,
time_limit=None, **options) -> Solution`` with the options of `MoldableOptions`, and every phase
counts against the time limit:

1. root bound: L'(J, f) (`resilsched.bounds.moldable.L_prime`, exact on exact data);
2. incumbent: the best of the ``hint`` (a schedule of the instance, e.g. the best heuristic's
   in ``resilsched solve``, checked by `resilsched.validation.validate_attempts`), the chain
   construction's (`resilsched.heuristics.moldable.chains`, clairvoyant) and LPA-LIST's
   schedules (`resilsched.heuristics.moldable`), in exact times on exact data: the answer if
   nothing better is found. When it meets L' it is optimal and the call ends here;
3. candidates and scaling (`resilsched.models.moldable.data`): the complete model when it has
   at most ``max_intervals`` optional intervals, else a restricted model (thinned fronts that
   keep the allocations of the guide: the hint if given, else LPA-LIST's schedule);
4. model building and CP-SAT search (`resilsched.models.moldable.cpsat`), hinted with LIST on
   the guide's allocations; CP-SAT gets what remains of the limit (0.9 of it, minus a
   reserve);
5. reading the solution; the better of CP-SAT's and the incumbent's schedules is returned.

When the limit passes in phases 3-4 the incumbent is returned with status ``feasible``. The
status is ``optimal`` only when CP-SAT proved the complete, exactly scaled model or the
incumbent meets L' (on exact data an incumbent in exact times, compared exactly; within the
float tolerance of `resilsched.numeric` on float data); the bound is then the optimum,
otherwise max(L', CP-SAT's bound on the complete exact model). A restricted model's optimum
and bound prove nothing (its optimum can exceed T_OPT) and are never reported as such. With
``deterministic=True`` every decision depends on sizes only, CP-SAT runs with a fixed worker
count and a deterministic time limit of the whole limit in the family's CP-SAT units
(`resilsched.solvers`: 1 worker unless ``workers`` says otherwise, interleaved when several;
``CP_SAT_UNITS_PER_SECOND["moldable"]`` = 0.001 units per second), so the answer is reproducible
as long as the wall-clock safety net (the deadline) does not fire; the payload's
``info["reproducible"]`` says whether it did.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from resilsched.bounds.moldable import L_prime
from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.heuristics.moldable.allocation import lpa
from resilsched.heuristics.moldable.chains import MAX_TARGETS, chain_schedule
from resilsched.heuristics.moldable.listsched import run_list
from resilsched.instances.failures import Scenario
from resilsched.models.moldable.data import (
    OutOfTime,
    ScaledMoldable,
    candidate_fronts,
    is_exact,
    lower_bound_scaled,
    scale_candidates,
)
from resilsched.numeric import time_le
from resilsched.options import SolveOptions
from resilsched.schedule import Schedule, SchedulePayload
from resilsched.solution import Solution, Status, number_fields
from resilsched.solvers import cpsat_solver, run_cpsat
from resilsched.validation import validate_attempts

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

SOLVER = "cp-sat"
#: attempts above which no incumbent is simulated (the engine needs ~50 us per attempt)
MAX_INCUMBENT_ATTEMPTS = 200_000
#: share of the remaining time CP-SAT's wall-clock limit gets, and the reserve kept for reading
SEARCH_SHARE, SEARCH_RESERVE = 0.9, 0.05
#: models with more optional intervals skip CP-SAT's probing / its whole presolve, whose
#: cumulative reasoning took 2 s at 2,600 intervals and the whole limit at 17,000
#: (docs/performance.md)
PROBING_LIMIT, PRESOLVE_LIMIT = 1_000, 5_000
#: seconds that must remain to import OR-Tools (it takes 1-2 s on a loaded machine)
IMPORT_RESERVE = 1.0
#: LPA-LIST incumbent cost estimate: the allocation scans the n x P table (2.4e-8 s per cell
#: measured), the engine 9e-5 s per attempt on a loaded machine; it runs only when the
#: estimate is at most half of the time left (of the limit with ``deterministic=True``), or
#: 0.9 of it when no CP-SAT model can be built (more attempts than ``max_intervals``)
LPA_SECONDS_PER_CELL, LIST_SECONDS_PER_ATTEMPT = 4e-8, 1e-4
#: the time-Pareto fronts of the n x P table (`MoldableInstance.fronts`, 4e-8 s per cell
#: measured): not started when they would not end before the deadline
FRONT_SECONDS_PER_CELL = 5e-8
#: chain construction cost estimate: its fronts and allotments (1e-7 s per table cell) and its
#: list scheduling (3e-5 s per job and attempt per target, 1.5e-5 measured at load 15); it
#: runs when the estimate is at most half of the time left. Under a wall-clock deadline the
#: estimate counts the first target (always built) and the target search stops at a third of
#: the time left; under ``deterministic=True`` (no deadline inside) it counts every target
CHAIN_SECONDS_PER_CELL, CHAIN_SECONDS_PER_TARGET_ITEM = 1e-7, 3e-5
#: seconds per attempt kept for the output from the start (the schedule's `to_dict` and
#: printing, 3-5e-5 s each measured)
OUTPUT_SECONDS_PER_ATTEMPT = 8e-5
#: exact times t_j(p) evaluated per second when looking for the exact fronts (1.1e5 measured
#: on a loaded machine); they may take a quarter of the time limit, else the model is restricted
EXACT_TIMES_PER_SECOND = 5e4


@dataclass(frozen=True)
class MoldableOptions(SolveOptions):
    """Options of the moldable CP-SAT models (`SolveOptions` plus the model's own knobs)."""

    max_intervals: int = field(default=10_000, metadata={
        "low": 1, "high": 10**7,
        "help": "optional intervals of the complete model above which the fronts are thinned "
                "(restricted model: feasible at best)"})
    max_scale: int = field(default=10**6, metadata={
        "low": 1, "high": 10**12,
        "help": "largest integer time scale; above it times are rounded up (feasible at best)"})
    incumbent: bool = field(default=True, metadata={
        "help": "start from the best of LPA-LIST's and the chain construction's schedules "
                "(solution hint, and the answer if time runs out)"})


@dataclass
class _Run:
    """Facts gathered by the phases: seconds per phase and the payload's ``info``."""

    opts: MoldableOptions
    phases: dict[str, float] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str, message: str) -> Iterator[None]:
        """Report the phase (progress callback) and time it."""
        self.opts.say(message)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = round(time.perf_counter() - start, 4)


def solve_scenario(instance, scenario: Scenario | None = None, *, time_limit: float | None = None,
                   hint: Any = None, **options: Any) -> Solution:
    """Clairvoyant optimum T_OPT(J, f), allocation chosen per attempt (§1.5, §8).

    ``scenario=None``: the instance's stored scenario (failure-free without one); a scenario is
    trusted as given (the family's hook checks it). ``hint``: a schedule of the instance and
    scenario (``attempts`` and ``makespan``, e.g. a heuristic's), checked, then the incumbent
    when it is the best (`InvalidInstance` naming ``hint`` when it is not a valid schedule).
    ``options``: the fields of `MoldableOptions`. Returns a `Solution` whose payload is the
    schedule (`SchedulePayload`).

    >>> from resilsched.instances.moldable import MoldableInstance, Roofline
    >>> inst = MoldableInstance(4, (Roofline(6, 2), Roofline(5, 4)))
    >>> sol = solve_scenario(inst, inst.scenario([0, 1]), time_limit=10, workers=1)
    >>> sol.status.value, sol.objective, sol.bound
    ('optimal', Fraction(17, 4), Fraction(17, 4))
    """
    opts = MoldableOptions.of(time_limit, options)
    scenario = instance.scenario() if scenario is None else scenario
    return _solve(instance, scenario, "cpsat-scenario", _reserve_output(opts, scenario),
                  _checked_hint(instance, scenario, hint))


def solve_failure_free(instance, scenario: Scenario | None = None, *,
                       time_limit: float | None = None, hint: Any = None,
                       **options: Any) -> Solution:
    """Failure-free moldable optimum (one attempt per job, §8); `scenario` is ignored and
    ``hint`` is a failure-free schedule (see `solve_scenario`)."""
    opts = MoldableOptions.of(time_limit, options)
    scenario = Scenario.failure_free(instance.n)
    return _solve(instance, scenario, "cpsat-failure-free", _reserve_output(opts, scenario),
                  _checked_hint(instance, scenario, hint))


def _checked_hint(instance, scenario: Scenario, hint: Any) -> Schedule | None:
    """The hint as a `Schedule` of the instance and scenario, checked (module docstring)."""
    if hint is None:
        return None
    attempts = getattr(hint, "attempts", None)
    if attempts is None or not hasattr(hint, "makespan"):
        raise InvalidInstance("hint", f"a {type(hint).__name__} is not a schedule (attempts "
                                      "and makespan)")
    schedule = Schedule(tuple(attempts), hint.makespan)
    try:
        validate_attempts(schedule, instance.P, scenario.failures, instance.duration,
                          lambda j, p: isinstance(p, int) and 1 <= p <= instance.P)
    except InvalidSchedule as exc:
        raise InvalidInstance("hint", f"is not a schedule of this instance: {exc}") from None
    return schedule


def _reserve_output(opts: MoldableOptions, scenario: Scenario) -> MoldableOptions:
    """The options with `OUTPUT_SECONDS_PER_ATTEMPT` per attempt taken off the time limit, so
    that the phases end early enough for the caller to print the schedule."""
    if opts.time_limit is None:
        return opts
    reserve = OUTPUT_SECONDS_PER_ATTEMPT * scenario.attempts
    return dataclasses.replace(opts, time_limit=max(opts.time_limit - reserve, 0.01))


def _incumbent_fits(instance, scenario: Scenario, opts: MoldableOptions) -> bool:
    """Whether LPA-LIST's estimated cost fits its share of the time left (of the limit under
    ``deterministic=True``, a rule that does not read the clock): half, or 0.9 when it is the
    only possible answer (no model holds one interval per attempt)."""
    if scenario.attempts > MAX_INCUMBENT_ATTEMPTS:
        return False
    if opts.time_limit is None:
        return True
    cost = (LPA_SECONDS_PER_CELL * instance.n * instance.P
            + LIST_SECONDS_PER_ATTEMPT * scenario.attempts)
    left = opts.time_limit if opts.deterministic else opts.deadline.remaining()
    return cost <= (0.5 if scenario.attempts <= opts.max_intervals else 0.9) * left


def _chains_fit(instance, scenario: Scenario, opts: MoldableOptions) -> bool:
    """Whether the chain construction's estimated cost (the comment of
    `CHAIN_SECONDS_PER_CELL`) is at most half of the time left (of the limit under
    ``deterministic=True``)."""
    if scenario.attempts > MAX_INCUMBENT_ATTEMPTS:
        return False
    if opts.time_limit is None:
        return True
    targets = MAX_TARGETS if opts.deterministic else 1
    cost = (CHAIN_SECONDS_PER_CELL * instance.n * instance.P
            + CHAIN_SECONDS_PER_TARGET_ITEM * targets * (instance.n + scenario.attempts))
    left = opts.time_limit if opts.deterministic else opts.deadline.remaining()
    return cost <= 0.5 * left


def _incumbent(instance, scenario: Scenario, exact: bool) -> Schedule:
    """LPA-LIST (LPT) on the scenario: its schedule (exact times on exact data)."""
    p = [int(x) for x in lpa(instance)]
    res = run_list(instance, scenario.failures, lambda j, k: p[j], "LPT", exact=exact)
    assert res.attempts is not None
    return Schedule(res.attempts, res.makespan)


def _incumbents(instance, scenario: Scenario, hint: Schedule | None, bound: Any, exact: bool,
                run: _Run) -> tuple[Schedule | None, str | None, Schedule | None]:
    """Phase 2: the best of the hint, the chain construction and LPA-LIST (module docstring),
    each built when its estimate fits the time left and no schedule before it meets the
    lower bound `bound`; (schedule, its source, the guide). The *guide* is the schedule whose
    allocations hint CP-SAT and stay in thinned fronts: the hint when one is given, else
    LPA-LIST's (as before the chains: a chains-guided search changed CP-SAT's deterministic
    runs and lost proven optima of the shipped library), else the best."""
    opts = run.opts
    found: list[tuple[Schedule, str]] = []

    def met() -> bool:
        return any(_meets(s.makespan, bound, exact) for s, _ in found)

    if hint is not None:
        found.append((hint, "hint"))
    if opts.incumbent and not met() and _chains_fit(instance, scenario, opts):
        with run.phase("chains", "incumbent: chain construction"):
            deadline = None if opts.deterministic or opts.time_limit is None else Deadline(
                opts.deadline.share(1 / 3))
            res = chain_schedule(instance, scenario, deadline=deadline)
            found.append((res.schedule, "CHAINS"))
    if opts.incumbent and not met() and _incumbent_fits(instance, scenario, opts):
        with run.phase("incumbent", "incumbent: LPA-LIST"):
            found.append((_incumbent(instance, scenario, exact), "LPA-LIST"))
    if not found:
        return None, None, None
    best, source = min(found, key=lambda f: f[0].makespan)  # ties: the earlier source
    run.info.update(number_fields("incumbent", best.makespan))
    guide = next((s for s, src in found if src in ("hint", "LPA-LIST")), best)
    return best, source, guide


def _meets(makespan: Any, bound: Any, exact: bool) -> bool:
    """Whether a makespan proves itself optimal by meeting the lower bound L': on exact data
    only an exact makespan (int/Fraction) at most L' (a float schedule, e.g. a hint, is no
    proof there); on float data within the tolerance of `resilsched.numeric` (decision T6)."""
    if exact:
        return isinstance(makespan, (int, Fraction)) and makespan <= bound
    return time_le(makespan, bound)


def _allocations(schedule: Schedule | None, n: int) -> list[list[int]] | None:
    """Per job, the allocation of each attempt of `schedule` (in attempt order)."""
    if schedule is None:
        return None
    out: list[list[int]] = [[] for _ in range(n)]
    for a in sorted(schedule.attempts, key=lambda a: (a.job, a.k)):
        out[a.job].append(a.p)
    return out


def _solve(instance, scenario: Scenario, method: str, opts: MoldableOptions,
           hint: Schedule | None = None) -> Solution:
    """The phases of the module docstring; returns the best schedule found and its bound."""
    t0 = time.perf_counter()
    run = _Run(opts)
    with run.phase("root_bound", "root bound L'"):
        bound = L_prime(instance, scenario)
        exact_times = is_exact(instance)
    best, source, guide = _incumbents(instance, scenario, hint, bound, exact_times, run)
    run.info["attempts"] = scenario.attempts
    if best is not None and _meets(best.makespan, bound, exact_times):
        run.info["proof"] = "the incumbent meets the lower bound L'"
        return _solution(best, bound, True, source, method, None, run, time.perf_counter() - t0)
    allocation = _allocations(guide, instance.n)
    search = None
    try:
        with run.phase("scaling", "candidate allocations and integer times"):
            data = _candidates(instance, scenario, allocation, exact_times, opts)
        run.info.update(model="complete" if data.complete else "restricted",
                        candidate_intervals=data.intervals)
        search = _search(data, scenario, allocation, run)
    except OutOfTime as exc:
        run.info["stopped"] = f"time limit reached during {exc}"
        if opts.deterministic:
            run.info["reproducible"] = False
    except _NoModel as exc:
        run.info["model"] = str(exc)
    proven = False
    if search is not None and search.found is not None:
        proven = search.proven
        if proven or best is None or search.found.makespan < best.makespan:
            best, source = search.found, SOLVER
        if search.bound is not None and search.bound >= bound:
            bound = search.bound
    return _solution(best, bound, proven, source, method, search, run, time.perf_counter() - t0)


class _NoModel(Exception):
    """The model is not built (too many attempts for the interval budget)."""


def _candidates(instance, scenario: Scenario, allocation: list[list[int]] | None,
                exact_times: bool, opts: MoldableOptions) -> ScaledMoldable:
    """Phase 3: the candidate allocations and their integer times."""
    m = [f + 1 for f in scenario.failures]
    max_exact = (None if opts.time_limit is None  # from the limit: the same in every run
                 else int(0.25 * opts.time_limit * EXACT_TIMES_PER_SECOND))
    cands, complete = candidate_fronts(instance, m, allocation, opts.max_intervals, exact_times,
                                       opts.deadline, max_exact)
    if not cands:
        raise _NoModel(f"not built: {sum(m)} attempts exceed max_intervals")
    return scale_candidates(instance, cands, m, complete, exact_times, opts.max_scale,
                            opts.deadline)


@dataclass
class _Search:
    """What CP-SAT found: its schedule (None without a solution), whether it is proven
    optimal, and its certified bound (complete exactly scaled models only)."""

    data: ScaledMoldable
    found: Schedule | None = None
    proven: bool = False
    bound: Any = None


def _search(data: ScaledMoldable, scenario: Scenario, allocation: list[list[int]] | None,
            run: _Run) -> _Search:
    """Phases 4-5: build the model, run CP-SAT, read its solution."""
    opts = run.opts
    with run.phase("build", f"building the CP-SAT model ({data.intervals} intervals, "
                            f"{run.info['model']})"):
        # OR-Tools (and the pandas it imports, 1-2 s) is loaded only when a model is built,
        # and not when less than IMPORT_RESERVE seconds remain
        if ("ortools.sat.python.cp_model" not in sys.modules
                and opts.deadline.remaining() < IMPORT_RESERVE):
            raise OutOfTime("loading OR-Tools (too little time left)")
        from ortools.sat.python import cp_model

        import resilsched.models.moldable.cpsat as cpsat

        if opts.deadline.expired():
            raise OutOfTime("loading OR-Tools")
        model = cp_model.CpModel()
        v = cpsat.add_attempt_intervals(model, data, opts.deadline)
        cpsat.add_attempt_chains(model, v)
        cpsat.add_capacity(model, data, v)
        cpsat.add_makespan(model, data, v)
        if allocation is not None:
            run.info["hint_scaled_makespan"] = cpsat.add_hint(model, data, v, scenario.failures,
                                                              allocation)
    solver = _solver(opts, data)
    budget = solver.parameters.max_time_in_seconds
    limit = f"{budget:.3g} s at most" if math.isfinite(budget) else "no time limit"
    with run.phase("search", f"CP-SAT search ({limit})"):
        found = run_cpsat(solver, model)
    run.info["cp_sat_status"] = found.solver_status
    if opts.deterministic:
        run.info["reproducible"] = found.reproducible
    out = _Search(data)
    if not found.has_solution:
        return out
    with run.phase("read", "reading the solution"):
        out.found = cpsat.read_schedule(solver, data, v, scenario.failures)
        if data.complete and data.exact:
            out.proven = found.status is Status.OPTIMAL
            scaled = max(math.ceil(found.bound - 1e-9), lower_bound_scaled(data))
            out.bound = cpsat.to_time(scaled, data.scale)
    return out


def _solver(opts: MoldableOptions, data: ScaledMoldable) -> cp_model.CpSolver:
    """CP-SAT from the solver runner (`resilsched.solvers.cpsat_solver`): the wall clock stops
    it at `SEARCH_SHARE` of the time left minus `SEARCH_RESERVE`; under ``deterministic=True``
    its budget is the whole time limit in the family's deterministic units, the clock a safety
    net. Large models skip the probing / the presolve (`PROBING_LIMIT`, `PRESOLVE_LIMIT`)."""
    remaining = opts.deadline.remaining()
    wall = None
    if math.isfinite(remaining):
        wall = remaining * SEARCH_SHARE - SEARCH_RESERVE
        if wall <= 0:
            raise OutOfTime("the search (no time left)")
    own: dict[str, Any] = {"cp_model_presolve": data.intervals <= PRESOLVE_LIMIT}
    if data.intervals > PROBING_LIMIT:
        own["cp_model_probing_level"] = 0
    return cpsat_solver(opts, "moldable", seconds=opts.time_limit if opts.deterministic else wall,
                        wall=wall, **own)


def _solution(best: Schedule | None, bound: Any, proven: bool, source: str | None, method: str,
              search: _Search | None, run: _Run, wall: float) -> Solution:
    run.info["source"] = source
    data = search.data if search is not None else None
    scale = data.scale if data is not None else 1
    exact_scaling = data.exact if data is not None else True
    solver = SOLVER if "cp_sat_status" in run.info else "heuristic"
    facts = {"phases": run.phases}
    if best is None:
        return Solution(None, bound, Status.NO_SOLUTION, method, solver, wall, scale,
                        exact_scaling, {"info": run.info}, facts)
    objective = best.makespan
    if bound > objective:  # float noise on an incumbent in float times
        bound = objective
    status = Status.OPTIMAL if proven else Status.FEASIBLE
    return Solution(objective, bound, status, method, solver, wall, scale, exact_scaling,
                    SchedulePayload(best, run.info), facts)
