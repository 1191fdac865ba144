"""Standard Workload Format (SWF v2.2) reader and writer for rigid job sets (spec 002 §8.4).

The Parallel Workloads Archive's SWF: header lines start with ``;`` (``; MaxProcs: 163840``); each
data line has 18 whitespace-separated fields, ``-1`` meaning missing:

 1 job number, 2 submit time (s from the log start), 3 wait time, 4 run time, 5 allocated
 processors, 6 average CPU time, 7 used memory, 8 requested processors, 9 requested time,
 10 requested memory, 11 status (1 completed, 0 failed, 5 cancelled), 12 user, 13 group,
 14 executable, 15 queue, 16 partition, 17 preceding job, 18 think time.

Mapping to rigid jobs (spec §8.4): t_j = field 4; p_j = field 5, or field 8 when field 5 is -1;
with ``cores_per_node = c > 1`` p_j = ceil(p / c) to work in nodes (Mira's granularity). Jobs are
grouped by the calendar day of submission in the log's time zone,
day = floor((UnixStartTime + submit + tz_offset) / 86400), where tz_offset is the UTC offset of
``TimeZoneString`` at that instant (daylight saving time included; ``TimeZone`` in seconds is the
fallback, then UTC). Every job of a day is released at time 0 (the batch model, §1.1).

Filters (A14): run time > 0, 1 <= p_j <= P, statuses configurable (default: all). Dropped lines are
counted per reason in each day's ``metadata["dropped"]``.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import zoneinfo
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.instances.rigid.model import RigidInstance, RigidJob

N_FIELDS = 18
FIELD_NAMES = (
    "job number", "submit time", "wait time", "run time", "allocated processors",
    "average CPU time", "used memory", "requested processors", "requested time",
    "requested memory", "status", "user", "group", "executable", "queue", "partition",
    "preceding job", "think time",
)
#: Drop reasons, in the order the filters are applied.
DROP_REASONS = ("submit_missing", "runtime_not_positive", "procs_missing", "procs_exceed_P",
                "status")

_HEADER_RE = re.compile(r"^;\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$")
_INT_KEYS = ("MaxProcs", "MaxNodes", "UnixStartTime", "TimeZone", "MaxJobs", "MaxRecords")


def parse_swf_header(lines: Iterable[str]) -> dict[str, Any]:
    """Header fields of an SWF log: every ``; Key: value`` comment line (spec §8.4).

    ``MaxProcs``, ``MaxNodes``, ``UnixStartTime``, ``TimeZone`` (and ``MaxJobs``/``MaxRecords``)
    are converted to int when they parse as one; other keys (``TimeZoneString``, ``Version`` ...)
    stay strings. Reading stops at the first data line.

    >>> parse_swf_header(["; Version: 2.2", "; MaxProcs: 64", ";  TimeZoneString: UTC", "1 0"])
    {'Version': '2.2', 'MaxProcs': 64, 'TimeZoneString': 'UTC'}
    """
    header: dict[str, Any] = {}
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not line.startswith(";"):
            break
        m = _HEADER_RE.match(line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key in _INT_KEYS:
            try:
                header[key] = int(value.split()[0])
                continue
            except (ValueError, IndexError):
                pass
        header.setdefault(key, value)
    return header


def _to_number(tok: str) -> int | float:
    """The token as an int, else a float (nan when it is not a number at all)."""
    try:
        return int(tok)
    except ValueError:
        pass
    try:
        return float(tok)
    except ValueError:
        return math.nan


def _field_int(tokens: Sequence[str], k: int, lineno: int) -> int:
    """Field k (1-based) as an int; '5.0' is accepted, 'x' and '2.5' are not."""
    v = _to_number(tokens[k - 1])
    if isinstance(v, int) or (math.isfinite(v) and v.is_integer()):
        return int(v)
    raise InvalidInstance(f"line {lineno}: field {k} ({FIELD_NAMES[k - 1]})",
                          f"{tokens[k - 1]!r} is not an integer")


def _field_number(tokens: Sequence[str], k: int, lineno: int) -> int | float:
    """Field k (1-based) as an int when integral, else a finite float."""
    v = _to_number(tokens[k - 1])
    if isinstance(v, int):
        return v
    if not math.isfinite(v):
        raise InvalidInstance(f"line {lineno}: field {k} ({FIELD_NAMES[k - 1]})",
                              f"{tokens[k - 1]!r} is not a number")
    return int(v) if v.is_integer() else v


class _DayClock:
    """Maps a submit offset to the log-local calendar day (days since 1970-01-01, local)."""

    def __init__(self, header: dict[str, Any]):
        self.start = header.get("UnixStartTime")
        self.zone: zoneinfo.ZoneInfo | None = None
        self.fixed = 0
        self.tz_used = "UTC"
        name = header.get("TimeZoneString")
        if isinstance(name, str) and name:
            try:
                self.zone = zoneinfo.ZoneInfo(name)
                self.tz_used = name
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                self.zone = None
        if self.zone is None and isinstance(header.get("TimeZone"), int):
            self.fixed = header["TimeZone"]
            self.tz_used = f"UTC{self.fixed:+d}s"

    def day(self, submit: int | float) -> int:
        if not isinstance(self.start, int):
            return int(submit // 86400)  # no absolute clock: days since the log start
        ts = self.start + submit
        if self.zone is not None:
            off = self.zone.utcoffset(dt.datetime.fromtimestamp(ts, tz=dt.UTC))
            offset = int(off.total_seconds()) if off is not None else 0
        else:
            offset = self.fixed
        return int((ts + offset) // 86400)

    def label(self, day: int) -> str:
        if not isinstance(self.start, int):
            return f"day-{day}"
        return (dt.date(1970, 1, 1) + dt.timedelta(days=day)).isoformat()


def read_swf(
    path: str | os.PathLike,
    *,
    P: int | None = None,
    cores_per_node: int = 1,
    statuses: Iterable[int] | None = None,
    min_jobs: int = 1,
) -> list[RigidInstance]:
    """Read an SWF log into one rigid job set per calendar day of submission (spec 002 §8.4).

    Parameters
    ----------
    path : the ``.swf`` file.
    P : platform size override; by default ``MaxProcs`` (``MaxNodes`` when
        ``cores_per_node > 1``, else ``ceil(MaxProcs / cores_per_node)``), falling back to
        ``MaxNodes``.
    cores_per_node : divide processor counts by this (rounding up) to work in nodes.
    statuses : keep only these values of field 11 (default: every status, A14).
    min_jobs : drop days with fewer kept jobs.

    Returns
    -------
    One `RigidInstance` per day with at least `min_jobs` jobs, in date order; ``name`` is the
    date (``2019-06-01``, or ``day-K`` when the log has no ``UnixStartTime``) and ``metadata``
    holds the day, the source file, the header, the job numbers and the dropped-line counts.

    Raises
    ------
    InvalidInstance
        for a malformed data line, e.g.
        ``line 17: field 5 (allocated processors)='x' is not an integer``, or when P is unknown.
    """
    if isinstance(cores_per_node, bool) or not isinstance(cores_per_node, int) \
            or cores_per_node < 1:
        raise InvalidInstance("cores_per_node", f"{cores_per_node!r} must be a positive integer")
    if isinstance(min_jobs, bool) or not isinstance(min_jobs, int) or min_jobs < 1:
        raise InvalidInstance("min_jobs", f"{min_jobs!r} must be a positive integer")
    keep_status = None if statuses is None else {int(s) for s in statuses}
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInstance("path", f"{str(path)!r} cannot be read ({exc.strerror})") from None
    lines = text.splitlines()
    header = parse_swf_header(lines)

    if P is None:
        procs, nodes = header.get("MaxProcs"), header.get("MaxNodes")
        if cores_per_node > 1:
            if isinstance(nodes, int) and nodes > 0:
                P = nodes
            elif isinstance(procs, int) and procs > 0:
                P = -(-procs // cores_per_node)
        else:
            if isinstance(procs, int) and procs > 0:
                P = procs
            elif isinstance(nodes, int) and nodes > 0:
                P = nodes
        if P is None:
            raise InvalidInstance("P", "is not given and the SWF header has no MaxProcs/MaxNodes")
    elif isinstance(P, bool) or not isinstance(P, int) or P < 1:
        raise InvalidInstance("P", f"{P!r} must be a positive integer")

    clock = _DayClock(header)
    days: dict[int, dict[str, Any]] = {}
    unplaced = dict.fromkeys(DROP_REASONS, 0)

    def bucket(day: int) -> dict[str, Any]:
        if day not in days:
            days[day] = {"jobs": [], "ids": [], "dropped": dict.fromkeys(DROP_REASONS, 0)}
        return days[day]

    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        tokens = line.split()
        if len(tokens) != N_FIELDS:
            raise InvalidInstance(f"line {lineno}",
                                  f"has {len(tokens)} fields, expected {N_FIELDS}")
        job_id = _field_int(tokens, 1, lineno)
        submit = _field_number(tokens, 2, lineno)
        runtime = _field_number(tokens, 4, lineno)
        alloc = _field_int(tokens, 5, lineno)
        req = _field_int(tokens, 8, lineno)
        status = _field_int(tokens, 11, lineno)
        if submit < 0:
            unplaced["submit_missing"] += 1
            continue
        entry = bucket(clock.day(submit))
        procs = alloc if alloc > 0 else (req if alloc == -1 else alloc)
        if runtime <= 0:
            entry["dropped"]["runtime_not_positive"] += 1
            continue
        if procs < 1:
            entry["dropped"]["procs_missing"] += 1
            continue
        p = -(-procs // cores_per_node)
        if p > P:
            entry["dropped"]["procs_exceed_P"] += 1
            continue
        if keep_status is not None and status not in keep_status:
            entry["dropped"]["status"] += 1
            continue
        entry["jobs"].append(RigidJob(p, runtime))
        entry["ids"].append(job_id)

    out = []
    for day in sorted(days):
        entry = days[day]
        if len(entry["jobs"]) < min_jobs:
            continue
        meta = {
            "source": "swf",
            "file": str(path),
            "day": clock.label(day),
            "day_number": day,
            "time_zone": clock.tz_used,
            "cores_per_node": cores_per_node,
            "statuses": None if keep_status is None else sorted(keep_status),
            "job_ids": entry["ids"],
            "dropped": entry["dropped"],
            "dropped_undated": unplaced,
            "header": {k: header[k] for k in ("MaxProcs", "MaxNodes", "UnixStartTime",
                                              "TimeZoneString", "TimeZone") if k in header},
        }
        out.append(RigidInstance(P, tuple(entry["jobs"]), clock.label(day), None, meta))
    return out


def write_swf(
    instances: Sequence[RigidInstance],
    path: str | os.PathLike,
    *,
    unix_start: int = 1559347200,  # 2019-06-01T00:00:00Z
    cores_per_node: int = 1,
    note: str = "written by resilsched",
) -> Path:
    """Write job sets as one SWF v2.2 log, set k on calendar day k after `unix_start`.

    `unix_start` must be a UTC midnight. The log's time zone is UTC, so its calendar days are
    exactly the written sets.

    Field 2 (submit) spreads the jobs of set k evenly over day k, field 4 is t_j (rounded to an
    integer number of seconds when it is not one), field 5 and 8 are p_j * cores_per_node,
    status 1, other fields -1. ``read_swf`` on the result gives back the same job sets (with
    ``cores_per_node`` and integer times).
    """
    if not instances:
        raise InvalidInstance("instances", "must contain at least one job set")
    if unix_start % 86400:
        raise InvalidInstance("unix_start",
                              f"{unix_start} must be a UTC midnight (multiple of 86400)")
    P = max(inst.P for inst in instances)
    path = Path(path)
    rows = []
    job_no = 0
    for k, inst in enumerate(instances):
        n = inst.n
        for j, job in enumerate(inst.jobs):
            job_no += 1
            submit = k * 86400 + (j * 86400) // n
            run = job.t if isinstance(job.t, int) else int(round(float(job.t)))
            procs = job.p * cores_per_node
            fields = [-1] * N_FIELDS
            fields[0], fields[1], fields[2], fields[3] = job_no, submit, 0, max(run, 1)
            fields[4], fields[7], fields[10] = procs, procs, 1
            rows.append(" ".join(str(x) for x in fields))
    header = [
        "; Version: 2.2",
        f"; Computer: {note}",
        f"; UnixStartTime: {unix_start}",
        "; TimeZoneString: UTC",
        f"; MaxJobs: {job_no}",
        f"; MaxRecords: {job_no}",
        f"; MaxProcs: {P * cores_per_node}",
        f"; MaxNodes: {P}",
        "; Note: rigid job sets, one per calendar day; all jobs of a day are released at time 0",
    ]
    path.write_text("\n".join(header + rows) + "\n", encoding="utf-8")
    return path
