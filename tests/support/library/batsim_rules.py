"""An independent checker of Batsim workload files, written from Batsim's loading rules.

The rules were read in Batsim's C++ sources and documentation (oar-team/batsim; the Batsim 4
line as kept in the hpc/batsim4 fork); docs/interop.md cites the files and commits. This
module restates them in Python, without sharing any code with `resilsched.export`:

- workload (``Workload::load_from_json``, src/workload.cpp): a JSON object whose ``nb_res`` is
  a JSON integer > 0, with a ``profiles`` object and a ``jobs`` array;
- profiles (``Profiles::load_from_json`` and ``Profile::from_json``, src/profiles.cpp): unique
  names, each an object with a string ``type``; ``ret``, when present, a JSON integer (rapidjson
  ``GetInt``); a delay profile's type is ``"delay"`` in Batsim 4 (src/profiles.cpp of the 4.x
  line) and ``"DelayProfile"`` in Batsim 5 (docs/input-workload.rst, workloads/test_walltime.json
  of the 5.0 development line), with a number ``delay`` > 0;
- jobs (``Jobs::load_from_json`` and ``Job::from_json``, src/jobs.cpp): unique ``id`` (string or
  integer) without ``!`` (``JobIdentifier`` splits ``workload!job``), number ``subtime``,
  optional number ``walltime`` that is -1 or > 0, integer ``res`` >= 0, string ``profile`` that
  names a defined profile; ``extra_data`` a string (docs/input-workload.rst);
- execution (``do_delay_task`` and ``execute_job_process``, src/jobs_execution.cpp): a delay job
  ends normally only when it has no walltime (absent or -1) or its delay is strictly below the
  walltime; otherwise it is killed at the walltime (state COMPLETED_WALLTIME_REACHED) and its
  ``ret`` is lost. A normal end with ret 0 is COMPLETED_SUCCESSFULLY, ret > 0 COMPLETED_FAILED;
  a negative ret collides with Batsim's internal codes (-1 walltime, -2 killed).

Three rules are ours, for a workload meant to replay a rigid instance on ``nb_res`` machines
(``batsim --mmax-workload``): ``subtime >= 0``, ``1 <= res <= nb_res``, and delay profiles only
(the exporter writes no other kind; Batsim refuses a type it does not know).
"""

from __future__ import annotations

import json
import math
from typing import Any

#: Batsim major version -> spelling of the delay profile type
DELAY_TYPE = {4: "delay", 5: "DelayProfile"}
INT32 = (-(2**31), 2**31 - 1)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse(text: str) -> Any:
    """Strict JSON (no NaN/Infinity, no duplicate object keys), as RapidJSON reads it."""
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and INT32[0] <= v <= INT32[1]


def problems(text: str, version: int) -> list[str]:
    """Every rule the workload file `text` breaks for Batsim `version` (empty: it loads)."""
    try:
        w = parse(text)
    except ValueError as exc:
        return [f"not strict JSON: {exc}"]
    if not isinstance(w, dict):
        return ["the workload is not a JSON object"]
    out = []
    nb_res = w.get("nb_res")
    if not (_int(nb_res) and nb_res > 0):
        out.append(f"nb_res={nb_res!r} is not an integer > 0")
    profiles, jobs = w.get("profiles"), w.get("jobs")
    if not isinstance(profiles, dict):
        return out + ["profiles is not an object"]
    if not isinstance(jobs, list):
        return out + ["jobs is not an array"]
    for name, prof in profiles.items():
        where = f"profile {name!r}"
        if not isinstance(prof, dict) or not isinstance(prof.get("type"), str):
            out.append(f"{where} is not an object with a string type")
            continue
        if "ret" in prof and not (_int(prof["ret"]) and prof["ret"] >= 0):
            out.append(f"{where}: ret={prof['ret']!r} is not an integer >= 0")
        if prof["type"] != DELAY_TYPE[version]:
            out.append(f"{where}: type {prof['type']!r} is not Batsim {version}'s delay type "
                       f"{DELAY_TYPE[version]!r}")
        elif not (_number(prof.get("delay")) and prof["delay"] > 0):
            out.append(f"{where}: delay={prof.get('delay')!r} is not a number > 0")
    ids = set()
    for i, job in enumerate(jobs):
        where = f"jobs[{i}]"
        if not isinstance(job, dict):
            out.append(f"{where} is not an object")
            continue
        jid = job.get("id")
        if isinstance(jid, bool) or not isinstance(jid, (str, int)):
            out.append(f"{where}: id={jid!r} is neither a string nor an integer")
        elif "!" in str(jid):
            out.append(f"{where}: id={jid!r} holds a '!'")
        elif str(jid) in ids:
            out.append(f"{where}: id={jid!r} is not unique")
        ids.add(str(jid))
        if not (_number(job.get("subtime")) and job["subtime"] >= 0):
            out.append(f"{where}: subtime={job.get('subtime')!r} is not a number >= 0")
        if "walltime" in job and not (_number(job["walltime"])
                                      and (job["walltime"] == -1 or job["walltime"] > 0)):
            out.append(f"{where}: walltime={job['walltime']!r} is neither -1 nor > 0")
        res = job.get("res")
        if not (_int(res) and 1 <= res <= (nb_res if _int(nb_res) else res)):
            out.append(f"{where}: res={res!r} is not an integer in [1, nb_res]")
        if not isinstance(job.get("profile"), str) or job["profile"] not in profiles:
            out.append(f"{where}: profile={job.get('profile')!r} names no defined profile")
        if "extra_data" in job and not isinstance(job["extra_data"], str):
            out.append(f"{where}: extra_data is not a string")
    return out


def end_state(workload: dict[str, Any], job: dict[str, Any]) -> str:
    """The state Batsim ends a delay job in: ``success``, ``failed`` or ``walltime``."""
    profile = workload["profiles"][job["profile"]]
    walltime = job.get("walltime", -1)
    if walltime != -1 and not profile["delay"] < walltime:
        return "walltime"  # killed when the walltime is reached: ret is never seen
    return "failed" if profile.get("ret", 0) > 0 else "success"
