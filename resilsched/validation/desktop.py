"""Allocations of jobs to predicted availabilities (desktop family, spec 004 §1.4, §1.6, F2).

Shares no code with the heuristics or the models it checks: it reads the instance (machines
with ``b``, ``e0``, ``a``, ``u``; jobs ``p``; ``t(i, j)`` = t_ij) and the allocation
(``intervals``: {(machine, k from 1): jobs}, ``horizon``, ``H``) by attribute only.
"""

from __future__ import annotations

from typing import Any

from resilsched.errors import InvalidSchedule


def _ends(instance: Any, i: int) -> list[int]:
    """e_i(0), ..., e_i(K_i) of machine i from its e0, a and u (running sums, computed here)."""
    mach = instance.machines[i]
    out = [mach.e0]
    for a, u in zip(mach.a, mach.u, strict=True):
        out.append(out[-1] + a + u)
    return out


def allocation_horizon(instance: Any, intervals: dict, slack_rule: bool) -> int:
    """H(pi) recomputed from the original trace: max over used (i, k) of
    e_i(k-1) + u_i(k) + S_i(k) + max(M_i(k), M_i(k+1), M_i(k+2)) (the max term only under the
    slack rule); 0 for an empty allocation."""
    S: dict = {}
    M: dict = {}
    for (i, k), jobs in intervals.items():
        ts = [instance.t(i, j) for j in jobs]
        S[(i, k)] = sum(ts)
        M[(i, k)] = max(ts, default=0)
    best = 0
    ends: dict[int, list[int]] = {}
    for (i, k), s in S.items():
        if not intervals[(i, k)]:
            continue
        if i not in ends:
            ends[i] = _ends(instance, i)
        h = ends[i][k - 1] + instance.machines[i].u[k - 1] + s
        if slack_rule:
            h += max(M.get((i, k + x), 0) for x in range(3))
        best = max(best, h)
    return best


def validate_desktop_schedule(instance: Any, schedule: Any, slack_rule: bool | None = None,
                              last_interval: bool = True) -> None:
    """Check an allocation (spec 1.4, 1.6).

    Rules: every job is in exactly one interval (i, k) with 0 <= i < m and 1 <= k <= K_i
    (k <= K_i - 1 when `last_interval` is False, as for GreedySlack, A-8); the jobs of an
    interval fit its availability (S_i(k) <= a_i(k)); under the slack rule (`slack_rule`, default
    the schedule's own) every interval k of every machine, empty ones included, keeps
    d_i(k) = a_i(k) - S_i(k) >= max(M_i(k), M_i(k+1), M_i(k+2)); the allocation's H equals
    H(pi) recomputed here, and its horizon is >= H(pi).

    Raises `InvalidSchedule` naming the first broken rule.
    """
    rule = schedule.slack_rule if slack_rule is None else slack_rule
    n, m = len(instance.p), len(instance.machines)
    seen: dict[int, tuple[int, int]] = {}
    S: dict[tuple[int, int], int] = {}
    M: dict[tuple[int, int], int] = {}
    for (i, k), jobs in schedule.intervals.items():
        if not (isinstance(i, int) and 0 <= i < m):
            raise InvalidSchedule(f"interval ({i}, {k}): machine {i} does not exist")
        K = len(instance.machines[i].a)
        top = K if last_interval else K - 1
        if not (isinstance(k, int) and 1 <= k <= top):
            raise InvalidSchedule(f"interval ({i}, {k}): k must be in [1, {top}]")
        for j in jobs:
            if not (isinstance(j, int) and 0 <= j < n):
                raise InvalidSchedule(f"interval ({i}, {k}): job {j} does not exist")
            if j in seen:
                raise InvalidSchedule(f"job {j} is in intervals {seen[j]} and {(i, k)}")
            seen[j] = (i, k)
        ts = [instance.t(i, j) for j in jobs]
        S[(i, k)], M[(i, k)] = sum(ts), max(ts, default=0)
        a = instance.machines[i].a[k - 1]
        if S[(i, k)] > a:
            raise InvalidSchedule(f"interval ({i}, {k}): jobs last {S[(i, k)]} s > a={a}")
    if len(seen) != n:
        missing = next(j for j in range(n) if j not in seen)
        raise InvalidSchedule(f"job {missing} is not allocated ({n - len(seen)} missing)")
    if rule:  # max(M(k), M(k+1), M(k+2)) > 0 only within two intervals before a used one
        near = sorted({(i, k - x) for (i, k), jobs in schedule.intervals.items() if jobs
                       for x in range(3) if k - x >= 1})
        for i, k in near:
            mach = instance.machines[i]
            need = max(M.get((i, k + x), 0) for x in range(3))
            d = mach.a[k - 1] - S.get((i, k), 0)
            if need and d < need:
                raise InvalidSchedule(f"slack rule broken at machine {i} interval {k}: "
                                      f"d={d} < max(M(k), M(k+1), M(k+2))={need}")
    h = allocation_horizon(instance, schedule.intervals, rule)
    if schedule.H != h:
        raise InvalidSchedule(f"H(pi) is {h}, the allocation says {schedule.H}")
    if schedule.horizon < h:
        raise InvalidSchedule(f"horizon {schedule.horizon} is below H(pi)={h}")
