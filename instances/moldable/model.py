"""Moldable job instances (spec 000 §1.1-§1.4) and their JSON format.

``{"family": "moldable", "format_version": 1, "P": int, "jobs": [{"model": ..., "w": ...}, ...]}``
plus the optional ``"failures"`` (a stored scenario), ``"lambda"`` (silent-error rate per unit
of sequential work, q_j = 1 - exp(-lambda w_j), Eq. 3), ``"name"`` and free metadata.

The instance caches the float time table ``T[j, p-1] = t_j(p)`` (an n x P numpy array) that the
vectorised algorithms (LPA, bounds, MT-ALLOTMENT) read.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario, failure_probabilities, lambda_from_qbar
from resilsched.instances.fields import (
    FORMAT_VERSION,
    MAX_DERIVED,
    MAX_JOBS,
    check_header,
    check_metadata,
    job_count,
    processors,
)
from resilsched.instances.moldable.speedup import Speedup, Table, speedup_from_dict
from resilsched.solution import to_jsonable

FAMILY = "moldable"
#: Most entries n x P of the time table (160 MB of floats; the paper's sweeps reach 7.5e6).
MAX_CELLS = 2 * 10**7


@dataclass(frozen=True, eq=False)
class MoldableInstance:
    """n moldable jobs on P identical processors (spec 000 §1.1).

    Parameters
    ----------
    P : number of processors.
    jobs : one `Speedup` profile per job (a ``table`` job must have exactly P entries).
    name : free-form identifier.
    failures : optional stored failure scenario.
    lam : optional silent-error rate lambda (q_j = 1 - exp(-lambda w_j), Eq. 3).
    metadata : anything else (generator, seed, ...).
    """

    P: int
    jobs: tuple[Speedup, ...]
    name: str = ""
    failures: Scenario | None = None
    lam: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "P", processors(self.P, "P"))
        jobs = tuple(self.jobs)
        if not jobs:
            raise InvalidInstance("jobs", "must contain at least one job")
        if len(jobs) > MAX_JOBS or len(jobs) * self.P > MAX_CELLS:
            raise InvalidInstance("jobs", f"{len(jobs)} jobs on P={self.P} make a time table of "
                                  f"{len(jobs) * self.P} entries (at most {MAX_CELLS})")
        for j, job in enumerate(jobs):
            if not isinstance(job, Speedup):
                raise InvalidInstance(f"jobs[{j}]", "must be a speedup model")
            if isinstance(job, Table) and len(job.times) != self.P:
                raise InvalidInstance(f"jobs[{j}].t",
                                      f"has {len(job.times)} entries, expected P={self.P}")
        object.__setattr__(self, "jobs", jobs)
        if self.failures is not None and len(self.failures.failures) != len(jobs):
            raise InvalidInstance("failures", f"has {len(self.failures.failures)} entries but the "
                                  f"instance has {len(jobs)} jobs")
        if self.lam is not None and not (0 <= float(self.lam) < float("inf")):
            raise InvalidInstance("lambda", f"{self.lam} must be a finite number >= 0")
        longest = self.T.max(axis=1)
        bad = np.flatnonzero(~(longest <= MAX_DERIVED))  # NaN too
        if bad.size:
            j = int(bad[0])
            raise InvalidInstance(f"jobs[{j}]", f"gives an attempt time of {longest[j]:.3g} on "
                                  f"some processor count, beyond {MAX_DERIVED:g} (inputs too "
                                  "large)")

    # -- accessors ---------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.jobs)

    @functools.cached_property
    def T(self) -> np.ndarray:
        """Float time table, shape (n, P): T[j, p-1] = t_j(p)."""
        out = np.empty((self.n, self.P), dtype=float)
        ps = np.arange(1, self.P + 1)
        for j, job in enumerate(self.jobs):
            out[j] = job.t(ps)
        out.setflags(write=False)
        return out

    @functools.cached_property
    def w(self) -> np.ndarray:
        """Sequential times w_j = t_j(1) (floats)."""
        return np.array([float(job.w) for job in self.jobs])

    @functools.cached_property
    def fronts(self) -> list[np.ndarray]:
        """Time-Pareto front (1-based p, ascending) of every job on this platform (§1.3.7)."""
        from resilsched.instances.moldable.speedup import pareto_front_of

        return [pareto_front_of(row) for row in self.T]

    def time(self, j: int, p: int) -> Any:
        """Exact scalar t_j(p) (int/Fraction when the parameters are exact)."""
        return self.jobs[j].time(p)

    def duration(self, j: int, p: int) -> float:
        """Float t_j(p), as used by the simulators."""
        return float(self.T[j, p - 1])

    def q(self, lam: float | None = None) -> np.ndarray:
        """q_j = 1 - exp(-lambda w_j) (Eq. 3) with `lam` or the stored lambda."""
        lam = self.lam if lam is None else lam
        if lam is None:
            raise InvalidInstance("lambda", "is not set for this instance")
        return failure_probabilities(self.w, float(lam))

    def lambda_from_qbar(self, qbar: float) -> float:
        """The lambda giving an average failure probability q-bar (calibrated on w_j)."""
        return lambda_from_qbar(qbar, self.w)

    def scenario(self, failures: Sequence[int] | str | None = None) -> Scenario:
        """`failures` if given, else the stored scenario, else failure-free."""
        if failures is not None:
            return Scenario.parse(failures, self.n)
        return self.failures if self.failures is not None else Scenario.failure_free(self.n)

    def with_P(self, P: int) -> MoldableInstance:
        """The same jobs on another platform (table jobs must still have P entries)."""
        return MoldableInstance(P, self.jobs, self.name, self.failures, self.lam,
                                dict(self.metadata))

    def subset(self, jobs: Sequence[int]) -> MoldableInstance:
        return MoldableInstance(self.P, tuple(self.jobs[j] for j in jobs), self.name, None,
                                self.lam, dict(self.metadata))

    # -- I/O ---------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MoldableInstance:
        check_header(d, FAMILY, FORMAT_VERSION)
        if "P" not in d:
            raise InvalidInstance("P", "is required")
        P = processors(d["P"], "P")
        raw = d.get("jobs")
        if not isinstance(raw, list) or not raw:
            raise InvalidInstance("jobs",
                                  "must be a non-empty list of {\"model\": ..., \"w\": ...}")
        job_count(raw)
        jobs = tuple(speedup_from_dict(job, f"jobs[{j}]") for j, job in enumerate(raw))
        failures = None
        if d.get("failures") is not None:
            failures = Scenario.parse(d["failures"], len(jobs))
        lam = d.get("lambda")
        if "lambda" in d:  # an explicit null is refused too (omit the field for none)
            if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not lam >= 0 \
                    or lam > MAX_DERIVED:
                shown = "null" if lam is None else repr(lam)
                raise InvalidInstance("lambda", f"{shown} must be a finite number >= 0")
            lam = float(lam)
        check_metadata(d)
        known = {"family", "format_version", "P", "jobs", "failures", "name", "lambda"}
        meta = {k: v for k, v in d.items() if k not in known}
        return cls(P, jobs, str(d.get("name", "")), failures, lam, meta)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION}
        if self.name:
            d["name"] = self.name
        d["P"] = self.P
        d["jobs"] = [job.to_dict() for job in self.jobs]
        if self.failures is not None:
            d["failures"] = self.failures.to_list()
        if self.lam is not None:
            d["lambda"] = self.lam
        d.update(to_jsonable(self.metadata))
        return d
