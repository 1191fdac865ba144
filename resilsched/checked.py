"""Run a heuristic and check what it returns (docs/own-heuristic.md, "What is checked").

Nothing a heuristic says is believed, whoever wrote it; the gap harness runs every heuristic,
built-in or plug-in, through `run_checked`:

1. the call runs under a time bound (`time_bound`, the command's ``--time-limit`` per case): a
   heuristic that never returns is stopped and reported;
2. an exception is reported on one line: the heuristic's name and the exception's last line
   (``mymod:my_list raised ZeroDivisionError: division by zero``);
3. the result must be a `HeuristicResult` holding a schedule (a plug-in's must also print, as
   JSON and as text); the registry's name for the heuristic and the priority as given are
   stamped on it;
4. the objective is recomputed from the schedule (`Family.objective`): a claimed objective
   that disagrees is a problem, and the recomputed value replaces it;
5. the family's independent validator checks the schedule (`Family.validate`): an infeasible
   schedule is a problem naming the broken rule, and its objective is not scored.

`Checked.problems` lists what was found, one line each; `Checked.scored` is the objective to
score (None when the run gave no valid schedule). `Checked.another_problem` says why a valid run
solves another problem than the case's (`Family.another_problem`, e.g. a malleable fault-free
baseline on an instance with failures): the gap report validates it but does not score it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import numbers
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from resilsched.plugin import Case, Family, Heuristic
from resilsched.references import last_line
from resilsched.registry import priority as priority_of
from resilsched.solution import HeuristicResult, lines_of, to_jsonable

#: relative tolerance between a float objective and the one recomputed from its schedule
REL_TOL = 1e-7
#: seconds between the repeated interruptions of a heuristic past its time bound
REPEAT = 0.05


class TimeBoundExceeded(BaseException):
    """Raised inside a heuristic past its time bound (a BaseException: a plug-in's
    ``except Exception`` does not swallow it, and it is raised again every `REPEAT` s)."""


@contextlib.contextmanager
def time_bound(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after `seconds` with `TimeBoundExceeded` (SIGALRM; in the main
    thread only: elsewhere, e.g. on a Dask worker's thread, the block runs unbounded).

    An alarm already set by the caller (an outer time limit) is kept: when it is due first the
    block runs under it alone, else it is set again, for the time it has left, on the way out.
    """
    if (seconds is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    if outer and outer <= seconds:
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise TimeBoundExceeded(seconds)

    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3), REPEAT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            left = outer - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6))


@dataclass(frozen=True)
class Checked:
    """A checked run: `result` as stamped and corrected (None when the heuristic gave
    nothing), `problems` found (one line each), `valid` when the schedule passed the checks,
    `error` the exception the heuristic raised, if any, and `another_problem` why a valid run
    solves another problem than the case's (the family's `Family.another_problem`; None: it
    solves the case's own problem and is compared with its reference)."""

    result: HeuristicResult | None
    problems: tuple[str, ...] = ()
    valid: bool = False
    error: BaseException | None = None
    another_problem: str | None = None

    @property
    def scored(self) -> Any:
        """The objective to score: the recomputed one, and only for a valid schedule."""
        return self.result.objective if self.valid and self.result is not None else None


def _number(x: Any) -> bool:
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, Fraction)):
        return False
    return isinstance(x, (int, Fraction)) or math.isfinite(float(x))


def agree(claimed: Any, recomputed: Any) -> bool:
    """Whether a claimed objective is the one recomputed (exact for ints and Fractions, else
    within `REL_TOL`)."""
    if not _number(claimed):
        return False
    exact = (int, Fraction, numbers.Integral)
    if isinstance(claimed, exact) and isinstance(recomputed, exact):
        return Fraction(claimed) == Fraction(recomputed)
    return math.isclose(float(claimed), float(recomputed), rel_tol=REL_TOL, abs_tol=1e-12)


