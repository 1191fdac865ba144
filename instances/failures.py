"""Silent-error failure model and failure scenarios (spec 002 §1.2, §8.3; spec 000 §1).

Each attempt of job j fails independently with probability q_j = 1 - exp(-lambda * a_j), where
a_j is the job's area (processors x time). The number of failures f_j before the first success is
geometric: P(f_j = k) = q_j^k (1 - q_j), so E[f_j] = q_j / (1 - q_j) = exp(lambda a_j) - 1.

The experiments calibrate lambda per job set from an average failure probability q-bar:
lambda = -ln(1 - q-bar) / a-bar with a-bar the mean area, hence q_j = 1 - (1 - q-bar)^(a_j / a-bar).

A failure scenario is data (`Scenario`), drawn once from a seeded `numpy.random.Generator` and
replayed for every heuristic (common random numbers).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance


@dataclass(frozen=True)
class Scenario:
    """Failure counts per job: job j fails ``failures[j]`` times, then succeeds."""

    failures: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "failures", tuple(int(f) for f in self.failures))
        for j, f in enumerate(self.failures):
            if f < 0:
                raise InvalidInstance(f"failures[{j}]", f"{f} must be >= 0")

    @classmethod
    def failure_free(cls, n: int) -> Scenario:
        return cls((0,) * n)

    @classmethod
    def parse(
        cls, values: Scenario | Sequence[object] | str, n: int, field: str = "failures"
    ) -> Scenario:
        """Check a scenario for an n-job instance: a Scenario, a list or ``"0,2,1"``."""
        if isinstance(values, Scenario):
            values = values.failures
        if isinstance(values, str):
            parts = [v for v in values.replace(" ", "").split(",") if v != ""]
        else:
            parts = list(values)
        out = []
        for j, v in enumerate(parts):
            try:
                if isinstance(v, bool) or (isinstance(v, float) and not v.is_integer()):
                    raise ValueError
                f = int(v)
            except (TypeError, ValueError):
                raise InvalidInstance(f"{field}[{j}]", f"{v!r} is not an integer") from None
            if f < 0:
                raise InvalidInstance(f"{field}[{j}]", f"{f} must be >= 0")
            out.append(f)
        if len(out) != n:
            raise InvalidInstance(field, f"has {len(out)} entries but the instance has {n} jobs")
        return cls(tuple(out))

    @property
    def attempts(self) -> int:
        """Total number of attempts sum_j (f_j + 1)."""
        return sum(self.failures) + len(self.failures)

    def to_list(self) -> list[int]:
        return list(self.failures)


def lambda_from_qbar(qbar: float, areas: Sequence[float]) -> float:
    """lambda = -ln(1 - q-bar) / a-bar, computed per job set (spec 002 §1.2)."""
    if not 0 <= qbar < 1:
        raise InvalidInstance("qbar", f"{qbar} must be in [0, 1)")
    abar = float(np.mean(np.asarray(areas, dtype=float)))
    return -math.log1p(-qbar) / abar


def failure_probabilities(areas: Sequence[float], lam: float) -> np.ndarray:
    """Per-attempt failure probability q_j = 1 - exp(-lambda a_j)."""
    if lam < 0:
        raise InvalidInstance("lambda", f"{lam} must be >= 0")
    return -np.expm1(-lam * np.asarray(areas, dtype=float))


def q_from_qbar(areas: Sequence[float], qbar: float) -> np.ndarray:
    """q_j = 1 - (1 - q-bar)^(a_j / a-bar): `failure_probabilities` at the calibrated lambda."""
    return failure_probabilities(areas, lambda_from_qbar(qbar, areas))


def expected_failures(q: Sequence[float]) -> np.ndarray:
    """E[f_j] = q_j / (1 - q_j)."""
    q = np.asarray(q, dtype=float)
    return q / (1.0 - q)


def sample_failures(q: Sequence[float], count: int, rng: np.random.Generator | int) -> np.ndarray:
    """Draw `count` scenarios as a (count, n) integer array, f_j ~ Geometric(1 - q_j) - 1.

    The draw is a pure function of the generator state: the same seed gives the same scenarios
    on any machine, and every heuristic of an experiment replays the same rows.
    """
    rng = np.random.default_rng(rng)
    q = np.asarray(q, dtype=float)
    if np.any((q < 0) | (q >= 1)):
        raise InvalidInstance("q", "failure probabilities must be in [0, 1)")
    return rng.geometric(1.0 - q, size=(count, q.size)) - 1


def sample_scenarios(
    q: Sequence[float], count: int, rng: np.random.Generator | int
) -> list[Scenario]:
    """`sample_failures` as a list of `Scenario` objects."""
    return [Scenario(tuple(int(x) for x in row)) for row in sample_failures(q, count, rng)]


def scenario_probability(q: Sequence, failures: Sequence[int]):
    """Q(f) = prod_j q_j^f_j (1 - q_j); exact when the q_j are Fractions."""
    prob = Fraction(1) if all(isinstance(x, (int, Fraction)) for x in q) else 1.0
    for qj, fj in zip(q, failures, strict=True):
        prob *= qj**fj * (1 - qj)
    return prob


def enumerate_scenarios(q: Sequence, max_total_failures: int) -> Iterator[tuple[Scenario, object]]:
    """All scenarios with sum_j f_j <= max_total_failures, with their probabilities.

    The truncated mass is 1 - sum of the yielded probabilities; see `truncated_mass`.
    """
    n = len(q)
    for total in range(max_total_failures + 1):
        # compositions of `total` into n non-negative parts
        for bars in itertools.combinations(range(total + n - 1), n - 1):
            parts, prev = [], -1
            for b in (*bars, total + n - 1):
                parts.append(b - prev - 1)
                prev = b
            yield Scenario(tuple(parts)), scenario_probability(q, parts)


def truncated_mass(q: Sequence, max_total_failures: int):
    """Probability of the scenarios `enumerate_scenarios` leaves out."""
    return 1 - sum(p for _, p in enumerate_scenarios(q, max_total_failures))


def truncated_expectation(q: Sequence, max_total_failures: int, value: Callable[[Scenario], Any]):
    """E[value(f)] restricted to the scenarios with sum_j f_j <= max_total_failures.

    Returns ``(partial, mass, truncated)``: the probability-weighted sum over the enumerated
    scenarios, their total probability, and the truncated mass 1 - mass. For a non-negative
    `value` the true expectation is at least `partial`; the ratio ``partial / mass`` is the
    conditional expectation given the truncation. Exact when `q` and `value` are Fractions/ints
    (spec 002 §11.2, `expected.py`: E_clairvoyant = sum_f Q(f) T_OPT(f) on tiny instances).
    """
    partial: Any = 0
    mass: Any = 0
    for scenario, prob in enumerate_scenarios(q, max_total_failures):
        partial += prob * value(scenario)
        mass += prob
    return partial, mass, 1 - mass
