"""Co-scheduling instances: n tasks, speedup tables ``t[i][j]``, p processors (spec 001 §1.2-1.3).

A k-in-p co-scheduling instance (Definition 1.1) has p identical processors, at most k tasks per
pack (1 <= k <= p) and, for every task T_i, its fault-free execution time t_{i,j} on j = 1..p
processors. Tables must satisfy, for every j >= pmin_i (the optional minimum processor count of
§2.4, "minimum-resource variant", spec A-26):

- (1.1) time weakly decreases: t_{i,j+1} <= t_{i,j};
- (1.2) work weakly increases: (j+1) t_{i,j+1} >= j t_{i,j}.

A raw profile that decreases and then increases can be capped at its argmin j_0 with
``"cap": true`` (t_{i,j} := t_{i,j_0} for j >= j_0, §1.2); (1.2) is then still checked.

JSON (``format_version`` 1)::

    {"family": "coschedule", "format_version": 1, "p": 4, "k": 2,
     "tasks": [{"t": [10, 6, 5, 4]},                       # explicit table, t_1..t_p
               {"model": "amdahl", "w": 12, "f": 0.25},   # t_j = w (f + (1-f)/j)
               {"model": "synthetic", "m": 1000, "f": 0.08},  # (1.13)
               {"t": [9, 9, 6, 5], "pmin": 2}],            # t_1 is ignored (j < pmin)
     "cap": false, "name": "..."}

Times may be ints, floats or exact fraction strings (``"7/2"``). Entries with j < pmin_i are kept
but never used. The instance keeps the task specs for a lossless ``to_dict`` round trip.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.fields import (
    FORMAT_VERSION,
    MAX_DERIVED,
    MAX_JOBS,
    MAX_TIME,
    check_header,
    check_metadata,
    job_count,
    positive_int,
    processors,
    require,
    time_value,
)
from resilsched.numeric import parse_number, time_le
from resilsched.solution import to_jsonable

FAMILY = "coschedule"
MODELS = ("amdahl", "synthetic")
#: Most table entries n x p of an instance (every entry is a Python number).
MAX_CELLS = 10**6


def amdahl_times(w: float, f: float, p: int) -> list[float]:
    """Amdahl's law t_j = w (f + (1 - f)/j), j = 1..p; satisfies (1.1) and (1.2) for f in [0, 1]."""
    if isinstance(w, (int, Fraction)) and isinstance(f, (int, Fraction)):
        return [Fraction(w) * (Fraction(f) + (1 - Fraction(f)) / j) for j in range(1, p + 1)]
    return [w * (f + (1.0 - f) / j) for j in range(1, p + 1)]


def synthetic_times(m: float, f: float, p: int) -> list[float]:
    """The synthetic profile (1.13): t(m,1) = 2 m log2 m, t(m,q) = f t1 + (1-f) t1/q + (m/q) log2 m.

    j t(m,j) = j f t1 + (1-f) t1 + m log2 m is increasing and t(m,j) decreasing (spec §1.2
    [DERIVED]), so (1.1)/(1.2) hold without capping. Note t(m,1) here is the formula at q = 1,
    which adds m log2 m to 2 m log2 m, exactly as (1.13) is printed.
    """
    lg = math.log2(m)
    t1 = 2.0 * m * lg
    return [f * t1 + (1.0 - f) * t1 / q + (m / q) * lg for q in range(1, p + 1)]


def _cap_at_argmin(t: list[Any], lo: int) -> list[Any]:
    """t_{j} := t_{j0} for j >= j0, the first argmin over j >= lo (0-based lo) (§1.2)."""
    seg = t[lo:]
    j0 = lo + min(range(len(seg)), key=lambda q: (seg[q], q))
    return t[:j0] + [t[j0]] * (len(t) - j0)


def finite_time(x: Any) -> bool:
    """True when `x` is a time the solvers can use: finite, also as a float."""
    try:
        return math.isfinite(float(x))
    except (OverflowError, ValueError):
        return False


