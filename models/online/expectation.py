"""Expectations over the failure scenarios: the clairvoyant optimum E[T_OPT(f)] and any
heuristic's E[T_H(f)], enumerated with a rigorous tail, or sampled (issue 26).

E[X] = sum_f Q(f) X(f) with Q(f) = prod_j q_j^f_j (1 - q_j) (spec 002 §1.4, Eq. 7). The
scenarios with at most K failures in all are enumerated exactly; the rest, of mass tau, is
bounded per scenario:

- below by the bounds L(f) of every schedule (A(f) / P and each (f_j + 1) t_j, whose tail
  expectations are closed forms), by a value every tail scenario reaches (the failure-free
  clairvoyant optimum T_OPT(0), or a lower bound of it), and, for the clairvoyant optimum, by
  monotonicity (removing attempts keeps a schedule feasible, so T_OPT(f) >= T_OPT(g) for
  g <= f): each tail scenario is above the depth-K scenario it projects to;
- above by the serial sum S(f) = sum_j (f_j + 1) t_j: a schedule that never leaves every
  processor idle while jobs remain (the clairvoyant optimum, every heuristic of the engine,
  which refuses to idle then) ends by S(f), and E[S 1_tail] = sum_j t_j / (1 - q_j) - the
  enumerated part of S, in closed form; for the clairvoyant optimum also by any online
  policy's makespan, whose expectation is known exactly.

So E[X] lies in [sum_{|f| <= K} Q(f) X_low(f) + tau T_low, sum_{|f| <= K} Q(f) X_high(f) +
E[S 1_tail]], where X_low <= X(f) <= X_high (a solver's bound and incumbent when it did not
prove the optimum). K is the largest depth whose scenarios fit `max_scenarios`, stopping once
the tail mass is below `tail`. Where that is too many scenarios, `sampled` gives the mean over
drawn scenarios and a normal confidence interval instead (not a proof).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.instances.failures import Scenario, enumerate_scenarios, sample_failures

#: Value of a scenario: (low, high) with low <= X(f) <= high
Value = Callable[[Scenario], tuple[Any, Any]]


@dataclass(frozen=True)
class Interval:
    """An expectation known to lie in [low, high].

    `method` is ``"enumeration"`` (a proof: the scenarios with at most `depth` failures and
    the tail bounds) or ``"sampling"`` (a 99.99 % normal confidence interval over `scenarios`
    draws, not a proof).
    """

    low: Any
    high: Any
    method: str
    scenarios: int
    depth: int | None = None
    tail: Any = None

    @property
    def mid(self) -> Any:
        return (self.low + self.high) / 2

    def to_dict(self) -> dict[str, Any]:
        out = {"low": float(self.low), "high": float(self.high), "method": self.method,
               "scenarios": self.scenarios}
        if self.depth is not None:
            out.update(depth=self.depth, tail_mass=float(self.tail))
        return out


def failure_count_distribution(q: Sequence[Fraction], depth: int) -> list[Fraction]:
    """P(sum_j f_j = k) for k = 0..depth (a convolution of geometric laws, exact)."""
    dist = [Fraction(1)] + [Fraction(0)] * depth
    for qj in q:
        law = [(1 - qj) * qj**k for k in range(depth + 1)]
        dist = [sum(dist[i] * law[k - i] for i in range(k + 1)) for k in range(depth + 1)]
    return dist


def choose_depth(q: Sequence[Fraction], max_scenarios: int, tail: float) -> tuple[int, Fraction]:
    """The enumeration depth K: the smallest with a tail mass <= `tail`, or the largest whose
    C(n + K, K) scenarios fit `max_scenarios`; and its tail mass."""
    n = len(q)
    depth = 0
    while True:
        mass = 1 - sum(failure_count_distribution(q, depth))
        nxt = math.comb(n + depth + 1, depth + 1)
        if mass <= tail or nxt > max_scenarios:
            return depth, mass
        depth += 1


def enumerated(times: Sequence[Any], q: Sequence[Fraction], value: Value, tail_low: Any, *,
               areas: Sequence[Any] | None = None, P: int | None = None,
               longest: Sequence[Any] | None = None, tail_high: Any = None,
               monotone: bool = False,
               dominant: tuple[Callable[[Scenario], Any], Any] | None = None,
               max_scenarios: int = 2000, tail: float = 1e-6) -> Interval:
    """E[X] over the failure model `q` (exact Fractions) by enumeration (module docstring).

    `times` are the shortest attempt times t_j, `value(f)` gives (low, high) for a scenario. On
    the tail, X is bounded below by `tail_low` (a value every scenario reaches), with `areas`
    (the smallest attempt areas) and `P` by A(f) / P and each (f_j + 1) t_j (the bounds L(f)
    of any schedule), and when X is `monotone` in f by the value of the depth-K scenario each
    tail scenario projects to (`_projection_floor`); above by the serial sum S(f) of the
    `longest` attempt times (default `times`), by `tail_high` + sum_j f_j t_j when
    given (the failure-free schedule of makespan `tail_high` followed by the failed attempts
    one after the other), and by a `dominant` U(f) >= X(f) of known expectation E[U] (e.g. an
    online policy's makespan): E[U 1_tail] = E[U] - the enumerated part of U."""
    depth, mass = choose_depth(q, max_scenarios, tail)
    t = [Fraction(x) for x in times]
    a = [Fraction(x) for x in areas] if areas is not None else None
    n = len(t)
    # E[f_j + 1] = 1 / (1 - q_j); the enumerated part of each is subtracted below
    tries = [1 / (1 - qj) for qj in q]
    low = high = Fraction(0)
    seen = [Fraction(0)] * n  # sum over the enumerated f of Q(f) (f_j + 1)
    dominated = Fraction(0)  # sum over the enumerated f of Q(f) U(f)
    edge: list[tuple[tuple[int, ...], Fraction]] = []  # (g, low(g)) for |g| = depth
    count = 0
    for scenario, prob in enumerate_scenarios(q, depth):
        lo, hi = value(scenario)
        low += prob * Fraction(lo)
        high += prob * Fraction(hi)
        for j, f in enumerate(scenario.failures):
            seen[j] += prob * (f + 1)
        if dominant is not None:
            dominated += prob * Fraction(dominant[0](scenario))
        if monotone and sum(scenario.failures) == depth:
            edge.append((scenario.failures, Fraction(lo)))
        count += 1
    rest = [tries[j] - seen[j] for j in range(n)]  # E[(f_j + 1) 1_tail]
    top = t if longest is None else [Fraction(x) for x in longest]
    floors = [mass * Fraction(tail_low), *(t[j] * rest[j] for j in range(n))]
    if a is not None and P:
        floors.append(sum(a[j] * rest[j] for j in range(n)) / P)
    if monotone:
        floors.append(_projection_floor(q, edge))
    ceilings = [sum(top[j] * rest[j] for j in range(n))]
    if tail_high is not None:  # T <= T(0) + sum_j f_j t_j; E[f_j 1_tail] = rest_j - mass
        ceilings.append(mass * Fraction(tail_high) + sum(t[j] * (rest[j] - mass)
                                                         for j in range(n)))
    if dominant is not None:
        ceilings.append(Fraction(dominant[1]) - dominated)
    return Interval(low + max(floors), high + min(ceilings), "enumeration", count, depth, mass)


def _projection_floor(q: Sequence[Fraction], edge: list[tuple[tuple[int, ...], Fraction]]
                      ) -> Fraction:
    """sum over the scenarios g with |g| = K of low(g) P(pi(f) = g, |f| > K), where pi(f)
    keeps the failures of the jobs in index order until K are kept (g <= f, so X(f) >= X(g)
    for a monotone X). pi(f) = g with m the last job g fails: f_i = g_i before m, f_m >=
    g_m, anything after m, and |f| > K unless f_m = g_m and no later job fails."""
    n = len(q)
    total = Fraction(0)
    for g, lo in edge:
        m = max(j for j in range(n) if g[j] > 0)
        w = Fraction(1)
        for i in range(m):
            w *= q[i] ** g[i] * (1 - q[i])
        later_clean = Fraction(1)
        for j in range(m + 1, n):
            later_clean *= 1 - q[j]
        w *= q[m] ** g[m] - q[m] ** g[m] * (1 - q[m]) * later_clean
        total += lo * w
    return total


def sampled(q: Sequence[Any], value: Value, count: int, rng: np.random.Generator,
            z: float = 3.890592) -> Interval:
    """E[X] estimated on `count` scenarios drawn from `q` with `rng`: the mean of the
    midpoints, +- z standard errors and the half-width of the value intervals."""
    draws = sample_failures(np.array([float(x) for x in q]), count, rng)
    lows, highs = [], []
    for row in draws:
        lo, hi = value(Scenario(tuple(int(x) for x in row)))
        lows.append(float(lo))
        highs.append(float(hi))
    mid = (np.array(lows) + np.array(highs)) / 2
    half = z * float(np.std(mid, ddof=1)) / math.sqrt(count) if count > 1 else math.inf
    spread = float(np.mean(np.array(highs) - np.array(lows))) / 2
    mean = float(np.mean(mid))
    return Interval(mean - half - spread, mean + half + spread, "sampling", count)


def clairvoyant_value(instance: Any, time_limit: float = 10.0,
                      cache: dict[tuple, tuple[Any, Any]] | None = None) -> Value:
    """T_OPT(f) by the family's exact model (``cpsat-scenario`` of the rigid or the moldable
    family, one worker, deterministic): (its proven bound, its incumbent). T_OPT(f) does not
    depend on the q_j: a `cache` shared between calls on the same jobs (several q-bar levels)
    keeps the solves."""
    if _moldable(instance):
        from resilsched.models.moldable import solve_scenario

        jobs: tuple = (id(instance),)
    else:
        from resilsched.models.rigid import solve_scenario

        jobs = tuple((job.p, job.t) for job in instance.jobs)

    def value(scenario: Scenario) -> tuple[Any, Any]:
        key = (instance.P, jobs, scenario.failures)
        if cache is not None and key in cache:
            return cache[key]
        sol = solve_scenario(instance, scenario, time_limit=time_limit, deterministic=True,
                             workers=1)
        out = sol.bound, sol.objective if sol.objective is not None else _serial(
            instance, scenario)
        if cache is not None:
            cache[key] = out
        return out
    return value


def _moldable(instance: Any) -> bool:
    return hasattr(instance, "fronts")


def _fastest(instance: Any) -> tuple[list[Fraction], list[Fraction]]:
    """Per job the shortest attempt time and the smallest attempt area (a rigid job's t_j and
    a_j; a moldable job's t_min,j and a_min,j, spec 000 §1.1), as exact rationals."""
    if _moldable(instance):
        rows = [[(p, Fraction(float(instance.T[j, p - 1]))) for p in range(1, instance.P + 1)]
                for j in range(instance.n)]
        return ([min(t for _, t in row) for row in rows],
                [min(p * t for p, t in row) for row in rows])
    return [Fraction(t) for t in instance.t], [Fraction(a) for a in instance.areas]


def _serial(instance: Any, scenario: Scenario) -> Fraction:
    """sum_j (f_j + 1) t_j: every attempt one after the other (the fastest allocation of a
    moldable job)."""
    times, _ = _fastest(instance)
    return sum(((f + 1) * t for f, t in zip(scenario.failures, times, strict=True)),
               Fraction(0))


def clairvoyant_expectation(instance: Any, q: Sequence[Fraction], *, max_scenarios: int = 2000,
                            tail: float = 1e-6, time_limit: float = 10.0,
                            policy: Any = None,
                            cache: dict[tuple, tuple[Any, Any]] | None = None) -> Interval:
    """E[T_OPT(f)] of a rigid or moldable instance (the clairvoyant optimum averaged over the
    scenarios), enumerated. On the tail: T_OPT is monotone in f (above the depth-K scenario
    each tail scenario projects to, and T_OPT(0)), below T_OPT(0) + sum_j f_j t_j and, given
    an online `policy` (a `DecisionTable`), below its makespan, whose expectation is exact.
    `cache` keeps the solves for other calls on the same jobs (`clairvoyant_value`)."""
    from resilsched.models.online.policy import replay_makespan

    value = clairvoyant_value(instance, time_limit, cache)
    floor, ceiling = value(Scenario.failure_free(instance.n))
    dominant = None
    if policy is not None:
        dominant = (lambda f: replay_makespan(policy.policy, f.failures), policy.value)
    times, areas = _fastest(instance)
    return enumerated(times, q, value, floor, areas=areas, P=instance.P, tail_high=ceiling,
                      monotone=True, dominant=dominant, max_scenarios=max_scenarios, tail=tail)


def heuristic_value(family: Any, heuristic: str, instance: Any, priority: str | None,
                    seed: int = 0, params: dict[str, Any] | None = None) -> Value:
    """T_H(f) by the heuristic's own run (exact: low = high = its makespan)."""
    h = family.heuristics[heuristic]

    def value(scenario: Scenario) -> tuple[Any, Any]:
        res = h.run(instance, scenario, priority, seed=seed, **(params or {}))
        return res.objective, res.objective
    return value


def heuristic_expectation(family: Any, heuristic: str, instance: Any, q: Sequence[Fraction],
                          priority: str | None = None, *, seed: int = 0,
                          params: dict[str, Any] | None = None, max_scenarios: int = 2000,
                          tail: float = 1e-6) -> Interval:
    """E[T_H(f)] of any heuristic of a rigid or moldable family, options included, by
    enumeration of its runs; the tail is bounded below by the failure-free makespan bound
    `family`'s first bound gives (the paper's L(0) or L'(0), <= T_OPT(0) <= T_H(f))."""
    value = heuristic_value(family, heuristic, instance, priority, seed, params)
    bound = next(iter(family.bounds.values()))
    floor = bound.compute(instance, Scenario.failure_free(instance.n))
    times, areas = _fastest(instance)
    return enumerated(times, q, value, floor, areas=areas, P=instance.P,
                      longest=_longest_times(instance), max_scenarios=max_scenarios, tail=tail)


def _longest_times(instance: Any) -> list[Any]:
    """The t_j of a heuristic's serial bound: t_j for a rigid job, the longest time of any
    allocation for a moldable one (a heuristic may run an attempt on any allocation)."""
    if _moldable(instance):
        return [Fraction(float(max(row))) for row in instance.T]
    return list(instance.t)
