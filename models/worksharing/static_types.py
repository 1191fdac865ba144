"""The schedule matching the static bound (issue 23; `resilsched.bounds.worksharing_static`):
every worker runs the same chunk sequence, the one that attains M(phi_c) at the bound's c, and
the workload is cut into *types*, each a multiset of chunks (one holder per item, on distinct
workers), chosen by a linear program.

**Type LP.** With chunk i ending at t_i and holding omega_i units on every worker (so p omega_i
units in all), a type S (chunk indices, |S| <= p) of mass y_S is done with probability
1 - prod_{i in S} min(1, t_i / X). Maximise sum_S y_S (1 - prod t_i/X) subject to sum_S y_S
<= W and sum_S y_S count_S(i) <= p omega_i for every chunk i. Columns are generated: the
prices v (workload) and phi_i (chunk i) of the restricted LP price a type at
1 - prod - sum phi - v, and the best type of each size g <= p is looked for by a dynamic
program over the log-product ln(1/prod) rounded up to a grid (a heuristic pricing: every
column is valued exactly, so the LP's value is that of its schedule).

**Cyclic schedule.** Each type S = (i_1, ..., i_g) of mass y_S becomes p pieces of y_S / p; the
r-th piece is held by worker (r + k) mod p in its chunk i_k. Every worker then holds exactly
sum_S count_S(i) y_S / p <= omega_i in chunk i, so its chunks end no later than t_i and the
expected work (evaluated exactly, `expected_work`) is at least the LP's value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from resilsched.heuristics.worksharing.budget import Budget
from resilsched.instances.worksharing.evaluate import PieceSchedule, expected_work
from resilsched.solvers import new_highs, run_highs

#: pricing grid of ln(1/prod): step and largest value (products below e^-LOG_MAX count as 0)
LOG_STEP, LOG_MAX = 0.002, 8.0
#: pricing rounds at most, and types of one chunk repeated up to this many times to start with
MAX_ROUNDS, START_COPIES = 300, 6
#: types below this mass are dropped from the schedule (they are worth less than the rounding)
MIN_MASS = 1e-12
#: reduced cost a new column must exceed
RC_TOL = 1e-10


@dataclass(frozen=True)
class StaticSchedule:
    """The cyclic schedule of the type LP: the schedule, its exact expected work, the LP's
    value, the number of chunks per worker and of types, and whether the pricing converged."""

    schedule: PieceSchedule
    expected: float
    lp_value: float
    chunks: int
    types: int
    converged: bool


class _TypeLP:
    """The restricted type LP in HiGHS (`resilsched.solvers.new_highs`): rows 0 (workload)
    and 1..m (chunks)."""

    def __init__(self, W: float, p: int, t: np.ndarray, supply: np.ndarray):
        import highspy

        self.t, self.p, self.m = t, p, len(t)
        self.inf = highspy.kHighsInf
        h = new_highs()
        none = np.zeros(0, dtype=np.int32)
        h.addRows(1, np.array([-self.inf]), np.array([float(W)]), 0, none, none, np.zeros(0))
        h.addRows(self.m, np.full(self.m, -self.inf), p * supply, 0, none, none, np.zeros(0))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.h = h
        self.types: list[tuple[int, ...]] = []
        self.seen: set[tuple[int, ...]] = set()

    def add(self, items: list[int]) -> bool:
        key = tuple(sorted(items))
        if not key or len(key) > self.p or key in self.seen:
            return False
        self.seen.add(key)
        self.types.append(key)
        count = np.bincount(key, minlength=self.m)
        rows = np.flatnonzero(count)
        value = 1.0 - float(np.prod(self.t[list(key)]))
        self.h.addCol(value, 0.0, self.inf, len(rows) + 1,
                      np.concatenate([[0], rows + 1]).astype(np.int32),
                      np.concatenate([[1.0], count[rows]]).astype(float))
        return True

    def solve(self) -> tuple[float, float, np.ndarray]:
        """(value, price of the workload, prices of the chunks) of the restricted LP."""
        run_highs(self.h)
        duals = np.abs(np.asarray(self.h.getSolution().row_dual))
        return self.h.getInfo().objective_function_value, duals[0], duals[1:]

    def masses(self) -> np.ndarray:
        return np.asarray(self.h.getSolution().col_value)


def _price(lp: _TypeLP, v: float, phi: np.ndarray, steps: np.ndarray) -> int:
    """Add the best type of every size g <= p found by the log-product program (`steps`: each
    chunk's ln(1/t) in grid steps, rounded up); returns how many columns were added."""
    B = int(LOG_MAX / LOG_STEP) + 1
    worth = 1.0 - np.exp(-np.arange(B) * LOG_STEP)
    worth[-1] = 1.0  # the last cell holds every product below e^-LOG_MAX
    cost = np.full(B, np.inf)
    cost[0] = 0.0
    choices = []
    added = 0
    for g in range(1, lp.p + 1):
        new = np.full(B, np.inf)
        pick = np.full(B, -1)
        suffix = np.minimum.accumulate(cost[::-1])[::-1]
        for k, step in enumerate(steps.tolist()):
            cand = cost[:B - step] + phi[k]  # one more item k: ln(1/prod) grows by step
            better = cand < new[step:]
            new[step:][better] = cand[better]
            pick[step:][better] = k
            top = suffix[B - 1 - step] + phi[k]  # arrivals beyond the grid
            if top < new[-1]:
                new[-1], pick[-1] = top, k
        cost = new
        choices.append(pick)
        L = int(np.argmax(worth - cost))
        if worth[L] - cost[L] <= v + RC_TOL:
            continue
        items = []
        for gg in range(g, 0, -1):
            k = int(choices[gg - 1][L])
            items.append(k)
            L = max(0, L - int(steps[k]))
        t = lp.t[items]
        if 1.0 - float(np.prod(t)) - float(phi[items].sum()) > v + RC_TOL and lp.add(items):
            added += 1
    return added


def cyclic_schedule(W: float, p: int, types: list[tuple[int, ...]], masses: np.ndarray
                    ) -> PieceSchedule:
    """The cyclic schedule of the module docstring (types of mass below `MIN_MASS` dropped)."""
    sizes: list[float] = []
    held: list[list[tuple[int, int]]] = [[] for _ in range(p)]
    for items, y in zip(types, masses, strict=True):
        if y < MIN_MASS:
            continue
        for r in range(p):
            piece = len(sizes)
            sizes.append(float(y) / p)
            for k, chunk in enumerate(items):
                held[(r + k) % p].append((chunk, piece))
    seqs, chunk_of = [], []
    for entries in held:
        entries.sort()
        seqs.append(np.array([piece for _, piece in entries], dtype=np.int64))
        chunk_of.append(np.array([chunk for chunk, _ in entries], dtype=np.int64))
    total = float(np.sum(sizes))
    arr = np.array(sizes) * (min(1.0, W / total) if total > 0 else 1.0)  # float noise past W
    return PieceSchedule(W, arr, tuple(seqs), tuple(chunk_of))


def static_schedule(W: float, p: int, risk, eps: float, chunk_ends: np.ndarray,
                    budget: Budget | None = None, max_entries: int | None = None
                    ) -> StaticSchedule | None:
    """The type LP and its cyclic schedule on the chunk sequence ending at `chunk_ends` (time
    units, linear `risk`); None without chunks, or when the schedule would hold more than
    `max_entries` chunk entries (p x the items of every type kept; checked before it is
    built). `budget` stops the pricing (the restricted LP's schedule is returned); one pricing
    round spends m x p x (LOG_MAX / LOG_STEP) units.
    """
    ends = np.asarray(chunk_ends, dtype=float)
    if ends.size == 0:
        return None
    supply = np.diff(np.concatenate([[0.0], ends])) - eps
    supply = np.maximum(supply, 0.0)
    t = np.minimum(1.0, ends / risk.X)
    lp = _TypeLP(W, p, t, supply)
    for i in range(len(t)):
        for g in range(1, min(p, START_COPIES) + 1):
            lp.add([i] * g)
    logs = -np.log(np.maximum(t, 1e-300))
    steps = np.minimum(np.maximum(1, np.ceil(logs / LOG_STEP)).astype(np.int64),
                       int(LOG_MAX / LOG_STEP))
    converged = False
    value = 0.0
    for _ in range(MAX_ROUNDS):
        value, v, phi = lp.solve()
        if budget is not None and budget.expired():
            break
        added = _price(lp, v, phi, steps)
        if budget is not None:
            budget.spend(len(t) * p * LOG_MAX / LOG_STEP)
        if not added:
            converged = True
            break
    else:
        value, _, _ = lp.solve()
    masses = lp.masses()
    entries = p * sum(len(items) for items, y in zip(lp.types, masses, strict=True)
                      if y >= MIN_MASS)
    if max_entries is not None and entries > max_entries:
        return None
    schedule = cyclic_schedule(W, p, lp.types, masses)
    E = expected_work(schedule, risk, eps)
    return StaticSchedule(schedule, E, float(value), len(t), int(np.sum(masses >= MIN_MASS)),
                          converged)
