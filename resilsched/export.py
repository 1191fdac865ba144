"""Instances in other tools' formats: rigid instances as Batsim workloads (docs/interop.md).

Batsim (https://batsim.readthedocs.io, "Workload") reads a JSON object with ``nb_res`` (the
resources the workload is designed for), ``jobs`` (``id`` string, ``subtime`` seconds,
``res`` resources, ``profile`` name, optional ``walltime`` seconds and ``extra_data`` string)
and ``profiles`` (name -> ``{"type": ..., ...}``; a ``delay`` profile sleeps ``delay`` seconds,
its optional ``ret`` is the return code, non-zero meaning failure).

A rigid instance (spec 002) maps to: ``nb_res = P``; job j -> ``{"id": "j", "subtime": 0,
"res": p_j, "walltime": t_j, "profile": "delay-t_j"}``, one ``delay`` profile per distinct
t_j (times are seconds; an exact rational time is written as its nearest float). With
``attempts=True`` the instance's failure scenario f is unrolled: job j becomes f_j failing
attempts ``"j.0"``, ..., ``"j.(f_j-1)"`` (profile ``delay-t_j-fail``: the same delay with
``ret = 1``) followed by the successful attempt ``"j.f_j"``; each attempt's ``extra_data``
says which job and attempt it is and which attempt it follows, since a static Batsim
workload cannot itself resubmit a job when it fails (the scheduler replaying the library does).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from resilsched.errors import InvalidInstance


def _seconds(t: Any) -> int | float:
    """A duration for Batsim: ints stay ints, anything else becomes a float."""
    if isinstance(t, Fraction):
        return int(t) if t.denominator == 1 else float(t)
    return t


def rigid_to_batsim(instance: Any, *, attempts: bool = False) -> dict[str, Any]:
    """The Batsim workload of a rigid instance (mapping in the module docstring)."""
    failures = instance.scenario().failures if attempts else (0,) * instance.n
    jobs: list[dict[str, Any]] = []
    profiles: dict[str, dict[str, Any]] = {}
    for j, job in enumerate(instance.jobs):
        t = _seconds(job.t)
        f_j = failures[j]
        for k in range(f_j + 1):
            failing = k < f_j
            name = f"delay-{t}" + ("-fail" if failing else "")
            profile: dict[str, Any] = {"type": "delay", "delay": t}
            if failing:
                profile["ret"] = 1
            profiles.setdefault(name, profile)
            entry: dict[str, Any] = {"id": f"{j}.{k}" if attempts else str(j), "subtime": 0,
                                     "res": job.p, "walltime": t, "profile": name}
            if attempts:
                entry["extra_data"] = json.dumps(
                    {"job": j, "attempt": k, "fails": failing,
                     "after": f"{j}.{k - 1}" if k else None}, separators=(",", ":"))
            jobs.append(entry)
    description = f"resilsched rigid instance {instance.name or '(unnamed)'}: " \
                  f"n={instance.n}, P={instance.P}"
    if attempts:
        description += f", failures={list(failures)}"
    return {"description": description, "nb_res": instance.P, "jobs": jobs,
            "profiles": profiles}


#: format -> family -> exporter(instance, attempts=...) -> JSON object
EXPORTERS: dict[str, dict[str, Callable[..., dict[str, Any]]]] = {
    "batsim": {"rigid": rigid_to_batsim},
}


def export(family: Any, instance: Any, fmt: str, *, attempts: bool = False) -> dict[str, Any]:
    """`instance` (of `family`) in format `fmt`; `InvalidInstance` when there is no exporter."""
    table = EXPORTERS.get(fmt)
    if table is None:
        raise InvalidInstance("--to", f"{fmt!r} is unknown (choose from {', '.join(EXPORTERS)})")
    fn = table.get(family.name)
    if fn is None:
        raise InvalidInstance("--to", f"{fmt} exports {', '.join(table)} instances, not "
                                      f"{family.name}")
    return fn(instance, attempts=attempts)
