"""A rigid scenario in integer time units, as CP-SAT needs it (spec 002 §11.2).

CP-SAT works on integers: the times of an instance are multiplied by the LCM of their
denominators (`resilsched.numeric.integer_scale`). Float times with no exact small scale are
rounded UP on the finest grid allowed (`MAX_SCALE`): a schedule of the rounded scenario, run
with the true (shorter or equal) durations, is still feasible, so the objective is the makespan
of a real schedule, but nothing proven on the rounded scenario is a bound of the true one
(``exact=False``).

Every later phase of the exact models (root bounds, reductions, the CP-SAT model, the
refutation search) works on a `ScaledScenario` in plain integer arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.numeric import integer_scale

#: Largest time scale tried for float instances before rounding.
MAX_SCALE = 10**6


@dataclass(frozen=True)
class ScaledScenario:
    """A rigid instance under scenario f with times multiplied by `scale` (§11.2).

    Attributes
    ----------
    P : processors.
    p : p_j per job.
    t : scaled integer attempt length per job (rounded up when `exact` is False).
    m : number of attempts m_j = f_j + 1 per job (1 for the failure-free and merged models).
    scale : the integer factor applied to the instance's times.
    exact : False when some t_j had to be rounded.
    """

    P: int
    p: tuple[int, ...]
    t: tuple[int, ...]
    m: tuple[int, ...]
    scale: int
    exact: bool

    @property
    def n(self) -> int:
        return len(self.p)

    def work(self) -> list[int]:
        """w_j = m_j t_j: the time job j runs in every schedule (its attempts are chained)."""
        return [mj * tj for mj, tj in zip(self.m, self.t, strict=True)]

    def restrict(self, kept: Sequence[int]) -> ScaledScenario:
        """The scenario of the jobs `kept` only (same platform and scale)."""
        return ScaledScenario(self.P, tuple(self.p[j] for j in kept),
                              tuple(self.t[j] for j in kept), tuple(self.m[j] for j in kept),
                              self.scale, self.exact)


def scale_scenario(
    instance: RigidInstance, scenario: Scenario, merged: bool = False, max_scale: int = MAX_SCALE
) -> ScaledScenario:
    """Scale the times of `instance` to integers under `scenario` (§11.2 "Times must be integers").

    `scenario` is trusted to be a checked scenario of `instance` (the family's scenario hook).
    With ``merged=True`` each job becomes one interval of length m_j t_j (the merged model).
    """
    scale, exact = integer_scale(instance.t, max_scale=max_scale)
    if not exact:
        scale = max_scale  # round on the finest grid allowed, never on a coarse exact LCM
    ts = []
    for tj in instance.t:
        if isinstance(tj, int):
            ts.append(tj * scale)
        elif exact:
            v = tj if isinstance(tj, Fraction) else Fraction(tj).limit_denominator(max_scale)
            ts.append(int(v * scale))
        else:
            # round the exact binary value up: the real attempt never outlasts its model
            ts.append(max(1, math.ceil(Fraction(tj) * scale)))
    m = [fj + 1 for fj in scenario.failures]
    if merged:
        ts = [mj * tj for mj, tj in zip(m, ts, strict=True)]
        m = [1] * len(m)
    return ScaledScenario(instance.P, tuple(instance.p), tuple(ts), tuple(m), scale, exact)


def to_time(value: int, data: ScaledScenario, integral: bool) -> Any:
    """A scaled integer time back in the instance's unit: an int for integer instances
    (`integral`: every t_j is an int), a `Fraction` for rational ones, a float when the
    scaling rounded."""
    if not data.exact:
        return value / data.scale
    if data.scale == 1 and integral:
        return int(value)
    return Fraction(value, data.scale)


def scale_hint(data: ScaledScenario, hint: Sequence[Sequence[Any]]) -> list[list[int]]:
    """A user's start times (instance units, per job and attempt) on the integer grid.

    Raises `InvalidInstance` unless the hint is a feasible schedule of the scenario: a wrong
    hint would give a wrong horizon.
    """
    if len(hint) != data.n or any(len(row) != data.m[j] for j, row in enumerate(hint)):
        raise InvalidInstance("hint", "needs f_j + 1 start times for every job j")
    starts = []
    for j, row in enumerate(hint):
        try:
            scaled = [Fraction(s) * data.scale for s in row]
        except (TypeError, ValueError):
            raise InvalidInstance(f"hint[{j}]", "start times must be numbers") from None
        if any(s.denominator != 1 or s < 0 for s in scaled):
            raise InvalidInstance(f"hint[{j}]", "start times must be >= 0 on the time grid")
        starts.append([int(s) for s in scaled])
        if any(b < a + data.t[j] for a, b in zip(starts[j], starts[j][1:], strict=False)):
            raise InvalidInstance(f"hint[{j}]", "attempts overlap (Eq. 3)")
    events = sorted({s for row in starts for s in row})
    for s in events:
        used = sum(data.p[j] for j in range(data.n) for a in starts[j] if a <= s < a + data.t[j])
        if used > data.P:
            raise InvalidInstance("hint",
                                  f"uses {used} > P={data.P} processors at {s}/{data.scale}")
    return starts
