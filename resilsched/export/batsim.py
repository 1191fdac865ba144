"""Rigid instances as Batsim JSON workloads (docs/interop.md, decisions L11 and L16).

Batsim reads a JSON object with ``nb_res``, ``jobs`` (``id`` string, ``subtime`` seconds,
``res`` resources, ``profile`` name, optional ``walltime`` and ``extra_data`` string) and
``profiles`` (name -> ``{"type": ..., ...}``; a delay profile sleeps ``delay`` seconds, its
optional integer ``ret`` is the return code of a normal end, non-zero meaning failure).

A rigid instance (spec 002) maps to ``nb_res = P`` and, per job j, ``{"id": "j", "subtime":
s_j, "res": p_j, "walltime": w_j, "profile": "delay-t_j"}`` with one delay profile per
distinct t_j. The profile type is spelled ``delay`` for Batsim 4 and ``DelayProfile`` for
Batsim 5 (`PROFILE_TYPE`). Batsim ends a delay job normally only when its delay is strictly
below its walltime (otherwise the job is killed at the walltime and its ``ret`` is lost), so
w_j = t_j (1 + `WALLTIME_MARGIN`): a clairvoyant estimate that never kills the job. s_j is 0
(the papers' batch model), or, for a day of an SWF trace, the job's SWF submit time minus the
day's first one (``submit_times`` in the instance, recorded by the SWF reader), unless
``release_at_zero``. Exact rational times are written as their nearest float.

With ``attempts=True`` the instance's stored failure scenario f is unrolled: job j becomes
f_j failing attempts ``"j.0"``, ..., ``"j.(f_j-1)"`` (profile ``delay-t_j-fail``: the same
delay with ``ret = 1``) followed by the successful attempt ``"j.f_j"``; ``extra_data`` says
which job and attempt each one is and which attempt it follows, since a static workload
cannot itself resubmit a job when it fails (the scheduler replaying the library does).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidInstance, show
from resilsched.instances.fields import MAX_TIME
from resilsched.instances.rigid.swf import REASON_TEXT
from resilsched.numeric import strict_int

#: Batsim major version -> spelling of the delay profile type its workload loader accepts
PROFILE_TYPE = {4: "delay", 5: "DelayProfile"}
#: the version written when none is asked for (the 4.x releases; 5 is in release candidates)
DEFAULT_VERSION = 4
#: w_j = t_j (1 + margin): far above the few ulps of a JSON number parsed in Batsim
WALLTIME_MARGIN = Fraction(1, 10**6)


@dataclass(frozen=True)
class Exported:
    """An exported instance: the JSON object to write and what a user should be told.

    Attributes
    ----------
    document : the JSON object (plain JSON: strings, ints, floats, lists, dicts).
    notes : one line per fact of the conversion a user should know (printed on stderr).
    summary : counts and choices of the conversion, for the command's summary line.
    """

    document: dict[str, Any]
    notes: tuple[str, ...]
    summary: dict[str, Any]


def _seconds(t: Any) -> int | float:
    """A time for Batsim: integral values as ints, anything else as the nearest float."""
    value = Fraction(t)
    return int(value) if value.denominator == 1 else float(value)


def _walltime(t: Any) -> int | float:
    """w_j = t_j (1 + WALLTIME_MARGIN), strictly above the written delay."""
    return _seconds(Fraction(t) * (1 + WALLTIME_MARGIN))


def _number_list(instance: Any, key: str, integral: bool) -> list[Any] | None:
    """``metadata[key]`` checked at the boundary: n numbers in [0, MAX_TIME] (integers >= 0
    if `integral`)."""
    values = instance.metadata.get(key)
    if values is None:
        return None
    if not isinstance(values, list) or len(values) != instance.n:
        raise InvalidInstance(key, f"must list one number per job ({instance.n})")
    for j, v in enumerate(values):
        if integral:
            strict_int(v, f"{key}[{j}]")
        elif isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= MAX_TIME:
            raise InvalidInstance(f"{key}[{j}]", f"{show(v)} must be a number in "
                                                 f"[0, {MAX_TIME:g}]")
    return values


def _submit_times(instance: Any, release_at_zero: bool) -> tuple[list[Any], Any]:
    """s_j per job and the submit time they are shifted by (None: every job at 0)."""
    times = _number_list(instance, "submit_times", integral=False)
    if times is None or release_at_zero:
        return [0] * instance.n, None
    first = min(times)
    return [_seconds(Fraction(s) - Fraction(first)) for s in times], first


def _trace_notes(instance: Any) -> list[str]:
    """For a day of an SWF trace: the lines of that day the reader dropped."""
    dropped = instance.metadata.get("dropped")
    if instance.metadata.get("source") != "swf" or not isinstance(dropped, dict):
        return []
    counts = {r: dropped.get(r) for r in REASON_TEXT}
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in counts.values()):
        raise InvalidInstance("dropped", "must count the dropped lines per reason "
                                         f"({', '.join(REASON_TEXT)})")
    if not sum(counts.values()):
        return []
    text = REASON_TEXT | {"procs_exceed_P": f"wider than P={instance.P}"}
    said = ", ".join(f"{c} {text[r]}" for r, c in counts.items() if c)
    return [f"note: day {instance.name} of the trace: {sum(counts.values())} of its lines were "
            f"dropped when reading ({said}) and are not in the workload"]


def _failures(instance: Any, attempts: bool) -> tuple[tuple[int, ...], list[str]]:
    """f_j per job to unroll (zeros without ``attempts``) and the note on a dropped scenario."""
    stored = instance.failures
    name = instance.name or "(unnamed)"
    if attempts:
        if stored is None:
            raise InvalidInstance("--attempts", f"instance {name} stores no failure scenario "
                                                f"(\"failures\"): no failed attempts to export; "
                                                f"leave out --attempts")
        return tuple(stored.failures), []
    notes = []
    if stored is not None and any(stored.failures):
        failed = sum(stored.failures)
        jobs = sum(1 for f in stored.failures if f)
        notes.append(f"note: instance {name}: its stored failure scenario ({failed} failed "
                     f"attempt(s) of {jobs} job(s)) is not exported: one job per rigid job; "
                     f"--attempts exports the failed attempts")
    return (0,) * instance.n, notes


def rigid_to_batsim(instance: Any, *, attempts: bool = False, version: int = DEFAULT_VERSION,
                    release_at_zero: bool = False) -> Exported:
    """The Batsim workload of a rigid instance (mapping in the module docstring).

    Parameters
    ----------
    instance : a `RigidInstance`.
    attempts : unroll the stored failure scenario into failing attempts (refused when the
        instance stores none).
    version : Batsim major version the workload is for (a key of `PROFILE_TYPE`).
    release_at_zero : submit every job at 0 even when the instance records trace submit times.

    Raises
    ------
    InvalidInstance
        for an unknown version, ``attempts`` without a stored scenario, or malformed
        ``submit_times``/``job_ids`` metadata.
    """
    if version not in PROFILE_TYPE:
        raise InvalidInstance("--batsim-version", f"{version!r} is not one of "
                                                  f"{', '.join(map(str, PROFILE_TYPE))}")
    failures, notes = _failures(instance, attempts)
    notes += _trace_notes(instance)
    subtimes, shift = _submit_times(instance, release_at_zero)
    from_trace = shift is not None
    swf_ids = None
    if from_trace and instance.metadata.get("source") == "swf":
        swf_ids = _number_list(instance, "job_ids", integral=True)
    jobs: list[dict[str, Any]] = []
    profiles: dict[str, dict[str, Any]] = {}
    for j, job in enumerate(instance.jobs):
        delay = _seconds(job.t)
        for k in range(failures[j] + 1):
            failing = k < failures[j]
            name = f"delay-{delay}" + ("-fail" if failing else "")
            profile: dict[str, Any] = {"type": PROFILE_TYPE[version], "delay": delay}
            if failing:
                profile["ret"] = 1
            profiles.setdefault(name, profile)
            entry: dict[str, Any] = {"id": f"{j}.{k}" if attempts else str(j),
                                     "subtime": subtimes[j], "res": job.p,
                                     "walltime": _walltime(job.t), "profile": name}
            extra: dict[str, Any] = {}
            if attempts:
                extra |= {"job": j, "attempt": k, "fails": failing,
                          "after": f"{j}.{k - 1}" if k else None}
            if swf_ids is not None:
                extra |= {"swf_job": swf_ids[j]}
            if from_trace:
                extra |= {"submit_time": instance.metadata["submit_times"][j]}
            if extra:
                entry["extra_data"] = json.dumps(extra, separators=(",", ":"))
            jobs.append(entry)
    failed = sum(failures)
    description = (f"resilsched rigid instance {instance.name or '(unnamed)'}: n={instance.n}, "
                   f"P={instance.P}; Batsim {version} workload; walltime = delay x "
                   f"(1 + {float(WALLTIME_MARGIN):g}); ")
    description += (f"subtime = submit_times[j] - {shift}" if from_trace
                    else "every job submitted at 0")
    if attempts:
        description += f"; {failed} failed attempt(s) unrolled (extra_data.after orders them)"
    document = {"description": description, "nb_res": instance.P, "jobs": jobs,
                "profiles": profiles}
    summary = {"jobs": len(jobs), "profiles": len(profiles), "nb_res": instance.P,
               "batsim_version": version, "submit_times": from_trace, "submit_shift": shift,
               "failed_attempts": failed if attempts else None}
    return Exported(document, tuple(notes), summary)
