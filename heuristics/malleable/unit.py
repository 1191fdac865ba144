"""Processor counts in steps of 1 in the fault-free context (spec 001 A-18, option ``step = 1``).

The simulator allocates pairs. A fault-free run in steps of one processor is the same run on a
*half-processor view* of the instance: p' = 2p half-processors, an application on k' = 2k of them
runs in t'_{i,2k} = t_{i,k}, and its redistribution cost is unchanged when m' = 2m (with the same
c) and beta' = beta / 2, since

    RC'^{2j -> 2k} = S + 2 max(min(j, k), |k - j|) (2 m c / (4 j k) + beta / 2) = RC^{j -> k}.

Without failures nothing else depends on the count (no checkpoints, t^R = alpha t), so every
pair decision on the view is a single-processor decision on the instance: the initial 2 each
is 1 each, j_max over even j' in [2, 2p] is j_max over every j in [1, p]. `HalfView` is that
view (duck-typed: the attributes the simulator reads), and `to_units` maps a run's counts
back (decision MA-11).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np


class HalfView:
    """The fault-free half-processor view of a malleable instance (module doc)."""

    fault_free = True
    lam = 0.0
    mtbf = None
    failures = None

    def __init__(self, inst) -> None:
        self.inst = inst
        self.n = inst.n
        self.p = self.p_even = 2 * inst.p
        self.downtime = inst.downtime
        self.checkpoint_factor = inst.checkpoint_factor
        self.S = inst.S
        self.beta = inst.beta / 2
        self.period = inst.period

    @cached_property
    def m(self) -> np.ndarray:
        return 2.0 * self.inst.m

    def times(self, idx: np.ndarray, k: np.ndarray) -> np.ndarray:
        """t'_{i,k'} = t_{i,k'/2} (k' even)."""
        return self.inst.times(idx, np.asarray(k) // 2)


def to_units(phases: list[tuple]) -> list[tuple]:
    """A run's phases on the view, with counts in processors of the instance."""
    return [ph[:3] + (ph[3] // 2,) + ph[4:] for ph in phases]
