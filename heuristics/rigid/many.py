"""Many failure scenarios of one rigid instance in one call (issue 15): the experiments' path.

`makespans(batch, instance, F, priority, seeds=...)` equals
``[batch.run(instance, F[s], priority, seed=seeds[s], record=False, **options).objective for
s]`` for the batch engine `batch` of a rigid heuristic (`R_LIST_0`, ..., the ``batch`` of its
registry entry), but simulates all S scenarios in one call of the compiled core
(`compiled.makespans`): the Python overhead of a call (the priority queue, the checks, the
result object) is paid once per instance instead of once per scenario. Random priorities draw
their keys per scenario from ``seeds[s]``, exactly as the one-scenario calls do. Without the
core, or for a scenario the core cannot take (Fraction times, sizes the heuristics refuse), the
one-scenario calls run.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from resilsched.heuristics.rigid import compiled
from resilsched.heuristics.rigid.common import MAX_ATTEMPTS
from resilsched.heuristics.rigid.priorities import check_priority, make_queue
from resilsched.heuristics.rigid.rlist import (
    MAX_Q_STEPS,
    r_list_0,
    r_list_1,
    r_list_q,
    reservation_mode,
)
from resilsched.heuristics.rigid.rshelf import (
    FILL_CODES,
    fill_rule,
    r_shelf_b,
    r_shelf_nb,
    r_shelffill_b,
    r_shelffill_nb,
)
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.solution import HeuristicResult

if TYPE_CHECKING:
    from resilsched.heuristics.rigid.priorities import PriorityQueue

#: the options of R-LIST-1/Q that choose their engine, and R-SHELFFILL-B/NB's
RESERVING_OPTIONS = ("classic_easy", "reservations", "persistent_reservations")
FILL_OPTIONS = ("fill",)


@dataclass(frozen=True)
class Batch:
    """The batch engine of one rigid heuristic: its C engine, chosen from its options.

    Parameters
    ----------
    run : the heuristic (the one-scenario calls: the fallback, and the reference).
    engine : ``engine(options) -> compiled.Engine``, `options` holding the four options of
        `compiled_engine` (`fill` checked).
    options : the options of `makespans` the heuristic itself takes.
    q_steps : the core refuses runs beyond `MAX_Q_STEPS` (R-LIST-Q's O(n^2) passes).
    """

    run: Callable[..., HeuristicResult]
    engine: Callable[[dict[str, Any]], compiled.Engine]
    options: tuple[str, ...] = ()
    q_steps: bool = False

    def compiled_engine(self, classic_easy: bool = False, persistent_reservations: bool = False,
                        reservations: str = "fresh", fill: str = "own") -> compiled.Engine:
        """The C engine that runs the heuristic with these options (`fill` checked)."""
        return self.engine({"classic_easy": classic_easy, "reservations": reservations,
                            "persistent_reservations": persistent_reservations,
                            "fill": fill_rule(fill)})


def _reserving(m: int | str) -> Callable[[dict[str, Any]], compiled.Engine]:
    def engine(o: dict[str, Any]) -> compiled.Engine:
        if o["reservations"] == "fixed":
            return compiled.fixed_rlist(m, o["classic_easy"])
        return compiled.rlist(m, o["classic_easy"],
                              o["persistent_reservations"] or o["reservations"] == "persistent")
    return engine


def _shelf(backfill: bool, fills: bool) -> Callable[[dict[str, Any]], compiled.Engine]:
    return lambda o: compiled.shelf(backfill, FILL_CODES[o["fill"] if fills else None])


R_LIST_0 = Batch(r_list_0, lambda o: compiled.GREEDY)
R_LIST_1 = Batch(r_list_1, _reserving(1), RESERVING_OPTIONS)
R_LIST_Q = Batch(r_list_q, _reserving("Q"), RESERVING_OPTIONS, q_steps=True)
R_SHELF_B = Batch(r_shelf_b, _shelf(True, False))
R_SHELF_NB = Batch(r_shelf_nb, _shelf(False, False))
R_SHELFFILL_B = Batch(r_shelffill_b, _shelf(True, True), FILL_OPTIONS)
R_SHELFFILL_NB = Batch(r_shelffill_nb, _shelf(False, True), FILL_OPTIONS)


#: the last few `FixedKeys` built by `_queues`: (p, t, P, rule, secondary, seeds) -> keys
_FIXED: OrderedDict[tuple, compiled.FixedKeys] = OrderedDict()
_FIXED_SIZE = 4


def _queues(p: list[int], t: list[Any], P: int, rule: str, seeds: list[int],
            redraw_on_failure: bool, ljf_secondary: str
            ) -> list[PriorityQueue] | compiled.FixedKeys:
    """The initial queues of the scenarios (one per seed with a Random key, else one for all).

    Keys that never change (no redraws) are kept as `compiled.FixedKeys` for the next calls
    with the same jobs, rule and seeds: the experiments run many (q-bar, P) points and
    heuristics on the same scenarios, and a Random priority needs one queue per scenario.
    """
    random = rule == "Random" or (rule == "LJF" and check_priority(ljf_secondary) == "Random")
    draw = seeds if random else [0]
    if redraw_on_failure and random:  # keys redrawn as the run goes: fresh queues every time
        return [make_queue(p, t, rule, P=P, seed=s, redraw_on_failure=True,
                           ljf_secondary=ljf_secondary) for s in draw]
    key = (tuple(p), tuple(t), P if rule == "LJF" else None, rule,
           ljf_secondary if rule == "LJF" else None, tuple(draw))
    keys = _FIXED.get(key)
    if keys is None:
        keys = compiled.fixed_keys([make_queue(p, t, rule, P=P, seed=s,
                                               ljf_secondary=ljf_secondary) for s in draw])
        assert keys is not None  # no redraws
        _FIXED[key] = keys
        if len(_FIXED) > _FIXED_SIZE:
            _FIXED.popitem(last=False)
    else:
        _FIXED.move_to_end(key)
    return keys


def makespans(batch: Batch, instance: RigidInstance, F: np.ndarray,
              priority: str | None = None, *, seeds: Sequence[int] | None = None,
              redraw_on_failure: bool = False, ljf_secondary: str = "LPT",
              classic_easy: bool = False, persistent_reservations: bool = False,
              reservations: str = "fresh", fill: str = "own") -> list[Any]:
    """Makespan of ``batch.run`` on every scenario (row) of ``F`` (S x n); see the module
    docstring.

    ``seeds[s]`` seeds the Random priority of scenario s (default 0 for all). The options are
    those of the heuristics (R-LIST-1/Q only: `classic_easy`, `reservations`,
    `persistent_reservations`; the heuristics refuse a contradictory pair; R-SHELFFILL-B/NB
    only: `fill`).
    """
    F = np.atleast_2d(np.asarray(F, dtype=np.int64))
    S, n = F.shape
    seeds = [0] * S if seeds is None else list(seeds)
    rule = check_priority("LPT" if priority is None else priority)
    chosen = {"classic_easy": classic_easy, "persistent_reservations": persistent_reservations,
              "reservations": reservations, "fill": fill}
    options: dict[str, Any] = {"redraw_on_failure": redraw_on_failure,
                               "ljf_secondary": ljf_secondary,
                               **{k: chosen[k] for k in batch.options}}
    engine = batch.compiled_engine(**chosen)
    if "reservations" in batch.options:
        reservation_mode(reservations, persistent_reservations)  # the one-line refusals
    out = None
    attempts = F.sum(axis=1) + n
    refused = attempts.max() > MAX_ATTEMPTS or (
        batch.q_steps and int(attempts.max()) * n * n > MAX_Q_STEPS)
    if n == instance.n and not refused:
        p, t, P = instance.p, instance.t, instance.P
        out = compiled.makespans(engine, P, p, t, _queues(p, t, P, rule, seeds, redraw_on_failure,
                                                          ljf_secondary), F)
    if out is None:  # the one-scenario calls (they also refuse what they refuse)
        out = [batch.run(instance, Scenario(tuple(int(x) for x in f)), rule, seed=s,
                         record=False, **options).objective
               for f, s in zip(F, seeds, strict=True)]
    return out
