"""Exact reduction of the rigid scenario model: jobs that always run alone [OURS] (decision R6).

A job j with p_j + p_k > P for every other job k fits beside no job. `split_isolated` takes such
jobs out: T_OPT(f) = T_OPT(rest) + sum_{j isolated} m_j t_j, and `place_isolated` rebuilds a
full schedule with the isolated attempts back to back from time 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from resilsched.models.rigid.scaling import ScaledScenario


def isolated_jobs(p: Sequence[int], P: int) -> list[int]:
    """Jobs j with p_j + p_k > P for every other job k: they fit beside no job."""
    if len(p) < 2:
        return []
    order = sorted(range(len(p)), key=lambda j: p[j])
    narrowest, second = order[0], order[1]
    return [j for j in range(len(p))
            if p[j] + p[second if j == narrowest else narrowest] > P]


def split_isolated(data: ScaledScenario, isolated: Sequence[int]
                   ) -> tuple[ScaledScenario, list[int]]:
    """The scenario without the `isolated` jobs, and the kept job indices.

    Exact reduction: T_OPT(f) = T_OPT(rest) + sum_{j isolated} m_j t_j. No attempt of an
    isolated job overlaps any other attempt (capacity, Eq. 2; chain, Eq. 3), so cutting each of
    them out of an optimal schedule and shifting what follows left by t_j keeps every
    constraint of the rest; conversely the rest's schedule delayed by that sum, after the
    isolated attempts run back to back from 0, is feasible (`place_isolated`).
    """
    gone = set(isolated)
    kept = [j for j in range(data.n) if j not in gone]
    return data.restrict(kept), kept


def compress_starts(data: ScaledScenario, starts: list[list[int]], isolated: Sequence[int]
                    ) -> list[list[int]]:
    """A schedule of `data` restricted to the kept jobs with the isolated attempts cut out:
    each start moves left by the length of the isolated attempts that end by it."""
    ends = [(s + data.t[j], data.t[j]) for j in isolated for s in starts[j]]

    def shift(x: int) -> int:
        return sum(length for end, length in ends if end <= x)

    gone = set(isolated)
    return [[s - shift(s) for s in starts[j]] for j in range(data.n) if j not in gone]


def place_isolated(data: ScaledScenario, isolated: Sequence[int], kept: Sequence[int],
                   rest_starts: list[list[int]]) -> list[list[int]]:
    """Full start times: isolated attempts back to back from 0, then the rest's schedule."""
    starts: list[list[int]] = [[] for _ in range(data.n)]
    now = 0
    for j in isolated:
        for _ in range(data.m[j]):
            starts[j].append(now)
            now += data.t[j]
    for j, row in zip(kept, rest_starts, strict=True):
        starts[j] = [s + now for s in row]
    return starts
