"""Desktop-grid instances with predicted availabilities (spec 004 §1.1-1.2, §1.6, A-19).

m uniform machines; machine i has cycle time b_i and alternates availabilities and
unavailabilities known in advance: it becomes usable at e_i(0), then interval k = 1..K_i is an
availability of length a_i(k) followed by an unavailability of length u_i(k)::

    e_i(0) |-- a_i(1) --| s_i(1) |== u_i(1) ==| e_i(1) |-- a_i(2) --| s_i(2) ...
    s_i(k) = e_i(k-1) + a_i(k),   e_i(k) = s_i(k) + u_i(k),   q_i(k) = e_i(k-1) + u_i(k)

q_i(k) is the worst-case start of availability k (unavailability k advanced by a_i(k), spec F2).
n independent jobs of processing amounts p_j; job j lasts t_ij = max(1, round(b_i p_j)) integer
seconds on machine i (A-19, rounded half up). Every time is an integer number of seconds; time 0
is the common origin (A-20).

The JSON contract (docs/architecture.md, issue 12)::

    {"family": "desktop", "format_version": 1,
     "machines": [{"b": 1.0, "e0": 0, "a": [10, 8, 12], "u": [5, 5, 5]}, ...],
     "jobs": [{"p": 4}, {"p": 3}], "slack_rule": true}

``slack_rule`` (default true) names the problem: minimise the horizon under the slack rule of
Definition 2, or without it. Machines are indexed from 0, jobs from 0, intervals k from 1 (the
paper's). An instance that breaks 2 p_max <= a_min (H1) is valid: `assumption_h1` says whether
Proposition 1 applies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from numbers import Integral, Real
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.fields import FORMAT_VERSION, check_header, positive_int
from resilsched.numeric import parse_number
from resilsched.solution import to_jsonable

FAMILY = "desktop"

#: Largest time accepted anywhere (about 31,700 years in seconds): sums stay exact in int64.
MAX_TIME = 10**12
#: Largest m * n (the duration matrix t_ij is held in memory as int64).
MAX_CELLS = 5 * 10**7
#: Largest total number of intervals.
MAX_INTERVALS = 10**7


def _time(x: object, field_name: str, low: int) -> int:
    """An integer number of seconds in [low, MAX_TIME] (4.0 is accepted, 4.5 is not)."""
    ok = (
        not isinstance(x, bool)
        and isinstance(x, Real)
        and math.isfinite(x)
        and (isinstance(x, Integral) or float(x).is_integer())
    )
    if not ok:
        raise InvalidInstance(field_name, f"{x!r} must be an integer number of seconds")
    v = int(x)
    if v < low:
        raise InvalidInstance(field_name, f"{v} must be >= {low}")
    if v > MAX_TIME:
        raise InvalidInstance(field_name, f"{v} exceeds the largest time {MAX_TIME}")
    return v


def _number(x: object, field_name: str) -> Any:
    v = parse_number(x, field_name)
    if not v > 0:
        raise InvalidInstance(field_name, f"{v} must be > 0")
    if v > MAX_TIME:
        raise InvalidInstance(field_name, f"{v} exceeds {MAX_TIME}")
    return v


@dataclass(frozen=True)
class Machine:
    """One machine: cycle time b (inverse speed), first usable date e0, availability lengths
    a = (a(1), ..., a(K)) and the unavailability lengths u that follow them (spec 1.1)."""

    b: Any
    e0: int
    a: tuple[int, ...]
    u: tuple[int, ...]

    def __post_init__(self) -> None:
        self._check("machine")

    def _check(self, where: str) -> None:
        object.__setattr__(self, "b", _number(self.b, f"{where}.b"))
        object.__setattr__(self, "e0", _time(self.e0, f"{where}.e0", 0))
        a, u = tuple(self.a), tuple(self.u)
        if not a:
            raise InvalidInstance(f"{where}.a", "must hold at least one availability length")
        if len(u) != len(a):
            raise InvalidInstance(f"{where}.u", f"has {len(u)} lengths but a has {len(a)}")
        a = tuple(_time(x, f"{where}.a[{k}]", 1) for k, x in enumerate(a))
        u = tuple(_time(x, f"{where}.u[{k}]", 1) for k, x in enumerate(u))
        if self.e0 + sum(a) + sum(u) > MAX_TIME:
            raise InvalidInstance(f"{where}", f"the trace ends after the largest time {MAX_TIME}")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "u", u)

    @property
    def K(self) -> int:
        return len(self.a)

    @cached_property
    def e(self) -> tuple[int, ...]:
        """(e(0), e(1), ..., e(K)): ends of the unavailabilities, e(0) = e0."""
        out = [self.e0]
        for a, u in zip(self.a, self.u, strict=True):
            out.append(out[-1] + a + u)
        return tuple(out)

    @cached_property
    def s(self) -> tuple[int, ...]:
        """(s(1), ..., s(K)) at index k-1: starts of the unavailabilities."""
        return tuple(self.e[k] + self.a[k] for k in range(self.K))

    @cached_property
    def q(self) -> tuple[int, ...]:
        """(q(1), ..., q(K)) at index k-1: q(k) = e(k-1) + u(k), worst-case start of availability
        k (spec F2)."""
        return tuple(self.e[k] + self.u[k] for k in range(self.K))

    def to_dict(self) -> dict[str, Any]:
        return {"b": to_jsonable(self.b), "e0": self.e0, "a": list(self.a), "u": list(self.u)}


def duration_matrix(b: Sequence[Any], p: Sequence[Any]) -> np.ndarray:
    """t_ij = max(1, floor(b_i p_j + 1/2)) as an (m, n) int64 array (A-19, rounded half up in
    float64)."""
    bb = np.asarray([float(x) for x in b], dtype=np.float64)
    pp = np.asarray([float(x) for x in p], dtype=np.float64)
    t = np.floor(np.multiply.outer(bb, pp) + 0.5)
    if t.size and t.max() > MAX_TIME:
        i, j = np.unravel_index(int(t.argmax()), t.shape)
        raise InvalidInstance(f"jobs[{j}].p", f"{p[j]} lasts {t[i, j]:.0f} s on machine {i}, "
                                              f"more than the largest time {MAX_TIME}")
    out = np.maximum(t, 1).astype(np.int64)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class DesktopInstance:
    """m machines with predicted availabilities and n jobs (spec 004 §1.1-1.2).

    Parameters
    ----------
    machines : the machines (b, e0, a, u).
    p : processing amounts p_j (reference seconds; numbers > 0).
    slack_rule : the problem the instance names: minimise the horizon under the slack rule
        (Definition 2) or without it.
    name : free-form identifier.
    metadata : anything else (generator, seeds, absorb_short threshold ...).

    Raises
    ------
    InvalidInstance
        naming the field and the rule, e.g. ``machines[2].a[0]=0 must be >= 1`` or
        ``jobs[4].p=900 fits no availability ...``.
    """

    machines: tuple[Machine, ...]
    p: tuple[Any, ...]
    slack_rule: bool = True
    name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        machines = tuple(self.machines)
        if not machines:
            raise InvalidInstance("machines", "must hold at least one machine")
        for i, mach in enumerate(machines):
            if not isinstance(mach, Machine):
                raise InvalidInstance(f"machines[{i}]", "must be a Machine")
        p = tuple(_number(x, f"jobs[{j}].p") for j, x in enumerate(self.p))
        if not p:
            raise InvalidInstance("jobs", "must hold at least one job")
        if not isinstance(self.slack_rule, bool):
            raise InvalidInstance("slack_rule", f"{self.slack_rule!r} must be true or false")
        if len(machines) * len(p) > MAX_CELLS:
            raise InvalidInstance("instance", f"m * n = {len(machines)} * {len(p)} exceeds "
                                              f"{MAX_CELLS} (t_ij is kept in memory)")
        if sum(mach.K for mach in machines) > MAX_INTERVALS:
            raise InvalidInstance("machines", f"more than {MAX_INTERVALS} intervals in total")
        object.__setattr__(self, "machines", machines)
        object.__setattr__(self, "p", p)
        self._check_fits()

    def _check_fits(self) -> None:
        """The longest job fits some availability under the instance's rule (spec 1.2)."""
        j = self.longest_job
        t = self.durations[:, j]
        need = 2 * t if self.slack_rule else t
        for i, mach in enumerate(self.machines):
            if max(mach.a) >= need[i]:
                return
        rule = "2 t_ij <= a_i(k) (slack rule)" if self.slack_rule else "t_ij <= a_i(k)"
        raise InvalidInstance(f"jobs[{j}].p", f"{self.p[j]} fits no availability: no interval "
                                              f"has {rule}")

    # -- sizes and derived data --------------------------------------------------------------
    @property
    def m(self) -> int:
        return len(self.machines)

    @property
    def n(self) -> int:
        return len(self.p)

    @property
    def K(self) -> int:
        """Total number of intervals, sum_i K_i."""
        return sum(mach.K for mach in self.machines)

    @property
    def b(self) -> tuple[Any, ...]:
        return tuple(mach.b for mach in self.machines)

    @cached_property
    def durations(self) -> np.ndarray:
        """t_ij as a read-only (m, n) int64 array (A-19)."""
        return duration_matrix(self.b, self.p)

    def t(self, i: int, j: int) -> int:
        return int(self.durations[i, j])

    @cached_property
    def order(self) -> np.ndarray:
        """Job indices by non-decreasing p_j, ties by index (A-24); t_ij follows this order on
        every machine since rounding is monotone."""
        out = np.argsort(np.asarray([float(x) for x in self.p]), kind="stable")
        out.flags.writeable = False
        return out

    @cached_property
    def sorted_durations(self) -> np.ndarray:
        """t_ij with the jobs in `order`: row i is non-decreasing (m, n), read-only."""
        out = np.ascontiguousarray(self.durations[:, self.order])
        out.flags.writeable = False
        return out

    @cached_property
    def durations_by_position(self) -> np.ndarray:
        """The transpose of `sorted_durations`, contiguous (n, m): row r holds the durations of
        the job at sorted position r on every machine."""
        out = np.ascontiguousarray(self.sorted_durations.T)
        out.flags.writeable = False
        return out

    @cached_property
    def longest_job(self) -> int:
        """A job of largest p (the last of `order`)."""
        return int(self.order[-1])

    @property
    def p_max(self) -> int:
        """max over i, j of t_ij (spec 1.1, A-21: global)."""
        return int(self.durations[:, self.longest_job].max())

    @property
    def a_min(self) -> int:
        return min(min(mach.a) for mach in self.machines)

    @property
    def a_max(self) -> int:
        return max(max(mach.a) for mach in self.machines)

    @property
    def assumption_h1(self) -> bool:
        """2 p_max <= a_min, the hypothesis H1 of Proposition 1 (spec 2.1)."""
        return 2 * self.p_max <= self.a_min

    def assumption_h1_per_machine(self) -> tuple[bool, ...]:
        """The per-processor relaxation of H1 (spec 1.7, A-21): 2 max_j t_ij <= min_k a_i(k)."""
        tmax = self.durations[:, self.longest_job]
        return tuple(bool(2 * tmax[i] <= min(m.a)) for i, m in enumerate(self.machines))

    @property
    def horizon_end(self) -> int:
        """max_i e_i(K_i): the end of the trace, DAslack's first upper bound (Algorithm 6)."""
        return max(mach.e[-1] for mach in self.machines)

    def with_rule(self, slack_rule: bool) -> DesktopInstance:
        """The same machines and jobs under the other problem."""
        return replace(self, slack_rule=slack_rule)

    def describe(self) -> str:
        return (f"{self.name or 'desktop instance'}: m={self.m}, n={self.n}, K={self.K}, "
                f"p_max={self.p_max}, a_min={self.a_min}, H1 "
                f"{'holds' if self.assumption_h1 else 'does not hold'}, slack rule "
                f"{'on' if self.slack_rule else 'off'}")

    # -- I/O ---------------------------------------------------------------------------------
    @classmethod
    def build(cls, machines: Sequence[tuple[Any, int, Sequence[int], Sequence[int]]],
              p: Sequence[Any], **kw: Any) -> DesktopInstance:
        """Convenience constructor from (b, e0, a, u) tuples."""
        return cls(tuple(Machine(b, e0, tuple(a), tuple(u)) for b, e0, a, u in machines),
                   tuple(p), **kw)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DesktopInstance:
        check_header(d, FAMILY)
        raw = d.get("machines")
        if not isinstance(raw, list) or not raw:
            raise InvalidInstance("machines", 'must be a non-empty list of {"b", "e0", "a", "u"}')
        machines = []
        for i, mach in enumerate(raw):
            where = f"machines[{i}]"
            if not isinstance(mach, dict):
                raise InvalidInstance(where, 'must be an object {"b", "e0", "a", "u"}')
            for key in ("b", "a", "u"):
                if key not in mach:
                    raise InvalidInstance(f"{where}.{key}", "is required")
            for key in ("a", "u"):
                if not isinstance(mach[key], list):
                    raise InvalidInstance(f"{where}.{key}", "must be a list of integer lengths")
            m = Machine.__new__(Machine)
            object.__setattr__(m, "b", mach["b"])
            object.__setattr__(m, "e0", mach.get("e0", 0))
            object.__setattr__(m, "a", tuple(mach["a"]))
            object.__setattr__(m, "u", tuple(mach["u"]))
            m._check(where)
            machines.append(m)
        jobs = d.get("jobs")
        if not isinstance(jobs, list) or not jobs:
            raise InvalidInstance("jobs", 'must be a non-empty list of {"p": number}')
        p = []
        for j, job in enumerate(jobs):
            if not isinstance(job, dict):
                raise InvalidInstance(f"jobs[{j}]", 'must be an object {"p": number}')
            if "p" not in job:
                raise InvalidInstance(f"jobs[{j}].p", "is required")
            p.append(job["p"])
        rule = d.get("slack_rule", True)
        if not isinstance(rule, bool):
            raise InvalidInstance("slack_rule", f"{rule!r} must be true or false")
        known = {"family", "format_version", "machines", "jobs", "slack_rule", "name"}
        meta = {k: v for k, v in d.items() if k not in known}
        return cls(tuple(machines), tuple(p), rule, str(d.get("name", "")), meta)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION}
        if self.name:
            d["name"] = self.name
        d["machines"] = [mach.to_dict() for mach in self.machines]
        d["jobs"] = [{"p": to_jsonable(x)} for x in self.p]
        d["slack_rule"] = self.slack_rule
        d.update(to_jsonable(self.metadata))
        return d


def positive_count(x: object, field_name: str) -> int:
    """A count >= 1 (machines, jobs, sets) checked at a generator's boundary."""
    return positive_int(x, field_name)
