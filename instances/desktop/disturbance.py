"""Disturbances of the predicted unavailabilities (spec 004 §1.3, §4.3, A-12, A-13).

A disturbance shifts unavailability k of machine i by an integer delta_i(k): it runs on
[s_i(k) + delta, e_i(k) + delta) and keeps its length u_i(k). Admissible shifts are
-a_i(k) <= delta_i(k) <= a_i(k+1); the last unavailability of a machine has the upper bound 0
(A-13: a_i(K+1) is unknown), and the sentinel unavailability 0 (before e_i(0)) never moves.
Overlapping disturbed unavailabilities are merged (§4.3).

`Disturbance` is the scenario object of the family: checked once here, at the boundary
(`Disturbance.parse`), trusted by the executor. `sample_disturbance` draws
delta ~ U[-alpha a(k), alpha a(k+1)] per unavailability, rounded half up, from a seed alone: the
same seed gives the same disturbed trace for every variant and job set (common random numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.desktop.model import DesktopInstance


def delta_bounds(instance: DesktopInstance, i: int) -> tuple[list[int], list[int]]:
    """(lower, upper) admissible shifts of the unavailabilities k = 1..K_i of machine i."""
    a = instance.machines[i].a
    lo = [-x for x in a]
    hi = list(a[1:]) + [0]
    return lo, hi


@dataclass(frozen=True)
class Disturbance:
    """delta_i(k) per machine i and unavailability k = 1..K_i (index k-1)."""

    deltas: tuple[tuple[int, ...], ...]

    @classmethod
    def none(cls, instance: DesktopInstance) -> Disturbance:
        """The undisturbed trace (every delta 0)."""
        return cls(tuple((0,) * mach.K for mach in instance.machines))

    @classmethod
    def parse(cls, value: Any, instance: DesktopInstance) -> Disturbance:
        """A checked disturbance from a list of lists or text ``"d,d,...;d,d,..."`` (one group
        per machine; an empty group means no shift on that machine).

        Raises `InvalidInstance` naming ``deltas[i][k]`` when a shift is not an integer or is
        outside [-a_i(k), a_i(k+1)].
        """
        if isinstance(value, Disturbance):
            value = [list(d) for d in value.deltas]
        if isinstance(value, str):
            groups = value.strip().split(";")
            try:
                value = [[int(x) for x in g.split(",") if x.strip()] for g in groups]
            except ValueError:
                raise InvalidInstance("deltas", f"{value!r} must be integers 'd,d;d,d' "
                                                "(one group per machine)") from None
        if not isinstance(value, (list, tuple)) or len(value) != instance.m:
            got = len(value) if isinstance(value, (list, tuple)) else type(value).__name__
            raise InvalidInstance("deltas", f"needs one list per machine ({instance.m}), "
                                            f"got {got}")
        out = []
        for i, row in enumerate(value):
            K = instance.machines[i].K
            if not isinstance(row, (list, tuple)):
                raise InvalidInstance(f"deltas[{i}]", "must be a list of integer shifts")
            if len(row) == 0:
                row = [0] * K
            if len(row) != K:
                raise InvalidInstance(f"deltas[{i}]", f"has {len(row)} shifts but machine {i} "
                                                      f"has {K} unavailabilities")
            lo, hi = delta_bounds(instance, i)
            clean = []
            for k, d in enumerate(row):
                if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
                    raise InvalidInstance(f"deltas[{i}][{k}]", f"{d!r} must be an integer")
                if not lo[k] <= d <= hi[k]:
                    raise InvalidInstance(f"deltas[{i}][{k}]", f"{d} is outside "
                                                               f"[{lo[k]}, {hi[k]}]")
                clean.append(int(d))
            out.append(tuple(clean))
        return cls(tuple(out))

    def to_list(self) -> list[list[int]]:
        return [list(d) for d in self.deltas]

    def to_dict(self) -> dict[str, Any]:
        return {"deltas": self.to_list()}


def sample_disturbance(instance: DesktopInstance, seed: int | np.random.SeedSequence,
                       alpha: float = 1.0) -> Disturbance:
    """delta_i(k) ~ U[-alpha a_i(k), alpha a_i(k+1)] rounded half up (spec 4.3, A-12, A-13).

    The draws depend on the machines and the seed only (common random numbers across variants
    and job sets). `alpha` in [0, 1] scales the admissible range.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise InvalidInstance("alpha", f"{alpha!r} must be a number in [0, 1]")
    rng = np.random.default_rng(seed)
    out = []
    for mach in instance.machines:
        a = np.asarray(mach.a, dtype=np.float64)
        lo = -alpha * a
        hi = np.append(alpha * a[1:], 0.0)
        x = lo + (hi - lo) * rng.random(mach.K)
        d = np.clip(np.floor(x + 0.5), np.ceil(lo), np.floor(hi)).astype(np.int64)
        out.append(tuple(int(v) for v in d))
    return Disturbance(tuple(out))


