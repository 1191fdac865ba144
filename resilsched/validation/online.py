"""Online policies given as decision tables (issue 26), checked without the code that made them.

A table lists, for every decision epoch its policy reaches, the jobs done, the attempts running
(job, processors, remaining time), with memory the jobs that have just failed, and the attempts
it starts. `validate_policy` re-derives everything from the instance alone (P, the allowed
(p, t) of each job, the q_j):

- every start is of a waiting job, on an allowed allocation, within the free processors, and
  something runs after each decision;
- every outcome of every decision (each subset of the ending attempts succeeding) leads to a
  listed epoch or to the end; the start (nothing done, nothing running) is listed;
- the expected makespan, recomputed by Gauss-Seidel value iteration in floats (its own
  transitions and probabilities, no closed form), agrees with the claimed value within a
  relative 1e-9.

Raises `InvalidSchedule` naming the first broken rule.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidSchedule

#: relative agreement required between the claimed and the recomputed expected makespan
REL_TOL = 1e-9


def _key(done: Any, running: Any, failed: Any) -> tuple:
    return (frozenset(done), tuple(sorted((int(j), int(p), Fraction(r)) for j, p, r in running)),
            frozenset(failed))


def validate_policy(P: int, allowed: Sequence[Sequence[tuple[int, Any]]], q: Sequence[Any],
                    rows: Sequence[Mapping[str, Any]], claimed: Any,
                    memory: str | None = None) -> float:
    """Check a decision table (see the module docstring); returns the recomputed value.

    `allowed[j]` lists job j's (p, t); `q[j]` its failure probability; `rows` the table
    (``done``, ``running``, ``failed`` with memory, ``start``)."""
    n = len(allowed)
    times = [{int(p): Fraction(t) for p, t in modes} for modes in allowed]
    table: dict[tuple, list[tuple[int, int]]] = {}
    for row in rows:
        key = _key(row["done"], row["running"], row.get("failed", ()) if memory else ())
        if key in table:
            raise InvalidSchedule(f"the state {row} is listed twice")
        table[key] = [(int(j), int(p)) for j, p in row["start"]]
    root = _key((), (), ())
    if root not in table:
        raise InvalidSchedule("the table has no decision at time 0")
    steps: dict[tuple, tuple[Fraction, list[tuple[float, tuple | None]]]] = {}
    # the levels with more jobs done first: each sweep then settles them before the others
    for key in sorted(table, key=lambda k: -len(k[0])):
        steps[key] = _step(key, table[key], P, times, q, n, memory, table)
    # the sweeps run on positions, not on the keys (hashing their Fractions at every lookup
    # was most of the check's time); the end is the last position, whose value stays 0.0
    index = {key: i for i, key in enumerate(steps)}
    end = len(index)
    plan = [(float(delta), [(prob, end if nxt is None else index[nxt]) for prob, nxt in outs])
            for delta, outs in steps.values()]
    values = [0.0] * (end + 1)
    for _ in range(100_000):
        change = 0.0
        for i, (delta, outs) in enumerate(plan):
            v = delta + sum(prob * values[j] for prob, j in outs)
            change = max(change, abs(v - values[i]) / max(v, 1e-300))
            values[i] = v
        if change < 1e-15:
            break
    value = values[index[root]]
    if not math.isclose(value, float(claimed), rel_tol=REL_TOL):
        raise InvalidSchedule(f"expected makespan {float(claimed)} claimed, the table gives "
                              f"{value}")
    return value


def _step(key: tuple, start: list[tuple[int, int]], P: int, times: list[dict[int, Fraction]],
          q: Sequence[Any], n: int, memory: str | None, table: Mapping[tuple, Any]
          ) -> tuple[Fraction, list[tuple[float, tuple | None]]]:
    done, running, _ = key
    busy = set(done) | {j for j, _, _ in running}
    used = sum(p for _, p, _ in running)
    entries = list(running)
    for j, p in start:
        if not 0 <= j < n or j in busy:
            raise InvalidSchedule(f"state {_show(key)}: starts job {j}, which is not waiting")
        if p not in times[j]:
            raise InvalidSchedule(f"state {_show(key)}: job {j} on p={p} is not an allowed "
                                  "allocation")
        used += p
        busy.add(j)
        entries.append((j, p, times[j][p]))
    if used > P:
        raise InvalidSchedule(f"state {_show(key)}: {used} processors in use > P={P}")
    if not entries:
        raise InvalidSchedule(f"state {_show(key)}: nothing runs and nothing starts")
    delta = min(r for _, _, r in entries)
    ending = [j for j, _, r in entries if r == delta]
    rest = tuple(sorted((j, p, r - delta) for j, p, r in entries if r != delta))
    outs: list[tuple[float, tuple | None]] = []
    for pattern in itertools.product((True, False), repeat=len(ending)):
        prob = 1.0
        now_done = set(done)
        failed = set()
        for j, ok in zip(ending, pattern, strict=True):
            prob *= 1.0 - float(q[j]) if ok else float(q[j])
            (now_done if ok else failed).add(j)
        if len(now_done) == n:
            outs.append((prob, None))
            continue
        nxt = (frozenset(now_done), rest, frozenset(failed) if memory else frozenset())
        if nxt not in table:
            raise InvalidSchedule(f"state {_show(key)}: the outcome {_show(nxt)} is not in "
                                  "the table")
        outs.append((prob, nxt))
    return delta, outs


def _show(key: tuple) -> str:
    done, running, failed = key
    text = f"done={sorted(done)} running={[(j, p, str(r)) for j, p, r in running]}"
    return text + (f" failed={sorted(failed)}" if failed else "")
