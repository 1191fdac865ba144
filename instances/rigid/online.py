"""Instances of the online family: rigid jobs with their failure model (issue 26).

``{"family": "online", "format_version": 1, "P": int, "jobs": [{"p": int, "t": number,
"q": number}, ...]}``: the jobs of a rigid instance (`RigidInstance`, spec 002 §1.1), each with
the probability q_j in [0, 1) that one attempt fails (spec 002 §1.2). Instead of per-job q_j,
a top-level ``"qbar"`` calibrates them as the paper does, q_j = 1 - (1 - q-bar)^(a_j / a-bar)
(the exact rational value of each float q_j, `RigidInstance.q`). No failure scenario: the
problem is the expected makespan over all of them.

A q_j is exact: a JSON number is read as the decimal it is written as (``0.1`` is 1/10, not
the binary float nearest to it), a string may be a fraction (``"1/3"``) (docs/decisions.md
O1). Checked at the boundary: finite, 0 <= q_j < 1, every job or none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.instances.failures import check_qbar
from resilsched.instances.fields import FORMAT_VERSION, check_header
from resilsched.instances.rigid.model import RigidInstance
from resilsched.solution import to_jsonable

FAMILY = "online"


def probability(x: Any, field_name: str) -> Fraction:
    """A failure probability from JSON: a number (read as its decimal text) or a string such
    as ``"1/3"`` or ``"0.05"``; finite and in [0, 1)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, str, Fraction)):
        raise InvalidInstance(field_name, f"{x!r} must be a probability in [0, 1)")
    try:
        value = Fraction(repr(x) if isinstance(x, float) else str(x).strip())
    except (ValueError, ZeroDivisionError):
        raise InvalidInstance(field_name, f"{x!r} is not a number") from None
    if not 0 <= value < 1:
        raise InvalidInstance(field_name, f"{x} must be a probability in [0, 1)")
    return value


@dataclass(frozen=True)
class OnlineRigidInstance:
    """A rigid instance and the failure probability q_j of each job's attempts.

    Parameters
    ----------
    rigid : the jobs and the platform (its stored failures, if any, are not used).
    q : exact q_j per job, in [0, 1).
    qbar : the q-bar the q_j were calibrated to, when they were (None: given per job).
    metadata : anything else (generator, seed, certificates).
    """

    rigid: RigidInstance
    q: tuple[Fraction, ...]
    qbar: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        q = tuple(self.q)
        if len(q) != self.rigid.n:
            raise InvalidInstance("q", f"has {len(q)} entries but the instance has "
                                       f"{self.rigid.n} jobs")
        object.__setattr__(self, "q", tuple(probability(x, f"jobs[{j}].q")
                                            for j, x in enumerate(q)))

    @classmethod
    def calibrated(cls, rigid: RigidInstance, qbar: float,
                   metadata: dict[str, Any] | None = None) -> OnlineRigidInstance:
        """q_j calibrated to q-bar (the exact values of the floats of `RigidInstance.q`)."""
        qbar = check_qbar(qbar)
        return cls(rigid, tuple(Fraction(float(x)) for x in rigid.q(qbar)), qbar,
                   dict(metadata or {}))

    # -- what the rigid code reads -----------------------------------------------------------
    @property
    def failure_model(self) -> tuple[Fraction, ...]:
        return self.q

    @property
    def n(self) -> int:
        return self.rigid.n

    @property
    def P(self) -> int:
        return self.rigid.P

    @property
    def jobs(self):
        return self.rigid.jobs

    @property
    def name(self) -> str:
        return self.rigid.name

    # -- I/O ---------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> OnlineRigidInstance:
        check_header(d, FAMILY)
        jobs = d.get("jobs")
        if not isinstance(jobs, list):
            raise InvalidInstance("jobs", 'must be a non-empty list of {"p": int, "t": number, '
                                  '"q": number}')
        given = [isinstance(job, dict) and "q" in job for job in jobs]
        if "failures" in d:
            raise InvalidInstance("failures", "an online instance has no scenario: its "
                                  "expected makespan averages over all of them")
        plain = [{k: v for k, v in job.items() if k != "q"} if isinstance(job, dict) else job
                 for job in jobs]
        rigid = RigidInstance.from_dict({**{k: v for k, v in d.items() if k != "qbar"},
                                         "family": "rigid", "jobs": plain})
        meta = dict(rigid.metadata)
        base = RigidInstance(rigid.P, rigid.jobs, rigid.name)
        if "qbar" in d:
            if any(given):
                j = given.index(True)
                raise InvalidInstance(f"jobs[{j}].q", "is given with qbar: give the q_j or "
                                      "q-bar, not both")
            return cls.calibrated(base, d["qbar"], meta)
        if not all(given):
            j = given.index(False)
            raise InvalidInstance(f"jobs[{j}].q", "is required (or a top-level qbar)")
        q = tuple(probability(job["q"], f"jobs[{j}].q") for j, job in enumerate(jobs))
        return cls(base, q, None, meta)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION}
        if self.rigid.name:
            d["name"] = self.rigid.name
        d["P"] = self.rigid.P
        if self.qbar is not None and self.q == tuple(Fraction(float(x))
                                                     for x in self.rigid.q(self.qbar)):
            d["jobs"] = [{"p": job.p, "t": to_jsonable(job.t)} for job in self.rigid.jobs]
            d["qbar"] = self.qbar
        else:
            d["jobs"] = [{"p": job.p, "t": to_jsonable(job.t), "q": _text(qj)}
                         for job, qj in zip(self.rigid.jobs, self.q, strict=True)]
        d.update(to_jsonable(self.metadata))
        return d


