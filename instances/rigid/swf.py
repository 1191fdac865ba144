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

Filters (A14): run time > 0, 1 <= p_j <= P, statuses configurable (default: all; ``statuses=[1]``
keeps completed jobs only). Dropped lines are counted per reason in each day's
``metadata["dropped"]`` and reported through ``warn`` (the CLI prints the report on standard
error, with warnings when an explicit P drops jobs or ``cores_per_node`` does not match the
header). `day_table` lists the days of a trace (``resilsched trace FILE.swf``).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import zoneinfo
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance, show
from resilsched.instances.fields import MAX_PROCESSORS, MAX_TIME, processors
from resilsched.instances.rigid.model import RigidInstance, RigidJob
from resilsched.numeric import strict_int

N_FIELDS = 18
#: the SWF status codes (field 11) a filter may list
STATUS_CODES = range(-1, 100)
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

    def day(self, submit: int | float, lineno: int = 0) -> int:
        if not isinstance(self.start, int):
            if submit > _LAST_INSTANT:
                raise InvalidInstance(f"line {lineno}: field 2 (submit time)",
                                      f"{submit!r} is beyond the year 9999")
            return int(submit // 86400)  # no absolute clock: days since the log start
        ts = self.start + submit
        if not 0 <= ts <= _LAST_INSTANT:
            raise InvalidInstance(f"line {lineno}: field 2 (submit time)",
                                  f"{submit!r} + UnixStartTime {self.start} is outside the "
                                  "years 1970-9999")
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


#: Drop reasons in words, for the report on standard error.
REASON_TEXT = {
    "submit_missing": "without a submit time",
    "runtime_not_positive": "with run time <= 0",
    "procs_missing": "without a processor count",
    "procs_exceed_P": "wider than P",
    "status": "with another status",
}
#: Latest instant an SWF line may fall on (seconds since 1970: the year 9999).
_LAST_INSTANT = 253_402_300_799


def _platform_size(header: dict[str, Any], P: int | None, cores_per_node: int) -> int:
    """P from the override or the header (see `read_swf`), checked against MAX_PROCESSORS."""
    if P is not None:
        return processors(P, "P")
    procs, nodes = header.get("MaxProcs"), header.get("MaxNodes")
    if cores_per_node > 1:
        if isinstance(nodes, int) and nodes > 0:
            return processors(nodes, "MaxNodes (SWF header)")
        if isinstance(procs, int) and procs > 0:
            return processors(-(-procs // cores_per_node), "MaxProcs / cores_per_node")
    else:
        if isinstance(procs, int) and procs > 0:
            return processors(procs, "MaxProcs (SWF header)")
        if isinstance(nodes, int) and nodes > 0:
            return processors(nodes, "MaxNodes (SWF header)")
    raise InvalidInstance("P", "is not given and the SWF header has no MaxProcs/MaxNodes")


def header_cores_per_node(header: dict[str, Any]) -> int | None:
    """MaxProcs / MaxNodes when the header gives both and they divide, else None."""
    procs, nodes = header.get("MaxProcs"), header.get("MaxNodes")
    if isinstance(procs, int) and isinstance(nodes, int) and procs > 0 and nodes > 0 \
            and procs % nodes == 0:
        return procs // nodes
    return None


def _status_filter(statuses: Any) -> set[int]:
    """The status codes `statuses` lists (a list of integers in `STATUS_CODES`, at least one);
    `InvalidInstance` naming ``statuses`` otherwise (a string such as ``'12'`` would be taken
    apart into 1 and 2)."""
    values = None if isinstance(statuses, (str, bytes)) or not isinstance(statuses, Iterable) \
        else list(statuses)
    if not values or any(isinstance(v, bool) or not isinstance(v, int) or v not in STATUS_CODES
                         for v in values):
        raise InvalidInstance("statuses", f"{show(statuses)} must list SWF status codes in "
                                          f"[{STATUS_CODES[0]}, {STATUS_CODES[-1]}], e.g. [1]")
    return set(values)


def read_swf(
    path: str | os.PathLike,
    *,
    P: int | None = None,
    cores_per_node: int | None = None,
    statuses: Iterable[int] | None = None,
    min_jobs: int = 1,
    warn: Callable[[str], None] | None = None,
) -> list[RigidInstance]:
    """Read an SWF log into one rigid job set per calendar day of submission (spec 002 §8.4).

    Parameters
    ----------
    path : the ``.swf`` file.
    P : platform size override; by default ``MaxProcs`` (``MaxNodes`` when
        ``cores_per_node > 1``, else ``ceil(MaxProcs / cores_per_node)``), falling back to
        ``MaxNodes``.
    cores_per_node : divide processor counts by this (rounding up) to work in nodes (default 1).
    statuses : keep only these values of field 11 (default: every status, A14), e.g. ``[1]``
        for completed jobs only.
    min_jobs : drop days with fewer kept jobs.
    warn : called with one line per fact a user should know: how many lines were dropped and
        why, jobs that an explicit `P` drops, a `cores_per_node` that does not match the
        header's MaxProcs / MaxNodes (the CLI prints them on standard error).

    Returns
    -------
    One `RigidInstance` per day with at least `min_jobs` jobs, in date order; ``name`` is the
    date (``2019-06-01``, or ``day-K`` when the log has no ``UnixStartTime``) and ``metadata``
    holds the day, the source file, the header, the job numbers, their submit times (field 2,
    ``submit_times``: kept for exports such as Batsim's) and the dropped-line counts.

    Raises
    ------
    InvalidInstance
        for a malformed data line, e.g.
        ``line 17: field 5 (allocated processors)='x' is not an integer``, for a run time above
        `MAX_TIME` or a submit time beyond the year 9999, or when P is unknown.
    """
    explicit_cores = cores_per_node is not None
    explicit_p = P is not None
    cores_per_node = 1 if cores_per_node is None else cores_per_node
    cores_per_node = strict_int(cores_per_node, "cores_per_node", 1, MAX_PROCESSORS)
    min_jobs = strict_int(min_jobs, "min_jobs", 1)
    keep_status = None if statuses is None else _status_filter(statuses)
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInstance("path", f"{str(path)!r} cannot be read ({exc.strerror})") from None
    lines = text.splitlines()
    header = parse_swf_header(lines)
    P = _platform_size(header, P, cores_per_node)

    clock = _DayClock(header)
    days: dict[int, dict[str, Any]] = {}
    unplaced = dict.fromkeys(DROP_REASONS, 0)

    def bucket(day: int) -> dict[str, Any]:
        if day not in days:
            days[day] = {"jobs": [], "ids": [], "submits": [],
                         "dropped": dict.fromkeys(DROP_REASONS, 0)}
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
        entry = bucket(clock.day(submit, lineno))
        procs = alloc if alloc > 0 else (req if alloc == -1 else alloc)
        if runtime <= 0:
            entry["dropped"]["runtime_not_positive"] += 1
            continue
        if runtime > MAX_TIME:
            raise InvalidInstance(f"line {lineno}: field 4 (run time)",
                                  f"{tokens[3]!r} exceeds the maximum {MAX_TIME:g} s")
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
        entry["submits"].append(submit)

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
            "submit_times": entry["submits"],
            "dropped": entry["dropped"],
            "dropped_undated": unplaced,
            "header": {k: header[k] for k in ("MaxProcs", "MaxNodes", "UnixStartTime",
                                              "TimeZoneString", "TimeZone") if k in header},
        }
        out.append(RigidInstance(P, tuple(entry["jobs"]), clock.label(day), None, meta))
    if warn is not None:
        for message in _report(path, header, P, explicit_p=explicit_p,
                               cores_per_node=cores_per_node if explicit_cores else None,
                               keep_status=keep_status, days=days, unplaced=unplaced, out=out):
            warn(message)
    return out


def _report(path: Path, header: dict[str, Any], P: int, *, explicit_p: bool,
            cores_per_node: int | None, keep_status: set[int] | None,
            days: dict[int, dict[str, Any]], unplaced: dict[str, int],
            out: list[RigidInstance]) -> list[str]:
    """The lines `read_swf` reports: what was kept and dropped, and mismatches with the header."""
    dropped = dict(unplaced)
    for entry in days.values():
        for reason, count in entry["dropped"].items():
            dropped[reason] += count
    kept = sum(inst.n for inst in out)
    small = sum(len(e["jobs"]) for e in days.values()) - kept  # days under min_jobs
    texts = []
    for reason in DROP_REASONS:
        if dropped[reason]:
            what = REASON_TEXT[reason]
            if reason == "procs_exceed_P":
                what = f"wider than P={P}"
            elif reason == "status" and keep_status is not None:
                what = f"with a status (field 11) not in {','.join(map(str, sorted(keep_status)))}"
            texts.append(f"{dropped[reason]} {what}")
    if small:
        texts.append(f"{small} on days with too few jobs")
    total = kept + sum(dropped.values()) + small
    lines = [f"{path.name}: kept {kept} of {total} jobs in {len(out)} day(s)"
             + (f"; dropped {', '.join(texts)}" if texts else "")]
    if dropped["procs_exceed_P"] and explicit_p:
        said = f" (the header says MaxProcs {header['MaxProcs']})" if "MaxProcs" in header else ""
        lines.append(f"{path.name}: warning: P={P} drops {dropped['procs_exceed_P']} job(s) "
                     f"wider than P{said}")
    ratio = header_cores_per_node(header)
    if cores_per_node is not None and ratio is not None and cores_per_node != ratio:
        lines.append(f"{path.name}: warning: cores_per_node={cores_per_node} does not match the "
                     f"header (MaxProcs {header['MaxProcs']} / MaxNodes {header['MaxNodes']} = "
                     f"{ratio} cores per node)")
    return lines


def day_table(instances: Sequence[RigidInstance]) -> list[dict[str, Any]]:
    """One row per day of a trace read by `read_swf`: index (for ``--index``), date, jobs,
    widest job, total area and longest job."""
    return [{"index": k, "day": inst.name, "jobs": inst.n, "max_width": max(inst.p),
             "area": float(sum(inst.areas)), "max_time": max(float(t) for t in inst.t),
             "dropped": sum(inst.metadata.get("dropped", {}).values())}
            for k, inst in enumerate(instances)]


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
