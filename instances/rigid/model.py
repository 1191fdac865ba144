"""Rigid job instances (spec 002 §1.1).

P identical processors, non-contiguous allocation; n independent jobs released at time 0. Job j
is rigid: it needs p_j in {1..P} processors for t_j > 0 time units per attempt; its area is
a_j = p_j t_j. Times may be ints, floats or `Fraction`s (exact arithmetic, spec A9); the JSON
format writes Fractions as strings such as ``"1/3"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import Scenario, q_from_qbar
from resilsched.instances.fields import (
    FORMAT_VERSION,
    MAX_JOBS,
    check_header,
    check_metadata,
    derived,
    job_count,
    positive_int,
    processors,
    time_value,
)
from resilsched.numeric import parse_number
from resilsched.solution import to_jsonable

FAMILY = "rigid"


@dataclass(frozen=True)
class RigidJob:
    """Rigid job: p processors for t time units per attempt (area a = p t)."""

    p: int
    t: Any

    @property
    def area(self):
        return self.p * self.t


@dataclass(frozen=True)
class RigidInstance:
    """n rigid jobs on P processors, optionally with a failure scenario and metadata.

    Parameters
    ----------
    P : number of identical processors.
    jobs : the jobs (p_j <= P, t_j > 0).
    name : free-form identifier.
    failures : optional failure scenario stored with the instance (``"failures"`` in JSON).
    metadata : anything else (generator, seed, q-bar, optimum, reference ...).

    Raises
    ------
    InvalidInstance
        naming the field and the rule, e.g. ``jobs[3].p=12 exceeds P=8``.
    """

    P: int
    jobs: tuple[RigidJob, ...]
    name: str = ""
    failures: Scenario | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        P = processors(self.P, "P")
        object.__setattr__(self, "P", P)
        jobs = tuple(self.jobs)
        if not jobs:
            raise InvalidInstance("jobs", "must contain at least one job")
        if len(jobs) > MAX_JOBS:
            raise InvalidInstance("jobs", f"has {len(jobs)} jobs (at most {MAX_JOBS})")
        area = 0.0
        for j, job in enumerate(jobs):
            p = positive_int(job.p, f"jobs[{j}].p")
            if p > P:
                raise InvalidInstance(f"jobs[{j}].p", f"{p} exceeds P={P}")
            area += p * float(time_value(job.t, f"jobs[{j}].t"))
        derived(area, "jobs", "a total area sum_j p_j t_j")
        object.__setattr__(self, "jobs", jobs)
        if self.failures is not None and len(self.failures.failures) != len(jobs):
            raise InvalidInstance(
                "failures",
                f"has {len(self.failures.failures)} entries but the instance has {len(jobs)} jobs",
            )

    # -- accessors -----------------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.jobs)

    @property
    def p(self) -> list[int]:
        return [job.p for job in self.jobs]

    @property
    def t(self) -> list[Any]:
        return [job.t for job in self.jobs]

    @property
    def areas(self) -> list[Any]:
        return [job.area for job in self.jobs]

    def q(self, qbar: float) -> np.ndarray:
        """Per-attempt failure probabilities calibrated to q-bar for this set (spec 002 §1.2)."""
        return q_from_qbar([float(a) for a in self.areas], qbar)

    def scenario(self, failures: Sequence[int] | str | None = None) -> Scenario:
        """The scenario to run: `failures` if given, else the stored one, else failure-free."""
        if failures is not None:
            return Scenario.parse(failures, self.n)
        return self.failures if self.failures is not None else Scenario.failure_free(self.n)

    def with_jobs(self, jobs: Sequence[RigidJob]) -> RigidInstance:
        return RigidInstance(self.P, tuple(jobs), self.name, None, dict(self.metadata))

    # -- I/O -----------------------------------------------------------------------------
    @classmethod
    def build(cls, P: int, jobs: Sequence[tuple[int, Any]], **kw: Any) -> RigidInstance:
        """Convenience constructor from (p, t) pairs."""
        return cls(P, tuple(RigidJob(p, t) for p, t in jobs), **kw)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RigidInstance:
        check_header(d, FAMILY)
        if "P" not in d:
            raise InvalidInstance("P", "is required")
        P = processors(d["P"], "P")
        raw = d.get("jobs")
        if not isinstance(raw, list) or not raw:
            raise InvalidInstance("jobs", 'must be a non-empty list of {"p": int, "t": number}')
        job_count(raw)
        jobs = []
        for j, job in enumerate(raw):
            if not isinstance(job, dict):
                raise InvalidInstance(f"jobs[{j}]", 'must be an object {"p": int, "t": number}')
            for key in ("p", "t"):
                if key not in job:
                    raise InvalidInstance(f"jobs[{j}].{key}", "is required")
            jobs.append(
                RigidJob(
                    positive_int(job["p"], f"jobs[{j}].p"), parse_number(job["t"], f"jobs[{j}].t")
                )
            )
        failures = None
        if d.get("failures") is not None:
            failures = Scenario.parse(d["failures"], len(jobs))
        known = {"family", "format_version", "P", "jobs", "failures", "name"}
        check_metadata(d)
        meta = {k: v for k, v in d.items() if k not in known}
        return cls(P, tuple(jobs), str(d.get("name", "")), failures, meta)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION}
        if self.name:
            d["name"] = self.name
        d["P"] = self.P
        d["jobs"] = [{"p": job.p, "t": to_jsonable(job.t)} for job in self.jobs]
        if self.failures is not None:
            d["failures"] = self.failures.to_list()
        d.update(to_jsonable(self.metadata))
        return d


def exact_times(instance: RigidInstance) -> bool:
    """True when every t_j is an int or a Fraction (simulation then runs in exact arithmetic)."""
    return all(isinstance(t, (int, Fraction)) for t in instance.t)