def check_profile(t: list[Any], pmin: int, where: str) -> None:
    """Raise `InvalidInstance` if the table breaks (1.1) or (1.2) for some j >= pmin.

    `where` is the JSON path of the task (``tasks[2]``); the field named in the error is the
    JSON entry ``tasks[2].t[q]`` (0-based, i.e. q+1 processors).
    """
    for q in range(pmin - 1, len(t)):
        if not t[q] > 0:
            raise InvalidInstance(f"{where}.t[{q}]", f"={t[q]} must be > 0 (time on {q + 1} procs)")
        if not float(t[q]) <= MAX_DERIVED:  # inf and NaN too
            raise InvalidInstance(f"{where}.t[{q}]", f"={t[q]} is beyond {MAX_DERIVED:g} (time on "
                                  f"{q + 1} procs; inputs too large)")
    for q in range(pmin - 1, len(t) - 1):
        j = q + 1  # processor count of entry q
        a, b = t[q], t[q + 1]
        if not time_le(b, a):
            raise InvalidInstance(
                f"{where}.t[{q + 1}]",
                f"={b} breaks (1.1) at j={j + 1} processors: t_{j + 1}={b} > t_{j}={a} "
                "(time must not increase; use \"cap\": true to cap at the argmin)")
        if not time_le(j * a, (j + 1) * b):
            raise InvalidInstance(
                f"{where}.t[{q + 1}]",
                f"={b} breaks (1.2) at j={j + 1} processors: {j + 1}*{b} < {j}*{a} "
                "(work must not decrease, no superlinear speedup)")


@dataclass(frozen=True)
class CoscheduleInstance:
    """A k-in-p co-scheduling instance (spec 001 Definition 1.1).

    Parameters
    ----------
    p : number of identical processors.
    k : maximum number of tasks per pack, 1 <= k <= p.
    times : ``times[i][j-1]`` = t_{i,j}, j = 1..p (validated against (1.1)/(1.2) for j >= pmin_i).
    pmin : per-task minimum processor count (default 1 for every task).
    name : free-form identifier.
    specs : the JSON task specs (model parameters) for the round trip; None entries mean tables.
    metadata : anything else (generator, seed, optimum ...).

    Raises
    ------
    InvalidInstance
        e.g. ``tasks[2].t[4]=3.1 breaks (1.2) at j=5 processors: ...``.
    """

    p: int
    k: int
    times: tuple[tuple[Any, ...], ...]
    pmin: tuple[int, ...] = ()
    name: str = ""
    specs: tuple[Any, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        p = processors(self.p, "p")
        k = positive_int(self.k, "k")
        if k > p:
            raise InvalidInstance("k", f"={k} exceeds p={p} (Definition 1.1 requires k <= p)")
        if not self.times:
            raise InvalidInstance("tasks", "must hold at least one task")
        _check_cells(len(self.times), p)
        pmin = tuple(self.pmin) if self.pmin else (1,) * len(self.times)
        if len(pmin) != len(self.times):
            raise InvalidInstance("pmin", f"has {len(pmin)} entries for {len(self.times)} tasks")
        times = tuple(tuple(row) for row in self.times)
        for i, row in enumerate(times):
            if len(row) != p:
                raise InvalidInstance(f"tasks[{i}].t", f"has {len(row)} entries, expected p={p}")
            pm = positive_int(pmin[i], f"tasks[{i}].pmin")
            if pm > p:
                raise InvalidInstance(f"tasks[{i}].pmin", f"={pm} exceeds p={p}")
            check_profile(list(row), pm, f"tasks[{i}]")
        total = sum(float(row[pmin[i] - 1]) for i, row in enumerate(times))
        if not math.isfinite(total):
            raise InvalidInstance("tasks", "the sum of the task times overflows (every makespan "
                                  "must be a finite number of seconds)")
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "pmin", tuple(int(x) for x in pmin))
        if self.specs and len(self.specs) != len(times):
            raise InvalidInstance("specs", "must have one entry per task")

    # ------------------------------------------------------------------ accessors
    @property
    def n(self) -> int:
        return len(self.times)

    def t(self, i: int, j: int) -> Any:
        """t_{i,j}: time of task i (0-based) on j processors (1-based); +inf below pmin_i."""
        if j < self.pmin[i] or j < 1:
            return math.inf
        return self.times[i][min(j, self.p) - 1]

    def matrix(self) -> np.ndarray:
        """Float array M of shape (n, p+1): M[i, j] = t_{i,j}, +inf for j = 0 and j < pmin_i."""
        m = np.full((self.n, self.p + 1), np.inf)
        for i, row in enumerate(self.times):
            m[i, self.pmin[i]:] = [float(x) for x in row[self.pmin[i] - 1:]]
        return m

    @property
    def integral(self) -> bool:
        """True when every used time is an int (exactness tests, ceil of LP bounds)."""
        return all(isinstance(x, int) for i, row in enumerate(self.times)
                   for x in row[self.pmin[i] - 1:])

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        tasks = []
        for i, row in enumerate(self.times):
            spec = self.specs[i] if self.specs else None
            d = dict(spec) if spec else {"t": [to_jsonable(x) for x in row]}
            if self.pmin[i] != 1:
                d["pmin"] = self.pmin[i]
            tasks.append(d)
        out: dict[str, Any] = {"family": FAMILY, "format_version": FORMAT_VERSION,
                               "p": self.p, "k": self.k, "tasks": tasks}
        if self.name:
            out["name"] = self.name
        if self.metadata:
            out["metadata"] = to_jsonable(self.metadata)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CoscheduleInstance:
        """Parse and validate the JSON object of the module docstring."""
        check_header(d, FAMILY, FORMAT_VERSION)
        require(d, ("p", "k", "tasks"))
        p = processors(d["p"], "p")
        cap = _flag(d.get("cap", False), "cap")
        job_count(d["tasks"], "tasks")
        _check_cells(len(d["tasks"]), p)
        times, pmins, specs = [], [], []
        for i, task in enumerate(d["tasks"]):
            where = f"tasks[{i}]"
            if not isinstance(task, dict):
                raise InvalidInstance(where, "must be an object")
            pm = positive_int(task.get("pmin", 1), f"{where}.pmin")
            if pm > p:
                raise InvalidInstance(f"{where}.pmin", f"={pm} exceeds p={p}")
            row, spec = _task_row(task, p, where)
            if cap or _flag(task.get("cap", False), f"{where}.cap"):
                row = _cap_at_argmin(row, pm - 1)
            times.append(row)
            pmins.append(pm)
            specs.append(spec)
        meta = check_metadata(d)
        return cls(p=p, k=d["k"], times=tuple(tuple(r) for r in times), pmin=tuple(pmins),
                   name=str(d.get("name", "")),
                   specs=tuple(specs) if any(specs) else (),
                   metadata=dict(meta))

    def to_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_json(cls, path: str | Path) -> CoscheduleInstance:
        return cls.from_dict(json.loads(Path(path).read_text()))

    def with_k(self, k: int) -> CoscheduleInstance:
        """The same tasks with another pack size bound k."""
        return CoscheduleInstance(p=self.p, k=k, times=self.times, pmin=self.pmin,
                                  name=self.name, specs=self.specs, metadata=self.metadata)


