"""``resilsched gap --library``: every heuristic against a library's stored certificates.

The report is the one of `resilsched.gap` (same JSON, same ``check`` thresholds), computed on
the campaign engine (`resilsched.campaign.run_campaign`): one task per instance and heuristic
(all its priority rules) and one per instance for the family's bounds, so a large report runs
on ``jobs`` processes (or Dask), is stored row by row in the result store (``--store``) and
resumes where it stopped. A task's key holds the instance file's sha256, the certificate it is
scored against and the resilsched version, so a changed library, a re-solved certificate or
another release is never mixed with old rows. The store resumes one report: it does not see
changes to a heuristic's code within a version (use a fresh store after changing one).

No exact model runs unless ``resolve`` is set: then the certificates are first computed again
(campaign ``certify:<library>``, with the stored method and options, within the stored or the
given time limit) and the heuristics are scored against those.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from resilsched import __version__
from resilsched.campaign import ResultStore, Task, canonical_json, run_campaign
from resilsched.gap import (
    GapReport,
    StatsTable,
    add_bound,
    finish_bound_rows,
    group_of,
    new_bound_rows,
    score_bound,
    score_heuristic,
    stats_for,
)
from resilsched.library.catalog import Entry, Library, sha256_text
from resilsched.library.certificate import Certificate
from resilsched.plugin import Case
from resilsched.solution import json_number

#: the name of a task that computes every bound of the family on one instance
BOUNDS = "(bounds)"


def _case(family: Any, data: dict[str, Any], name: str) -> Case:
    instance = family.from_dict(data)
    scenario = family.scenario(instance, None) if family.scenario is not None else None
    return Case(name, instance, scenario)


def gap_task(payload: tuple[str, dict[str, Any], str, str, dict[str, Any], int, float | None]
             ) -> dict:
    """Campaign task: score one heuristic (every priority rule; a registered name or a
    ``MODULE:FUNCTION`` reference, imported here, in the worker), or every bound, on one
    instance against its certificate, each heuristic run bounded by the payload's time limit.
    Returns JSON: per priority rule (``""`` when it has none) ``{"objective", "gap",
    "violations"}``, or per bound ``{"value", "violation"}``."""
    from resilsched.registry import get_family, heuristic

    family_name, data, name, what, cert_meta, seed, limit = payload
    fam = get_family(family_name)
    case = _case(fam, data, name)
    cert = Certificate.from_metadata(cert_meta)
    ref, kind = cert.reference(fam.sense)
    incumbent = cert.incumbent(fam.sense)
    if what == BOUNDS:
        out: dict[str, Any] = {}
        for bname, bound in fam.bounds.items():
            try:
                value, violation = score_bound(fam, bound, case, incumbent)
            except Exception as exc:  # reported, like a crashing heuristic
                value, violation = None, f"{name}: crashed: {type(exc).__name__}: {exc}"
            out[bname] = {"value": json_number(value), "violation": violation}
        return out
    h = heuristic(fam, what)
    out = {}
    group = group_of(fam, case.instance)
    for prio in h.priorities or (None,):
        value, gap, violations, metrics = score_heuristic(fam, h, case, prio, seed, ref, kind,
                                                          incumbent, limit)
        out[prio or ""] = {"objective": json_number(value), "gap": gap,
                           "violations": violations, "metrics": metrics, "group": group}
    return out


def _ratio_value(value: Any) -> Any:
    return Fraction(value) if isinstance(value, str) else value


def _certificates(lib: Library, entries: Sequence[Entry], resolve: bool,
                  time_limit: float | None, store: ResultStore, jobs: int | None,
                  progress: bool) -> list[Certificate]:
    """The stored certificates, or (`resolve`) new ones with the manifest's model and options."""
    from resilsched.errors import InvalidInstance

    if not resolve:
        try:
            return [Certificate.from_metadata(e.metadata) for e in entries]
        except ValueError as exc:
            raise InvalidInstance(f"library {lib.name}", f"holds an instance without a valid "
                                  f"certificate ({exc}): write them with generate --solve, or "
                                  "score with --resolve") from None
    from resilsched.library.build import certify_all
    from resilsched.library.catalog import CERT_OPTIONS
    from resilsched.registry import get_family

    exact = lib.manifest.get("exact") or {}
    method = exact.get("method") or get_family(lib.family).default_exact
    limit = time_limit if time_limit is not None else exact.get("time_limit", 10.0)
    options = exact.get("options") or CERT_OPTIONS
    plain = [{k: v for k, v in e.data.items() if k != "metadata"} for e in entries]
    return certify_all(lib.family, plain, method, limit, options=options, store=store,
                       jobs=jobs, progress=progress, name=lib.name)


