"""Result types shared by every family (docs/architecture.md, "Conventions").

A `Solution` is what an exact model returns; a `HeuristicResult` is what a heuristic returns.
Both serialise to the JSON objects of the CLI contract (`resilsched solve/simulate --json`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


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
    if isinstance(x, float) and x.is_integer() and abs(x) < 2**53:
        return x
    return x


def to_jsonable(x: Any) -> Any:
    """Recursively convert tuples, Fractions, numpy scalars and dataclass payloads to JSON types."""
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


@dataclass(frozen=True)
class Solution:
    """Result of an exact model.

    Attributes
    ----------
    objective : best objective found (None when no solution was found).
    bound : proven bound on the optimum (lower bound when minimising, upper when maximising).
    status : `Status`; `OPTIMAL` only when the solver proved it.
    method : registry name of the model (e.g. ``cpsat-scenario``).
    solver : backend name (``cp-sat``, ``highs``, ``enumeration`` ...).
    wall_time : seconds spent in the solver call.
    scale : integer factor the model multiplied times by (1 when it did not scale).
    exact_scaling : False when scaling had to round (the result is then approximate).
    payload : the solution itself (schedule, packs, chunks), JSON-ready.
    """

    objective: Any
    bound: Any
    status: Status
    method: str
    solver: str
    wall_time: float
    scale: int = 1
    exact_scaling: bool = True
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def is_optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    def to_dict(self) -> dict[str, Any]:
        return {
            "objective": to_jsonable(self.objective),
            "bound": to_jsonable(self.bound),
            "status": self.status.value,
            "method": self.method,
            "solver": self.solver,
            "wall_time": round(self.wall_time, 6),
            "scale": self.scale,
            "exact_scaling": self.exact_scaling,
            "solution": to_jsonable(self.payload),
        }


@dataclass(frozen=True)
class HeuristicResult:
    """Result of a heuristic run: the objective and the object it built (schedule, packs...)."""

    objective: Any
    heuristic: str
    priority: str | None = None
    schedule: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "objective": to_jsonable(self.objective),
            "heuristic": self.heuristic,
            "priority": self.priority,
        }
        d.update(to_jsonable(self.extra))
        if self.schedule is not None:
            d["solution"] = to_jsonable(self.schedule)
        return d
