"""The solver runner: CP-SAT and HiGHS set up, limited and read in one place (issue 28).

Every exact model and bound that runs CP-SAT or HiGHS takes its solver from here, so that the
`resilsched.options.SolveOptions` fields mean the same in every family:

- **workers** (`threads`): CP-SAT runs ``workers`` threads when given, else 1 under
  ``deterministic=True`` and `CP_SAT_WORKERS` (2) otherwise. HiGHS always runs one thread
  (`HIGHS_THREADS`): HiGHS 1.12 keeps one thread pool per process, sized by the first run,
  and refuses (``kError``, no solve) every later run asking for another count, so a second
  count anywhere in a process (a bound, another model, the next task of a campaign worker)
  silently broke the solves after it (docs/decisions.md T26). Its only parallel parts here
  are the MIP's symmetry detection; its serial simplex, interior point and MIP search give
  the same answer on one thread.
- **seed**: CP-SAT's and HiGHS's ``random_seed``.
- **deterministic**: the search stops on work, not on the clock. CP-SAT's deterministic time
  limit is the search's budget in seconds, which the model computes from the time limit alone
  (never from the clock), times the CP-SAT units per second of its family
  (`CP_SAT_UNITS_PER_SECOND`, the one table of rates); several workers interleave their search
  (``interleave_search``). The wall clock (the model's `resilsched.options.Deadline`) stays as
  a safety net only, and `SolverRun.reproducible` says whether it fired. HiGHS has no work
  limit: it is deterministic by itself, so under ``deterministic=True`` a HiGHS phase gives the
  same answer on every run it finishes within its (wall-clock) time limit.
- **time limit**: the model hands each run its seconds, taken from its deadline
  (`cpsat_solver` ``seconds`` / ``wall``, `set_time_limit`); None or infinity is no limit.
- **status and bound**: `run_cpsat` and `run_highs` map the solver's answer to the toolkit's
  `resilsched.solution.Status` and its proven bound (`SolverRun`): ``optimal`` only on the
  solver's own proof, never at a limit. A model still decides what the answer proves for *its*
  problem (a restricted or rounded model proves nothing).

OR-Tools and highspy are imported by the functions that need them, never when this module is.

>>> from resilsched.options import SolveOptions
>>> [threads(SolveOptions(**o)) for o in ({"deterministic": True}, {}, {"workers": 4})]
[1, 2, 4]
>>> highs_options(SolveOptions(seed=7), mip_rel_gap=0.0)
{'output_flag': False, 'threads': 1, 'random_seed': 7, 'mip_rel_gap': 0.0}
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from resilsched.options import SolveOptions
from resilsched.solution import Status

if TYPE_CHECKING:
    import highspy
    from ortools.sat.python import cp_model

#: CP-SAT threads of a wall-clock run when ``workers=0`` (a deterministic one gets 1).
CP_SAT_WORKERS = 2
#: HiGHS threads, always (module docstring; decision T26).
HIGHS_THREADS = 1
#: CP-SAT deterministic time units per second of a search budget under ``deterministic=True``,
#: per family: the rate each family's models were calibrated and certified with (the shipped
#: libraries' certificates depend on them, decision L2), kept apart because CP-SAT counts its
#: units at very different paces on their models (docs/decisions.md T26):
#: - moldable: 0.0015-0.01 units per wall second measured on its cumulative models (smoke suite,
#:   n = 12-500), so 0.001 ends the search at 10-70 % of the limit;
#: - rigid: 0.025-0.2 measured, hence 0.02;
#: - desktop: 1 unit per second (its model took ``max_deterministic_time = remaining``).
CP_SAT_UNITS_PER_SECOND: dict[str, float] = {"moldable": 0.001, "rigid": 0.02, "desktop": 1.0}
#: a run whose wall time reaches this share of its wall-clock limit was stopped by the clock
WALL_STOP = 0.98


def threads(opts: SolveOptions, solver: str = "cp-sat") -> int:
    """The threads of a ``solver`` (``"cp-sat"`` or ``"highs"``) run under `opts`: the one
    worker rule of the module docstring."""
    if solver == "highs":
        return HIGHS_THREADS
    if solver != "cp-sat":
        raise ValueError(f"solver={solver!r} must be 'cp-sat' or 'highs'")
    return opts.workers or (1 if opts.deterministic else CP_SAT_WORKERS)


@dataclass(frozen=True)
class SolverRun:
    """What one solver run answered, in the toolkit's terms.

    Attributes
    ----------
    status : ``optimal`` when the solver proved its solution optimal, ``infeasible`` when it
        proved there is none, ``feasible`` with a solution and no proof (a limit stopped it),
        ``no_solution`` without a solution.
    objective : the solution's objective value (None without a solution).
    bound : the solver's proven bound on the objective (below it when minimising), None when
        it has none.
    solver_status : the solver's own name of its status (``"OPTIMAL"``, ``"Time limit
        reached"``, ...).
    wall_time : seconds the run took.
    reproducible : False when the wall clock stopped the run (its answer depends on the
        machine's speed and load); True when it ended on a proof, on the deterministic limit or
        on nothing at all.
    """

    status: Status
    objective: float | None
    bound: float | None
    solver_status: str
    wall_time: float
    reproducible: bool

    @property
    def has_solution(self) -> bool:
        """Whether the run holds a solution to read (optimal or feasible)."""
        return self.status in (Status.OPTIMAL, Status.FEASIBLE)


def _finite(value: float | None) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


# ---------------------------------------------------------------------------------------------
# CP-SAT
# ---------------------------------------------------------------------------------------------
def cpsat_solver(opts: SolveOptions, family: str, *, seconds: float | None,
                 wall: float | None = None, **parameters: Any) -> cp_model.CpSolver:
    """A CP-SAT solver set up for one search under `opts` (module docstring).

    Parameters
    ----------
    opts : the model's options (workers, seed, deterministic).
    family : the key of the family's rate in `CP_SAT_UNITS_PER_SECOND`.
    seconds : the search's budget in seconds (None: no limit). Under ``deterministic=True`` it
        must come from the time limit alone and becomes the deterministic time limit
        ``CP_SAT_UNITS_PER_SECOND[family] * seconds``; otherwise it is a wall-clock limit.
    wall : the wall-clock stop (``max_time_in_seconds``; None: none besides `seconds`): under
        ``deterministic=True`` the safety net taken from the model's deadline, otherwise a
        second wall-clock limit (the smaller one applies).
    parameters : CP-SAT parameters of the model's own (presolve, probing, ...), set last.

    Returns
    -------
    cp_model.CpSolver, to pass to `run_cpsat` with the model.
    """
    from ortools.sat.python import cp_model

    rate = CP_SAT_UNITS_PER_SECOND[family]
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = threads(opts)
    params.random_seed = opts.seed
    if opts.deterministic:
        params.interleave_search = params.num_workers > 1
        if seconds is not None:
            params.max_deterministic_time = rate * seconds
        if wall is not None:
            params.max_time_in_seconds = wall
    else:
        limits = [s for s in (seconds, wall) if s is not None]
        if limits:
            params.max_time_in_seconds = min(limits)
    for name, value in parameters.items():
        setattr(params, name, value)
    return solver


def run_cpsat(solver: cp_model.CpSolver, model: cp_model.CpModel) -> SolverRun:
    """Solve `model` with `solver` (from `cpsat_solver`) and map its answer (`SolverRun`);
    the solver keeps the solution for the model to read (``solver.value``)."""
    from ortools.sat.python import cp_model

    code = solver.solve(model)
    status = {cp_model.OPTIMAL: Status.OPTIMAL, cp_model.FEASIBLE: Status.FEASIBLE,
              cp_model.INFEASIBLE: Status.INFEASIBLE}.get(code, Status.NO_SOLUTION)
    solution = status in (Status.OPTIMAL, Status.FEASIBLE)
    limit = solver.parameters.max_time_in_seconds
    proof = status in (Status.OPTIMAL, Status.INFEASIBLE)
    return SolverRun(status, float(solver.objective_value) if solution else None,
                     _finite(solver.best_objective_bound) if solution else None,
                     solver.status_name(code), solver.wall_time,
                     proof or solver.wall_time < WALL_STOP * limit)


# ---------------------------------------------------------------------------------------------
# HiGHS
# ---------------------------------------------------------------------------------------------
def highs_options(opts: SolveOptions | None = None, **options: Any) -> dict[str, Any]:
    """The HiGHS options of a run under `opts` (None: a bound or a phase without options):
    silent, `HIGHS_THREADS` threads, the seed; then the model's own `options` (tolerances,
    gaps, ``solver``). The same dictionary serves highspy (`new_highs`) and Pyomo's
    ``appsi_highs`` (``highs_options``)."""
    if "threads" in options and options["threads"] != HIGHS_THREADS:
        raise ValueError(f"HiGHS runs {HIGHS_THREADS} thread(s) in every process "
                         "(resilsched.solvers, decision T26)")
    out: dict[str, Any] = {"output_flag": False, "threads": HIGHS_THREADS}
    if opts is not None:
        out["random_seed"] = opts.seed
    out.update(options)
    return out


def new_highs(options: Mapping[str, Any] | None = None,
              seconds: float | None = None) -> highspy.Highs:
    """A HiGHS instance with `highs_options` and then `options` (e.g. the result of
    ``highs_options(opts, ...)``), limited to `seconds` when given (`set_time_limit`)."""
    import highspy

    h = highspy.Highs()
    for name, value in highs_options(**dict(options or {})).items():
        h.setOptionValue(name, value)
    if seconds is not None:
        set_time_limit(h, seconds)
    return h


def set_time_limit(h: highspy.Highs, seconds: float | None) -> None:
    """HiGHS's wall-clock ``time_limit``: `seconds` (at least 1 ms), none for None or
    infinity."""
    import highspy

    finite = seconds is not None and math.isfinite(seconds)
    h.setOptionValue("time_limit", float(max(1e-3, seconds)) if finite else highspy.kHighsInf)


def run_highs(h: highspy.Highs, *, quiet: bool = False) -> SolverRun:
    """Run HiGHS on its model and map its answer (`SolverRun`): the model status, whether it
    holds a feasible point (``primal_solution_status``), the objective and, for a MIP, its
    dual bound (an LP's or a QP's bound is its optimum, when proven). ``quiet``: inside
    `quiet_stdout` (MIPs). The instance keeps its solution for the model to read
    (``h.getSolution()``)."""
    import highspy

    start = time.perf_counter()
    with quiet_stdout() if quiet else contextlib.nullcontext():
        h.run()
    seconds = time.perf_counter() - start
    code = h.getModelStatus()
    info = h.getInfo()
    feasible = info.primal_solution_status == 2  # kSolutionStatusFeasible
    if code == highspy.HighsModelStatus.kOptimal:
        status = Status.OPTIMAL
    elif code == highspy.HighsModelStatus.kInfeasible:
        status = Status.INFEASIBLE
    else:
        status = Status.FEASIBLE if feasible else Status.NO_SOLUTION
    solution = feasible or status is Status.OPTIMAL
    objective = float(info.objective_function_value) if solution else None
    if info.mip_node_count >= 0:  # a MIP run (-1 for an LP or a QP)
        bound = _finite(info.mip_dual_bound)
    else:
        bound = objective if status is Status.OPTIMAL else None
    return SolverRun(status, objective, bound, h.modelStatusToString(code), seconds,
                     code != highspy.HighsModelStatus.kTimeLimit)


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence C-level writes to file descriptor 1 around a HiGHS MIP: HiGHS 1.12 prints debug
    lines from its MIP solution transformer even with ``output_flag`` off, which would corrupt
    ``--json`` output (decision C12)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


__all__ = ["CP_SAT_UNITS_PER_SECOND", "CP_SAT_WORKERS", "HIGHS_THREADS", "SolverRun",
           "cpsat_solver", "highs_options", "new_highs", "quiet_stdout", "run_cpsat",
           "run_highs", "set_time_limit", "threads"]