def run_library_gap(libraries: Sequence[Library], *, store: ResultStore,
                    jobs: int | None = None, dask: Any = None, resolve: bool = False,
                    time_limit: float | None = None, progress: bool = True,
                    heuristics: Mapping[str, Sequence[str]] | None = None,
                    heuristic_time_limit: float | None = None) -> GapReport:
    """The gap report of every heuristic of each library's family on its instances (or of
    the `heuristics` given per family), each run bounded by `heuristic_time_limit`."""
    from resilsched.registry import get_family

    t0 = time.perf_counter()
    families = list(dict.fromkeys(lib.family for lib in libraries))
    report = GapReport(families, time_limit if resolve else None)
    report.meta["libraries"] = [lib.summary() for lib in libraries]
    report.meta["resolved"] = resolve
    stats_of: dict[str, StatsTable] = {name: {} for name in families}
    bounds_of = {name: new_bound_rows(get_family(name)) for name in families}
    for lib in libraries:
        fam = get_family(lib.family)
        entries = list(lib.entries())
        certs = _certificates(lib, entries, resolve, time_limit, store, jobs, progress)
        names = list((heuristics or {}).get(fam.name) or fam.heuristics)
        tasks = []
        for index, (entry, cert) in enumerate(zip(entries, certs, strict=True), 1):
            meta = cert.to_metadata()
            data = {k: v for k, v in entry.data.items() if k != "metadata"}
            for what in [*names, BOUNDS]:
                fields = {"file": entry.file, "sha256": entry.record.get("sha256"),
                          "certificate": sha256_text(canonical_json(meta)), "task": what,
                          "resilsched": __version__}
                tasks.append(Task(fields, (fam.name, data, entry.name, what, meta, index,
                                           heuristic_time_limit)))
        results = run_campaign(f"gap:{lib.name}", tasks, gap_task, store,
                               config={"library": lib.name, "family": fam.name},
                               jobs=jobs, dask=dask, progress=progress,
                               label=f"gap {lib.name}")
        by_task = iter(results)
        for entry, cert in zip(entries, certs, strict=True):
            ref, kind = cert.reference(fam.sense)
            lo, hi = cert.lower_bound, cert.upper_bound
            objective, bound = (hi, lo) if fam.sense == "min" else (lo, hi)
            report.cases.append({
                "family": fam.name, "library": lib.name, "case": entry.name,
                "file": entry.file, "reference": kind, "method": cert.method,
                "status": cert.status, "objective": _float(objective), "bound": _float(bound),
                "wall_time": cert.proof_time,
            })
            for hname in names:
                for prio, row in next(by_task).items():
                    st = stats_for(stats_of[fam.name], fam, hname, prio or None,
                                   row.get("group"))
                    if row["gap"] is not None:
                        st.add(entry.name, row["gap"], row.get("metrics"))
                    st.violations.extend(row["violations"])
            for bname, row in next(by_task).items():
                value = _ratio_value(row["value"])
                add_bound(bounds_of[fam.name][bname], value, ref, row["violation"])
    for name in families:
        report.heuristics.extend(stats_of[name].values())
        finish_bound_rows(bounds_of[name], report)
    report.wall_time = time.perf_counter() - t0
    return report


def _float(x: Any) -> Any:
    return float(x) if isinstance(x, Fraction) else x
