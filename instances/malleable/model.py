"""Malleable applications on one pack of failing processors (spec 001 §1.2, §1.4-1.6, §3.1).

n malleable applications T_1..T_n share p identical processors. T_i runs in t_{i,j} seconds on
j processors without failures (a table satisfying (1.1) time non-increasing and (1.2) work
non-decreasing, or the synthetic profile (1.13)), has memory footprint m_i, checkpoints with the
buddy protocol (even processor counts, cost C_{i,j} = m_i c / j + beta, Young's period) and is
struck by fail-stop failures, exponential per processor with mean ``mtbf`` (MTBF mu = 1/lambda),
each followed by a downtime D and a recovery R_{i,j} = C_{i,j}.

JSON (``format_version`` 1)::

    {"family": "malleable", "format_version": 1, "p": 8,
     "tasks": [{"t": [100, 55, 40, 31, 26, 22, 20, 18], "m": 50},   # explicit t_1..t_p
               {"m": 1000, "f": 0.08}],                           # synthetic profile (1.13)
     "mtbf": 3.15576e9, "downtime": 60,
     "checkpoint_factor": 1, "S": 0, "beta": 0, "period": "young",
     "failures": [[12.5, 3], [400.0, 0]],                          # optional trace
     "name": "..."}

- ``mtbf`` is the per-processor MTBF in seconds; ``null`` means no failures (lambda = 0, the
  fault-free context of §1.3.5 (1): no checkpoints, t^R = alpha t; decision MA-2).
- ``checkpoint_factor`` is c (time to checkpoint one data unit, bandwidth 1/c), ``S`` the start-up
  cost of a redistribution and ``beta`` the message latency of (1.11); ``period`` picks Young's
  tau = sqrt(2 mu_j C) + C (default) or the formula as printed, sqrt(2 mu_j C + C) (A-1).
- ``failures`` is a trace ``[[time, processor], ...]`` with 0-based processor ids in [0, p);
  without it a trace is drawn from ``mtbf`` with the run's seed (`instances.malleable.traces`).

Rules (each broken one is a one-line `InvalidInstance` naming the field), with the maxima of
decision T8 (MA-23): 2n <= p <= 10^7 (A-17), at most 10^4 tasks, tables of p times in
(0, 10^12] obeying (1.1)/(1.2) (`instances.coschedule.check_profile`) and at most 10^6 table
entries in all, m in (0, 10^18] (m > 1 for the synthetic profile, whose log2 m must be positive,
and its t_1 at most 10^12 s), f in [0, 1], mtbf and c in (0, 10^12], downtime, S and beta in
[0, 10^12], a redistribution cost S + m c / 2 + p beta of at most 10^18, a trace of at most 10^5
failures at times in [0, 10^12], lambda j tau <= 700 and an expected time (1.6) of at most
10^18 s on 2 and on p processors (the error names the application and its expected failures).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.coschedule import MAX_CELLS, check_profile
from resilsched.instances.failures import MAX_ATTEMPTS
from resilsched.instances.fields import (
    FORMAT_VERSION,
    MAX_DERIVED,
    MAX_JOBS,
    MAX_TIME,
    bounded_number,
    check_header,
    check_metadata,
    derived,
    job_count,
    processors,
    require,
)
from resilsched.numeric import REL_TOL
from resilsched.solution import to_jsonable

FAMILY = "malleable"
PERIODS = ("young", "as_printed")
#: seconds in a year (A-24)
YEAR = 365.25 * 24 * 3600.0
#: largest lambda j tau accepted: e^700 is still a finite double (spec (1.6))
MAX_EXPONENT = 700.0


def _number(x: object, where: str, *, strict: bool = True, high: float = MAX_TIME) -> float:
    """A finite JSON number in (0, high] ([0, high] when not `strict`), as a float: times are
    at most `MAX_TIME` (decision T8)."""
    return float(bounded_number(x, where, high, allow_zero=not strict))


@dataclass(frozen=True)
class MalleableTask:
    """One application: footprint `m` and either an explicit table `t` or the synthetic `f`."""

    m: float
    t: tuple[float, ...] | None = None
    f: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.t is not None:
            d["t"] = list(self.t)
        d["m"] = self.m
        if self.f is not None:
            d["f"] = self.f
        return d


@dataclass(frozen=True)
class MalleableInstance:
    """A RESILIENT-COSCHED-1PACK instance (spec 001 Definition 1.2), validated at construction.

    Parameters
    ----------
    p : processors (p >= 2n).
    tasks : the applications (`MalleableTask`).
    mtbf : per-processor MTBF mu in seconds, None for no failures.
    downtime : D in seconds.
    checkpoint_factor : c; C_{i,j} = m_i c / j + beta.
    S, beta : redistribution start-up and message latency of (1.11).
    period : ``"young"`` or ``"as_printed"`` (1.3).
    failures : optional trace, ``((time, processor), ...)`` sorted by time.
    """

    p: int
    tasks: tuple[MalleableTask, ...]
    mtbf: float | None
    downtime: float = 0.0
    checkpoint_factor: float = 1.0
    S: float = 0.0
    beta: float = 0.0
    period: str = "young"
    failures: tuple[tuple[float, int], ...] | None = None
    name: str = ""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        p = processors(self.p, "p")
        if not self.tasks:
            raise InvalidInstance("tasks", "must hold at least one application")
        n = len(self.tasks)
        if n > MAX_JOBS:
            raise InvalidInstance("tasks", f"has {n} entries (at most {MAX_JOBS})")
        _check_cells(sum(task.t is not None for task in self.tasks), p)
        if p < 2 * n:
            raise InvalidInstance("p", f"={p} is below 2n={2 * n}: every application needs an "
                                       "even count of at least 2 processors (A-17)")
        if self.mtbf is not None:
            _number(self.mtbf, "mtbf")
        _number(self.downtime, "downtime", strict=False)
        _number(self.checkpoint_factor, "checkpoint_factor")
        _number(self.S, "S", strict=False)
        _number(self.beta, "beta", strict=False)
        if self.period not in PERIODS:
            raise InvalidInstance("period", f"{self.period!r} is unknown (young, as_printed)")
        for i, task in enumerate(self.tasks):
            _check_task(task, p, f"tasks[{i}]")
        if self.failures is not None:
            if self.mtbf is None and self.failures:
                raise InvalidInstance("failures", "are given but mtbf is null (no failures)")
            _check_trace_length(self.failures, "failures")
            for r, (t, proc) in enumerate(self.failures):
                _number(t, f"failures[{r}][0]", strict=False)
                if isinstance(proc, bool) or not isinstance(proc, (int, np.integer)) \
                        or not 0 <= proc < p:
                    raise InvalidInstance(f"failures[{r}][1]",
                                          f"={proc!r} must be a processor id in [0, {p})")
        self._check_finite()

    # ------------------------------------------------------------------ accessors
    @property
    def n(self) -> int:
        return len(self.tasks)

    @property
    def lam(self) -> float:
        """lambda = 1/mu (0 without failures)."""
        return 0.0 if self.mtbf is None else 1.0 / float(self.mtbf)

    @property
    def fault_free(self) -> bool:
        return self.mtbf is None

    @property
    def p_even(self) -> int:
        """Largest even processor count (with p odd one processor stays idle, A-17)."""
        return self.p - self.p % 2

    @cached_property
    def m(self) -> np.ndarray:
        """Footprints m_i."""
        return np.array([task.m for task in self.tasks], dtype=float)

    @cached_property
    def synthetic_ab(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(a, b) with t_{i,q} = a_i + b_i / q when every task is synthetic (1.13), else None."""
        if any(task.t is not None for task in self.tasks):
            return None
        m = self.m
        f = np.array([task.f for task in self.tasks], dtype=float)
        lg = np.log2(m)
        t1 = 2.0 * m * lg
        return f * t1, (1.0 - f) * t1 + m * lg

    @cached_property
    def _table(self) -> np.ndarray | None:
        """Dense table T[i, q-1] = t_{i,q} when some task gives a table, else None."""
        if self.synthetic_ab is not None:
            return None
        q = np.arange(1, self.p + 1, dtype=float)
        rows = []
        for task in self.tasks:
            if task.t is not None:
                rows.append(np.asarray(task.t, dtype=float))
            else:
                rows.append(synthetic_row(task.m, task.f, q))
        return np.vstack(rows)

    def times(self, idx: np.ndarray, k: np.ndarray) -> np.ndarray:
        """t_{i,k} for arrays of application indices `idx` and processor counts `k` (1..p)."""
        syn = self.synthetic_ab
        if syn is not None:
            return syn[0][idx] + syn[1][idx] / k
        return self._table[idx, np.asarray(k, dtype=np.int64) - 1]

    def time(self, i: int, k: int) -> float:
        """t_{i,k} of one application (0-based i, 1 <= k <= p)."""
        return float(self.times(np.array([i]), np.array([k]))[0])

    # ------------------------------------------------------------------ checks
    def _check_finite(self) -> None:
        """(1.6) must stay finite: bound lambda j tau and the footprint's checkpoint cost."""
        with np.errstate(all="ignore"):
            self._check_overflow()

    def _check_overflow(self) -> None:
        mc = self.m * self.checkpoint_factor
        worst = self.S + mc / 2 + self.p * self.beta  # RC^{j->k} <= S + m c / 2 + p beta (1.11)
        bad = np.flatnonzero(~(worst <= MAX_DERIVED))
        if bad.size:
            derived(float(worst[bad[0]]), f"tasks[{bad[0]}].m",
                    "a redistribution cost S + m c / 2 + p beta")
        ks = np.array(sorted({2, self.p_even}), dtype=float)
        for k in ks:
            idx = np.arange(self.n)
            t = self.times(idx, np.full(self.n, int(k)))
            if not np.all(np.isfinite(t * self.p)):
                raise InvalidInstance("tasks", "execution times overflow a double")
            if self.mtbf is None:
                continue
            mu = float(self.mtbf)
            c = mc / k + self.beta
            if self.period == "young":
                tau = np.sqrt(2.0 * (mu / k) * c) + c
            else:
                tau = np.sqrt(2.0 * (mu / k) * c + c)
                bad = np.flatnonzero(~(tau > c))
                if bad.size:
                    raise InvalidInstance(
                        f"tasks[{bad[0]}].m", "gives a checkpoint cost C >= the printed period "
                        f"tau on {int(k)} processors: no work fits in a period")
            x = self.lam * k * np.maximum(tau, c)
            if not np.all(np.isfinite(x)) or np.any(x > MAX_EXPONENT):
                raise InvalidInstance("mtbf", f"={mu:g} is too small for the checkpoint costs: "
                                      "lambda j tau exceeds 700 and (1.6) overflows")
            xk = self.lam * k
            fails = failures_expected(t, c, tau, xk)
            t_r = np.exp(xk * c) * (1.0 / xk + self.downtime) * fails  # (1.6) at alpha = 1
            bad = np.flatnonzero(~(t_r <= MAX_DERIVED))
            if bad.size:
                i = int(bad[0])
                raise InvalidInstance(
                    f"tasks[{i}]", f"expects {fails[i]:.3g} failures on {int(k)} processors "
                    f"({np.expm1(xk * tau[i]):.3g} per checkpoint period): its expected time "
                    f"(1.6) is {t_r[i]:.3g} s, beyond {MAX_DERIVED:g} (decision T8)")

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION,
                               "p": self.p, "tasks": [t.to_dict() for t in self.tasks],
                               "mtbf": self.mtbf, "downtime": self.downtime}
        if self.checkpoint_factor != 1.0:
            out["checkpoint_factor"] = self.checkpoint_factor
        if self.S:
            out["S"] = self.S
        if self.beta:
            out["beta"] = self.beta
        if self.period != "young":
            out["period"] = self.period
        if self.failures is not None:
            out["failures"] = [[t, proc] for t, proc in self.failures]
        if self.name:
            out["name"] = self.name
        if self.metadata:
            out["metadata"] = to_jsonable(self.metadata)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MalleableInstance:
        """Parse and validate the JSON object of the module docstring."""
        check_header(d, FAMILY, FORMAT_VERSION)
        require(d, ("p", "tasks", "mtbf", "downtime"))
        p = processors(d["p"], "p")
        job_count(d["tasks"], "tasks")
        _check_cells(sum(isinstance(task, dict) and "t" in task for task in d["tasks"]), p)
        tasks = tuple(_parse_task(task, p, f"tasks[{i}]") for i, task in enumerate(d["tasks"]))
        mtbf = None if d["mtbf"] is None else _number(d["mtbf"], "mtbf")
        period = d.get("period", "young")
        if period not in PERIODS:
            raise InvalidInstance("period", f"{period!r} is unknown (young, as_printed)")
        failures = None
        if d.get("failures") is not None:
            failures = parse_failures(d["failures"], p, "failures")
        meta = check_metadata(d)
        return cls(p=p, tasks=tasks, mtbf=mtbf,
                   downtime=_number(d["downtime"], "downtime", strict=False),
                   checkpoint_factor=_number(d.get("checkpoint_factor", 1), "checkpoint_factor"),
                   S=_number(d.get("S", 0), "S", strict=False),
                   beta=_number(d.get("beta", 0), "beta", strict=False),
                   period=period, failures=failures, name=str(d.get("name", "")),
                   metadata=dict(meta))

    def to_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_json(cls, path: str | Path) -> MalleableInstance:
        return cls.from_dict(json.loads(Path(path).read_text()))

    def replace(self, **changes: Any) -> MalleableInstance:
        """A copy with some fields changed (validated again)."""
        fields = {k: getattr(self, k) for k in ("p", "tasks", "mtbf", "downtime",
                                                 "checkpoint_factor", "S", "beta", "period",
                                                 "failures", "name", "metadata")}
        fields.update(changes)
        return MalleableInstance(**fields)