def _check_cells(n: int, p: int) -> None:
    if n > MAX_JOBS:
        raise InvalidInstance("tasks", f"has {n} tasks (at most {MAX_JOBS})")
    if n * p > MAX_CELLS:
        raise InvalidInstance("tasks", f"{n} tasks on p={p} make a table of {n * p} entries "
                                       f"(at most {MAX_CELLS})")


def _flag(x: object, field: str) -> bool:
    if not isinstance(x, bool):
        raise InvalidInstance(field, f"{x!r} must be true or false")
    return x


def _task_row(task: dict[str, Any], p: int, where: str) -> tuple[list[Any], dict | None]:
    model = task.get("model", "table")
    if model == "table" or ("t" in task and "model" not in task):
        if "t" not in task or not isinstance(task["t"], list):
            raise InvalidInstance(f"{where}.t", "must be a list of p times")
        if len(task["t"]) != p:
            raise InvalidInstance(f"{where}.t", f"has {len(task['t'])} entries, expected p={p}")
        return [time_value(x, f"{where}.t[{q}]") for q, x in enumerate(task["t"])], None
    if model not in MODELS:
        raise InvalidInstance(f"{where}.model", f"{model!r} is unknown (choose from table, "
                              + ", ".join(MODELS) + ")")
    spec = {k: v for k, v in task.items() if k != "pmin"}
    f = parse_number(task.get("f", 0.08), f"{where}.f")
    if not 0 <= f <= 1:
        raise InvalidInstance(f"{where}.f", f"={f} must lie in [0, 1]")
    if model == "amdahl":
        w = time_value(task.get("w"), f"{where}.w")
        row = amdahl_times(w, f, p)
        _check_derived(row, f"{where}.w", w)
        return [int(x) if isinstance(x, Fraction) and x.denominator == 1 else x
                for x in row], spec
    m = parse_number(task.get("m"), f"{where}.m")
    if not 1 < m <= MAX_TIME:
        raise InvalidInstance(f"{where}.m", f"={m} must be in (1, {MAX_TIME:g}] (problem size)")
    row = synthetic_times(float(m), float(f), p)
    _check_derived(row, f"{where}.m", m)
    return row, spec


