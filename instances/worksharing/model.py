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
from resilsched.instances.fields import FORMAT_VERSION, check_header, require
from resilsched.instances.worksharing.risk import LinearRisk, Risk, risk_from_dict
from resilsched.numeric import parse_number

FAMILY = "worksharing"


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
        if not isinstance(self.W, (int, float)) or isinstance(self.W, bool) or not self.W > 0:
            raise InvalidInstance("W", f"{self.W!r} must be > 0")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise InvalidInstance("workers", f"{self.workers!r} must be a positive integer")
        if not isinstance(self.epsilon, (int, float)) or not self.epsilon >= 0:
            raise InvalidInstance("epsilon", f"{self.epsilon!r} must be >= 0")
        if self.max_chunks is not None and (
            isinstance(self.max_chunks, bool) or not isinstance(self.max_chunks, int)
            or self.max_chunks < 1
        ):
            raise InvalidInstance("max_chunks", f"{self.max_chunks!r} must be a positive integer")

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
        W = parse_number(d["W"], "W")
        if not W > 0:
            raise InvalidInstance("W", f"{W} must be > 0")
        workers = d["workers"]
        if (isinstance(workers, bool) or not isinstance(workers, (int, float))
                or int(workers) != workers):
            raise InvalidInstance("workers", f"{workers!r} must be a positive integer")
        if workers < 1:
            raise InvalidInstance("workers", f"{int(workers)} must be a positive integer")
        eps = parse_number(d.get("epsilon", 0), "epsilon")
        if eps < 0:
            raise InvalidInstance("epsilon", f"{eps} must be >= 0")
        mc = d.get("max_chunks")
        if mc is not None:
            if isinstance(mc, bool) or not isinstance(mc, (int, float)) or int(mc) != mc or mc < 1:
                raise InvalidInstance("max_chunks", f"{mc!r} must be a positive integer")
            mc = int(mc)
        return cls(W=float(W), workers=int(workers), risk=risk_from_dict(d["risk"]),
                   epsilon=float(eps), max_chunks=mc, name=str(d.get("name", "")),
                   metadata=dict(d.get("metadata", {})))