def failures_expected(t, c, tau, x) -> np.ndarray:
    """The failures an application expects running work t in periods tau with checkpoints c
    at failure rate x (lambda j): N^ff (e^{x tau} - 1) + e^{x tau_last} - 1, the segments of
    (1.6) without its factor e^{x R} (1/x + D)."""
    w = tau - c
    periods = np.floor(t / w)
    return periods * np.expm1(x * tau) + np.expm1(x * np.maximum(t - periods * w, 0.0))


def synthetic_row(m: float, f: float, q: np.ndarray) -> np.ndarray:
    """(1.13): t(m, q) = f t1 + (1 - f) t1 / q + (m / q) log2 m with t1 = 2 m log2 m.

    The same formula as `instances.coschedule.synthetic_times` (tests check they agree),
    vectorised over q.
    """
    lg = math.log2(m)
    t1 = 2.0 * m * lg
    return f * t1 + ((1.0 - f) * t1 + m * lg) / q


def _check_cells(tables: int, p: int) -> None:
    """Explicit tables hold at most `MAX_CELLS` entries in all (the co-scheduling limit, T8)."""
    if tables * p > MAX_CELLS:
        raise InvalidInstance("tasks", f"{tables} tables of p={p} times make {tables * p} "
                                       f"entries (at most {MAX_CELLS})")


