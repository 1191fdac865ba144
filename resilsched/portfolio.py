"""The certified answer of ``resilsched solve``: the tightest interval the toolkit can certify for
one instance within one deadline (issue 23, decision T19).

`certified_solve` runs, each phase under the deadline:

1. schedules (`SCHEDULE_SHARE` of the time): every registered heuristic that is not a
   `baseline`, its default priority first and then its other priorities, and every
   `construction`. Each heuristic (or construction) runs through `checked.run_checked` (its
   objective recomputed from its schedule, the schedule checked by the family's validator) in
   a forked child that sends every checked schedule as it is made and is killed at an equal
   share of the phase (`run_streaming`), so a slow heuristic costs only its share. A run that
   raises, refuses or fails the checks is recorded and never used; without a validator no
   schedule is trusted;
2. bounds (`BOUND_SHARE`): every registered bound, each in a forked child with an equal share of
   the phase; a value that is not a finite number, or lies beyond a checked schedule, is
   recorded and not used;
3. the exact model, with all the time left: the one named, else the family's
   ``choose_exact(instance)`` (the model that handles the instance's size), else its
   ``default_exact``; a model registered with ``warm_start`` gets the best schedule as its
   ``hint``. It is skipped when the schedules already meet the bounds; a refusal
   (`InvalidInstance`, e.g. too large) is recorded and the answer rests on the other phases.

The answer: its objective is the best of the checked schedules and the model's (a tie goes to
the earlier source, so a model that only returned its hint does not take the credit; the
``solution`` shown is then the model's, in the shape its ``solve`` gives), its bound
the best valid one of the bounds and the model's; ``objective_source`` and ``bound_source`` name
them. The status is ``optimal`` when the model proved optimal a schedule at least as good as
the best, or when the bound meets the objective: exactly on ints and Fractions, within the
relative 1e-9 of `resilsched.numeric` on floats (decision T6). ``info["portfolio"]`` lists every
run, bound and the model's outcome, with their times, and whose schedule ``solution`` is.
Without a deadline every phase runs in-process and to its end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from resilsched.deadline import Deadline
from resilsched.errors import InvalidInstance
from resilsched.models.coschedule.hardlimit import run_streaming
from resilsched.numeric import time_le, time_lt
from resilsched.plugin import Case, Construction, ExactModel, Family, Heuristic
from resilsched.solution import Solution, Status

#: share of the time the schedules (heuristics, constructions) may take
SCHEDULE_SHARE = 0.1
#: share of the time left after them that the registered bounds may take
BOUND_SHARE = 0.05
#: every run (a heuristic with its priorities, a construction, a bound) gets at least this
#: many seconds, within the whole deadline, when its phase is already spent
MIN_SLICE = 0.05


@dataclass(frozen=True)
class Found:
    """A checked `schedule` (None for a failed run), or a bound value, with its source."""

    source: str
    value: Any
    seconds: float
    schedule: Any = None
    error: str | None = None

    def record(self, key: str) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "seconds": round(self.seconds, 4)}
        out.update({"error": self.error} if self.error else {key: self.value})
        return out


def pick_model(family: Family, instance: Any, method: str | None = None,
               field: str = "--method") -> ExactModel:
    """The exact model the portfolio runs: `method`, else ``family.choose_exact(instance)``,
    else the family's ``default_exact`` (`resilsched.registry.exact_model` for names, an
    unknown one named `field` in the error)."""
    from resilsched.registry import exact_model

    if method is None and family.choose_exact is not None:
        method = family.choose_exact(instance)
    return exact_model(family, method or family.default_exact, field)


def certified_solve(family: Family, instance: Any, scenario: Any = None, *,
                    method: str | None = None, deadline: Deadline | None = None,
                    options: dict[str, Any] | None = None,
                    progress: Callable[[str], None] | None = None) -> Solution:
    """The best checked schedule and the best valid bound for `instance` (module docstring).

    Parameters
    ----------
    family : the registered family of `instance`.
    scenario : its checked scenario (None for families without one).
    method : the exact model to run (None: `pick_model`).
    deadline : when the whole call must end (None: no limit, every phase runs to its end).
    options : the model's options (``--param``; ``seed`` also seeds the heuristics).
    progress : called with a one-line message at each phase.
    """
    deadline = deadline or Deadline(None)
    options = dict(options or {})
    say = progress or (lambda message: None)
    model = pick_model(family, instance, method)
    case = Case(str(getattr(instance, "name", "") or "instance"), instance, scenario)
    seed = int(options.get("seed", 0))
    violations: list[str] = []
    if model.check is not None:  # the user's options first, not after minutes of phases
        try:
            model.check(instance, scenario, **options)
        except InvalidInstance as exc:
            if _users(exc, options):
                raise

    say("portfolio: heuristics and constructions")
    schedules = _schedules(family, case, seed, deadline, _phase(deadline, SCHEDULE_SHARE), say)
    best = _best_schedule(family.sense, [s for s in schedules if s.error is None])
    say("portfolio: bounds")
    bounds = _bounds(family, case, deadline, _phase(deadline, BOUND_SHARE))
    bound = _best_bound(family.sense, bounds, best, violations)

    record: dict[str, Any] = {"name": model.name}
    sol = None
    if best is not None and bound is not None and _meets(family.sense, bound.value, best.value):
        record["skipped"] = "the schedules meet the bounds"
    else:
        sol = _run_model(model, case, best, deadline, options, progress, record)
        if sol is None and best is None:
            raise InvalidInstance(model.name, record["refused"])
    return _answer(family, model, sol, schedules, bounds, best, bound, violations, record,
                   deadline)


def _phase(deadline: Deadline, share: float) -> Deadline:
    """The deadline of a phase allowed `share` of the time left (None: no limit)."""
    if deadline.seconds is None:
        return Deadline(None)
    return Deadline(deadline.share(share))


def _slice(deadline: Deadline, phase: Deadline, left: int) -> float:
    """Seconds for one of the `left` runs still to come in `phase`."""
    return min(max(phase.remaining() / left, MIN_SLICE), deadline.remaining())


def _label(name: str, priority: str | None) -> str:
    return name if priority is None else f"{name}/{priority}"


def _number(value: Any) -> Any:
    """`value` as an int, Fraction or finite float; None when it is none of these."""
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _runs(family: Family, case: Case, seed: int, entry: Heuristic | Construction
          ) -> Iterator[Found]:
    """Every run of one heuristic (default priority first) or construction, each through
    `checked.run_checked` (its objective recomputed from its schedule, the schedule checked by
    the family's validator): a `Found` per run, with `error` when it gave no valid schedule."""
    from resilsched.checked import run_checked

    if isinstance(entry, Construction):
        build, seeded = entry.build, entry.seeded
        entry = Heuristic(entry.name, lambda instance, scenario=None, priority=None, *, seed=0:
                          build(instance, scenario, **({"seed": seed} if seeded else {})),
                          entry.description)
    prios = list(entry.priorities)
    if entry.default_priority in prios:
        prios.remove(entry.default_priority)
        prios.insert(0, entry.default_priority)
    for prio in prios or [None]:
        t0 = time.perf_counter()
        if family.validate is None:
            yield Found(_label(entry.name, prio), None, 0.0,
                        error=f"family {family.name} has no validator to check it")
            continue
        run = run_checked(family, entry, case, prio, seed=seed)
        value = _number(run.scored)
        if value is None:
            problem = "; ".join(run.problems) or f"objective {run.scored!r} is not a number"
            yield Found(_label(entry.name, prio), None, time.perf_counter() - t0,
                        error=problem[:300])
            continue
        yield Found(_label(entry.name, prio), value, time.perf_counter() - t0,
                    schedule=run.result.schedule)


def _schedules(family: Family, case: Case, seed: int, deadline: Deadline, phase: Deadline,
               say: Callable[[str], None]) -> list[Found]:
    """The runs of every non-baseline heuristic and every construction (phase 1)."""
    entries = [h for h in family.heuristics.values() if not h.baseline]
    entries += list(family.constructions.values())
    out: list[Found] = []
    for left, entry in zip(range(len(entries), 0, -1), entries, strict=True):
        say(f"portfolio: {entry.name}")
        out += _streamed(entry.name, lambda e=entry: _runs(family, case, seed, e),
                         _slice(deadline, phase, left))
    return out


def _streamed(name: str, runs: Callable[[], Iterator[Found]], seconds: float) -> list[Found]:
    """What `run_streaming` brings back from `runs` within `seconds`; a failure of the child
    itself (e.g. a schedule that cannot be pickled) is one failed `Found`."""
    t0 = time.perf_counter()
    try:
        found, _ = run_streaming(runs, seconds)
    except Exception as exc:  # noqa: BLE001 - recorded, never used
        return [Found(name, None, time.perf_counter() - t0, error=_error(exc))]
    return found


def _error(exc: BaseException) -> str:
    """One line naming an exception, at most 300 characters."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]


def _bounds(family: Family, case: Case, deadline: Deadline, phase: Deadline) -> list[Found]:
    """The value of every registered bound that finishes within its share (phase 2)."""
    out = []
    bounds = list(family.bounds.values())
    for left, bound in zip(range(len(bounds), 0, -1), bounds, strict=True):
        def compute(b=bound) -> Iterator[Found]:
            t0 = time.perf_counter()
            try:
                value = b.compute(case.instance, case.scenario)
            except Exception as exc:  # noqa: BLE001 - recorded, never used
                yield Found(b.name, None, time.perf_counter() - t0, error=_error(exc))
                return
            yield Found(b.name, value, time.perf_counter() - t0)

        t0 = time.perf_counter()
        found = _streamed(bound.name, compute, _slice(deadline, phase, left))
        out += found or [Found(bound.name, None, time.perf_counter() - t0,
                               error="not finished within its share of the time")]
    return out


def _better(sense: str, a: Any, b: Any) -> bool:
    """a is a strictly better objective than b (beyond the float tolerance)."""
    return time_lt(a, b) if sense == "min" else time_lt(b, a)


def _meets(sense: str, bound: Any, objective: Any) -> bool:
    """The bound proves the objective optimal (exact types exactly, floats within 1e-9)."""
    return time_le(objective, bound) if sense == "min" else time_le(bound, objective)


def _best_schedule(sense: str, found: list[Found]) -> Found | None:
    best = None
    for f in found:
        if best is None or _better(sense, f.value, best.value):
            best = f
    return best


def _best_bound(sense: str, bounds: list[Found], best: Found | None,
                violations: list[str]) -> Found | None:
    """The tightest valid bound; one beyond a checked schedule is a violation, not a bound."""
    out = None
    for b in bounds:
        if b.error is not None:
            continue
        value = _number(b.value)
        if value is None:
            violations.append(f"bound {b.source}: {b.value!r} is not a finite number")
            continue
        if best is not None and _better(sense, best.value, value):
            violations.append(f"bound {b.source} = {value} lies beyond the schedule of "
                              f"{best.source} ({best.value})")
            continue
        if out is None or _better(sense, out.value, value):
            out = Found(b.source, value, b.seconds)
    return out


def _run_model(model: ExactModel, case: Case, best: Found | None, deadline: Deadline,
               options: dict[str, Any], progress: Callable[[str], None] | None,
               record: dict[str, Any]) -> Solution | None:
    """The exact model's solution (phase 3), or None when it refused the instance."""
    kwargs = dict(options)
    if model.warm_start and best is not None:
        kwargs["hint"] = best.schedule
        record["hint"] = best.source
    limit = None if deadline.seconds is None else max(0.01, deadline.remaining())
    try:
        sol = model(case.instance, case.scenario, time_limit=limit, progress=progress, **kwargs)
    except InvalidInstance as exc:
        if _users(exc, options):
            raise
        record["refused"] = str(exc)
        return None
    record.update({"status": sol.status.value, "objective": sol.objective,
                   "bound": sol.bound, "seconds": round(sol.wall_time, 4)})
    return sol


def _users(exc: InvalidInstance, options: dict[str, Any]) -> bool:
    """`exc` names one of the user's `options`: the option breaks a rule of the model, the
    user's error (exit 2), not a refusal that the heuristics' schedules answer."""
    return exc.field.removeprefix("--param ").split("=")[0].lstrip("-") in options


def _answer(family: Family, model: ExactModel, sol: Solution | None, schedules: list[Found],
            bounds: list[Found], best: Found | None, bound: Found | None,
            violations: list[str], record: dict[str, Any], deadline: Deadline) -> Solution:
    """The combined `Solution` (module docstring)."""
    sense = family.sense
    proven = False
    shown = None if best is None else best.source
    if sol is not None and sol.objective is not None:
        mine = Found(model.name, _number(sol.objective), sol.wall_time, schedule=sol.schedule)
        if mine.value is None:
            violations.append(f"{model.name}: objective {sol.objective!r} is not a number")
        elif best is None or _better(sense, mine.value, best.value):
            best, shown = mine, model.name
        elif not _better(sense, best.value, mine.value):  # a tie: the model's own schedule
            best = Found(best.source, best.value, best.seconds, schedule=sol.schedule)
            shown = model.name
        if sol.status is Status.OPTIMAL and mine.value is not None:
            proven = not _better(sense, best.value, mine.value)
            if not proven:
                violations.append(f"{model.name} said optimal at {mine.value}, but "
                                  f"{best.source} found {best.value}")
    if sol is not None and sol.status is Status.INFEASIBLE and best is not None:
        violations.append(f"{model.name} said infeasible, but {best.source} found {best.value}")
    if sol is not None and _number(sol.bound) is not None:
        claimed = _best_bound(sense, [Found(model.name, sol.bound, sol.wall_time)], best,
                              violations)
        if claimed is not None and (bound is None or _better(sense, bound.value, claimed.value)):
            bound = claimed
    if best is not None and bound is not None:
        proven = proven or _meets(sense, bound.value, best.value)
        if bound.value > best.value if sense == "min" else bound.value < best.value:
            bound = Found(bound.source, best.value, bound.seconds)  # float noise past it
    if best is None:
        status = sol.status if sol is not None and sol.status is Status.INFEASIBLE \
            else Status.NO_SOLUTION
    else:
        status = Status.OPTIMAL if proven else Status.FEASIBLE
    info = dict(sol.info) if sol is not None else {}
    info["portfolio"] = {
        "exact_model": model.name,
        "model": record,
        "solution": shown,
        "schedules": [f.record("objective") for f in schedules],
        "bounds": [f.record("value") for f in bounds],
        "violations": violations,
    }
    return Solution(
        objective=None if best is None else best.value,
        bound=None if bound is None else bound.value,
        status=status, method=model.name,
        solver=sol.solver if sol is not None else "none",
        wall_time=deadline.elapsed(),
        scale=sol.scale if sol is not None else 1,
        exact_scaling=sol.exact_scaling if sol is not None else True,
        schedule={} if best is None else best.schedule,
        info=info,
        objective_source=None if best is None else best.source,
        bound_source=None if bound is None else bound.source,
    )