def _check_derived(row: list[Any], field_name: str, value: Any) -> None:
    """A speedup model's times must be finite: `InvalidInstance` naming the model's field."""
    for q, x in enumerate(row):
        if not finite_time(x):
            raise InvalidInstance(field_name, f"={float(value):g} gives a non-finite time "
                                  f"t_{q + 1} (overflow); use a smaller value")


# ---------------------------------------------------------------------- generators (seeded)
def random_integer_table(rng: np.random.Generator, p: int, t1_range: tuple[int, int] = (5, 60),
                         speedup: float | None = None) -> list[int]:
    """A random integer table satisfying (1.1) and (1.2).

    Each step draws t_{j+1} uniformly from the (never empty) integer interval
    [ceil(j t_j / (j+1)), t_j], biased towards the low end (good speedup) by `speedup` in [0, 1]
    (drawn per task when None): with probability `speedup` the lowest admissible value is taken.
    """
    t = [int(rng.integers(t1_range[0], t1_range[1] + 1))]
    s = float(rng.uniform(0.2, 0.9)) if speedup is None else speedup
    for j in range(1, p):
        lo = -(-j * t[-1] // (j + 1))
        hi = t[-1]
        t.append(lo if rng.random() < s else int(rng.integers(lo, hi + 1)))
    return t


def random_instance(rng: np.random.Generator | int, n: int, p: int, k: int,
                    kind: str = "amdahl", name: str = "") -> CoscheduleInstance:
    """A random k-in-p instance from a seeded generator.

    kind: ``amdahl`` (w ~ U[10, 100], f ~ U[0, 0.3], floats), ``synthetic`` ((1.13) with
    m ~ U{1000..10000}, f = 0.08), ``integer`` (random integer tables, `random_integer_table`),
    ``nospeedup`` (t_{i,j} = t_{i,1} integer, the oracle of spec §7 test 6).
    """
    rng = np.random.default_rng(rng)
    specs: list[Any] = []
    if kind == "amdahl":
        specs = [{"model": "amdahl", "w": round(float(rng.uniform(10, 100)), 3),
                  "f": round(float(rng.uniform(0.0, 0.3)), 3)} for _ in range(n)]
        times = [amdahl_times(s["w"], s["f"], p) for s in specs]
    elif kind == "synthetic":
        specs = [{"model": "synthetic", "m": int(rng.integers(1000, 10001)), "f": 0.08}
                 for _ in range(n)]
        times = [synthetic_times(s["m"], s["f"], p) for s in specs]
    elif kind == "integer":
        times = [random_integer_table(rng, p) for _ in range(n)]
    elif kind == "nospeedup":
        times = [[int(rng.integers(1, 50))] * p for _ in range(n)]
    else:
        raise InvalidInstance("kind",
                              f"{kind!r} is unknown (amdahl, synthetic, integer, nospeedup)")
    return CoscheduleInstance(p=p, k=k, times=tuple(tuple(r) for r in times), name=name,
                              specs=tuple(specs) if specs else (),
                              metadata={"generator": kind})


def generate(seed: int, count: int | None = None, *, n_range: tuple[int, int] = (4, 8),
             p_range: tuple[int, int] = (4, 8), k_range: tuple[int, int] = (2, 3),
             kind: str = "integer") -> list[CoscheduleInstance]:
    """`count` (default 10) random instances from one seed (one child generator per instance)."""
    count = 10 if count is None else count
    out = []
    for c, child in enumerate(np.random.default_rng(seed).spawn(count)):
        n = int(child.integers(n_range[0], n_range[1] + 1))
        p = int(child.integers(p_range[0], p_range[1] + 1))
        k = min(p, int(child.integers(k_range[0], k_range[1] + 1)))
        inst = random_instance(child, n, p, k, kind=kind, name=f"{kind}-s{seed}-{c}")
        inst.metadata.update({"seed": seed, "index": c})
        out.append(inst)
    return out
