"""The exact model ``online-optimal``: the optimal online policy's expected makespan (issue 26).

``solve(instance, scenario=None, *, time_limit=None, **options) -> Solution`` for the rigid
family (`solve_rigid`) and the moldable family (`solve_moldable`). The input is the failure
model, not a scenario: the q_j calibrated to q-bar as the paper does (``qbar``, the
command line's ``--qbar Q``), or the model the instance stores (an online instance's q_j,
a moldable instance's ``lambda``). A scenario with failures is refused: the expected makespan
averages over all of them.

Phases, all under the deadline (``time_limit``):

1. the state count is estimated (`OnlineProblem.state_bound`, an upper bound); beyond
   `REFUSE_FACTOR` x ``max_states`` the instance is refused at once, one line with the
   estimate;
2. the reachable state space is explored (`space.explore`), refused when it exceeds
   ``max_states``;
3. policy iteration in floats, level by level (`floatdp`), and the certified lower bound
   (1 - eta) V_float;
4. the proof in exact arithmetic (`verify`): the result is ``optimal`` with the exact value
   E[T_online-OPT] (a Fraction in the instance's time unit) and the decision table.

A time limit reached in phase 2 or 3 gives ``no_solution`` with the Jensen bound
max(max_j t_min,j / (1 - q_j), sum_j a_min,j / (1 - q_j) / P) <= E[T_OPT(f)]; in phase 4,
``no_solution`` with the certified float bound. Never ``optimal`` without the proof. The model
is deterministic: with ``deterministic=True`` it runs the same way (the time limit only decides
whether it finishes, checked against a safety net of 1.25 time_limit + 0.5 s).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario, check_qbar
from resilsched.models.online.exact import exact_value
from resilsched.models.online.floatdp import lower_bound_factor, solve_levels
from resilsched.models.online.policy import DecisionTable
from resilsched.models.online.problem import OnlineProblem, moldable_problem, rigid_problem
from resilsched.models.online.space import OutOfTime, SpaceTooLarge, explore
from resilsched.models.online.verify import optimal_policy
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status

SOLVER = "mdp-exact"
#: default cap on the explored states (about 1 KB each with their actions and outcomes)
MAX_STATES = 1_000_000
#: an instance whose state bound exceeds this many times ``max_states`` is refused at once
REFUSE_FACTOR = 100
#: ``qbar`` when the failure model is the instance's own
STORED = -1.0


@dataclass(frozen=True)
class OnlineOptions(SolveOptions):
    """Options of ``online-optimal`` (``--param NAME=VALUE``), besides `SolveOptions`'.

    Attributes
    ----------
    qbar : the average failure probability q-bar the q_j are calibrated to (spec 002 §1.2,
        spec 000 §1.4), as ``--qbar Q`` gives it; -1: the failure model the instance stores.
    max_states : the most states the exploration may reach (refused beyond).
    """

    qbar: float = field(default=STORED, metadata={
        "low": -1.0, "high": 1.0,
        "help": "q-bar of the failure model (--qbar); -1 = the one the instance stores"})
    max_states: int = field(default=MAX_STATES, metadata={
        "low": 1, "high": 20_000_000, "help": "most states of the decision process"})

    @property
    def given_qbar(self) -> float | None:
        if self.qbar == STORED:
            return None
        return check_qbar(self.qbar)


def _no_scenario(scenario: Any, n: int) -> None:
    if scenario is None:
        return
    failures = scenario.failures if isinstance(scenario, Scenario) else Scenario.parse(
        scenario, n).failures
    if any(failures):
        raise InvalidInstance("failures", f"{list(failures)}: online-optimal averages over the "
                              "failure model (--qbar Q or the instance's q_j), not one scenario")


def rigid_failure_model(instance: Any, qbar: float | None) -> tuple[Fraction, ...]:
    """The q_j of a rigid instance: calibrated to `qbar` (the exact rational of each float
    q_j of `RigidInstance.q`), or the instance's stored q_j (an online-family instance)."""
    stored = getattr(instance, "failure_model", None)
    if stored is not None:
        if qbar is not None:
            raise InvalidInstance("qbar", f"{qbar}: the instance stores its failure model "
                                  "(q_j per job); --qbar applies to rigid instances")
        return tuple(stored)
    if qbar is None:
        raise InvalidInstance("qbar", "online-optimal needs the failure model: --qbar Q "
                              "(q_j calibrated to q-bar), or an online-family instance")
    return tuple(Fraction(float(x)) for x in instance.q(qbar))


