"""``faultfree-optimal``: the fault-free optimum with redistribution at application ends.

Problem (spec 001 §1.6 (1), §1.7 Definition 1.2 without failures, A-18; Theorem 1.7 makes it
strongly NP-complete): no failures and no checkpoints; at t = 0 choose even counts sigma_i >= 2
with sum <= p; at each application end t (ends at one time taken one at a time, by index, A-31)
choose new even counts >= 2 for the running applications that are not inside a redistribution
(t_lastR <= t), within the idle processors plus theirs. An application moved from j to k
processors keeps the fraction done, (t - t_lastR)/t_{i,j}, and works again from
t + RC^{j->k} (1.11); one whose count does not change is untouched. Minimise the last end.

This is exactly the space of decisions of the fault-free heuristics (FF-ENDLOCAL, FF-ENDGREEDY,
FF-NOREDIST and every combination run without failures), so each of them is >= this optimum.

Method: depth-first branch and bound over the decisions at t = 0 and at the at most n - 1 ends,
for tiny instances (n <= 5, p <= 24). Incumbent: the fault-free heuristics. Lower bound of a
choice: the fluid relaxation of `bounds.malleable` (free continuous reallocation) restricted to
what remains, tested at the incumbent T: each application needs at least
s^_i^{-1}(alpha_i / d) d processor-seconds to finish alpha_i of its work in the d seconds left
after its restart, plus its count times the redistribution it starts now, and these needs are
separable, so a choice is dropped when its own need, or the sum of the smallest needs, exceeds
p (T - t). Choices are pruned when they cannot beat the incumbent by a relative 1e-9, so
``optimal`` means within 1e-9 of the optimum (decision MA-8). Out of time: ``feasible`` with
the incumbent and the root bound.
"""

from __future__ import annotations

import bisect
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.bounds.malleable import fluid_bound, upper_hull
from resilsched.errors import InvalidInstance
from resilsched.instances.malleable.formulas import Formulas
from resilsched.numeric import readable
from resilsched.options import SolveOptions
from resilsched.solution import Solution, Status

MAX_N = 5
MAX_P = 24
TOL = 1e-9


@dataclass(frozen=True)
class FaultFreeOptions(SolveOptions):
    """Options of ``faultfree-optimal`` (no knobs of its own)."""


@dataclass(frozen=True)
class PlanPayload:
    """A fault-free plan: the initial counts, then at each end the counts that change.

    `phases` is the same plan as the phases of a run (`resilsched.heuristics.malleable.run.
    RunPayload`: ``(app, start, restart, count, alpha, end, kind, done)``, each ending by a
    ``redistributed`` move or ``finished``), so that the JSON of a plan and of a simulated run
    hold the schedule at the same path, ``solution.phases``.
    """

    initial: tuple[int, ...]
    moves: tuple[tuple[float, int, dict[int, int]], ...]  # (time, ended app, {app: count})
    finish: tuple[float, ...]
    info: dict[str, Any] = field(default_factory=dict)
    phases: tuple[tuple, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"initial": list(self.initial), "finish": list(self.finish),
                "moves": [{"time": t, "ended": e, "counts": {str(a): k for a, k in m.items()}}
                          for t, e, m in self.moves],
                "phase_fields": ["app", "start", "restart", "count", "alpha", "end", "kind",
                                 "done"],
                "phases": [list(p) for p in self.phases], **self.info}

    def lines(self) -> list[str]:
        out = [f"initial processors: {', '.join(map(str, self.initial))}"]
        for t, e, m in self.moves:
            if m:
                moved = ", ".join(f"T{a} -> {k}" for a, k in sorted(m.items()))
                out.append(f"t={readable(t)}: T{e} ends; {moved}")
        out.append("ends: " + ", ".join(readable(x) for x in self.finish))
        return out


