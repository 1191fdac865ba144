"""Worksharing instances (spec 003 §1.1-§1.3).

A divisible workload of ``W`` units, ``workers`` identical workers (speed 1), a risk function
Pr(t) shared by all workers (independent interruptions, spec §6 Q1), and a per-chunk
initiation cost ``epsilon`` (0 = free-initiation model, > 0 = charged-initiation model).

JSON contract (docs/architecture.md)::

    {"family": "worksharing", "format_version": 1, "W": 2.0, "workers": 2,
     "risk": {"kind": "linear", "X": 1.0}, "epsilon": 0.01}

Optional fields: ``max_chunks`` (cap n on the number of chunks per worker, the "n" of Theorems
2, 4 and 8; required to make the free-initiation optimum finite), ``name``, ``metadata``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.instances.fields import (
    FORMAT_VERSION,
    bounded_int,
    check_header,
    check_metadata,
    require,
    time_value,
)
from resilsched.instances.worksharing.risk import LinearRisk, Risk, risk_from_dict
from resilsched.numeric import strict_int

FAMILY = "worksharing"
#: Most workers, and most chunks per worker (the paper's grids reach 100 workers; "brute" takes
#: 18 s at 1000 workers, and the
#: heuristics search at most 4000 chunks).
MAX_WORKERS = 1000
MAX_CHUNKS = 10_000


@dataclass(frozen=True)
class WorksharingInstance:
    """W units of divisible work on p workers with risk Pr and chunk overhead epsilon.

    Raises
    ------
    InvalidInstance
        e.g. ``W=-1 must be > 0`` or ``risk.X=0 must be > 0``.
    """

    W: float
    workers: int
    risk: Risk
    epsilon: float = 0.0
    max_chunks: int | None = None
    name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.W, (int, float)) or isinstance(self.W, bool):
            raise InvalidInstance("W", f"{self.W!r} must be a number > 0")
        time_value(self.W, "W")
        # a numpy integer is stored as an int (the instance file's JSON must stay plain)
        object.__setattr__(self, "workers", strict_int(self.workers, "workers", 1, MAX_WORKERS))
        if isinstance(self.epsilon, bool) or not isinstance(self.epsilon, (int, float)):
            raise InvalidInstance("epsilon", f"{self.epsilon!r} must be a number >= 0")
        time_value(self.epsilon, "epsilon", allow_zero=True)
        if self.max_chunks is not None:
            object.__setattr__(self, "max_chunks",
                               strict_int(self.max_chunks, "max_chunks", 1, MAX_CHUNKS))

    @property
    def p(self) -> int:
        return self.workers

    @property
    def eps(self) -> float:
        return float(self.epsilon)

    @property
    def is_linear(self) -> bool:
        return isinstance(self.risk, LinearRisk)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION, "W": self.W,
                             "workers": self.workers, "risk": self.risk.to_dict(),
                             "epsilon": self.epsilon}
        if self.max_chunks is not None:
            d["max_chunks"] = self.max_chunks
        if self.name:
            d["name"] = self.name
        if self.metadata:
            d["metadata"] = dict(self.metadata)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> WorksharingInstance:
        """Parse and validate the JSON object of the instance contract."""
        check_header(d, FAMILY, FORMAT_VERSION)
        require(d, ("W", "workers", "risk"))
        W = time_value(d["W"], "W")
        workers = bounded_int(d["workers"], "workers", 1, MAX_WORKERS)
        eps = time_value(d.get("epsilon", 0), "epsilon", allow_zero=True)
        mc = d.get("max_chunks")
        if mc is not None:
            mc = bounded_int(mc, "max_chunks", 1, MAX_CHUNKS)
        meta = check_metadata(d)
        return cls(W=float(W), workers=workers, risk=risk_from_dict(d["risk"]),
                   epsilon=float(eps), max_chunks=mc, name=str(d.get("name", "")),
                   metadata=dict(meta))