def moldable_failure_model(instance: Any, qbar: float | None) -> tuple[Fraction, ...]:
    """The q_j = 1 - exp(-lambda w_j) of a moldable instance, lambda calibrated to `qbar` or
    the instance's stored ``lambda`` (exact rationals of the floats)."""
    if qbar is not None:
        lam = instance.lambda_from_qbar(qbar)
    elif instance.lam is not None:
        lam = instance.lam
    else:
        raise InvalidInstance("qbar", "online-optimal needs the failure model: --qbar Q or "
                              "the instance's lambda")
    return tuple(Fraction(float(x)) for x in instance.q(lam))


def check_size(problem: OnlineProblem, limit: int, what: str) -> int:
    """The state bound of `problem` (`OnlineProblem.state_bound`), refused in one line when it
    exceeds `limit`."""
    estimate, complete = problem.state_bound(limit)
    if estimate > limit:
        size = f"up to {estimate:.3g}" if complete else f"more than {estimate:.3g}"
        raise InvalidInstance("jobs", f"the online decision process has {size} states "
                              "(estimate: every running set that fits, with every remaining "
                              f"time), beyond {limit:.3g} ({what})")
    return estimate


def jensen_bound(problem: OnlineProblem) -> Fraction:
    """max(max_j t_min,j / (1 - q_j), sum_j a_min,j / (1 - q_j) / P) <= E[T_OPT(f)]
    (E[max] >= max E, and E[f_j + 1] = 1 / (1 - q_j)), in the instance's unit."""
    longest, area = Fraction(0), Fraction(0)
    for modes, q in zip(problem.modes, problem.q, strict=True):
        tries = 1 / (1 - q)
        longest = max(longest, min(m.t for m in modes) * tries)
        area += min(m.p * m.t for m in modes) * tries
    return max(longest, area / problem.P) * problem.unit


def solve_problem(problem: OnlineProblem, opts: OnlineOptions, method: str,
                  info: dict[str, Any]) -> Solution:
    """Phases 1-4 of the module docstring on `problem`."""
    t0 = time.perf_counter()
    wall = (Deadline(None if opts.time_limit is None else 1.25 * opts.time_limit + 0.5,
                     start=opts.deadline.start) if opts.deterministic else opts.deadline)
    seconds: dict[str, float] = {}
    info.update({"seconds": seconds})
    bound = jensen_bound(problem)
    estimate = check_size(problem, REFUSE_FACTOR * opts.max_states, "max_states")
    info["state_bound"] = estimate

    def stop(phase: str) -> Solution:
        opts.say(f"time limit reached during {phase}")
        info["stopped_in"] = phase
        return Solution(None, exact_value(bound), Status.NO_SOLUTION, method, SOLVER,
                        time.perf_counter() - t0, 1, True, {}, info)

    clock = time.perf_counter()
    opts.say(f"exploring the states (estimate at most {estimate})")
    try:
        space = explore(problem, opts.max_states, wall.expired)
    except SpaceTooLarge as exc:
        raise InvalidInstance("jobs", f"the online decision process has more than {exc.reached} "
                              f"states (max_states={opts.max_states}; estimate {estimate:.3g})"
                              ) from None
    except OutOfTime:
        return stop("exploration")
    seconds["explore"] = round(time.perf_counter() - clock, 4)
    info.update(states=space.size, transitions=space.transitions)
    clock = time.perf_counter()
    opts.say(f"{space.size} states; policy iteration in floats")
    try:
        floats, arrays = solve_levels(space, wall.expired)
    except OutOfTime:
        return stop("float policy iteration")
    eta = lower_bound_factor(space, floats, arrays)
    certified = (Fraction(1) - Fraction(eta)) * Fraction(float(floats.values[0])) * problem.unit
    bound = max(bound, certified)
    seconds["float"] = round(time.perf_counter() - clock, 4)
    info.update(float_value=float(floats.values[0]) * float(problem.unit), eta=eta,
                float_rounds=floats.rounds)
    clock = time.perf_counter()
    opts.say("exact proof of optimality")
    try:
        proof = optimal_policy(space, floats, arrays, eta, wall.expired)
    except OutOfTime:
        return stop("exact proof")
    seconds["exact"] = round(time.perf_counter() - clock, 4)
    value = proof.values[0] * problem.unit
    if value < bound:
        raise RuntimeError(f"the proven value {float(value)} is below the certified bound "
                           f"{float(bound)}")
    table = {space.states[i]: space.actions[a] for i, a in proof.policy.items() if a >= 0}
    info.update(policy_states=len(table), proof={
        "checks": proof.checks, "exact_checks": proof.exact_checks,
        "expansions": proof.expansions, "improvements": proof.improvements,
        "restarts": proof.restarts})
    value = exact_value(value)
    return Solution(value, value, Status.OPTIMAL, method, SOLVER, time.perf_counter() - t0, 1,
                    True, DecisionTable(problem, table, value), info)


