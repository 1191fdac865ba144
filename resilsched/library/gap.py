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
    Score,
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
from resilsched.optimality_gap import certify_family
from resilsched.plugin import Case
from resilsched.solution import json_number

#: the name of a task that computes every bound of the family on one instance
BOUNDS = "(bounds)"


def _case(family: Any, data: dict[str, Any], name: str) -> Case:
    instance = family.from_dict(data)
    scenario = family.scenario(instance, None) if family.scenario is not None else None
    return Case(name, instance, scenario)


def _loads(family: Any, entry: Entry) -> None:
    """`entry` holds an instance (and scenario) of `family`: `InvalidInstance` naming the
    file otherwise, before any task runs."""
    from resilsched.errors import InvalidInstance

    try:
        _case(family, {k: v for k, v in entry.data.items() if k != "metadata"}, entry.name)
    except Exception as exc:  # whatever the family's reader raises on a foreign file
        raise InvalidInstance(entry.label, f"is not an instance of {family.name} "
                                           f"({' '.join(str(exc).split())})") from None


def gap_task(payload: tuple[str, dict[str, Any], str, str, dict[str, Any], int, float | None]
             ) -> dict:
    """Campaign task: score one heuristic (every priority rule; a registered name or a
    ``MODULE:FUNCTION`` reference, imported here, in the worker), or every bound, on one
    instance against its certificate, each heuristic run bounded by the payload's time limit.
    Returns JSON: per priority rule (``""`` when it has none) ``{"objective", "gap",
    "violations", "metrics", "group", "not_scored"}`` (`resilsched.gap.Score`; ``not_scored``
    why a valid run solves another problem than the instance's, else null), or per bound
    ``{"value", "violation"}``."""
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
        score = score_heuristic(fam, h, case, prio, seed, ref, kind, incumbent, limit)
        out[prio or ""] = {"objective": json_number(score.value), "gap": score.gap,
                           "violations": score.violations, "metrics": score.metrics,
                           "group": group, "not_scored": score.not_scored}
    return out


def _ratio_value(value: Any) -> Any:
    return Fraction(value) if isinstance(value, str) else value


def _stored_certificates(lib: Library, entries: Sequence[Entry]) -> list[Certificate]:
    """The stored certificates, after the checks that need no solve (`static_problems`: the
    files are the manifest's, each certificate names the manifest's model, options and time
    limit and is coherent); `InvalidInstance` naming the first instance that fails them. The
    values themselves are trusted: ``library verify`` or ``--resolve`` re-derives them."""
    from resilsched.errors import InvalidInstance
    from resilsched.library.verify import static_problems

    advice = (f"run resilsched library verify {lib.path} to check every certificate, or score "
              "with --resolve")
    method = lib.method()
    if method is None:
        raise InvalidInstance(f"library {lib.name}", "holds no certificates (its manifest "
                              "names no exact model): write them with generate --solve, or "
                              "score with --resolve")
    out = []
    for entry in entries:
        try:
            cert = Certificate.from_metadata(entry.metadata)
        except ValueError as exc:
            raise InvalidInstance(f"library {lib.name}", f"holds an instance without a valid "
                                  f"certificate ({entry.label}: {exc}): {advice}") from None
        problems = static_problems(entry, cert, method)
        if problems:
            raise InvalidInstance(f"library {lib.name}", f"{entry.label}: {problems[0]}: "
                                                         f"{advice}")
        out.append(cert)
    return out


def _certificates(lib: Library, entries: Sequence[Entry], resolve: bool,
                  time_limit: float | None, store: ResultStore, jobs: int | None,
                  progress: bool) -> list[Certificate]:
    """The stored certificates (`_stored_certificates`), or (`resolve`) new ones with the
    manifest's model and options (the family's reference model when it names none)."""
    if not resolve:
        return _stored_certificates(lib, entries)
    from resilsched.library.build import certify_all
    from resilsched.library.catalog import CERT_OPTIONS
    from resilsched.registry import get_family

    method = lib.method()
    if method is None:
        name, limit, options = get_family(lib.family).default_exact, 10.0, CERT_OPTIONS
    else:
        name, limit, options = method.name, method.time_limit, method.options
    limit = time_limit if time_limit is not None else limit
    plain = [{k: v for k, v in e.data.items() if k != "metadata"} for e in entries]
    return certify_all(lib.family, plain, name, limit, options=options, store=store,
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
        for entry in entries:
            _loads(fam, entry)
        certs = _certificates(lib, entries, resolve, time_limit, store, jobs, progress)
        names = list((heuristics or {}).get(fam.name) or fam.heuristics)
        tasks = []
        for index, (entry, cert) in enumerate(zip(entries, certs, strict=True), 1):
            meta = cert.to_metadata()
            data = {k: v for k, v in entry.data.items() if k != "metadata"}
            for what in [*names, BOUNDS]:
                fields = {"file": entry.file, "sha256": entry.sha256,
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
                    st.record(lib.name, entry.name, Score(
                        _ratio_value(row["objective"]), row["gap"], row["violations"],
                        row.get("metrics") or {}, row.get("not_scored")))
            for bname, row in next(by_task).items():
                value = _ratio_value(row["value"])
                add_bound(bounds_of[fam.name][bname], value, ref, row["violation"])
    for name in families:
        report.heuristics.extend(stats_of[name].values())
        finish_bound_rows(bounds_of[name], report)
        certify_family(report, name, get_family(name).sense)
    report.wall_time = time.perf_counter() - t0
    return report


def _float(x: Any) -> Any:
    return float(x) if isinstance(x, Fraction) else x