def _check_trace_length(trace: object, where: str) -> None:
    """A trace given has at most `MAX_ATTEMPTS` failures (decision T9)."""
    if len(trace) > MAX_ATTEMPTS:  # type: ignore[arg-type]
        raise InvalidInstance(where, f"has {len(trace)} failures (at most {MAX_ATTEMPTS})")


def _check_task(task: MalleableTask, p: int, where: str) -> None:
    m = _number(task.m, f"{where}.m", high=MAX_DERIVED)
    if task.t is None:
        if task.f is None:
            raise InvalidInstance(where, "needs a table \"t\" or a sequential fraction \"f\"")
        f = _number(task.f, f"{where}.f", strict=False, high=1.0)
        if not m > 1:
            raise InvalidInstance(f"{where}.m", f"={m:g} must be > 1 for the synthetic "
                                  "profile (1.13) (log2 m > 0)")
        t1 = float(synthetic_row(m, f, np.ones(1))[0])
        if t1 > MAX_TIME:
            raise InvalidInstance(f"{where}.m", f"={m:g} gives t_1 = {t1:.4g} s by (1.13), "
                                  f"beyond the maximum time {MAX_TIME:g}")
        return
    if task.f is not None:
        raise InvalidInstance(where, "gives both a table \"t\" and a sequential fraction \"f\"")
    if len(task.t) != p:
        raise InvalidInstance(f"{where}.t", f"has {len(task.t)} entries, expected p={p}")
    _check_profile(_times(task.t, where), where)