def solve_faultfree(instance, scenario=None, *, time_limit=None, **options) -> Solution:
    """The fault-free optimum with redistribution at ends (module docstring)."""
    opts = FaultFreeOptions.of(time_limit, options)
    if instance.n > MAX_N or instance.p > MAX_P:
        raise InvalidInstance("instance", f"n={instance.n}, p={instance.p}: faultfree-optimal "
                              f"is an exhaustive search for tiny instances (n <= {MAX_N}, "
                              f"p <= {MAX_P})")
    t0 = time.perf_counter()
    from resilsched.heuristics.malleable import ff_endgreedy, ff_endlocal, ff_noredist

    opts.say("faultfree-optimal: incumbent from the fault-free heuristics")
    best = min(h(instance).objective for h in (ff_endgreedy, ff_endlocal, ff_noredist))
    search = _Search(instance, best * (1 + 2 * TOL), opts.deadline)
    opts.say("faultfree-optimal: branch and bound")
    search.run()
    root = max(fluid_bound(instance), search.root_bound)
    info = {"nodes": search.nodes}
    if search.plan is None:  # out of time before matching the heuristics
        return Solution(best, min(root, best), Status.FEASIBLE, "faultfree-optimal",
                        "branch-and-bound", time.perf_counter() - t0,
                        payload=PlanPayload((), (), ()), info={**info, "timed_out": True})
    value, initial, moves, finish, phases = search.plan
    payload = PlanPayload(initial, moves, finish, phases=phases)
    if search.timed_out:
        return Solution(value, min(root, value), Status.FEASIBLE, "faultfree-optimal",
                        "branch-and-bound", time.perf_counter() - t0, payload=payload,
                        info={**info, "timed_out": True})
    return Solution(value, value, Status.OPTIMAL, "faultfree-optimal", "branch-and-bound",
                    time.perf_counter() - t0, payload=payload, info=info)


