"""The online scheduling problem as data: jobs with their modes, per-attempt failure
probabilities, and the time scale (spec 002 §1.2, §1.5; spec 000 §1.4).

An `OnlineProblem` is what the Markov decision process of `resilsched.models.online.space`
reads. Job j has one or more *modes* ``(p, t)``: an attempt on p processors lasting t time
units (a rigid job has one mode; a moldable job one per allocation of its time-Pareto front,
spec 000 §1.3.7, the candidate set of the clairvoyant model too). Times are exact: every t_j
(int, Fraction, or the exact rational value of a float) is scaled by one common factor to a
positive integer, so that remaining times are integers and states compare exactly.

Each attempt of job j fails independently with probability q_j, an exact `Fraction`: the exact
rational value of the float q_j of the q-bar calibration (`RigidInstance.q`,
`MoldableInstance.q`), or the value stored in an online-family instance (docs/decisions.md O1).
An outcome of a step is the set S of the ending jobs E that succeed; its probability is
prod_{j in S} (1 - q_j) prod_{j in E \\ S} q_j (`outcome_probability`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidInstance


def exact_fraction(x: Any, field_name: str) -> Fraction:
    """The exact rational value of an int, a Fraction or a finite float."""
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        try:
            x = float(x)  # numpy scalars
        except (TypeError, ValueError):
            raise InvalidInstance(field_name, f"{x!r} is not a number") from None
    if isinstance(x, float) and not math.isfinite(x):
        raise InvalidInstance(field_name, f"{x!r} is not finite")
    return Fraction(x)


def check_probabilities(q: Sequence[Any], n: int) -> tuple[Fraction, ...]:
    """Per-job failure probabilities as exact Fractions in [0, 1)."""
    if len(q) != n:
        raise InvalidInstance("q", f"has {len(q)} entries but the instance has {n} jobs")
    out = []
    for j, x in enumerate(q):
        v = exact_fraction(x, f"jobs[{j}].q")
        if not 0 <= v < 1:
            raise InvalidInstance(f"jobs[{j}].q", f"{x} must be a probability in [0, 1)")
        out.append(v)
    return tuple(out)


@dataclass(frozen=True)
class Mode:
    """One way to run an attempt: ``p`` processors for ``t`` scaled time units."""

    p: int
    t: int


@dataclass(frozen=True)
class OnlineProblem:
    """P processors, n jobs with their modes, failure probabilities q_j, and the time unit.

    Attributes
    ----------
    P : processors.
    modes : per job, its modes in increasing p (one for a rigid job).
    q : exact failure probability of one attempt of each job.
    unit : the instance time of one scaled unit (instance time = scaled time x unit).
    times : per job and mode, the instance's own time value (int, Fraction or float), for
        schedules in the instance's unit.
    """

    P: int
    modes: tuple[tuple[Mode, ...], ...]
    q: tuple[Fraction, ...]
    unit: Fraction
    times: tuple[tuple[Any, ...], ...]
    qf: tuple[float, ...] = field(init=False, repr=False, compare=False)
    sf: tuple[float, ...] = field(init=False, repr=False, compare=False)
    _cache: dict[tuple[int, int], tuple[float, Fraction]] = field(
        init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "qf", tuple(float(x) for x in self.q))
        # 1 - q_j in floats: one rounding of the exact difference (error analysed in `verify`)
        object.__setattr__(self, "sf", tuple(float(1 - x) for x in self.q))

    @property
    def n(self) -> int:
        return len(self.modes)

    @property
    def rigid(self) -> bool:
        return all(len(m) == 1 for m in self.modes)

    def outcome_probability(self, ended: int, succeeded: int) -> tuple[float, Fraction]:
        """(float, exact) probability that, of the jobs in bit mask `ended`, exactly those in
        `succeeded` succeed. The float is a product of 2|E| rounded factors."""
        key = (ended, succeeded)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        exact = Fraction(1)
        approx = 1.0
        j, mask = 0, ended
        while mask:
            if mask & 1:
                if succeeded >> j & 1:
                    exact *= 1 - self.q[j]
                    approx *= self.sf[j]
                else:
                    exact *= self.q[j]
                    approx *= self.qf[j]
            mask >>= 1
            j += 1
        self._cache[key] = (approx, exact)
        return approx, exact

    def fail_probability(self, ended: int) -> tuple[float, Fraction]:
        """Probability that every job of `ended` fails (the in-level outcome)."""
        return self.outcome_probability(ended, 0)

    def to_time(self, units: Any) -> Any:
        """A scaled duration in the instance's unit (an int when it is one)."""
        value = units * self.unit
        return int(value) if isinstance(value, Fraction) and value.denominator == 1 else value

    def state_bound(self, cap: int | None = None) -> tuple[int, bool]:
        """An upper bound on the number of states (`resilsched.models.online.space`): every
        set of running jobs that fits on P processors, each with any mode and any remaining
        time in 1..t scaled units, times the 2 ways (done, waiting) of each other job. A
        knapsack over the processors in use (sparse: at most min(P + 1, 2^n) sums).

        Returns (bound, True), or (a partial count above `cap`, False) as soon as one
        exceeds `cap` (the count only grows with each job)."""
        count = {0: 1}
        for modes in self.modes:
            new = {used: 2 * c for used, c in count.items()}
            for used, c in count.items():
                for m in modes:
                    if used + m.p <= self.P:
                        new[used + m.p] = new.get(used + m.p, 0) + c * m.t
            count = new
            if cap is not None and sum(count.values()) > cap:
                return sum(count.values()), False
        return sum(count.values()), True


