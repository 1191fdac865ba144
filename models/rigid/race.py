"""Closing the gap between the proven bound and the incumbent by refutation (decisions R7, R29).

After CP-SAT stops without a proof (spec 002 §11.2; `solve.solve_scaled`, phase 5), every
makespan between the bound and the incumbent is decided by `refute_makespan`:

* bottom-up: D(bound) refuted raises the bound by one; a schedule found at T = bound is optimal,
  since every smaller T was refuted;
* top-down (decision R29): D(incumbent - 1) refuted proves the incumbent optimal at once (D(T)
  false implies D(T') false for every T' < T); a schedule found there is the new incumbent.

One thread runs the bottom-up loop. With two threads (`threads` >= 2, no node budget) a second
thread runs the top-down loop at the same time (the C search releases the GIL): the proof comes
from whichever ends first, and each loop takes the other's progress (a better incumbent, a
higher bound) at its next target. A search made pointless by the other's progress is stopped
through its `halt` flag. Each loop keeps its own memo of failed states (`RefuteMemo`), from
one target to the next. Which loop wins depends on the timing, the result does not: a proven
optimum is the same, and a bound is always a refuted makespan plus one.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

from resilsched.models.rigid.greedy import makespan_of
from resilsched.models.rigid.refute import CutPool, RefuteMemo, refute_makespan
from resilsched.models.rigid.scaling import ScaledScenario
from resilsched.options import Deadline


@dataclass
class Gap:
    """The state both loops share: the proven bound, the incumbent and its start times, and
    how many searches ended."""

    bound: int
    objective: int
    starts: list[list[int]]
    searches: int = 0

    @property
    def closed(self) -> bool:
        return self.bound >= self.objective


class _Race:
    """What the two loops share: the gap under a lock, a halt flag per loop (read by its C
    search), and `done` (set once: the other loop must not start another target)."""

    def __init__(self, gap: Gap) -> None:
        self.gap = gap
        self.lock = threading.Lock()
        self.halt = {"up": ctypes.c_int32(0), "down": ctypes.c_int32(0)}
        self.done = threading.Event()

    def target(self, side: str) -> int | None:
        """The next makespan to decide for `side`, or None when it should stop."""
        with self.lock:
            gap = self.gap
            if gap.closed or self.done.is_set():
                return None
            if side == "up":
                return gap.bound
            # top-down: one target left is the bottom-up loop's
            return gap.objective - 1 if gap.objective - 1 > gap.bound else None

    def record(self, side: str, data: ScaledScenario, T: int, status: str,
               starts: list[list[int]] | None) -> bool:
        """Take a verdict on D(T) from `side`; False when that loop should stop (out of time
        or nodes)."""
        with self.lock:
            gap, halt = self.gap, self.halt[side]
            gap.searches += 1
            if status == "infeasible":
                gap.bound = max(gap.bound, T + 1)
            elif status == "feasible" and starts is not None:
                made = makespan_of(data, starts)
                if made < gap.objective:
                    gap.objective, gap.starts = made, starts
            elif not halt.value:
                return False
            halt.value = 0
            if gap.closed:  # the other loop's search is pointless now
                self.halt["down" if side == "up" else "up"].value = 1
            return True

    def stop(self) -> None:
        with self.lock:
            self.done.set()
            for flag in self.halt.values():
                flag.value = 1


def _loop(race: _Race, side: str, data: ScaledScenario, pool: CutPool, wall: Deadline,
          nodes: int | None) -> None:
    memo = RefuteMemo(data.n)  # the states refuted for one T prune the search for the next
    while not wall.expired() and (nodes is None or nodes > 0):
        T = race.target(side)
        if T is None:
            return
        res = refute_makespan(data, T, wall.remaining(), pool=pool, max_nodes=nodes,
                              memo=memo, halt=race.halt[side])
        if nodes is not None:
            nodes -= res.work
        if not race.record(side, data, T, res.status, res.starts):
            return


def close_gap(data: ScaledScenario, gap: Gap, pool: CutPool, wall: Deadline,
              nodes: int | None = None, threads: int = 1) -> Gap:
    """Refute makespans from `gap.bound` up (and, with `threads` >= 2 and no node budget,
    from `gap.objective` - 1 down in a second thread) until the gap closes, `wall` expires or
    the `nodes` budget is spent (module docstring). Returns `gap`, updated."""
    race = _Race(gap)
    if threads < 2 or nodes is not None or gap.objective - 1 <= gap.bound:
        _loop(race, "up", data, pool, wall, nodes)
        return gap
    failure: list[BaseException] = []

    def top_down() -> None:
        try:
            _loop(race, "down", data, pool, wall, None)
        except BaseException as exc:  # re-raised in the calling thread
            failure.append(exc)
            race.stop()

    helper = threading.Thread(target=top_down, name="refute-top-down", daemon=True)
    helper.start()
    try:
        _loop(race, "up", data, pool, wall, None)
    finally:
        race.stop()
        helper.join()
    if failure:
        raise failure[0]
    return gap