def _times(raw: list | tuple, where: str) -> tuple[float, ...]:
    """A table's times as floats, each in (0, `MAX_TIME`]: vectorised, and entry by entry
    (which names the first bad one) only when some entry is refused or not a plain number."""
    if set(map(type, raw)) <= {float, int}:  # no bool, string or other object
        try:
            arr = np.asarray(raw, dtype=float)
        except OverflowError:  # an integer beyond a double
            arr = None
        if arr is not None and np.all((arr > 0) & (arr <= MAX_TIME)):
            return tuple(arr.tolist())
    return tuple(_number(x, f"{where}.t[{q}]") for q, x in enumerate(raw))


def _check_profile(t: tuple[float, ...], where: str) -> None:
    """(1.1) and (1.2) with the float tolerance of `numeric.time_le`, vectorised;
    `check_profile` names the first entry that breaks them."""
    a = np.asarray(t, dtype=float)
    j = np.arange(1, a.size, dtype=float)

    def le(x: np.ndarray, y: np.ndarray) -> bool:
        tol = np.maximum(REL_TOL * np.maximum(np.abs(x), np.abs(y)), REL_TOL)
        return bool(np.all((x <= y) | (np.abs(x - y) <= tol)))

    if not (le(a[1:], a[:-1]) and le(j * a[:-1], (j + 1) * a[1:])):
        check_profile(list(t), 1, where)


