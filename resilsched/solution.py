"""Result types shared by every family (docs/architecture.md, "Conventions").

A `Solution` is what an exact model returns; a `HeuristicResult` is what a heuristic returns.
Both serialise to the JSON objects of the CLI contract (`resilsched solve/simulate --json`), in
which ``objective`` and ``bound`` are always JSON numbers (or null): an exact rational value
that is not an integer is given as a float there and exactly beside it, as the string
``objective_exact`` / ``bound_exact``. Both print themselves (`Solution.describe`), and both hold
what they built as ``schedule`` (a schedule, packs, chunks): a typed object of its family with
``to_dict()`` and ``lines()``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.numeric import LONG_EXACT, readable


class Status(enum.StrEnum):
    """Outcome of an exact model. A time limit never yields `OPTIMAL`."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    NO_SOLUTION = "no_solution"


def json_number(x: Any) -> Any:
    """Numbers for JSON: ints stay ints, Fractions become exact strings unless integral."""
    if isinstance(x, Fraction):
        return int(x) if x.denominator == 1 else str(x)
    return x


def number_fields(name: str, x: Any) -> dict[str, Any]:
    """``{name: JSON number or None}``, plus ``{name_exact: "p/q"}`` for a non-integral Fraction.

    NaN and infinities, which JSON cannot carry, become None.

    >>> number_fields("objective", Fraction(17, 3))
    {'objective': 5.666666666666667, 'objective_exact': '17/3'}
    >>> number_fields("bound", Fraction(6))
    {'bound': 6}
    """
    if x is None:
        return {name: None}
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return {name: int(x)}
        return {name: float(x), f"{name}_exact": str(x)}
    if hasattr(x, "item") and getattr(x, "shape", None) == ():
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return {name: None}
    return {name: x}


#: the schedule lines `Solution.describe` shows unless verbose (``resilsched solve -v``)
SHOWN_LINES = 20


def lines_of(payload: Any) -> list[str]:
    """The text rendering of a typed payload (its ``lines()``), or nothing."""
    render = getattr(payload, "lines", None)
    return list(render()) if callable(render) else []


#: the exact types `to_jsonable` returns as they are (subclasses such as numpy.float64 and
#: IntEnum members take the general path)
_JSON_LEAVES = frozenset({int, float, str, bool, type(None)})


def to_jsonable(x: Any) -> Any:
    """Recursively convert tuples, Fractions, numpy scalars and dataclass payloads to JSON types.

    A non-integral Fraction becomes its exact string ``"p/q"`` (`json_number`): the form of the
    instance files, result stores and library files, which read it back. A command's ``--json``
    uses `output_jsonable`, whose numbers are all JSON numbers.
    """
    if type(x) in _JSON_LEAVES:  # most calls: a schedule's numbers (numpy scalars are not here)
        return x
    if isinstance(x, dict):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, Fraction):
        return json_number(x)
    if hasattr(x, "item") and callable(x.item) and getattr(x, "shape", None) == ():
        return x.item()
    if hasattr(x, "to_dict"):
        return to_jsonable(x.to_dict())
    return x


def output_jsonable(x: Any) -> Any:
    """`x` as a command's ``--json`` writes it: `to_jsonable`, but every number a JSON number.

    A non-integral Fraction under the key ``K`` of a dict becomes ``K: float`` with
    ``K_exact: "p/q"`` beside it, as `number_fields` writes it; an integral one an int. A
    list (or tuple) under ``K`` that holds such Fractions, at any depth of nested lists, becomes
    a list of floats, with beside it ``K_exact``, a list of the same shape whose element is the
    exact ``"p/q"`` where the number is a non-integral Fraction and null elsewhere (a dict in
    the list names its own exact values). A Fraction at the top, under no key, becomes a float.
    `to_jsonable` itself keeps the ``"p/q"`` strings: the instance files, result stores and
    libraries that read them back use it.

    >>> output_jsonable({"end": Fraction(9, 2), "t": (1, Fraction(3, 2)), "p": Fraction(4)})
    {'end': 4.5, 'end_exact': '9/2', 't': [1, 1.5], 't_exact': [None, '3/2'], 'p': 4}
    """
    return _output(x)[0]


def _output(x: Any) -> tuple[Any, Any]:
    """``(JSON value, exact twin)`` of `x` (`output_jsonable`): the twin is None when `x` is no
    non-integral Fraction and no list holding one outside its dicts."""
    if type(x) in _JSON_LEAVES:
        return x, None
    if isinstance(x, dict):
        out: dict[str, Any] = {}
        for k, v in x.items():
            value, exact = _output(v)
            out[str(k)] = value
            if exact is not None:
                out[f"{k}_exact"] = exact
        return out, None
    if isinstance(x, (list, tuple)):
        pairs = [_output(v) for v in x]
        exact = [e for _, e in pairs]
        return [v for v, _ in pairs], (exact if any(e is not None for e in exact) else None)
    if isinstance(x, Fraction):
        return (int(x), None) if x.denominator == 1 else (float(x), str(x))
    if hasattr(x, "item") and callable(x.item) and getattr(x, "shape", None) == ():
        return x.item(), None
    if hasattr(x, "to_dict"):
        return _output(x.to_dict())
    return x, None


