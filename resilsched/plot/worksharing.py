"""The picture of a worksharing schedule: per worker, its chunks over time (spec 003 §1.3-1.4).

Worker j runs its chunks one after another at speed 1: chunk k takes its size omega_{j,k} in
work units, then the start-up cost epsilon (none for an empty chunk), so it ends at
T_{j,k} = sum_{l <= k} (omega_{j,l} + epsilon). Each piece of the workload a chunk holds is one
rectangle, coloured by its position in the workload [0, W], so a replicated piece has the same
colour on every worker that holds it; the start-up cost is a dark rectangle after the chunk.
The risk Pr(t), the probability that a worker has been interrupted by time t, is drawn against
the same time axis on the right: a chunk ending at T succeeds with probability 1 - Pr(T).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from resilsched.errors import InvalidSchedule
from resilsched.plot.picture import Picture
from resilsched.plot.segments import SegmentTable


def unwrap(payload: Any, instance: Any) -> Any:
    """The `PieceSchedule` of a `Plan` (heuristics) or of a certified or QP payload (exact
    models, their ``pieces()``)."""
    from resilsched.instances.worksharing.evaluate import PieceSchedule

    inner = payload.pieces() if callable(getattr(payload, "pieces", None)) else \
        getattr(payload, "schedule", payload)
    if not isinstance(inner, PieceSchedule):
        raise InvalidSchedule(f"{type(payload).__name__} holds no chunk schedule to draw")
    return inner


def picture(instance: Any, schedule: Any, scenario: Any, table: SegmentTable,
            bound: tuple[str, Any] | None, until: float | None = None) -> Picture:
    """Workers x time, with the risk curve on the right-hand axis."""
    eps = float(instance.epsilon)
    offsets = schedule.offsets()
    positions = []
    for j, chunks in enumerate(schedule.chunk_lists()):
        t = 0.0
        number = 0
        for chunk in chunks:
            size = float(sum(schedule.sizes[c] for c in chunk))
            if size <= 0:
                continue  # a null chunk is skipped and costs nothing (§1.3)
            number += 1
            for c in chunk:
                piece = float(schedule.sizes[c])
                if piece > 0:
                    table.add("chunk", number, "compute", t, t + piece, j, j + 0.1, 0.8)
                    positions.append(float(offsets[c]))
                    t += piece
            if eps > 0:
                table.add("chunk", number, "overhead", t, t + eps, j, j + 0.1, 0.8)
                positions.append(0.0)
                t += eps
    p = schedule.p
    ticks = [(j + 0.5, f"worker {j}") for j in range(p)]
    curve = (lambda t: np.asarray(instance.risk.cdf(t), dtype=float),
             "risk Pr(t): interrupted by time t")
    notes = [f"W = {float(instance.W):.6g} work units on {p} worker{'s' if p > 1 else ''}, "
             f"epsilon = {eps:.6g} per chunk"]
    return Picture(table, p, "workers", "work units", "", lane_ticks=ticks, curve=curve,
                   item_name="chunk", item_prefix="C", colour_by="position",
                   colour_values=np.array(positions), colour_total=float(instance.W),
                   notes=notes)