def scale_times(times: Sequence[Sequence[Any]]) -> tuple[Fraction, list[list[int]]]:
    """One unit and the integer times t / unit, for the exact values of `times` (per job, per
    mode): unit = gcd of the times (as rationals), so that the integers are as small as can be."""
    exact = [[exact_fraction(t, f"jobs[{j}].t") for t in row] for j, row in enumerate(times)]
    for j, row in enumerate(exact):
        for t in row:
            if t <= 0:
                raise InvalidInstance(f"jobs[{j}].t", f"{t} must be > 0")
    lcm_den = 1
    for row in exact:
        for t in row:
            lcm_den = lcm_den * t.denominator // math.gcd(lcm_den, t.denominator)
    ints = [[int(t * lcm_den) for t in row] for row in exact]
    g = 0
    for row in ints:
        for t in row:
            g = math.gcd(g, t)
    unit = Fraction(g, lcm_den)
    return unit, [[t // g for t in row] for row in ints]


def build_problem(P: int, allocations: Sequence[Sequence[tuple[int, Any]]],
                  q: Sequence[Any]) -> OnlineProblem:
    """An `OnlineProblem` from each job's ``(p, t)`` allocations (instance times) and q_j."""
    n = len(allocations)
    probs = check_probabilities(q, n)
    unit, ints = scale_times([[t for _, t in row] for row in allocations])
    modes = tuple(tuple(Mode(int(p), ints[j][k]) for k, (p, _) in enumerate(row))
                  for j, row in enumerate(allocations))
    times = tuple(tuple(t for _, t in row) for row in allocations)
    return OnlineProblem(int(P), modes, probs, unit, times)


def rigid_problem(instance: Any, q: Sequence[Any]) -> OnlineProblem:
    """The problem of a `RigidInstance` (one mode (p_j, t_j) per job)."""
    return build_problem(instance.P, [[(job.p, job.t)] for job in instance.jobs], q)


def moldable_problem(instance: Any, q: Sequence[Any]) -> OnlineProblem:
    """The problem of a `MoldableInstance`: the modes of job j are its time-Pareto front
    (spec 000 §1.3.7), with the exact times t_j(p) where the speedup model gives them."""
    rows = []
    for j, front in enumerate(instance.fronts):
        rows.append([(int(p), instance.time(j, int(p))) for p in front])
    return build_problem(instance.P, rows, q)