#: the drawer of results, `resilsched.plot.plot_result`: the plotting layer sits on top of this
#: module, so it hands its function down here when ``resilsched`` is imported (`set_plotter`)
_PLOTTER: list[Callable[..., Any]] = []


def set_plotter(draw: Callable[..., Any]) -> None:
    """Make `draw` ``(result, ax, *, instance, scenario)`` the drawer of `Solution.plot` and
    `HeuristicResult.plot`."""
    _PLOTTER[:] = [draw]


def computed_on(result: Any, instance: Any, scenario: Any) -> Any:
    """`result`, remembering the instance and scenario it was computed on (the front door's
    results: their ``.plot()`` needs no arguments). Not a field: not in `to_dict`, equality
    or `dataclasses.replace`."""
    object.__setattr__(result, "_computed_on", (instance, scenario))
    return result


def _plot(result: Any, ax: Any, instance: Any, scenario: Any) -> Any:
    if not _PLOTTER:
        raise ImportError("no drawer: resilsched.plot is not installed")
    if instance is None:
        remembered = getattr(result, "_computed_on", None)
        if remembered is None:
            raise TypeError("plot() needs instance=: only the results of resilsched.simulate "
                            "and resilsched.solve remember the instance they were computed on")
        instance, scenario = remembered if scenario is None else (remembered[0], scenario)
    return _PLOTTER[0](result, ax, instance=instance, scenario=scenario)


def _headline(x: Any, notes: list[str], at: int | None = None) -> str:
    """`x` as a headline shows it: ``p/q = decimal`` (`readable`), or, for an exact fraction
    too long to read (the online optimum's: hundreds of digits), its decimal alone, with a
    note inserted in `notes` at `at` (appended when None) that ``--json`` has it exactly."""
    size = len(str(x)) if isinstance(x, Fraction) else 0
    if size <= LONG_EXACT:
        return readable(x)
    note = f"exact value, a fraction of {size} characters, in --json"
    notes.insert(len(notes) if at is None else at, note)
    return readable(float(x))


