"""Silent-error failure model and failure scenarios (spec 002 §1.2, §8.3; spec 000 §1).

Each attempt of job j fails independently with probability q_j = 1 - exp(-lambda * a_j), where
a_j is the job's area (processors x time). The number of failures f_j before the first success is
geometric: P(f_j = k) = q_j^k (1 - q_j), so E[f_j] = q_j / (1 - q_j) = exp(lambda a_j) - 1.

The experiments calibrate lambda per job set from an average failure probability q-bar:
lambda = -ln(1 - q-bar) / a-bar with a-bar the mean area, hence q_j = 1 - (1 - q-bar)^(a_j / a-bar).

A failure scenario is data (`Scenario`), drawn once from a seeded `numpy.random.Generator` and
replayed for every heuristic (common random numbers).

Sizes that cannot finish are refused (docs/decisions.md T9): a scenario given or drawn at the
boundary (`Scenario.parse`, `sample_scenarios`) has at most `MAX_ATTEMPTS` attempts in all, and
no draw is made when the expected number of attempts sum_j 1/(1 - q_j) exceeds
`MAX_EXPECTED_ATTEMPTS` (`sample_failures`, every caller) or `MAX_ATTEMPTS`
(`sample_scenarios`, the command line); the error names the job with the most expected attempts.
A job whose size is far above the mean gets q_j close to 1 under the q-bar calibration (e.g. a
job 300 times the mean area at q-bar = 0.1 expects 5e13 attempts).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance, show

#: Most attempts sum_j (f_j + 1) of a scenario given or drawn at the boundary (a heuristic
#: simulates about 20,000 attempts per second).
MAX_ATTEMPTS = 100_000
#: Most expected attempts sum_j 1/(1 - q_j) of any draw (the paper's grids stay below 2.5e5).
MAX_EXPECTED_ATTEMPTS = 1_000_000


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
            parts: list[object] = [_text_count(v) for v in values.replace(" ", "").split(",")
                                   if v != ""]
        elif isinstance(values, (list, tuple, np.ndarray)):
            parts = list(values)
        else:
            raise InvalidInstance(field, f"{show(values)} must be a list of failure counts, "
                                         "one per job")
        if len(parts) != n:
            raise InvalidInstance(field, f"has {len(parts)} entries but the instance has {n} jobs")
        out = []
        for j, v in enumerate(parts):
            whole = (isinstance(v, (int, np.integer)) and not isinstance(v, bool)) or (
                isinstance(v, float) and math.isfinite(v) and v.is_integer())
            if not whole:
                raise InvalidInstance(f"{field}[{j}]", f"{show(v)} is not an integer")
            if v < 0:
                raise InvalidInstance(f"{field}[{j}]", f"{show(v)} must be >= 0")
            if v >= MAX_ATTEMPTS:
                raise InvalidInstance(f"{field}[{j}]", f"{show(v)} failures exceed the maximum "
                                      f"of {MAX_ATTEMPTS} attempts per scenario")
            out.append(int(v))
        if sum(out) + n > MAX_ATTEMPTS:
            raise InvalidInstance(field, f"has {sum(out) + n} attempts in all (at most "
                                         f"{MAX_ATTEMPTS})")
        return cls(tuple(out))

    @property
    def attempts(self) -> int:
        """Total number of attempts sum_j (f_j + 1)."""
        return sum(self.failures) + len(self.failures)

    def to_list(self) -> list[int]:
        return list(self.failures)


def _text_count(text: str) -> object:
    """One entry of ``--failures 0,2,1``: an int, or the text itself (refused by the caller)."""
    try:
        return int(text) if len(text) <= 30 else text
    except ValueError:
        return text


def check_qbar(qbar: object) -> float:
    """q-bar, the average failure probability: a number in [0, 1)."""
    if isinstance(qbar, bool) or not isinstance(qbar, (int, float, np.floating)) \
            or not 0 <= qbar < 1:
        raise InvalidInstance("qbar", f"{show(qbar)} must be a number in [0, 1)")
    return float(qbar)


def lambda_from_qbar(qbar: float, areas: Sequence[float]) -> float:
    """lambda = -ln(1 - q-bar) / a-bar, computed per job set (spec 002 §1.2)."""
    qbar = check_qbar(qbar)
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
    q = np.asarray(q, dtype=float)
    check_expected_attempts(q, MAX_EXPECTED_ATTEMPTS)
    rng = np.random.default_rng(rng)
    return rng.geometric(1.0 - q, size=(count, q.size)) - 1


def check_expected_attempts(q: np.ndarray, cap: float) -> None:
    """Refuse failure probabilities outside [0, 1) or expecting more than `cap` attempts in all
    (sum_j 1/(1 - q_j)); the error names the job with the most expected attempts."""
    q = np.asarray(q, dtype=float)
    if q.size == 0:
        return
    bad = np.flatnonzero(~((q >= 0) & (q <= 1)))
    if bad.size:
        j = int(bad[0])
        raise InvalidInstance(f"q[{j}]", f"{q[j]} must be a failure probability in [0, 1)")
    with np.errstate(divide="ignore"):
        expected = 1.0 / (1.0 - q)
    total = float(expected.sum())
    if total > cap:
        j = int(np.argmax(expected))
        raise InvalidInstance(
            f"jobs[{j}]",
            f"fails with probability q={float(q[j]):.17g} per attempt: {float(expected[j]):.3g} "
            f"expected attempts ({total:.3g} for the whole scenario, at most {cap:.0f}; "
            "a lower q-bar or a smaller job fixes it)")


def sample_scenarios(
    q: Sequence[float], count: int, rng: np.random.Generator | int,
    max_attempts: int = MAX_ATTEMPTS,
) -> list[Scenario]:
    """`sample_failures` as a list of `Scenario` objects, for the boundary (the command line's
    ``--qbar``): refused when the expected attempts or a drawn scenario's attempts exceed
    `max_attempts`."""
    q = np.asarray(q, dtype=float)
    check_expected_attempts(q, max_attempts)
    out = []
    for row in sample_failures(q, count, rng):
        attempts = int(row.sum()) + row.size
        if attempts > max_attempts:
            j = int(np.argmax(row))
            raise InvalidInstance("failures", f"the draw has {attempts} attempts (job {j} fails "
                                  f"{int(row[j])} times), above the maximum {max_attempts}")
        out.append(Scenario(tuple(int(x) for x in row)))
    return out


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
