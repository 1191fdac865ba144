"""What the worksharing exact models return as their solution (spec 003 §2, §7).

- `CertifiedPayload` (model ``certified``): the schedule, the rule that built it (``theorem4``,
  ``disjoint-one-worker``, ``algorithm1``, ``greedy-reference``, ...) and the facts of its
  certificate. JSON: ``{"model", <facts>..., "W", "pieces", "workers", "schedule": {"W",
  "pieces", "workers"} or {"W", "workers": intervals}}``.
- `QPPayload` (model ``qp-one-worker``): the chunk sizes of the QP optimum. JSON: ``{"chunks",
  "m", "certified_up_to_m", "W", "pieces", "workers"}``.

``W``, ``pieces`` and ``workers`` are the schedule in pieces, at the path of a heuristic's
(`resilsched.heuristics.worksharing.plan.Plan`); ``schedule`` keeps the form of earlier
versions.

Both print one line per worker (`lines()`), its chunks as intervals of the workload.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.instances.worksharing.evaluate import IntervalSchedule, PieceSchedule
from resilsched.numeric import readable

#: facts shown on the first line of a certified solution, in this order
_HEADLINE_FACTS = ("n", "W_dpl", "certified_up_to_m", "capped_from")


@dataclass(frozen=True)
class CertifiedPayload:
    """The schedule of a ``certified`` solve, the rule that built it and its facts."""

    model: str
    schedule: PieceSchedule | IntervalSchedule
    facts: dict[str, Any] = field(default_factory=dict)

    def pieces(self) -> PieceSchedule:
        """The schedule as pieces (an interval schedule refined, `IntervalSchedule.to_pieces`)."""
        s = self.schedule
        return s.to_pieces() if isinstance(s, IntervalSchedule) else s

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, **self.facts, **self.pieces().to_dict(),
                "schedule": self.schedule.to_dict()}

    def lines(self) -> list[str]:
        shown = [f"{k} {readable(self.facts[k])}" for k in _HEADLINE_FACTS
                 if self.facts.get(k) is not None]
        head = f"model {self.model}" + (f" ({', '.join(shown)})" if shown else "")
        return [head, *self.schedule.lines()]


@dataclass(frozen=True)
class QPPayload:
    """The HiGHS QP optimum of one worker: chunk sizes (in execution order) of workload W."""

    W: float
    chunks: np.ndarray
    m: int
    certified_up_to_m: int

    def pieces(self) -> PieceSchedule:
        """The one worker's schedule: its non-empty chunks as pieces, in execution order."""
        sizes = np.asarray(self.chunks, dtype=float)
        sizes = sizes[sizes > 0]
        return PieceSchedule(self.W, sizes, (np.arange(len(sizes)),))

    def to_dict(self) -> dict[str, Any]:
        return {"chunks": [float(x) for x in self.chunks], "m": int(self.m),
                "certified_up_to_m": int(self.certified_up_to_m), **self.pieces().to_dict()}

    def lines(self) -> list[str]:
        return self.pieces().lines()