class _Search:
    """Depth-first search over the decisions; states are tuples per application
    (count, alpha at t_lastR, t_lastR), None once it has ended."""

    def __init__(self, instance, incumbent: float, deadline) -> None:
        F = Formulas(instance.replace(mtbf=None, failures=None))
        self.n, self.p = instance.n, instance.p
        self.ks = list(range(2, instance.p_even + 1, 2))
        kk = np.array(self.ks)
        self.t = [dict(zip(self.ks, F.t(np.full(kk.size, i), kk).tolist(), strict=True))
                  for i in range(self.n)]
        self.rc = [{(j, k): float(F.rc(np.array([i]), j, k)[0]) for j in self.ks for k in self.ks}
                   for i in range(self.n)]
        self.fast = [self.t[i][self.ks[-1]] for i in range(self.n)]
        self.hull = [_hull_of(self.ks, self.t[i]) for i in range(self.n)]
        self.best = incumbent
        self.plan = None
        self.deadline = deadline
        self.nodes = 0
        self.timed_out = False
        self.root_bound = max(self.fast)

    # ------------------------------------------------------------------ search
    def run(self) -> None:
        start = tuple((0, 1.0, 0.0) for _ in range(self.n))
        self._decide(0.0, start, self.p, [], None, initial=True)

    def _need(self, i: int, a: float, start: float, horizon: float) -> float:
        """Least processor-time for alpha = a of T_i between `start` and `horizon` (fluid),
        inf if impossible."""
        if a <= 0.0:
            return 0.0
        d = horizon - start
        if d <= 0.0 or start + a * self.fast[i] > horizon:
            return np.inf
        return _inverse(self.hull[i], a / d) * d

    def _options(self, t: float, i: int, s: tuple, pool: int, horizon: float, initial: bool):
        """(count, new state, processor-time needed) of each choice of T_i that can still
        beat the incumbent on its own."""
        j, a, tl = s
        out = []
        if initial:
            for k in self.ks[:pool // 2]:
                out.append((k, (k, 1.0, 0.0), self._need(i, 1.0, 0.0, horizon)))
            return [o for o in out if o[2] < np.inf]
        a_now = max(0.0, a - (t - tl) / self.t[i][j])
        for k in self.ks[:pool // 2]:
            if k == j:
                out.append((k, s, self._need(i, a_now, t, horizon)))
            else:
                rs = t + self.rc[i][(j, k)]
                need = k * (rs - t) + self._need(i, a_now, rs, horizon)
                out.append((k, (k, a_now, rs), need))
        return [o for o in out if o[2] < np.inf]

    def _decide(self, t: float, state: tuple, free: int, moves: list, ended, initial=False):
        self.nodes += 1
        if self.nodes % 256 == 0 and self.deadline.expired():
            self.timed_out = True
        if self.timed_out:
            return
        horizon = self.best * (1 - TOL)
        budget = self.p * (horizon - t)
        elig, fixed = [], 0.0
        for i, s in enumerate(state):
            if s is None:
                continue
            if initial or s[2] <= t:
                elig.append(i)
            else:  # still redistributing: holds its processors until t_lastR
                fixed += s[0] * (s[2] - t) + self._need(i, s[1], s[2], horizon)
        if fixed > budget:
            return
        pool = free + sum(state[i][0] for i in elig)
        opts = [self._options(t, i, state[i], pool, horizon, initial) for i in elig]
        if any(not o for o in opts):
            return
        children = []
        for combo in _combine(opts, pool, budget - fixed):
            new = list(state)
            change = {}
            for i, (k, ns, _) in zip(elig, combo, strict=True):
                new[i] = ns
                if initial or k != state[i][0]:
                    change[i] = k
            used = sum(c[0] for c in combo)
            ends = max(x[2] + x[1] * self.t[r][x[0]] for r, x in enumerate(new) if x is not None)
            children.append((ends, tuple(new), pool - used, change))
        children.sort(key=lambda c: c[0])
        for _, new, left, change in children:
            if self.timed_out:
                return
            self._advance(new, left, moves + [(t, ended, change)])

    def _advance(self, state: tuple, free: int, moves: list) -> None:
        live = [(s[2] + s[1] * self.t[i][s[0]], i) for i, s in enumerate(state) if s is not None]
        tc, ic = min(live)
        if tc >= self.best * (1 - TOL):
            return
        new = list(state)
        free += state[ic][0]
        new[ic] = None
        if len(live) == 1:
            self.best = tc
            self._record(moves, tc)
            return
        self._decide(tc, tuple(new), free, moves, ic)

    def _record(self, moves: list, value: float) -> None:
        initial = tuple(moves[0][2][i] for i in range(self.n))
        finish, phases = self._replay(moves)
        self.plan = (value, initial, tuple((t, e, m) for t, e, m in moves[1:]), finish,
                     phases)

    def _replay(self, moves: list) -> tuple[tuple[float, ...], tuple[tuple, ...]]:
        """End times and phases of the plan (recomputed from its moves): an application
        moved at t from j to k processors has done (t - t_lastR) / t_{i,j} of its work and
        works again from t + RC^{j->k}."""
        state = [(moves[0][2][i], 1.0, 0.0, 0.0) for i in range(self.n)]  # k, alpha, tl, start
        finish = [0.0] * self.n
        phases: list[tuple] = []
        for t, e, change in moves[1:]:
            finish[e] = t
            for i, k in change.items():
                j, a, tl, start = state[i]
                done = min(a, (t - tl) / self.t[i][j]) if t > tl else 0.0
                phases.append((i, start, tl, j, a, t, "redistributed", done))
                state[i] = (k, max(0.0, a - done), t + self.rc[i][(j, k)], t)
        for i, (k, a, tl, start) in enumerate(state):
            if i not in {e for _, e, _ in moves[1:]}:
                finish[i] = tl + a * self.t[i][k]
            phases.append((i, start, tl, k, a, finish[i], "finished", a))
        phases.sort(key=lambda ph: ph[0])  # stable: each application's phases in time order
        return tuple(finish), tuple(phases)


def _combine(opts: list, pool: int, budget: float):
    """Every choice of one option per application with counts summing to <= pool and
    processor-times summing to <= budget."""
    m = len(opts)
    min_k = [0] * (m + 1)
    min_need = [0.0] * (m + 1)
    for r in range(m - 1, -1, -1):
        min_k[r] = min_k[r + 1] + min(o[0] for o in opts[r])
        min_need[r] = min_need[r + 1] + min(o[2] for o in opts[r])

    def rec(r: int, count: int, need: float):
        if r == m:
            yield ()
            return
        for o in opts[r]:
            if count + o[0] + min_k[r + 1] <= pool and need + o[2] + min_need[r + 1] <= budget:
                for rest in rec(r + 1, count + o[0], need + o[2]):
                    yield (o, *rest)
    yield from rec(0, 0, 0.0)


def _hull_of(ks: list[int], t: dict[int, float]) -> tuple[list[float], list[float]]:
    """Upper concave hull of (0, 0) and (k, 1/t_k): the fluid speed of spec §1.7 (bounds)."""
    hx, hy = upper_hull(np.array([0.0, *map(float, ks)]),
                        np.array([0.0, *(1.0 / t[k] for k in ks)]))
    return hx.tolist(), hy.tolist()


def _inverse(hull: tuple[list[float], list[float]], y: float) -> float:
    """Smallest x with hull(x) >= y (inf above the top speed)."""
    hx, hy = hull
    if y > hy[-1]:
        return np.inf
    r = bisect.bisect_left(hy, y)
    if r == 0:
        return 0.0
    return hx[r - 1] + (hx[r] - hx[r - 1]) * (y - hy[r - 1]) / (hy[r] - hy[r - 1])
