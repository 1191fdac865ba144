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
from typing import Any

from resilsched.errors import InvalidSchedule

#: relative slack on positions inside [0, W] (pieces are sums of float sizes)
POSITION_TOL = 1e-9


def _pieces(data: Mapping[str, Any], W: float) -> list[tuple[float, float]]:
    pieces = data.get("pieces")
    if not isinstance(pieces, list):
        raise InvalidSchedule("pieces must be a list of [a, b] intervals")
    slack = POSITION_TOL * max(1.0, W)
    out, last = [], 0.0
    for i, piece in enumerate(pieces):
        if not (isinstance(piece, (list, tuple)) and len(piece) == 2
                and all(isinstance(x, (int, float)) and math.isfinite(x) for x in piece)):
            raise InvalidSchedule(f"pieces[{i}]={piece!r} is not an interval [a, b]")
        a, b = float(piece[0]), float(piece[1])
        if a < last - slack or b < a or a < -slack or b > W + slack:
            raise InvalidSchedule(f"piece {i} ({a}, {b}) overlaps another or leaves [0, {W}]")
        out.append((a, b))
        last = b
    return out


def _workers(data: Mapping[str, Any], n_pieces: int, p: int, max_chunks: int | None,
             sizes: list[float]) -> list[list[list[int]]]:
    workers = data.get("workers")
    if not isinstance(workers, list) or len(workers) != p:
        count = len(workers) if isinstance(workers, list) else workers
        raise InvalidSchedule(f"{count} worker lists for {p} workers")
    for j, chunks in enumerate(workers):
        if not isinstance(chunks, list):
            raise InvalidSchedule(f"worker {j}: chunks must be a list")
        nonnull = 0
        for k, chunk in enumerate(chunks):
            if not isinstance(chunk, list):
                raise InvalidSchedule(f"worker {j} chunk {k}: must be a list of piece ids")
            for c in chunk:
                if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < n_pieces:
                    raise InvalidSchedule(f"worker {j} chunk {k} references piece {c!r}")
            nonnull += any(sizes[c] > 0 for c in chunk)
        if max_chunks is not None and nonnull > max_chunks:
            raise InvalidSchedule(f"worker {j} runs {nonnull} chunks > max_chunks={max_chunks}")
    return workers


def expected_work_of(data: Mapping[str, Any], risk: Any, eps: float) -> float:
    """E[W_cmp] of a schedule in its JSON form (spec §1.4), recomputed from scratch."""
    pieces = [(float(a), float(b)) for a, b in data["pieces"]]
    sizes = [b - a for a, b in pieces]
    lost = [1.0] * len(pieces)
    held = [False] * len(pieces)
    for chunks in data["workers"]:
        first: dict[int, float] = {}
        t = 0.0
        for chunk in chunks:
            size = sum(sizes[c] for c in chunk)
            if size <= 0:
                continue  # null chunks are skipped and cost nothing (§1.3)
            t += size + eps
            for c in chunk:
                first.setdefault(c, t)
        if not first:
            continue
        ids = list(first)
        probs = risk.cdf([first[c] for c in ids])
        for c, q in zip(ids, probs, strict=True):
            held[c] = True
            lost[c] *= min(1.0, float(q))
    return sum(s * (1.0 - q) for s, q, h in zip(sizes, lost, held, strict=True) if h)


def validate_worksharing_schedule(instance: Any, schedule: Any, objective: float,
                                  rel_tol: float = 1e-9) -> None:
    """Check a worksharing schedule and its claimed expected work; raise `InvalidSchedule`.

    `schedule` is the payload (anything with ``to_dict()``) or its JSON form; `instance`
    gives W, workers, max_chunks, the risk (``risk.cdf``) and eps.
    """
    data = schedule.to_dict() if hasattr(schedule, "to_dict") else schedule
    if not isinstance(data, Mapping):
        raise InvalidSchedule(f"schedule {type(data).__name__} is not a mapping")
    W = float(instance.W)
    pieces = _pieces(data, W)
    sizes = [b - a for a, b in pieces]
    _workers(data, len(pieces), instance.workers, instance.max_chunks, sizes)
    E = expected_work_of(data, instance.risk, float(instance.epsilon))
    if not math.isclose(E, objective, rel_tol=rel_tol, abs_tol=1e-12):
        raise InvalidSchedule(f"objective {objective} but the schedule is worth {E}")
