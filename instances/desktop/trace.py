"""Availability traces as CSV (issue 12; spec 004 §4.1): one row per availability.

Format: a header naming at least ``machine``, ``start`` and ``end`` (any order, more columns
allowed), then one row per availability period ``[start, end)`` of a machine, in seconds. An
optional ``b`` column gives the machine's cycle time (constant per machine; default 1; read as
the decimal it writes, D-3). Times are shifted so that the earliest start is 0 (or by
``origin``) and rounded to the closest integer second, halves up, exactly on the decimal text
(A-19, D-3). Per machine the availabilities are sorted; touching ones are merged, overlapping ones
are an error. The gaps between them are the unavailabilities; the unavailability after the last
availability lasts ``tail`` seconds (default: until the end of the trace, the latest end over all
machines, at least 1 s). Machines keep the order of their first row.

Jobs come from ``jobs=`` (a list of p_j, or the path of a CSV file with a ``p`` column), else from
the file ``<name>.jobs.csv`` beside the trace.

The limits of decision D-22 hold before anything is built: at most `MAX_INTERVALS` rows, at most
`MAX_MACHINES` machines and `MAX_JOBS` jobs (the reading stops at the first row beyond), every
time a finite number of absolute value at most 10^12 s; the instance then checks the rest
(lengths and trace ends <= 10^12 s, b in [10^-6, 10^6], durations <= 10^12 s).

    machine,start,end,b
    host-1,0,36000,1.0
    host-1,54000,90000,1.0
    host-2,7200,50000,0.8
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.instances.desktop.model import (
    MAX_INTERVALS,
    MAX_MACHINES,
    MAX_TIME,
    DesktopInstance,
    Machine,
)
from resilsched.instances.fields import MAX_JOBS
from resilsched.numeric import strict_int


def _num(text: str, where: str) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InvalidInstance(where, f"{text[:40]!r} is not a number") from None
    if not math.isfinite(v) or abs(v) > MAX_TIME:
        raise InvalidInstance(where, f"{text[:40]!r} must be a finite number of at most "
                                     f"{MAX_TIME}")
    return v


def _exact(text: str, where: str) -> int | Fraction:
    """The exact value of a time written as `text` (range-checked by `_num` first, so the
    exponent of a decimal is small)."""
    _num(text, where)
    try:
        return int(text)
    except ValueError:
        return Fraction(text.strip())


def _half_up(x: int | Fraction) -> int:
    """floor(x + 1/2), exactly."""
    return math.floor(x + Fraction(1, 2))


def _rows(path: Path, high: int, what: str) -> tuple[list[str], Iterator[dict[str, str]]]:
    """(lower-case header fields, rows), reading at most `high` rows: one more is refused."""
    try:
        fh = path.open(newline="")
    except FileNotFoundError:
        raise InvalidInstance(str(path), "no such file") from None
    except OSError as exc:
        raise InvalidInstance(str(path), f"cannot be read ({exc.strerror})") from None
    try:
        with fh:
            reader = csv.DictReader(fh)
            fields = [f.strip().lower() for f in reader.fieldnames or []]
            rows = []
            for row in reader:
                if len(rows) == high:
                    raise InvalidInstance(str(path), f"holds more than {high} {what} (decision "
                                                     "D-22)")
                rows.append({k.strip().lower(): (v or "").strip() for k, v in row.items()
                             if isinstance(k, str)})
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InvalidInstance(str(path), f"cannot be read as CSV ({exc})") from None
    return fields, iter(rows)


def read_jobs_csv(path: str | Path) -> list[float]:
    """The ``p`` column of a CSV file (at most `MAX_JOBS` rows)."""
    path = Path(path)
    fields, rows = _rows(path, MAX_JOBS, "jobs")
    out = [_num(r.get("p", ""), f"{path.name}:{n + 2}.p") for n, r in enumerate(rows)]
    if not out or "p" not in fields:
        raise InvalidInstance(str(path), "needs a header with a 'p' column and at least one row")
    return out


def read_availability_csv(path: str | Path, jobs: Sequence[Any] | str | Path | None = None,
                          tail: int | None = None, origin: float | None = None,
                          slack_rule: bool = True, **_: Any) -> list[DesktopInstance]:
    """One `DesktopInstance` from an availability trace (module docstring)."""
    path = Path(path)
    fields, rows = _rows(path, MAX_INTERVALS, "availability rows")
    for key in ("machine", "start", "end"):
        if key not in fields:
            raise InvalidInstance(str(path), f"needs a '{key}' column (header: machine,start,end)")
    periods: dict[str, list[tuple[Any, Any, int]]] = {}
    speeds: dict[str, float] = {}
    for n, r in enumerate(rows):
        line = f"{path.name}:{n + 2}"
        name = r["machine"]
        if not name:
            raise InvalidInstance(f"{line}.machine", "is empty")
        start, end = _exact(r["start"], f"{line}.start"), _exact(r["end"], f"{line}.end")
        if name not in periods and len(periods) == MAX_MACHINES:
            raise InvalidInstance(f"{line}.machine", f"{name[:40]!r} is machine "
                                                     f"{MAX_MACHINES + 1}: at most {MAX_MACHINES}"
                                                     " (decision D-22)")
        periods.setdefault(name, []).append((start, end, n + 2))
        if "b" in fields and r.get("b"):
            b = _num(r["b"], f"{line}.b")
            if not b > 0:
                raise InvalidInstance(f"{line}.b", f"{b} must be > 0")
            if speeds.setdefault(name, b) != b:
                raise InvalidInstance(f"{line}.b", f"{b} differs from machine {name}'s "
                                                   f"b={speeds[name]}")
    if not periods:
        raise InvalidInstance(str(path), "holds no availability row")
    shift = min(s for ps in periods.values() for s, _, _ in ps) if origin is None \
        else _exact(str(origin), "origin")
    machines = []
    ints: dict[str, list[tuple[int, int]]] = {}
    for name, ps in periods.items():
        merged: list[list[int]] = []
        for s, e, line in sorted(ps):
            si, ei = _half_up(s - shift), _half_up(e - shift)
            if si < 0:
                raise InvalidInstance(f"{path.name}:{line}.start", f"{s} is before the origin")
            if ei <= si:
                raise InvalidInstance(f"{path.name}:{line}.end", f"{e} must exceed start={s} "
                                                                 "(after rounding to seconds)")
            if merged and si < merged[-1][1]:
                raise InvalidInstance(f"{path.name}:{line}.start",
                                      f"{s} overlaps the previous availability of {name}")
            if merged and si == merged[-1][1]:
                merged[-1][1] = ei
            else:
                merged.append([si, ei])
        ints[name] = [(s, e) for s, e in merged]
    trace_end = max(ps[-1][1] for ps in ints.values())
    if tail is not None:
        tail = strict_int(tail, "tail", 1)
    for name, ps in ints.items():
        a = [e - s for s, e in ps]
        u = [ps[k + 1][0] - ps[k][1] for k in range(len(ps) - 1)]
        u.append(tail if tail is not None else max(1, trace_end - ps[-1][1]))
        machines.append(Machine.checked(speeds.get(name, 1), ps[0][0], a, u,
                                        f"{path.name}: machine {name[:40]!r}"))
    p = _jobs(path, jobs)
    meta = {"trace": path.name, "machine_ids": list(ints),
            "origin": shift if isinstance(shift, int) else float(shift)}
    return [DesktopInstance(tuple(machines), tuple(p), slack_rule, path.stem, meta)]


def _jobs(path: Path, jobs: Sequence[Any] | str | Path | None) -> list[Any]:
    if jobs is None:
        sibling = path.with_name(path.stem + ".jobs.csv")
        if not sibling.exists():
            raise InvalidInstance("jobs", f"are required: pass jobs=... or put {sibling.name} "
                                          "(a CSV with a 'p' column) beside the trace")
        return read_jobs_csv(sibling)
    if isinstance(jobs, (str, Path)):
        return read_jobs_csv(jobs)
    return list(jobs)
