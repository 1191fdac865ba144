"""Desktop-grid instances with predicted availabilities (spec 004 §1.1-1.2, §1.6, A-19).

m uniform machines; machine i has cycle time b_i and alternates availabilities and
unavailabilities known in advance: it becomes usable at e_i(0), then interval k = 1..K_i is an
availability of length a_i(k) followed by an unavailability of length u_i(k)::

    e_i(0) |-- a_i(1) --| s_i(1) |== u_i(1) ==| e_i(1) |-- a_i(2) --| s_i(2) ...
    s_i(k) = e_i(k-1) + a_i(k),   e_i(k) = s_i(k) + u_i(k),   q_i(k) = e_i(k-1) + u_i(k)

q_i(k) is the worst-case start of availability k (unavailability k advanced by a_i(k), spec F2).
n independent jobs of processing amounts p_j; job j lasts t_ij = max(1, round(b_i p_j)) integer
seconds on machine i (A-19), the product of the values the file writes (an integer, a fraction
string, or the decimal a JSON number writes: 1.15 x 50 = 57.5) rounded half up exactly (D-3,
`resilsched.instances.desktop.durations`). Every time is an integer number of seconds; time 0 is
the common origin (A-20). Limits (D-22): at most 10^4 jobs, 10^5 machines, 10^6 intervals in
all, m n <= 5·10^7; times in [1, 10^12] (e0 from 0), traces ending by 10^12; p in (0, 10^12];
b in [10^-6, 10^6].

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
from fractions import Fraction
from functools import cached_property
from itertools import chain
from numbers import Integral, Real
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.desktop.durations import duration_matrix as _durations
from resilsched.instances.desktop.durations import exact_duration, exact_value
from resilsched.instances.fields import (
    FORMAT_VERSION,
    MAX_JOBS,
    check_header,
    check_metadata,
    job_count,
    positive_int,
    positive_number,
    show,
    time_value,
)
from resilsched.solution import to_jsonable

FAMILY = "desktop"

#: Largest time accepted anywhere (about 31,700 years in seconds): sums stay exact in int64
#: (decision T8; the same bound as `resilsched.instances.fields.MAX_TIME`).
MAX_TIME = 10**12
#: Most machines of an instance (decision D-22): 10x the 5,000 hosts where m * n reaches
#: `MAX_CELLS` at `MAX_JOBS` jobs, 200x the paper's 500; each machine is a Python object.
MAX_MACHINES = 10**5
#: Largest m * n (the duration matrix t_ij is held in memory as int64).
MAX_CELLS = 5 * 10**7
#: Most intervals in all, hence on one machine too (D-22): 2.4x the 417,000 of 5,000 hosts over
#: the 30 days of the synthetic traces.
MAX_INTERVALS = 10**6
#: Range of the cycle times b (D-22): speeds differ by at most 10^12, so that t_ij / b_i and
#: every other derived quantity stays below 10^18.
B_RANGE = (1e-6, 1e6)


def _time(x: object, field_name: str, low: int) -> int:
    """An integer number of seconds in [low, MAX_TIME] (4.0 is accepted, 4.5 is not)."""
    ok = not isinstance(x, bool) and (  # an int of any size, or an integral finite float
        isinstance(x, Integral) or (isinstance(x, Real) and math.isfinite(x)
                                    and float(x).is_integer()))
    if not ok:
        raise InvalidInstance(field_name, f"{show(x)} must be an integer number of seconds")
    if x < low:
        raise InvalidInstance(field_name, f"{show(x)} must be >= {low}")
    if x > MAX_TIME:
        raise InvalidInstance(field_name, f"{show(x)} exceeds the largest time {MAX_TIME}")
    return int(x)


def _seconds(values: tuple, where: str, low: int) -> tuple[int, ...]:
    """Every entry an integer number of seconds in [low, MAX_TIME]: checked at once when all are
    Python ints (JSON integers), else entry by entry; the first bad entry is named."""
    if len(values) > MAX_INTERVALS:
        raise InvalidInstance(where, f"has {len(values)} lengths (at most {MAX_INTERVALS} "
                                     "intervals, decision D-22)")
    if set(map(type, values)) <= {int} and (not values or (min(values) >= low
                                                           and max(values) <= MAX_TIME)):
        return values
    return tuple(_time(x, f"{where}[{k}]", low) for k, x in enumerate(values))


def _cycle_time(x: object, field_name: str) -> Any:
    """A cycle time b in `B_RANGE` (number or exact fraction string)."""
    v = positive_number(x, field_name)
    low, high = B_RANGE
    if not low <= v <= high:
        raise InvalidInstance(field_name, f"{show(v)} must be in [{low:g}, {high:g}] "
                                          "(decision D-22)")
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

    @classmethod
    def checked(cls, b: Any, e0: Any, a: Sequence[Any], u: Sequence[Any],
                where: str) -> Machine:
        """A machine whose refusals name `where` (``machines[3]``, a trace's host)."""
        mach = cls.__new__(cls)
        for name, value in (("b", b), ("e0", e0), ("a", tuple(a)), ("u", tuple(u))):
            object.__setattr__(mach, name, value)
        mach._check(where)
        return mach

    def _check(self, where: str) -> None:
        object.__setattr__(self, "b", _cycle_time(self.b, f"{where}.b"))
        object.__setattr__(self, "e0", _time(self.e0, f"{where}.e0", 0))
        a, u = tuple(self.a), tuple(self.u)
        if not a:
            raise InvalidInstance(f"{where}.a", "must hold at least one availability length")
        if len(u) != len(a):
            raise InvalidInstance(f"{where}.u", f"has {len(u)} lengths but a has {len(a)}")
        a = _seconds(a, f"{where}.a", 1)
        u = _seconds(u, f"{where}.u", 1)
        end = self.e0 + sum(a) + sum(u)
        if end > MAX_TIME:
            raise InvalidInstance(f"{where}", f"the trace ends at {end} s, after the largest "
                                              f"time {MAX_TIME}")
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
    """t_ij = max(1, round(b_i p_j)) as a read-only (m, n) int64 array: the exact values of b
    and p, halves rounded up (A-19, D-3; `resilsched.instances.desktop.durations`). A duration
    above `MAX_TIME` is refused, naming the job and the machine."""
    out = _durations(b, p)
    if out.size and out.max() > MAX_TIME:
        i, j = np.unravel_index(int(out.argmax()), out.shape)
        raise InvalidInstance(f"jobs[{j}].p", f"{show(p[j])} lasts {int(out[i, j])} s on "
                                              f"machine {i}, more than the largest time "
                                              f"{MAX_TIME}")
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
        if len(machines) > MAX_MACHINES:
            raise InvalidInstance("machines", f"has {len(machines)} entries (at most "
                                              f"{MAX_MACHINES}, decision D-22)")
        for i, mach in enumerate(machines):
            if not isinstance(mach, Machine):
                raise InvalidInstance(f"machines[{i}]", "must be a Machine")
        if not self.p:
            raise InvalidInstance("jobs", "must hold at least one job")
        if len(self.p) > MAX_JOBS:
            raise InvalidInstance("jobs", f"has {len(self.p)} entries (at most {MAX_JOBS})")
        p = tuple(time_value(x, f"jobs[{j}].p") for j, x in enumerate(self.p))
        if not isinstance(self.slack_rule, bool):
            raise InvalidInstance("slack_rule", f"{self.slack_rule!r} must be true or false")
        if len(machines) * len(p) > MAX_CELLS:
            raise InvalidInstance("instance", f"m * n = {len(machines)} * {len(p)} exceeds "
                                              f"{MAX_CELLS} (t_ij is kept in memory)")
        total = sum(mach.K for mach in machines)
        if total > MAX_INTERVALS:
            raise InvalidInstance("machines", f"hold {total} intervals in all (at most "
                                              f"{MAX_INTERVALS}, decision D-22)")
        object.__setattr__(self, "machines", machines)
        object.__setattr__(self, "p", p)
        self._check_fits()

    def _check_fits(self) -> None:
        """No duration exceeds `MAX_TIME` (the longest job on the slowest machine is the longest
        t_ij: rounding is monotone) and the longest job fits some availability under the
        instance's rule (spec 1.2). Reads one column of t_ij, not the matrix."""
        j = self.longest_job
        t = self.longest_durations
        if t.max() > MAX_TIME:
            i = int(t.argmax())
            raise InvalidInstance(f"jobs[{j}].p", f"{show(self.p[j])} lasts {int(t[i])} s on "
                                                  f"machine {i}, more than the largest time "
                                                  f"{MAX_TIME}")
        need = 2 * t if self.slack_rule else t
        longest = np.fromiter((max(mach.a) for mach in self.machines), dtype=np.int64,
                              count=self.m)
        if not (longest >= need).any():
            rule = "2 t_ij <= a_i(k) (slack rule)" if self.slack_rule else "t_ij <= a_i(k)"
            raise InvalidInstance(f"jobs[{j}].p", f"{show(self.p[j])} fits no availability: no "
                                                  f"interval has {rule}")

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
        """t_ij as a read-only (m, n) int64 array (A-19), computed on first use."""
        return duration_matrix(self.b, self.p)

    @cached_property
    def longest_durations(self) -> np.ndarray:
        """Column `longest_job` of t_ij: the longest job on every machine (m,), read-only."""
        return _durations(self.b, [self.p[self.longest_job]])[:, 0]

    @cached_property
    def shortest_durations(self) -> np.ndarray:
        """min_j t_ij per machine: the shortest job (the first of `order`) on every machine."""
        return _durations(self.b, [self.p[int(self.order[0])]])[:, 0]

    def t(self, i: int, j: int) -> int:
        """t_ij: read from whichever matrix is built (`durations`, `sorted_durations`), else
        computed exactly for this pair alone (the same value, without building a matrix)."""
        if "durations" in self.__dict__:
            return int(self.durations[i, j])
        if "sorted_durations" in self.__dict__:
            return int(self.sorted_durations[i, self.position[j]])
        return exact_duration(self.machines[i].b, self.p[j])

    @cached_property
    def position(self) -> np.ndarray:
        """The inverse of `order`: ``position[j]`` is job j's place in the sorted order."""
        out = np.empty(self.n, dtype=np.int64)
        out[self.order] = np.arange(self.n)
        out.flags.writeable = False
        return out

    @cached_property
    def order(self) -> np.ndarray:
        """Job indices by non-decreasing p_j, ties by index (A-24); t_ij follows this order on
        every machine since rounding is monotone. Exact fractions are compared exactly (two of
        them may share a float)."""
        if any(isinstance(x, Fraction) for x in self.p):
            exact = [exact_value(x) for x in self.p]
            out = np.asarray(sorted(range(self.n), key=lambda j: (exact[j], j)), dtype=np.int64)
        else:
            out = np.argsort(np.asarray([float(x) for x in self.p]), kind="stable")
        out.flags.writeable = False
        return out

    @cached_property
    def sorted_durations(self) -> np.ndarray:
        """t_ij with the jobs in `order`: row i is non-decreasing (m, n), read-only (computed
        from b and the sorted p, the same values as ``durations[:, order]``)."""
        return _durations(self.b, self._sorted_p)

    @cached_property
    def durations_by_position(self) -> np.ndarray:
        """The transpose of `sorted_durations`, contiguous (n, m): row r holds the durations of
        the job at sorted position r on every machine (the product is symmetric)."""
        return _durations(self._sorted_p, self.b)

    @property
    def _sorted_p(self) -> list[Any]:
        return [self.p[j] for j in self.order.tolist()]

    @cached_property
    def flat(self) -> dict[str, np.ndarray]:
        """Every interval k = 1..K_i of every machine as flat read-only int64 arrays, machine i
        at ``off[i]:off[i+1]``: ``a``, ``u``, ``s`` (s(k)), ``e`` (e(k)), ``e_prev``
        (e(k-1)), ``q`` (q(k)); ``off`` has m + 1 entries (for the vectorised heuristics,
        disturbances and executor)."""
        K = np.fromiter((mach.K for mach in self.machines), dtype=np.int64, count=self.m)
        off = np.zeros(self.m + 1, dtype=np.int64)
        np.cumsum(K, out=off[1:])
        n = int(off[-1])

        def flat(get) -> np.ndarray:
            return np.fromiter(chain.from_iterable(get(mach) for mach in self.machines),
                               dtype=np.int64, count=n)

        a, u = flat(lambda mach: mach.a), flat(lambda mach: mach.u)
        e0 = np.fromiter((mach.e0 for mach in self.machines), dtype=np.int64, count=self.m)
        run = np.cumsum(a + u)  # e(k) - e(0) over all machines in turn, then made per machine
        before = np.zeros(self.m, dtype=np.int64)
        before[1:] = run[off[1:-1] - 1]
        e = run - np.repeat(before - e0, K)
        e_prev = e - a - u
        out = {"off": off, "a": a, "u": u, "s": e_prev + a, "e": e, "e_prev": e_prev,
               "q": e_prev + u}
        for arr in out.values():
            arr.flags.writeable = False
        return out

    @cached_property
    def longest_job(self) -> int:
        """A job of largest p (the last of `order`)."""
        return int(self.order[-1])

    @property
    def p_max(self) -> int:
        """max over i, j of t_ij (spec 1.1, A-21: global)."""
        return int(self.longest_durations.max())

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
        tmax = self.longest_durations
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
        job_count(raw, "machines", MAX_MACHINES)
        jobs = d.get("jobs")
        if not isinstance(jobs, list) or not jobs:
            raise InvalidInstance("jobs", 'must be a non-empty list of {"p": number}')
        job_count(jobs, "jobs", MAX_JOBS)
        machines, intervals = [], 0
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
            intervals += len(mach["a"])
            if intervals > MAX_INTERVALS:
                raise InvalidInstance(f"{where}.a", f"brings the intervals to {intervals}, more "
                                                    f"than {MAX_INTERVALS} (decision D-22)")
            machines.append(Machine.checked(mach["b"], mach.get("e0", 0), mach["a"], mach["u"],
                                            where))
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
        check_metadata(d)
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
