"""What a worksharing heuristic returns (spec 003 §3): its schedule and how it was built.

`Plan` is the typed payload of the family's `HeuristicResult`: ``to_dict()`` gives the JSON
``{"heuristic", "chunk_counts", "coteries", "W", "pieces", "workers"}`` (pieces are the chunks
laid end to end on [0, W]; ``workers[j]`` lists worker j's chunks in execution order, each a
list of piece ids) and ``lines()`` one line per worker, its chunks as intervals of the workload.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from resilsched.heuristics.worksharing.partition import Coterie
from resilsched.instances.worksharing.evaluate import PieceSchedule


@dataclass(frozen=True)
class Plan:
    """A heuristic's schedule, its name, the chunk count of each slice and the coteries (§3.1)."""

    schedule: PieceSchedule
    name: str
    chunk_counts: tuple[int, ...] = ()
    coteries: tuple[Coterie, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"heuristic": self.name,
                             "chunk_counts": [int(c) for c in self.chunk_counts],
                             "coteries": [{"g": c.g, "sl": c.sl} for c in self.coteries]}
        d.update(self.schedule.to_dict())
        return d

    def lines(self) -> list[str]:
        return self.schedule.lines()