def _text(q: Fraction) -> Any:
    """A q_j for JSON: a number when its decimal text is exact (0.05), else "p/q"."""
    as_float = float(q)
    if Fraction(repr(as_float)) == q:
        return as_float
    return str(q)


#: q-bar of the smoke instances, and the q-bar levels of the library
SMOKE_QBAR = 0.2
LIBRARY_QBARS = (0.05, 0.1, 0.2, 0.3)
#: job sets of the library (each at every q-bar level)
LIBRARY_SETS = 25
#: decimals the library keeps of each calibrated q_j
Q_DECIMALS = 3


def _job_set(rng: Any, n: int, P: int, tmax: int) -> list[tuple[int, int]]:
    return [(int(rng.integers(1, P, endpoint=True)), int(rng.integers(1, tmax, endpoint=True)))
            for _ in range(n)]


def _rounded(rigid: RigidInstance, qbar: float) -> tuple[Fraction, ...]:
    """The calibrated q_j rounded to `Q_DECIMALS` decimals (exact decimals)."""
    return tuple(Fraction(round(float(x), Q_DECIMALS)).limit_denominator(10**Q_DECIMALS)
                 for x in rigid.q(qbar))


def _generate(seed: int, count: int, label: str, qbars: Sequence[float], n_range: tuple[int, int],
              P_range: tuple[int, int], tmax: int) -> list[OnlineRigidInstance]:
    """Job set k from child k of ``SeedSequence(seed)``, at every q-bar of `qbars` in turn."""
    import numpy as np

    out: list[OnlineRigidInstance] = []
    sets = -(-count // len(qbars))
    for k, child in enumerate(np.random.SeedSequence(int(seed)).spawn(sets)):
        rng = np.random.default_rng(child)
        n = int(rng.integers(*n_range, endpoint=True))
        P = int(rng.integers(*P_range, endpoint=True))
        jobs = _job_set(rng, n, P, tmax)
        for qbar in qbars[:count - len(out)]:
            rigid = RigidInstance.build(P, jobs, name=f"{label}-{seed}-{len(out)}")
            meta = {"generator": label, "seed": int(seed), "index": len(out), "set": k,
                    "qbar_level": qbar, "params": {"n": n, "P": P, "p": [1, P], "t": [1, tmax],
                                             "q_decimals": Q_DECIMALS}}
            out.append(OnlineRigidInstance(rigid, _rounded(rigid, qbar), None, meta))
    return out


def smoke(seed: int, count: int | None = None) -> list[OnlineRigidInstance]:
    """3 tiny instances (n = 3, P in 2..4, t in 1..3) at q-bar = 0.2: the gap smoke suite."""
    from resilsched.instances.fields import count_or_default

    return _generate(seed, count_or_default(count, 3), "online-smoke", (SMOKE_QBAR,),
                     (3, 3), (2, 4), 3)


def library(seed: int, count: int | None = None) -> list[OnlineRigidInstance]:
    """The shipped library: `LIBRARY_SETS` job sets (n in 3..5, P in 2..6, p in 1..P, t in
    1..5) each at the q-bar levels of `LIBRARY_QBARS`, q_j rounded to `Q_DECIMALS` decimals:
    100 instances by default."""
    from resilsched.instances.fields import count_or_default

    return _generate(seed, count_or_default(count, LIBRARY_SETS * len(LIBRARY_QBARS)),
                     "online", LIBRARY_QBARS, (3, 5), (2, 6), 5)


PRESETS = {
    "smoke": ("3 tiny instances (n = 3) at q-bar = 0.2: the smoke suite of the gap report",
              smoke),
    "library": (f"{LIBRARY_SETS} job sets (n 3..5, P 2..6, t 1..5) at q-bar "
                f"{', '.join(map(str, LIBRARY_QBARS))}: the shipped library rigid-online",
                library),
}