def _parse_task(task: object, p: int, where: str) -> MalleableTask:
    if not isinstance(task, dict):
        raise InvalidInstance(where, "must be an object")
    require(task, ("m",), f"{where}.")
    unknown = set(task) - {"t", "m", "f"}
    if unknown:
        raise InvalidInstance(f"{where}.{sorted(unknown)[0]}", "is not a task field (t, m, f)")
    m = _number(task["m"], f"{where}.m", high=MAX_DERIVED)
    if "t" in task:
        if not isinstance(task["t"], list):
            raise InvalidInstance(f"{where}.t", "must be a list of p times")
        if len(task["t"]) != p:
            raise InvalidInstance(f"{where}.t", f"has {len(task['t'])} entries, expected p={p}")
        t = _times(task["t"], where)
        if "f" in task:
            raise InvalidInstance(where, "gives both a table \"t\" and a sequential fraction "
                                         "\"f\"")
        return MalleableTask(m=m, t=t)
    if "f" not in task:
        raise InvalidInstance(where, "needs a table \"t\" or a sequential fraction \"f\"")
    return MalleableTask(m=m, f=_number(task["f"], f"{where}.f", strict=False, high=1.0))


def parse_failures(raw: object, p: int, where: str = "failures") -> tuple[tuple[float, int], ...]:
    """A trace ``[[time, processor], ...]`` -> sorted tuple of (time >= 0, id in [0, p))."""
    if not isinstance(raw, list):
        raise InvalidInstance(where, "must be a list of [time, processor] pairs")
    _check_trace_length(raw, where)
    out = []
    for r, item in enumerate(raw):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise InvalidInstance(f"{where}[{r}]", "must be a [time, processor] pair")
        t = _number(item[0], f"{where}[{r}][0]", strict=False)
        proc = item[1]
        ok = not isinstance(proc, bool) and isinstance(proc, (int, float)) \
            and math.isfinite(proc) and float(proc).is_integer() and 0 <= proc < p
        if not ok:
            raise InvalidInstance(f"{where}[{r}][1]", f"={proc!r} must be a processor id in "
                                                      f"[0, {p})")
        out.append((t, int(proc)))
    out.sort(key=lambda x: x[0])
    return tuple(out)
