"""Lower bounds and proven ratio constants for rigid jobs under silent errors (spec 002 §1.3, §7).

For a failure scenario f (job j runs f_j + 1 attempts of t_j on p_j processors):

- ``t_max(f) = max_j (f_j + 1) t_j``  (Eq. 5: the attempts of one job are sequential);
- ``A(f) = sum_j (f_j + 1) p_j t_j``  (Eq. 6: T_OPT >= A(f)/P);
- ``L(f) = max(t_max(f), A(f)/P)``, the normalisation bound of the paper's experiments (§5).

All are exact (int/Fraction) for exact inputs: ``A/P`` is a `Fraction` when P does not divide A.
`lower_bound` is the one L(f) of the toolkit: the heuristics' experiments, the reproduction and
the exact models' reported bound all use it (the exact models also compute its rounded-up value
on their integer-scaled data, `resilsched.models.rigid.chain_area_bound`).
`big_jobs_bound` is a stronger, **non-paper** bound [INFERRED] (§7); never use it to reproduce
the paper's figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.numeric import strict_int


def scenario_of(instance: RigidInstance, scenario: Scenario | Sequence[int] | None) -> Scenario:
    """The scenario a function of the family runs on.

    A `Scenario` is trusted (it was checked at the boundary, the family's scenario hook);
    anything else (a list, ``"0,2,1"``, None) goes through that hook,
    `RigidInstance.scenario`: None is the instance's stored scenario, else failure-free.
    """
    if isinstance(scenario, Scenario):
        return scenario
    return instance.scenario(scenario)


def _counts(instance: RigidInstance, scenario: Scenario | Sequence[int] | None) -> list[int]:
    """m_j = f_j + 1 for the scenario of `scenario_of`."""
    return [f + 1 for f in scenario_of(instance, scenario).failures]


def _div(a: Any, P: int) -> Any:
    if isinstance(a, (int, Fraction)):
        q = Fraction(a, P) if isinstance(a, int) else a / P
        return int(q) if q.denominator == 1 else q
    return a / P


def t_max(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None) -> Any:
    """t_max(f) = max_j (f_j + 1) t_j (Eq. 5); ``scenario=None``: the instance's stored
    scenario, else failure-free (as everywhere in the family)."""
    return max(c * job.t for c, job in zip(_counts(instance, scenario), instance.jobs, strict=True))


def total_area(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None) -> Any:
    """A(f) = sum_j (f_j + 1) p_j t_j (Eq. 6)."""
    counts = _counts(instance, scenario)
    return sum(c * job.p * job.t for c, job in zip(counts, instance.jobs, strict=True))


def lower_bound(instance: RigidInstance, scenario: Scenario | Sequence[int] | None = None) -> Any:
    """L(f) = max(t_max(f), A(f)/P) <= T_OPT(f) (spec 002 §1.3, §7); exact for exact inputs."""
    return max(t_max(instance, scenario), _div(total_area(instance, scenario), instance.P))


def lower_bounds(instance: RigidInstance, F: np.ndarray) -> list[float]:
    """``float(lower_bound(instance, F[s]))`` for every scenario (row) of the failure matrix F,
    vectorised over the rows when the times are floats (the same operations in the same order:
    products ``(f_j + 1) p_j t_j`` summed left to right, then ``A / P``) and when they are
    integers whose areas stay below 2^52 (t_max and A exact in int64 and in a double, and one
    division rounds A / P as ``float(Fraction(A, P))`` does); one call per row otherwise
    (`lower_bound`'s Fractions).

    >>> from resilsched.instances.rigid import RigidInstance
    >>> inst = RigidInstance.build(4, [(2, 1.5), (4, 2.0)])
    >>> lower_bounds(inst, np.array([[0, 1], [3, 0]]))
    [4.75, 6.0]
    """
    F = np.atleast_2d(np.asarray(F, dtype=np.int64))
    t = instance.t
    if all(type(x) is int for x in t) and F.size:
        counts = F + 1
        pp, tt = np.asarray(instance.p, dtype=np.float64), np.asarray(t, dtype=np.float64)
        if float(counts.max(axis=0) @ (pp * tt)) < 2.0**52:  # no int64 product overflows
            tt = tt.astype(np.int64)
            tmax = (counts * tt).max(axis=1)
            area = (counts * (pp.astype(np.int64) * tt)).sum(axis=1)
            return np.maximum(tmax.astype(np.float64),
                              area.astype(np.float64) / instance.P).tolist()
    if not all(isinstance(x, float) for x in t):
        return [float(lower_bound(instance, Scenario(tuple(int(x) for x in f)))) for f in F]
    counts = F + 1
    tt = np.asarray(t, dtype=np.float64)
    tmax = (counts * tt).max(axis=1)
    area = np.cumsum((counts * np.asarray(instance.p, dtype=np.int64)) * tt, axis=1)[:, -1]
    return np.maximum(tmax, area / instance.P).tolist()


def big_jobs_bound(instance: RigidInstance,
                   scenario: Scenario | Sequence[int] | None = None) -> Any:
    """LB_big(f) = sum over jobs with p_j > P/2 of (f_j + 1) t_j  [INFERRED, non-paper, §7].

    Two jobs with p_i + p_j > P never overlap, so all attempts of the "big" jobs (2 p_j > P) run
    one after the other. Returns 0 when there is no big job. Not used by the paper.
    """
    P = instance.P
    return sum((c * job.t for c, job in zip(_counts(instance, scenario), instance.jobs, strict=True)
                if 2 * job.p > P), 0)


def _check_P(P: int) -> int:
    return strict_int(P, "P", 1)


def greedy_ratio(P: int) -> Fraction:
    """2 - 1/P: GREEDY (R-LIST-0), any priority (Proposition 2, Eq. 10)."""
    return 2 - Fraction(1, _check_P(P))


def reservation_ljf_ratio(P: int) -> Fraction:
    """3 - 4/(P+1): RESERVATION (R-LIST-1, R-LIST-Q) with LJF (Proposition 1, Eq. 9)."""
    return 3 - Fraction(4, _check_P(P) + 1)


def shelf_lb_ratio(P: int) -> Fraction:
    """H_P = 1 + 1/2 + ... + 1/P: ratio forced on every shelf algorithm (Proposition 3)."""
    return sum((Fraction(1, k) for k in range(1, _check_P(P) + 1)), Fraction(0))


def shelffill_lpt_lb(P: int, eps: Fraction = Fraction(1, 100)) -> Fraction:
    """P / (1 + (1+eps)(P-1)/P): ratio forced on R-SHELFFILL-LPT by Proposition 4's instance.

    The heuristic makespan is P and the explicit certificate has makespan 1 + (1+eps)(P-1)/P.
    """
    P = _check_P(P)
    eps = Fraction(eps)
    return Fraction(P) / (1 + (1 + eps) * Fraction(P - 1, P))
