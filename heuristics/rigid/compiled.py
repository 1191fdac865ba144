"""The rigid heuristics' fast path in the compiled core (issue 15, decision T13).

`makespan` runs one prepared heuristic run (`common.Run`) through the C engine of its policy
(``csrc/core/rigid_greedy.c``, ``rigid_rlist.c``, ``rigid_shelf.c``; spec 002 §4-§5) and returns
the makespan, or None when the core cannot take it: the core is not built or disabled
(`resilsched.engine`), the times are Fractions, or integer times could exceed 2^53 (where a double
stops being exact). The caller then runs the pure-Python engine, the reference the tests compare
the core with, bit for bit. `makespans` simulates the S scenarios (rows of a failure matrix) of
one instance in one call of the core.

`Engine` names which C engine and options stand for a policy: ``kind`` 0 is GREEDY (R-LIST-0),
1 is R-LIST with ``m`` reservations (1, or `M_Q` for m = |Q|; options A2, A3), 2 the shelves
(options B/NB and the refill rule: 0 none, 1 "own", 2 "any-queued"), 3 R-LIST with fixed
reservations (``reservations="fixed"``, issue 14;
``rigid_fixed.c``; option A2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.engine import module as compiled_module
from resilsched.heuristics.rigid.priorities import PriorityQueue
from resilsched.numeric import REL_TOL

#: m = |Q| (R-LIST-Q) for the C engine
M_Q = -1
#: integer sums stay exact in a double up to 2^53
EXACT_LIMIT = 2**53


@dataclass(frozen=True)
class Engine:
    """A C engine with its options (see the module docstring)."""

    kind: int
    m: int = 0
    option_a: bool = False
    option_b: int = 0


GREEDY = Engine(0)


def rlist(m: int | str, classic_easy: bool, persistent: bool) -> Engine:
    """R-LIST with m = 1 or "Q" reservations (m = 0 is `GREEDY`)."""
    return Engine(1, M_Q if m == "Q" else int(m), classic_easy, persistent)


def fixed_rlist(m: int | str, classic_easy: bool) -> Engine:
    """R-LIST with m = 1 or "Q" reservations that are never cancelled or moved (A3 "fixed")."""
    return Engine(3, M_Q if m == "Q" else int(m), classic_easy)


def shelf(backfill: bool, fill: int) -> Engine:
    """R-SHELF (``fill=0``) or R-SHELFFILL with its refill rule (``fill=1``: "own", A17;
    ``fill=2``: "any-queued", R32), B (backfill) or NB."""
    return Engine(2, 0, backfill, fill)


def _times(t: Sequence[Any], F: np.ndarray) -> tuple[np.ndarray, float] | None:
    """(times as doubles, tolerance) or None when the core cannot reproduce the arithmetic."""
    if all(isinstance(x, int) for x in t):  # exact: tolerance 0, sums must stay below 2^53
        worst = int(((F.max(axis=0) + 1) * np.asarray(t, dtype=object)).sum())
        return (np.asarray(t, dtype=np.float64), 0.0) if worst <= EXACT_LIMIT else None
    if any(isinstance(x, Fraction) for x in t):
        return None
    return np.asarray(t, dtype=np.float64), REL_TOL


def _keys(queue: PriorityQueue) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray]:
    k1, k2, redraw = queue.core_keys()
    flags = np.zeros(0, dtype=np.uint8) if redraw is None else np.asarray(redraw, np.uint8)
    return np.asarray(k1), np.asarray(k2), redraw is None, flags


@dataclass(frozen=True)
class FixedKeys:
    """Initial queues whose keys never change (no redraws) as the core reads them: job j's
    rank in ``k1[j]`` (one queue for every scenario, n entries) or ``k1[s n + j]`` (one queue
    per scenario). Unlike the queues, reusable for any number of calls (`fixed_keys`)."""

    k1: np.ndarray


def fixed_keys(queues: Sequence[PriorityQueue]) -> FixedKeys | None:
    """The `FixedKeys` of `queues`, or None when one of them redraws keys."""
    keys = [_keys(q) for q in queues]
    if not all(k[2] for k in keys):
        return None
    return FixedKeys(np.concatenate([k[0] for k in keys]))


def makespans(engine: Engine, P: int, p: Sequence[int], t: Sequence[Any],
              queues: Sequence[PriorityQueue] | FixedKeys, F: np.ndarray) -> list[Any] | None:
    """Makespan of every scenario (row) of ``F`` (S x n) on P processors; ``queues`` holds the
    initial queue Q of each scenario, or one queue shared by all (fixed priorities), or their
    `FixedKeys`. None when the core cannot run them (see the module docstring); queues with
    redraws are consumed."""
    lib = compiled_module()
    F = np.ascontiguousarray(np.atleast_2d(F), dtype=np.int64)
    times = _times(t, F) if lib is not None else None
    if times is None:
        return None
    tt, tol = times
    S, n = F.shape
    if isinstance(queues, FixedKeys):
        fixed, k1, flags = True, queues.k1, np.zeros(0, dtype=np.uint8)
        k2 = np.zeros(len(k1))
    else:
        keys = [_keys(q) for q in queues]
        fixed = keys[0][2]
        k1 = np.concatenate([k[0] for k in keys])
        k2 = np.concatenate([k[1] for k in keys])
        flags = keys[0][3]
    # enough fresh keys for every failure of the scenario (one per reinsertion at most)
    draws = np.empty(0)
    if not fixed:
        per = int(F.sum(axis=1).max())
        draws = np.concatenate([q.core_draws(per) for q in queues] if len(queues) == S
                               else [queues[0].core_draws(per)] * S)
    out = np.empty(S)
    lib.rigid(engine.kind, engine.m, int(engine.option_a), int(engine.option_b), P, n,
              np.ascontiguousarray(p, dtype=np.int64), tt, tol, k1, k2, int(fixed), flags,
              draws, F, S, out)
    if tol == 0.0:
        return [int(x) for x in out]
    return out.tolist()


def makespan(engine: Engine, P: int, p: Sequence[int], t: Sequence[Any], queue: PriorityQueue,
             failures: Sequence[int]) -> Any | None:
    """`makespans` for one scenario: the makespan, or None (run the Python engine)."""
    out = makespans(engine, P, p, t, [queue], np.asarray([failures], dtype=np.int64))
    return None if out is None else out[0]
