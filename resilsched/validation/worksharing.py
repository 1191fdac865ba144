"""Worksharing schedules (spec 003 §1.1, §1.4): an independent check of a schedule and of the
expected work claimed for it.

The schedule is read in its JSON form (``{"W", "pieces", "workers"}``: disjoint pieces [a, b]
of the workload [0, W], and per worker its chunks in execution order, each a list of piece
ids) and its expected work is recomputed here from the model of §1.4, with no code shared with
the evaluator it checks: worker j's k-th chunk ends at T = sum of the sizes of its first k
chunks + eps per non-empty chunk; a piece first held by worker j in a chunk ending at T is lost
by j with probability Pr(T); a piece is lost iff every worker holding it loses it
(independent workers); E = sum over pieces of size x (1 - P(lost)).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import chain, repeat
from typing import Any

import numpy as np

from resilsched.errors import InvalidSchedule

#: relative slack on positions inside [0, W] (pieces are sums of float sizes)
POSITION_TOL = 1e-9


def _pieces(data: Mapping[str, Any], W: float) -> np.ndarray:
    """The pieces as an (N, 2) array, checked: finite, a <= b, inside [0, W], disjoint."""
    pieces = data.get("pieces")
    if not isinstance(pieces, list):
        raise InvalidSchedule("pieces must be a list of [a, b] intervals")
    try:
        arr = np.asarray(pieces, dtype=float).reshape(len(pieces), 2)
    except (TypeError, ValueError):
        raise InvalidSchedule("pieces must be [a, b] pairs of numbers") from None
    if not np.isfinite(arr).all():
        raise InvalidSchedule("pieces must have finite ends")
    slack = POSITION_TOL * max(1.0, W)
    a, b = arr[:, 0], arr[:, 1]
    prev_end = np.concatenate([[0.0], b[:-1]])
    bad = (a < prev_end - slack) | (b < a) | (a < -slack) | (b > W + slack)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidSchedule(f"piece {i} ({a[i]}, {b[i]}) overlaps another or leaves [0, {W}]")
    return arr


def _worker(j: int, chunks: Any, n_pieces: int) -> tuple[np.ndarray, np.ndarray]:
    """Worker j's entries: (piece ids, chunk number of each), checked."""
    # map and chain rather than generators: a worker may hold 10^5-10^6 chunks
    if not isinstance(chunks, list) or not all(map(isinstance, chunks, repeat(list))):
        raise InvalidSchedule(f"worker {j}: chunks must be lists of piece ids")
    flat = list(chain.from_iterable(chunks))
    chunk_of = np.repeat(np.arange(len(chunks)), list(map(len, chunks)))
    if not flat:
        return np.zeros(0, dtype=np.int64), chunk_of
    if set(map(type, flat)) <= {int} and 0 <= min(flat) and max(flat) < n_pieces:
        return np.asarray(flat, dtype=np.int64), chunk_of
    bad = next(c for c in flat if type(c) is not int or not 0 <= c < n_pieces)
    raise InvalidSchedule(f"worker {j} references piece {bad!r}")


def _check(data: Mapping[str, Any], W: float, p: int, risk: Any, eps: float,
           max_chunks: int | None) -> float:
    """Check the schedule's structure and return its expected work E[W_cmp] (spec §1.4)."""
    sizes = np.diff(_pieces(data, W), axis=1)[:, 0]
    workers = data.get("workers")
    if not isinstance(workers, list) or len(workers) != p:
        count = len(workers) if isinstance(workers, list) else workers
        raise InvalidSchedule(f"{count} worker lists for {p} workers")
    lost = np.ones(len(sizes))
    held = np.zeros(len(sizes), dtype=bool)
    for j, chunks in enumerate(workers):
        ids, chunk_of = _worker(j, chunks, len(sizes))
        chunk_size = np.bincount(chunk_of, weights=sizes[ids], minlength=len(chunks))
        nonnull = chunk_size > 0
        if max_chunks is not None and np.count_nonzero(nonnull) > max_chunks:
            raise InvalidSchedule(f"worker {j} runs {np.count_nonzero(nonnull)} chunks > "
                                  f"max_chunks={max_chunks}")
        if ids.size == 0:
            continue
        # null chunks are skipped and cost nothing (§1.3); the others end after size + eps
        ends = np.cumsum(chunk_size + eps * nonnull)
        first = np.full(len(sizes), np.inf)  # ends are nondecreasing: the minimum is the first
        np.minimum.at(first, ids, ends[chunk_of])
        mine = np.isfinite(first)
        lost[mine] *= np.minimum(1.0, np.asarray(risk.cdf(first[mine]), dtype=float))
        held |= mine
    return float(np.sum(sizes[held] * (1.0 - lost[held])))


def expected_work_of(data: Mapping[str, Any], risk: Any, eps: float) -> float:
    """E[W_cmp] of a schedule in its JSON form (spec §1.4), recomputed from scratch."""
    return _check(data, float(data["W"]), len(data["workers"]), risk, eps, None)


def validate_worksharing_schedule(instance: Any, schedule: Any, objective: float,
                                  rel_tol: float = 1e-9) -> None:
    """Check a worksharing schedule and its claimed expected work; raise `InvalidSchedule`.

    `schedule` is the payload (anything with ``to_dict()``) or its JSON form; `instance`
    gives W, workers, max_chunks, the risk (``risk.cdf``) and eps.
    """
    data = schedule.to_dict() if hasattr(schedule, "to_dict") else schedule
    if not isinstance(data, Mapping):
        raise InvalidSchedule(f"schedule {type(data).__name__} is not a mapping")
    E = _check(data, float(instance.W), instance.workers, instance.risk,
               float(instance.epsilon), instance.max_chunks)
    if not math.isclose(E, objective, rel_tol=rel_tol, abs_tol=1e-12):
        raise InvalidSchedule(f"objective {objective} but the schedule is worth {E}")