@dataclass(frozen=True, init=False)
class Solution:
    """Result of an exact model.

    Attributes
    ----------
    objective : best objective found (None when no solution was found).
    bound : proven bound on the optimum (lower bound when minimising, upper when maximising).
    status : `Status`; `OPTIMAL` only when the solver proved it.
    method : registry name of the model (e.g. ``cpsat-scenario``), stamped by the registry.
    solver : backend name (``cp-sat``, ``highs``, ``enumeration`` ...).
    wall_time : seconds spent in the solver call.
    scale : integer factor the model multiplied times by (1 when it did not scale).
    exact_scaling : False when scaling had to round (the result is then approximate).
    schedule : the solution itself, a typed object of the family (schedule, packs, chunks) with
        ``to_dict()`` and ``lines()``, the same field as `HeuristicResult.schedule`; a plain
        dict for models that only report facts. ``payload`` is its former name, still accepted
        (deprecated); the JSON keeps it under ``"solution"``.
    info : facts about the solve (phases, node counts), JSON-ready.
    objective_source, bound_source : registered names of what found the objective (a model, a
        heuristic as ``NAME`` or ``NAME/priority``, a construction) and what proved the bound (a
        model or a bound), when known (`resilsched.portfolio`); None when unset.
    """

    objective: Any
    bound: Any
    status: Status
    method: str
    solver: str
    wall_time: float
    scale: int = 1
    exact_scaling: bool = True
    schedule: Any = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    objective_source: str | None = None
    bound_source: str | None = None

    def __init__(self, objective: Any, bound: Any, status: Status, method: str, solver: str,
                 wall_time: float, scale: int = 1, exact_scaling: bool = True,
                 schedule: Any = None, info: dict[str, Any] | None = None, *,
                 payload: Any = None, objective_source: str | None = None,
                 bound_source: str | None = None) -> None:
        values = {"objective": objective, "bound": bound, "status": status, "method": method,
                  "solver": solver, "wall_time": wall_time, "scale": scale,
                  "exact_scaling": exact_scaling,
                  "schedule": next((x for x in (schedule, payload) if x is not None), {}),
                  "info": {} if info is None else info,
                  "objective_source": objective_source, "bound_source": bound_source}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def payload(self) -> Any:
        """Deprecated name of `schedule`."""
        return self.schedule

    @property
    def is_optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    def to_dict(self) -> dict[str, Any]:
        d = {**number_fields("objective", self.objective), **number_fields("bound", self.bound)}
        d.update({
            "status": self.status.value,
            "method": self.method,
            "solver": self.solver,
            "wall_time": round(self.wall_time, 6),
            "scale": self.scale,
            "exact_scaling": self.exact_scaling,
        })
        for name in ("objective_source", "bound_source"):
            if getattr(self, name) is not None:
                d[name] = getattr(self, name)
        if self.info:
            d["info"] = output_jsonable(self.info)
        d.update(output_jsonable({"solution": self.schedule}))
        return d

    def plot(self, ax: Any = None, *, instance: Any = None, scenario: Any = None) -> Any:
        """Draw the solution's schedule on `ax` (default: a new figure); returns the axes.

        `instance` and `scenario` are those it was computed on (default: those a result of
        `resilsched.solve` or `resilsched.simulate` remembers; else the instance is required
        and the scenario defaults to its stored one): the schedule is checked by the family's
        validator before anything is drawn (docs/plots.md; needs matplotlib,
        ``pip install 'resilsched[plot]'``).
        """
        return _plot(self, ax, instance, scenario)

    def _sources(self) -> list[str]:
        """What found the objective, whose schedule is shown and what proved the bound, where
        that is not the model itself: a tie goes to the source that reached the objective
        first, while the schedule shown may be the model's (``info["portfolio"]["solution"]``,
        `resilsched.portfolio`)."""
        portfolio = self.info.get("portfolio") if isinstance(self.info, dict) else None
        shown = portfolio.get("solution") if isinstance(portfolio, dict) else None
        found, out = self.objective_source, []
        if found is not None and found != self.method:
            if shown is None or shown == found:
                what = "objective" if shown is None else "objective and schedule"
                out.append(f"{what} from {found}")
            else:
                out += [f"objective first reached by {found}", f"schedule shown: {shown}"]
        if self.bound_source is not None and self.bound_source != self.method:
            out.append(f"bound from {self.bound_source}")
        return out

    def describe(self, objective_name: str = "objective", unit: str = "",
                 verbose: bool = False) -> str:
        """Headline (objective, status, bound, its sources, time) and the schedule's own
        lines: the first `SHOWN_LINES` of them, or with `verbose` all of them."""
        u = f" {unit}" if unit else ""
        notes = [f"status {self.status.value}"]
        if self.bound is not None and self.status is not Status.OPTIMAL:
            notes.append(f"bound {_headline(self.bound, notes)}{u}")
        notes += self._sources()
        notes.append(f"{self.wall_time:.2f} s")
        if not self.exact_scaling:
            notes.append(f"times rounded to 1/{self.scale} for the solver, so not proven optimal")
        elif self.scale != 1:
            notes.append(f"times scaled x{self.scale}")
        value = ("none found" if self.objective is None
                 else f"{_headline(self.objective, notes, 1)}{u}")
        head = f"{self.method}: {objective_name} {value} ({', '.join(notes)})"
        body = lines_of(self.schedule)
        if not verbose and len(body) > SHOWN_LINES:
            body = [*body[:SHOWN_LINES], f"... and {len(body) - SHOWN_LINES} more lines"]
        return "\n".join([head, *(f"  {line}" for line in body)])


@dataclass(frozen=True)
class HeuristicResult:
    """Result of a heuristic run: the objective and the object it built (schedule, packs...).

    It reads like a `Solution`: `bound` is None (a heuristic proves nothing) and `status` is
    `Status.FEASIBLE` (a schedule, never a proof of optimality). The registry stamps the
    registered `heuristic` name (and the priority as given) on the results it hands out.
    """

    objective: Any
    heuristic: str
    priority: str | None = None
    schedule: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def bound(self) -> None:
        return None

    @property
    def status(self) -> Status:
        return Status.FEASIBLE

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            **number_fields("objective", self.objective),
            "heuristic": self.heuristic,
            "priority": self.priority,
        }
        d.update(output_jsonable(self.extra))
        if self.schedule is not None:
            d.update(output_jsonable({"solution": self.schedule}))
        return d

    def plot(self, ax: Any = None, *, instance: Any = None, scenario: Any = None) -> Any:
        """Draw the schedule on `ax` (default: a new figure); returns the axes (see
        `Solution.plot`)."""
        return _plot(self, ax, instance, scenario)

    def describe(self, objective_name: str = "objective", unit: str = "",
                 verbose: bool = False) -> str:
        """Headline; with `verbose`, the schedule's own lines."""
        label = self.heuristic + (f"/{self.priority}" if self.priority else "")
        u = f" {unit}" if unit else ""
        head = f"{label}: {objective_name} {readable(self.objective)}{u}"
        body = lines_of(self.schedule) if verbose else []
        return "\n".join([head, *(f"  {line}" for line in body)])