def run_checked(family: Family, h: Heuristic, case: Case, priority: Any = None, *,
                seed: int = 0, params: Mapping[str, Any] | None = None,
                time_limit: float | None = None, check: bool = True) -> Checked:
    """Run `h` on `case` with the priority rule `priority` (a name, a reference, None: the
    default) and check its result (see the module doc).

    ``check=False`` only resolves the priority, runs (under the time bound) and stamps the
    names, and exceptions propagate: the trusted path of built-in heuristics outside the gap
    harness (campaign tasks). It still sets `Checked.another_problem` (`Family.another_problem`
    on the result as returned), so a campaign row and the gap report read one rule (MA-28).
    """
    rule, label = priority_of(h, priority)
    name = h.name if label is None else f"{h.name}/{label}"
    try:
        with time_bound(time_limit):
            res = h.run(case.instance, case.scenario, rule, seed=seed, **(params or {}))
    except TimeBoundExceeded:
        return Checked(None, (f"{name} did not return within {time_limit:g} s "
                              "(--time-limit)",))
    except Exception as exc:  # a finding of the report, not the end of it
        if not check:
            raise
        return Checked(None, (f"{name} raised {last_line(exc)}",), error=exc)
    except SystemExit as exc:  # a plug-in calling sys.exit() does not end the command
        if not check:
            raise
        return Checked(None, (f"{name} raised SystemExit({exc.code!r})",), error=exc)
    if not check:  # trusted: not checked, but the family's word on its problem is asked too
        return _valid(family, case, _stamp(res, h, label), ())
    if not isinstance(res, HeuristicResult):
        return Checked(None, (f"{name} returned a {type(res).__name__}, not a "
                              "resilsched.HeuristicResult",))
    res = _stamp(res, h, label)
    if h.plugin:  # its result must print, as text and as JSON, like the toolkit's own
        try:
            json.dumps(to_jsonable(res.to_dict()))
            if not all(isinstance(line, str) for line in lines_of(res.schedule)):
                raise TypeError("lines() must give strings")
        except Exception as exc:
            return Checked(res, (f"invalid solution: {name}'s result cannot be printed "
                                 f"({last_line(exc)})",))
    return _check(family, case, res, name)


def _stamp(res: HeuristicResult, h: Heuristic, label: str | None) -> HeuristicResult:
    if res.heuristic == h.name and res.priority == label:
        return res
    return dataclasses.replace(res, heuristic=h.name, priority=label)


def _check(family: Family, case: Case, res: HeuristicResult, name: str) -> Checked:
    """Steps 3-5 of the module doc on a stamped result."""
    if family.validate is None and family.objective is None:
        return _valid(family, case, res, ())
    if res.schedule is None:
        return Checked(res, (f"invalid solution: {name} returned no schedule",))
    problems = []
    try:
        if family.objective is not None:
            value = family.objective(case, res.schedule)
            if not agree(res.objective, value):
                problems.append(f"{name}: objective {res.objective!r} disagrees with its "
                                f"schedule ({value}); scored with {value}")
                res = dataclasses.replace(res, objective=value)
        elif not _number(res.objective):
            return Checked(res, (f"{name}: objective {res.objective!r} is not a number",))
        if family.validate is not None:
            family.validate(case, res)
    except AssertionError as exc:  # InvalidSchedule: the broken rule
        return Checked(res, (*problems, f"invalid solution: {exc}"))
    except Exception as exc:  # a schedule the checks cannot even read
        return Checked(res, (*problems, f"invalid solution: its schedule cannot be read "
                                        f"({last_line(exc)})"))
    return _valid(family, case, res, tuple(problems))


def another_problem(family: Family, case: Case, result: HeuristicResult) -> str | None:
    """Why `result` solves another problem than `case`'s (`Family.another_problem`, decision
    MA-28), or None: also when the family has no such hook. The one reading of the hook, for
    the runs checked here and the exact models' solutions of campaign tasks.

    Parameters
    ----------
    family : Family
        The case's family.
    case : Case
        The instance and scenario of the run.
    result : HeuristicResult
        A heuristic's run, or an exact model's solution with its payload as the schedule.

    Returns
    -------
    str or None
        The family's reason, or None.
    """
    return None if family.another_problem is None else family.another_problem(case, result)


def _valid(family: Family, case: Case, res: HeuristicResult, problems: tuple[str, ...]
           ) -> Checked:
    """A run that passed the checks, with the family's word on whether it solves the case's
    problem (`another_problem`)."""
    return Checked(res, problems, valid=True,
                   another_problem=another_problem(family, case, res))
