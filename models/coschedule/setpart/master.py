"""The set-partitioning master problem in highspy (spec 001 §2.3), shared by every
set-partitioning model::

    min sum_B c_B z_B   s.t.  sum_{B ni i} z_B = 1  for every task i,   z_B in {0, 1}

plus, optionally, the pack-count cut sum_B z_B >= ceil(n/k) (`min_packs`) and subset-row cuts
(`subset_rows`). `Master` solves its LP (duals for pricing) in-process; its MIP runs in a forked
child under a hard limit (`hardlimit`), since HiGHS's presolve does not always check its
``time_limit``; `mip_over_pool` builds and solves the MIP over some packs of the pool (the
one MIP of ``setpart-full``, the early round of ``setpart-cg``). `partition_master` and
`add_pack_columns` are the bare rows and columns, from which ``setpart-bp`` builds its own
master. HiGHS is set up, limited and read through `resilsched.solvers`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from resilsched.heuristics.coschedule import Packs
from resilsched.instances.coschedule import CoscheduleInstance
from resilsched.models.coschedule.hardlimit import run_limited
from resilsched.models.coschedule.setpart.pool import PackPool
from resilsched.models.coschedule.setpart.subset_rows import SubsetRowCuts
from resilsched.solution import Status
from resilsched.solvers import new_highs, run_highs, set_time_limit

if TYPE_CHECKING:
    import highspy

Column = tuple[int, ...]


def min_packs(inst: CoscheduleInstance) -> int:
    """ceil(n / k): every co-schedule has at least this many packs (at most k tasks each)."""
    return -(-inst.n // inst.k)


def singletons(inst: CoscheduleInstance) -> tuple[list[tuple[int, ...]], list[float]]:
    """The n packs of one task each, on p processors (always a feasible master)."""
    return [(i,) for i in range(inst.n)], [float(inst.t(i, inst.p)) for i in range(inst.n)]


def pack_columns(packs: Packs) -> tuple[list[tuple[int, ...]], list[float]]:
    """The packs of a co-schedule as master columns (members, float cost)."""
    return [b.tasks for b in packs], [float(b.time) for b in packs]


def partition_master(n: int, min_packs: int | None = None,
                     settings: dict[str, Any] | None = None) -> highspy.Highs:
    """A HiGHS model (`resilsched.solvers.new_highs` with `settings`, the model's
    ``highs_options``) with n rows fixed to 1: each task in exactly one pack.

    With `min_packs`, row n is the pack-count cut sum_B z_B >= min_packs (columns get a 1 there
    through `add_pack_columns(..., extra_rows=...)`).
    """
    import highspy
    h = new_highs(settings)
    ones = np.ones(n)
    h.addRows(n, ones, ones, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    if min_packs is not None:
        h.addRow(float(min_packs), highspy.kHighsInf, 0, np.zeros(0, np.int32), np.zeros(0))
    return h


def add_pack_columns(h: highspy.Highs, packs: list[Column], costs: list[float],
                     index: set[Column],
                     extra_rows: Callable[[Column], list[int]] | None = None
                     ) -> list[tuple[Column, float]]:
    """Add the packs not yet in `index` as columns (cost c, x >= 0, a 1 in each member's row and
    in each row of ``extra_rows(pack)`` if given).

    Records them in `index` and returns the new (pack, cost) pairs in column order.
    """
    import highspy
    new = [(b, c) for b, c in zip(packs, costs, strict=True) if b not in index]
    if not new:
        return new
    starts, idx = [], []
    for b, _ in new:
        starts.append(len(idx))
        idx.extend(b)
        if extra_rows is not None:
            idx.extend(extra_rows(b))
    m = len(new)
    h.addCols(m, np.array([c for _, c in new]), np.zeros(m), np.full(m, highspy.kHighsInf),
              len(idx), np.array(starts, np.int32), np.array(idx, np.int32), np.ones(len(idx)))
    index.update(b for b, _ in new)
    return new


@dataclass(frozen=True)
class MipResult:
    """A MIP run: the chosen packs (None: no feasible point), HiGHS's dual bound, and whether
    HiGHS proved optimality (with a zero relative gap)."""

    packs: list[Column] | None
    bound: float
    optimal: bool


class Master:
    """Set-partitioning master. Rows: one per task (= 1), then (with `min_packs`) the pack-count
    cut sum_B z_B >= min_packs, then one subset-row cut per triple of `cuts` (<= 1).
    Columns: packs."""

    def __init__(self, n: int, min_packs: int | None = None, cuts: SubsetRowCuts | None = None,
                 settings: dict[str, Any] | None = None):
        import highspy
        self.n = n
        self.min_packs = min_packs
        self.cuts = cuts
        self.h = partition_master(n, min_packs, settings)
        self.h.setOptionValue("mip_rel_gap", 0.0)
        self.h.setOptionValue("mip_abs_gap", 1e-6)
        self.cols: list[Column] = []
        self.index: set[Column] = set()
        self.costs: list[float] = []
        self._cols_of_pair: dict[tuple[int, int], list[int]] = defaultdict(list)
        self.count_rows = [] if min_packs is None else [n]
        self.first_cut_row = n + len(self.count_rows)
        for _ in range(len(cuts) if cuts is not None else 0):
            self.h.addRow(-highspy.kHighsInf, 1.0, 0, np.zeros(0, np.int32), np.zeros(0))

    def _extra_rows(self, pack: Column) -> list[int]:
        cut_rows = [] if self.cuts is None else self.cuts.cuts_of(pack)
        return self.count_rows + [self.first_cut_row + q for q in cut_rows]

    def add(self, packs: list[Column], costs: list[float]) -> int:
        new = add_pack_columns(self.h, packs, costs, self.index, extra_rows=self._extra_rows)
        for b, c in new:
            for pair in itertools.combinations(sorted(b), 2):
                self._cols_of_pair[pair].append(len(self.cols))
            self.cols.append(b)
            self.costs.append(c)
        return len(new)

    def add_cut(self, triple: tuple[int, int, int]) -> None:
        """Register a subset-row cut and add its row over the current columns."""
        import highspy
        assert self.cuts is not None
        self.cuts.add(triple)
        hit = sorted({c for pair in itertools.combinations(sorted(triple), 2)
                      for c in self._cols_of_pair.get(pair, ())})
        self.h.addRow(-highspy.kHighsInf, 1.0, len(hit), np.array(hit, np.int32),
                      np.ones(len(hit)))

    def solve_lp(self, seconds: float = math.inf) -> tuple[np.ndarray, float, np.ndarray]:
        """Duals of the master LP: pi per task row, mu >= 0 of the pack-count row, sigma <= 0
        per subset-row cut. HiGHS's simplex checks `seconds` itself."""
        import highspy
        ncol = len(self.cols)
        self.h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                                     np.array([highspy.HighsVarType.kContinuous] * ncol))
        set_time_limit(self.h, seconds)
        run_highs(self.h)
        duals = np.array(self.h.getSolution().row_dual)
        n, c = self.n, self.first_cut_row
        mu = max(0.0, float(duals[n])) if self.count_rows else 0.0
        return duals[:n], mu, np.minimum(0.0, duals[c:])

    def lp_optimal(self) -> bool:
        import highspy
        return self.h.getModelStatus() == highspy.HighsModelStatus.kOptimal

    def support(self) -> list[tuple[Column, float]]:
        """(pack, value) of the columns positive in the last LP solution."""
        x = self.h.getSolution().col_value
        return [(b, x[c]) for c, b in enumerate(self.cols) if x[c] > 1e-6]

    def solve_mip(self, seconds: float, incumbent: list[Column] | None = None,
                  rel_gap: float = 0.0) -> MipResult:
        """The integer program over the current columns, in a child killed after `seconds`
        (`hardlimit.PhaseTimeout`); `incumbent` seeds HiGHS.

        With ``rel_gap > 0`` HiGHS stops within that relative gap and the result is never
        reported as proven optimal.
        """
        return run_limited(lambda: self.run_mip(seconds, incumbent, rel_gap), seconds)

    def run_mip(self, seconds: float, incumbent: list[Column] | None,
             rel_gap: float = 0.0) -> MipResult:
        """The MIP in this process (HiGHS's own time limit only): `solve_mip` without the
        child."""
        import highspy
        h = self.h
        h.setOptionValue("mip_rel_gap", float(rel_gap))
        ncol = len(self.cols)
        h.changeColsIntegrality(ncol, np.arange(ncol, dtype=np.int32),
                                np.array([highspy.HighsVarType.kInteger] * ncol))
        h.changeColsBounds(ncol, np.arange(ncol, dtype=np.int32), np.zeros(ncol), np.ones(ncol))
        set_time_limit(h, seconds)
        if incumbent is not None and all(b in self.index for b in incumbent):
            chosen = set(incumbent)
            sol = highspy.HighsSolution()
            sol.col_value = [1.0 if b in chosen else 0.0 for b in self.cols]
            sol.value_valid = True
            h.setSolution(sol)
        run = run_highs(h, quiet=True)
        optimal = run.status is Status.OPTIMAL and rel_gap == 0
        bound = -math.inf if run.bound is None else run.bound
        if not run.has_solution:  # no feasible point
            return MipResult(None, bound, False)
        x = h.getSolution().col_value
        return MipResult([self.cols[c] for c in range(ncol) if x[c] > 0.5], bound, optimal)


def mip_over_pool(template: Master, pool: PackPool, keep: dict[int, np.ndarray],
                  incumbent: Packs, settings: dict, end: float, rel_gap: float
                  ) -> tuple[MipResult, int]:
    """Build a fresh master (same cuts) over the incumbent's packs and the pool packs where
    `keep` holds, then solve its MIP until `end` (time.monotonic); runs inside the forked child
    of `run_limited`."""
    mip = Master(template.n, template.min_packs, template.cuts, settings)
    mip.add(*pack_columns(incumbent))
    columns = pool.select(keep)
    mip.add([b for b, _ in columns], [c for _, c in columns])
    result = mip.run_mip(end - time.monotonic(), incumbent.task_lists(), rel_gap)
    return result, len(mip.cols)