def unavailability_periods(instance: DesktopInstance, disturbance: Disturbance | None,
                           i: int) -> list[tuple[int, int]]:
    """Machine i's disturbed unavailabilities [start, end), sorted and merged (spec 4.3), the
    sentinel (-inf, e_i(0)) excluded."""
    mach = instance.machines[i]
    deltas = disturbance.deltas[i] if disturbance is not None else (0,) * mach.K
    raw = sorted((mach.s[k] + d, mach.e[k + 1] + d) for k, d in enumerate(deltas))
    merged: list[list[int]] = []
    for start, end in raw:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


#: start and end of the padding periods (after every real date, MAX_TIME = 1e12)
FAR = np.iinfo(np.int64).max // 4


def merge_periods(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row by row: sort the periods [start, end), merge the overlapping and touching ones, and
    pad with periods at FAR (at least one per row). Vectorised over rows."""
    order = np.argsort(starts, axis=1, kind="stable")
    st = np.take_along_axis(starts, order, axis=1)
    en = np.take_along_axis(ends, order, axis=1)
    R, L = st.shape
    run = np.maximum.accumulate(en, axis=1)
    new = np.ones((R, L), dtype=bool)
    new[:, 1:] = st[:, 1:] > run[:, :-1]
    idx = np.where(new, np.arange(L), L)
    nxt = np.minimum.accumulate(idx[:, ::-1], axis=1)[:, ::-1]  # next group start at or after
    last = np.empty_like(nxt)
    last[:, :-1] = nxt[:, 1:] - 1
    last[:, -1] = L - 1
    gend = np.take_along_axis(run, last, axis=1)  # end of the group starting here
    perm = np.argsort(np.where(new, np.arange(L), L + np.arange(L)), axis=1, kind="stable")
    keep = np.take_along_axis(new, perm, axis=1)
    out_s = np.where(keep, np.take_along_axis(st, perm, axis=1), FAR)
    out_e = np.where(keep, np.take_along_axis(gend, perm, axis=1), FAR)
    pad = np.full((R, 1), FAR, dtype=np.int64)
    return np.hstack([out_s, pad]), np.hstack([out_e, pad])


def periods_matrix(instance: DesktopInstance,
                   disturbance: Disturbance | None) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends): every machine's merged disturbed unavailabilities as (m, L) int64 arrays
    padded with periods at FAR (the vectorised executor's input)."""
    width = max(mach.K for mach in instance.machines)
    starts = np.full((instance.m, width), FAR, dtype=np.int64)
    ends = np.full((instance.m, width), FAR, dtype=np.int64)
    for i, mach in enumerate(instance.machines):
        d = np.asarray(disturbance.deltas[i] if disturbance is not None else (0,) * mach.K,
                       dtype=np.int64)
        starts[i, :mach.K] = np.asarray(mach.s, dtype=np.int64) + d
        ends[i, :mach.K] = np.asarray(mach.e[1:], dtype=np.int64) + d
    return merge_periods(starts, ends)


def disturbances_for(instance: DesktopInstance, seeds: Sequence[int | np.random.SeedSequence],
                     alpha: float = 1.0) -> list[Disturbance]:
    """One disturbance per seed (the 30 disturbed traces of a machine set, spec 4.3)."""
    return [sample_disturbance(instance, s, alpha) for s in seeds]