def _model_info(q: Sequence[Fraction], qbar: float | None) -> dict[str, Any]:
    return {"failure_model": "stored" if qbar is None else f"qbar={qbar:g}",
            "q": [float(x) for x in q]}


def solve_rigid(instance: Any, scenario: Any = None, *, time_limit: float | None = None,
                **options: Any) -> Solution:
    """E[T_online-OPT] of a rigid instance (spec 002 failure model); see the module docstring.

    Parameters
    ----------
    instance : a `RigidInstance` (give ``qbar``) or an `OnlineRigidInstance` (its q_j).
    scenario : None or failure-free (what the registry passes); failures are refused.
    time_limit : seconds for the whole call.
    **options : the fields of `OnlineOptions` (qbar, max_states, ...).

    Returns
    -------
    Solution with the exact expected makespan (``optimal``) and the `DecisionTable`, or
    ``no_solution`` with a proven lower bound when the time runs out.

    >>> from resilsched.instances.rigid import RigidInstance
    >>> one = RigidInstance.build(1, [(1, 3)])
    >>> solve_rigid(one, qbar=0.5).objective  # t / (1 - q)
    6
    """
    opts = OnlineOptions.of(time_limit, options, "online-optimal")
    q, problem = _rigid(instance, scenario, opts)
    return solve_problem(problem, opts, "online-optimal", _model_info(q, opts.given_qbar))


def _rigid(instance: Any, scenario: Any, opts: OnlineOptions
           ) -> tuple[tuple[Fraction, ...], OnlineProblem]:
    base = getattr(instance, "rigid", instance)
    _no_scenario(scenario, base.n)
    q = rigid_failure_model(instance, opts.given_qbar)
    return q, rigid_problem(base, q)


def solve_moldable(instance: Any, scenario: Any = None, *, time_limit: float | None = None,
                   **options: Any) -> Solution:
    """E[T_online-OPT] of a moldable instance (spec 000 §1.4: q_j = 1 - exp(-lambda w_j),
    independent of the allocation); each start also picks the job's processors among its
    time-Pareto front. Otherwise as `solve_rigid`."""
    opts = OnlineOptions.of(time_limit, options, "online-optimal")
    q, problem = _moldable(instance, scenario, opts)
    return solve_problem(problem, opts, "online-optimal", _model_info(q, opts.given_qbar))


def _moldable(instance: Any, scenario: Any, opts: OnlineOptions
              ) -> tuple[tuple[Fraction, ...], OnlineProblem]:
    _no_scenario(scenario, instance.n)
    q = moldable_failure_model(instance, opts.given_qbar)
    return q, moldable_problem(instance, q)


def check_rigid(instance: Any, scenario: Any = None, **options: Any) -> None:
    """What `solve_rigid` refuses before its first state (its options, the failure model, the
    scenario, the state estimate), without solving: the registry's up-front check."""
    opts = OnlineOptions.of(None, options, "online-optimal")
    check_size(_rigid(instance, scenario, opts)[1], REFUSE_FACTOR * opts.max_states,
               "max_states")


def check_moldable(instance: Any, scenario: Any = None, **options: Any) -> None:
    """As `check_rigid`, for `solve_moldable`."""
    opts = OnlineOptions.of(None, options, "online-optimal")
    check_size(_moldable(instance, scenario, opts)[1], REFUSE_FACTOR * opts.max_states,
               "max_states")
