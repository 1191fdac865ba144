"""Many failure scenarios of one rigid instance in one call (issue 15): the experiments' path.

`makespans(fn, instance, F, priority, seeds=...)` equals
``[fn(instance, F[s], priority, seed=seeds[s], record=False, **options).objective for s]`` for a
registered rigid heuristic `fn` (the function itself, as the registry holds it), but simulates
all S scenarios in one call of the compiled core (`compiled.makespans`): the Python overhead of
a call (the priority queue, the checks, the result object) is paid once per instance instead of
once per scenario. Random priorities draw their keys per scenario from ``seeds[s]``, exactly as
the one-scenario calls do. Without the core, or for a scenario the core cannot take (Fraction
times, sizes the heuristics refuse), the one-scenario calls run.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
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

if TYPE_CHECKING:
    from resilsched.heuristics.rigid.priorities import PriorityQueue


def engine_of(fn: Callable[..., Any], classic_easy: bool = False,
              persistent_reservations: bool = False,
              reservations: str = "fresh", fill: str = "own") -> compiled.Engine | None:
    """The C engine of a registered rigid heuristic (None for any other function)."""
    if fn is r_list_0:
        return compiled.GREEDY
    if fn is r_list_1 or fn is r_list_q:
        m = 1 if fn is r_list_1 else "Q"
        if reservations == "fixed":
            return compiled.fixed_rlist(m, classic_easy)
        return compiled.rlist(m, classic_easy,
                              persistent_reservations or reservations == "persistent")
    shelves = {r_shelf_b: (True, None), r_shelf_nb: (False, None),
               r_shelffill_b: (True, fill), r_shelffill_nb: (False, fill)}
    if fn in shelves:
        backfill, rule = shelves[fn]
        return compiled.shelf(backfill, FILL_CODES[rule])
    return None


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


def makespans(fn: Callable[..., Any], instance: RigidInstance, F: np.ndarray,
              priority: str | None = None, *, seeds: Sequence[int] | None = None,
              redraw_on_failure: bool = False, ljf_secondary: str = "LPT",
              classic_easy: bool = False, persistent_reservations: bool = False,
              reservations: str = "fresh", fill: str = "own") -> list[Any]:
    """Makespan of `fn` on every scenario (row) of ``F`` (S x n); see the module docstring.

    ``seeds[s]`` seeds the Random priority of scenario s (default 0 for all). The options are
    those of the heuristics (R-LIST-1/Q only: `classic_easy`, `reservations`,
    `persistent_reservations`; the heuristics refuse a contradictory pair; R-SHELFFILL-B/NB
    only: `fill`).
    """
    F = np.atleast_2d(np.asarray(F, dtype=np.int64))
    S, n = F.shape
    seeds = [0] * S if seeds is None else list(seeds)
    rule = check_priority("LPT" if priority is None else priority)
    options: dict[str, Any] = {"redraw_on_failure": redraw_on_failure,
                               "ljf_secondary": ljf_secondary}
    engine = engine_of(fn, classic_easy, persistent_reservations, reservations,
                       fill_rule(fill))
    if fn is r_shelffill_b or fn is r_shelffill_nb:
        options["fill"] = fill
    if fn is r_list_1 or fn is r_list_q:
        options.update(classic_easy=classic_easy, reservations=reservations,
                       persistent_reservations=persistent_reservations)
        reservation_mode(reservations, persistent_reservations)  # the one-line refusals
    out = None
    attempts = F.sum(axis=1) + n
    refused = attempts.max() > MAX_ATTEMPTS or (
        fn is r_list_q and int(attempts.max()) * n * n > MAX_Q_STEPS)
    if engine is not None and n == instance.n and not refused:
        p, t, P = instance.p, instance.t, instance.P
        out = compiled.makespans(engine, P, p, t, _queues(p, t, P, rule, seeds, redraw_on_failure,
                                                          ljf_secondary), F)
    if out is None:  # the one-scenario calls (they also refuse what they refuse)
        out = [fn(instance, Scenario(tuple(int(x) for x in f)), rule, seed=s, record=False,
                  **options).objective for f, s in zip(F, seeds, strict=True)]
    return out
