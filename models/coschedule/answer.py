"""What every co-scheduling model answers: an honest `Solution` (decisions C15-C17).

- `fallback`: before any solver phase, each model takes PACK-APPROX's packs (re-allocated by
  Algorithm 1), or the `hint` it was given when better (a warm start: a co-schedule checked by
  `check_packs`, e.g. the best heuristic's of `resilsched.portfolio`), as its incumbent and the
  combined pack bound (`bounds.coschedule.lb_combined`) as its bound, so that a time limit
  always finds an answer: status ``feasible`` with those packs and the best bound known.
- `makespan_unit`: with exact data (ints, Fractions with a small common denominator D) every
  makespan is a multiple of 1/D, so a solver bound L certifies ceil(L D - eps) / D, and a gap
  below 1/D proves optimality; certified bounds on integer data are therefore integers.
- `finish`: the `Solution`, whose status is ``optimal`` only when the model proved it (or when
  the certified bound meets the incumbent exactly), and whose bound never exceeds the objective.

With float times, a HiGHS model's proof holds up to HiGHS's tolerances (absolute MIP gap 1e-6 s,
feasibility 1e-7); ``info["optimality"]`` says which kind of proof a solution carries.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from resilsched.bounds.coschedule import lb_combined
from resilsched.errors import InvalidInstance, InvalidSchedule
from resilsched.heuristics.coschedule import Packs, make_packs, pack_approx
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status
from resilsched.validation.packs import check_packs

#: largest common denominator for which a HiGHS bound is rounded up to a multiple of 1/D
MAX_UNIT_DENOMINATOR = 10_000
#: a HiGHS bound is trusted to this absolute accuracy before it is rounded up
BOUND_EPS = 1e-6


def fallback(inst: CoscheduleInstance, hint: Any = None) -> tuple[Packs, Any]:
    """(the better of PACK-APPROX's packs and the `hint`'s, each re-allocated by Algorithm 1;
    the combined lower bound).

    `hint` is a co-schedule of `inst` (`Packs` or its JSON form), checked by `check_packs`; a
    bad one is refused with `InvalidInstance` naming ``hint``.
    """
    best = make_packs(inst, pack_approx(inst).packs)
    if hint is not None:
        try:
            check_packs(inst, hint)
            given = hint.to_dict() if hasattr(hint, "to_dict") else hint
            mine = make_packs(inst, [d["tasks"] for d in given["packs"]])
        except (InvalidSchedule, KeyError, TypeError, ValueError) as exc:
            raise InvalidInstance("hint", f"is not a co-schedule of the instance: {exc}") from None
        if mine.makespan < best.makespan:
            best = mine
    return best, lb_combined(inst)


def makespan_unit(inst: CoscheduleInstance) -> Fraction | None:
    """1/D when every used time is an int or a Fraction and D (the lcm of their denominators)
    is at most `MAX_UNIT_DENOMINATOR`; None for float times."""
    d = 1
    for i, row in enumerate(inst.times):
        for x in row[inst.pmin[i] - 1:]:
            if isinstance(x, Fraction):
                d = math.lcm(d, x.denominator)
            elif not isinstance(x, int):
                return None
            if d > MAX_UNIT_DENOMINATOR:
                return None
    return Fraction(1, d)


def certify(bound: Any, unit: Fraction | None) -> Any:
    """A solver's float bound as the certified value: rounded up to a multiple of `unit` (an int
    on integer data) when the data are exact, unchanged otherwise."""
    if bound is None or unit is None or isinstance(bound, (int, Fraction)):
        return bound
    if not math.isfinite(bound):
        return None
    steps = math.ceil(bound / unit - BOUND_EPS / unit)
    value = steps * unit
    return int(value) if value.denominator == 1 else value


def best_bound(*bounds: Any) -> Any:
    """The largest of the bounds that are known (None when none is)."""
    known = [b for b in bounds if b is not None]
    return max(known) if known else None


def finish(inst: CoscheduleInstance, opts: SolveOptions, method: str, solver: str,
           packs: Packs | None, bound: Any, proven: bool, info: dict | None = None,
           unit: Fraction | None = None) -> Solution:
    """The `Solution` of a model run.

    `bound` is the best lower bound known (certified with `unit`); `proven` says the model
    proved `packs` optimal. The status is ``optimal`` when proven, or when the certified bound
    equals the makespan on exact data; ``feasible`` otherwise (``no_solution`` without packs).
    """
    info = dict(info or {})
    wall = opts.deadline.elapsed()
    bound = certify(bound, unit)
    if packs is None:
        return Solution(None, bound, Status.NO_SOLUTION, method, solver, wall, info=info)
    obj = packs.makespan
    exact = unit is not None
    if not proven and exact and bound is not None and bound >= obj:
        proven = True
    if proven:
        info.setdefault("optimality", "exact" if exact else "within HiGHS tolerances "
                        "(float times: absolute gap 1e-6 s)")
        return Solution(obj, obj, Status.OPTIMAL, method, solver, wall, payload=packs,
                        info=info)
    if bound is not None and bound > obj:
        bound = obj  # tolerance noise on float times: a bound never exceeds a known makespan
    return Solution(obj, bound, Status.FEASIBLE, method, solver, wall, payload=packs, info=info)
