"""The input of the moldable CP-SAT model: candidate allocations and integer times (spec 000 §8).

**Candidates.** Only allocations on a job's time-Pareto front can be useful: any other p is
dominated (some p' < p is at least as fast, with a smaller area and demand), so replacing it
keeps a schedule feasible and its makespan unchanged (§1.3 item 7). Offering every attempt the
whole front gives the *complete* model, whose optimum is T_OPT(J, f). When that model would
have more than ``max_intervals`` optional intervals (sum_j m_j |front_j|), each job keeps a
thinned subset of its front (`thin_front`: the incumbent's allocation, the fastest point, the
smallest-area point and points spread geometrically along the front); the model is then a
*restriction*: its schedules are feasible, but its optimum and its bound prove nothing about
T_OPT.

**Fronts.** Float instances use the float front ``instance.fronts`` and the float times
``instance.T`` (the times their schedules are checked with). Exact instances (int/Fraction
times) get the exact front: the candidates are the p whose float time is within a relative
1e-9 of a new prefix minimum (a superset of the exact front, float errors being far smaller),
and among them the exact strict prefix minima are kept.

**Scaling.** Times are scaled to integers by the LCM of their denominators
(`resilsched.numeric.integer_scale`, at most ``max_scale``); when they have no exact small
scale (irrational powers, long floats) they are rounded UP: a schedule found stays feasible
with the true durations, its true makespan is reported, and only the root bound is a bound
(``exact=False``).

Every loop over jobs checks the deadline and raises `OutOfTime` when it has passed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.deadline import Deadline
from resilsched.numeric import integer_scale

#: relative float error allowed when looking for the exact front among the float times
FRONT_RTOL = 1e-9


class OutOfTime(Exception):
    """The deadline passed while a phase was running (the caller falls back)."""


@dataclass(frozen=True)
class ScaledMoldable:
    """Candidate allocations with their integer (scaled) and true times.

    options[j] = ((p, scaled t_j(p), true t_j(p)), ...); m[j] = attempts of job j (f_j + 1);
    `exact`: times scaled without rounding; `complete`: every job offers its whole front.
    """

    P: int
    options: tuple[tuple[tuple[int, int, Any], ...], ...]
    m: tuple[int, ...]
    scale: int
    exact: bool
    complete: bool

    @property
    def intervals(self) -> int:
        """Optional intervals of the model: sum_j m_j |options_j|."""
        return sum(m * len(o) for m, o in zip(self.m, self.options, strict=True))


def is_exact(instance) -> bool:
    """True when every t_j(p) is an int or a Fraction (checked at p = 1 and p = P)."""
    return all(isinstance(instance.time(j, p), (int, Fraction))
               for j in range(instance.n) for p in {1, instance.P})


def front_candidates(instance, j: int) -> np.ndarray:
    """The p whose float time is within a relative `FRONT_RTOL` of a new prefix minimum: a
    superset of job j's exact front (module docstring, "Fronts"). A plateau (a roofline beyond
    pbar, a table's repeated entries) is all candidates: its exact times may differ below the
    float resolution."""
    row = instance.T[j]
    prev = np.minimum.accumulate(row)
    return np.nonzero(np.concatenate([[True], row[1:] <= prev[:-1] * (1 + FRONT_RTOL)]))[0] + 1


def exact_front(instance, j: int, deadline: Deadline | None = None) -> list[int]:
    """Exact time-Pareto front of job j (strict prefix minima of the exact t_j(p) over
    `front_candidates`); raises `OutOfTime` at `deadline` (checked every 1024 candidates)."""
    out, best = [], None
    for i, p in enumerate(front_candidates(instance, j).tolist()):
        if i % 1024 == 1023 and deadline is not None and deadline.expired():
            raise OutOfTime("exact fronts")
        t = instance.time(j, p)
        if best is None or t < best:
            out.append(p)
            best = t
    return out


def thin_front(front: np.ndarray, keep: set[int], k: int) -> list[int]:
    """At most max(k, |keep|) points of `front` (ascending p): `keep` plus a geometric spread.

    >>> thin_front(np.arange(1, 101), {7}, 5)
    [1, 5, 7, 22, 100]
    """
    chosen = {int(p) for p in np.asarray(front)[np.isin(front, list(keep))]}
    if k > len(chosen):
        spread = np.unique(np.round(np.geomspace(1, len(front), k - len(chosen))).astype(int))
        chosen.update(int(p) for p in np.asarray(front)[spread - 1])
    return sorted(chosen)


def candidate_fronts(instance, m: list[int], incumbent: list[list[int]] | None,
                     max_intervals: int, exact_times: bool, deadline: Deadline,
                     max_exact: int | None = None) -> tuple[list[list[int]], bool]:
    """Candidate allocations per job and whether they are the complete fronts (see above);
    ``incumbent[j]`` lists the allocations of job j's attempts in the incumbent, kept by the
    thinned fronts when they are on the front.

    The exact fronts of an exact instance cost one exact t_j(p) per candidate (about 10 us):
    when there are more than `max_exact` candidates in all (a plateau of 10^6 processors) the
    complete model is not attempted, and the thinned float fronts make a restricted one.
    Returns ([] , False) when even one candidate per attempt exceeds `max_intervals`.
    """
    fronts = instance.fronts
    attempts = sum(m)
    if sum(mj * len(f) for mj, f in zip(m, fronts, strict=True)) <= max_intervals:
        if not exact_times:
            return [f.tolist() for f in fronts], True
        cands = [front_candidates(instance, j) for j in range(instance.n)]
        if max_exact is None or sum(c.size for c in cands) <= max_exact:
            out = []
            for j in range(instance.n):
                if deadline.expired():
                    raise OutOfTime("exact fronts")
                out.append(exact_front(instance, j, deadline))
            return out, True
    k = max_intervals // attempts
    if k < 1:
        return [], False
    T = instance.T
    out = []
    for j, front in enumerate(fronts):
        area = T[j, front - 1] * front
        keep = {int(front[-1]), int(front[int(np.argmin(area))])}
        if incumbent is not None:
            keep.update(incumbent[j])
        if k == 1 and incumbent is not None:
            keep = set(incumbent[j])
        out.append(thin_front(front, keep, k))
    return out, False


def scale_candidates(instance, candidates: list[list[int]], m: list[int], complete: bool,
                     exact_times: bool, max_scale: int, deadline: Deadline) -> ScaledMoldable:
    """Integer times of the candidates (module docstring, "Scaling")."""
    true = []
    for j, ps in enumerate(candidates):
        if deadline.expired():
            raise OutOfTime("scaling")
        true.append([instance.time(j, p) if exact_times else float(instance.T[j, p - 1])
                     for p in ps])
    scale, exact = integer_scale((t for row in true for t in row), max_scale=max_scale)
    options = []
    for ps, ts in zip(candidates, true, strict=True):
        if exact:
            row = tuple((p, int(_fraction(t, max_scale) * scale), t)
                        for p, t in zip(ps, ts, strict=True))
        else:
            row = tuple((p, max(1, math.ceil(float(t) * scale * (1 - 1e-12))), t)
                        for p, t in zip(ps, ts, strict=True))
        options.append(row)
    return ScaledMoldable(instance.P, tuple(options), tuple(m), scale, exact, complete)


def _fraction(t: Any, max_scale: int) -> Fraction:
    return Fraction(t) if isinstance(t, (int, Fraction)) else Fraction(t).limit_denominator(
        max_scale)


def lower_bound_scaled(data: ScaledMoldable) -> int:
    """ceil(L') of the offered candidates in scaled units (§2.2): a cut of the model.

    max(max_j m_j t_min,j, ceil(sum_j m_j a_min,j / P)) over the candidates; on the complete
    exactly scaled model it is the exact ceil(scale L'), a valid bound on scale T_OPT.
    """
    chain = max(m * min(t for _, t, _ in o) for m, o in zip(data.m, data.options, strict=True))
    area = sum(m * min(p * t for p, t, _ in o)
               for m, o in zip(data.m, data.options, strict=True))
    return max(chain, -(-area // data.P))


def horizon_scaled(data: ScaledMoldable) -> int:
    """All attempts one after the other at their fastest candidate: a feasible makespan."""
    return sum(m * min(t for _, t, _ in o) for m, o in zip(data.m, data.options, strict=True))
