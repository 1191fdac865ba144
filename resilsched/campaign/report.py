"""``resilsched report``: a markdown report, CSV tables and PNG plots of a campaign's store.

docs/campaigns.md, "Reports". From the rows of a spec campaign (`resilsched.campaign.tasks`) it
writes into the output folder:

- ``report.md``: the campaign, its runs and package versions, then per family the metric's
  definition (`resilsched.campaign.metrics`), a table of its mean, quartiles, 95th percentile
  and max per algorithm setting, a table of means per value of each swept parameter (q-bar and
  the algorithms' own parameters), the figures, and the algorithms' descriptions;
- ``rows.csv`` (every row, as ``resilsched campaign export --csv``) and ``summary.csv`` (the
  statistics per family, metric, setting and q-bar, ``all`` pooling every q-bar);
- ``<family>-<metric>-boxplot.png`` and ``<family>-<metric>-vs-<parameter>.png``
  (`resilsched.campaign.plots`; skipped with ``plots=False``).

The store is opened read-only. Tasks whose heuristic or model refused the instance are counted
per setting with their reasons, and so are runs of another problem than their case's (a row's
``another_problem``, decision MA-28: validated, not scored); rows that are not valid JSON,
hold NaN or infinities, or are not rows of a spec campaign are left out of every table and
named in the report.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from resilsched.campaign.errors import PathError
from resilsched.campaign.export import (
    LeftOut,
    checked_rows,
    flat_rows,
    left_out_line,
    open_store,
    output,
    pick_campaign,
    write_csv,
)
from resilsched.campaign.metrics import (
    FamilyResults,
    Point,
    Setting,
    collect,
    mean_ci,
    summary,
)
from resilsched.campaign.plots import report_pictures
from resilsched.campaign.store import CampaignError, ResultStore

STATS = ("n", "mean", "q25", "median", "q75", "q95", "max")
QBAR_LABEL = "mean failure probability per attempt q-bar (dimensionless)"


def require_matplotlib() -> None:
    """`CampaignError` in one line when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CampaignError("report plots need matplotlib: pip install 'resilsched[plot]' "
                            "(or use --no-plots)") from None


def output_folder(out: str | Path) -> Path:
    """The report's folder (`PathError` now, before any work, if `out` is a file)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise PathError(f"--out {out}", "is a file, not a folder")
    return out


def write_report(store_path: str | Path, out: str | Path, campaign: str | None = None,
                 plots: bool = True) -> dict[str, Any]:
    """Write the report of `campaign` (default: the store's only one) into `out`; returns
    {"campaign", "rows", "refused", "not_scored", "unmarked", "left_out", "files"}
    (`not_scored`: the rows of runs of another problem, MA-28; `unmarked`: the rows of a family
    with that rule stored before their ``another_problem`` field; `left_out`: one line per row
    left out)."""
    if plots:
        require_matplotlib()
    out = output_folder(out)
    with open_store(store_path) as store:
        name = pick_campaign(store, campaign)
        stored, left = checked_rows(store, name)
        families, bad = collect((k, f, r) for k, f, r, _, _ in stored)
        if bad:
            dropped = {k for k, _ in bad}
            stored = [row for row in stored if row[0] not in dropped]
            left += [LeftOut(k, problem) for k, problem in bad]
        if not families:
            raise CampaignError(f"campaign {name!r} holds no rows of a spec campaign "
                                "(`resilsched campaign run`)" +
                                (f"; {left_out_line(left)}" if left else ""))
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PathError(f"--out {out}", f"cannot be created ({exc.strerror or exc})") \
                from None
        files = [out / "rows.csv", out / "summary.csv"]
        write_csv(flat_rows(name, stored), files[0])
        _write_summary(families, files[1])
        pairs = [(f, r) for _, f, r, _, _ in stored]
        figures = {fam: _figures(fr, out) + report_pictures(fr, pairs, store.config(name), out)
                   if plots else [] for fam, fr in families.items()}
        files += [p for paths in figures.values() for _, p in paths if p.name]
        files.append(out / "report.md")
        text = _markdown(store, name, len(stored), families, figures, left)
        with output(files[-1], str(files[-1])) as f:
            f.write(text)
    refused = sum(len(v) for fr in families.values() for v in fr.refused.values())
    not_scored = sum(len(v) for fr in families.values() for v in fr.not_scored.values())
    return {"campaign": name, "rows": len(stored), "refused": refused,
            "not_scored": not_scored, "unmarked": sum(fr.unmarked for fr in families.values()),
            "left_out": [x.describe() for x in left], "files": [str(p) for p in files]}


# -- grouping ---------------------------------------------------------------------------------

def _by_setting(points: Sequence[Point]) -> dict[Setting, list[float]]:
    groups: dict[Setting, list[float]] = defaultdict(list)
    for p in points:
        groups[p.setting].append(p.value)
    return groups


def _ranked(fr: FamilyResults, metric: str) -> list[tuple[Setting, list[float]]]:
    """Settings with their values, best mean first."""
    sign = -1.0 if fr.better(metric) == "higher" else 1.0
    groups = _by_setting(fr.points(metric))
    return sorted(groups.items(),
                  key=lambda kv: (round(sign * summary(kv[1])["mean"], 9), kv[0].label))


def _sweeps(fr: FamilyResults, metric: str) -> dict[str, dict[str, dict[Any, list[float]]]]:
    """Swept parameter -> line label -> x value -> values (q-bar first, then each algorithm
    parameter taking several values; a line is a setting without that parameter)."""
    points = fr.points(metric)
    out: dict[str, dict[str, dict[Any, list[float]]]] = {}
    if len({p.qbar for p in points}) > 1:
        lines: dict[str, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
        for p in points:
            if p.qbar is not None:
                lines[p.setting.label][p.qbar].append(p.value)
        out["qbar"] = lines
    names = sorted({k for p in points for k in p.setting.param_values})
    for pname in names:
        lines = defaultdict(lambda: defaultdict(list))
        for p in points:
            values = p.setting.param_values
            if pname in values:
                rest = {k: v for k, v in values.items() if k != pname}
                line = Setting(p.setting.algorithm, p.setting.kind, p.setting.priority,
                               json.dumps(rest, sort_keys=True, separators=(",", ":")))
                lines[line.label][values[pname]].append(p.value)
        lines = {k: v for k, v in lines.items() if len(v) > 1}
        if lines:
            out[pname] = lines
    return out


# -- files ------------------------------------------------------------------------------------

def _write_summary(families: dict[str, FamilyResults], path: Path) -> None:
    head = ["family", "metric", "algorithm", "kind", "priority", "params", "qbar", *STATS,
            "std", "min"]
    with output(path, str(path)) as f:
        w = csv.writer(f)
        w.writerow(head)
        for name, fr in families.items():
            for metric in ("ratio", "gap"):
                by_q: dict[tuple[Setting, Any], list[float]] = defaultdict(list)
                for p in fr.points(metric):
                    by_q[p.setting, "all"].append(p.value)
                    if p.qbar is not None:
                        by_q[p.setting, p.qbar].append(p.value)
                for (s, q), values in by_q.items():
                    st = summary(values)
                    w.writerow([name, metric, s.algorithm, s.kind, s.priority or "", s.params,
                                q, *(_num(st[k]) for k in STATS), _num(st["std"]),
                                _num(st["min"])])


def _num(x: float) -> str:
    return f"{x:.6g}"


def _figures(fr: FamilyResults, out: Path) -> list[tuple[str, Path]]:
    """(caption, path) of every figure of one family (`PathError` if one cannot be written)."""
    try:
        return _draw(fr, out)
    except OSError as exc:
        where = exc.filename or out
        raise PathError(str(where), f"cannot be written ({exc.strerror or exc})") from None


def _draw(fr: FamilyResults, out: Path) -> list[tuple[str, Path]]:
    from resilsched.campaign import plots

    fam = fr.family.name
    made = []
    for metric in dict.fromkeys([fr.metric(), "ratio"]):
        if not fr.points(metric):
            continue
        ref = (0.0, fr.reference_kind) if metric == "gap" else (1.0, f"bound {fr.bound_name}")
        boxes = [(s.label, v) for s, v in _ranked(fr, metric)]
        what = f"gap to the {fr.reference_kind}" if metric == "gap" \
            else f"normalized {fr.objective}"
        over = f"{len(fr.instances)} instances" + (" and their scenarios" if fr.scenarios else "")
        path = plots.boxplot(boxes, fr.metric_label(metric),
                             f"{fam}: {what} per algorithm, over {over}", ref,
                             out / f"{fam}-{metric}-boxplot.png")
        made.append((f"{what} per algorithm ({fr.better(metric)} is better)", path))
        for pname, lines in _sweeps(fr, metric).items():
            series = [(label, [(x, *mean_ci(v)) for x, v in pts.items()])
                      for label, pts in sorted(lines.items())]
            xlabel = QBAR_LABEL if pname == "qbar" else _param_label(fr, pname)
            path = plots.sweep(series, xlabel, fr.metric_label(metric),
                               f"{fam}: mean {what} against {pname} (95 % confidence bands)",
                               out / f"{fam}-{metric}-vs-{pname}.png", ref)
            made.append((f"mean {what} against {pname}", path))
    return made


def _param_label(fr: FamilyResults, pname: str) -> str:
    """Axis label of an algorithm parameter: its name and help text."""
    for table in (fr.family.heuristics, fr.family.exact):
        for entry in table.values():
            for p in entry.params:
                if p.name == pname:
                    return f"{pname} ({p.help})" if p.help else f"parameter {pname}"
    return f"parameter {pname}"


# -- markdown ---------------------------------------------------------------------------------

def _table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(str(c) for c in row) + " |" for row in rows)]


def _fmt(metric: str) -> Callable[[float], str]:
    return (lambda x: f"{x:.2f}") if metric == "gap" else (lambda x: f"{x:.4f}")


def _markdown(store: ResultStore, name: str, n_rows: int,
              families: dict[str, FamilyResults],
              figures: dict[str, list[tuple[str, Path]]], left: list[LeftOut]) -> str:
    lines = [f"# Campaign {name}", "",
             f"Store `{store.path}`: {n_rows} rows (one per task). Tables and plots below are "
             "computed from the stored rows only; `rows.csv` holds every row and `summary.csv` "
             "every statistic.", ""]
    if left:
        lines += [f"**{len(left)} stored rows are left out** (not valid JSON, holding NaN or "
                  "infinities, or not rows of a spec campaign): they are in no table, plot or "
                  "CSV file.", "", *(f"- {x.describe()}" for x in left[:20])]
        lines += [f"- and {len(left) - 20} more"] if len(left) > 20 else []
        lines += [""]
    lines += ["## Runs and versions", ""]
    runs = store.runs(name)
    lines += _table(["started (UTC)", "executor", "tasks", "versions"],
                    [(r["started"], r["executor"], r["tasks"], _versions(r["versions"]))
                     for r in runs])
    if len({json.dumps(r["versions"], sort_keys=True) for r in runs}) > 1:
        lines += ["", "**Warning**: the runs used different package versions."]
    for fam_name, fr in families.items():
        lines += ["", *_family_section(fr, figures.get(fam_name, []))]
    return "\n".join(lines) + "\n"


def _versions(v: Any) -> str:
    if not isinstance(v, dict):
        return "(not recorded)"
    return ", ".join(f"{k} {x}" for k, x in v.items())


def _refused_section(fr: FamilyResults) -> list[str]:
    """The tasks refused per setting, with the first reason."""
    if not fr.refused:
        return []
    total = sum(len(v) for v in fr.refused.values())
    lines = ["", f"### Refused tasks: {total}", "",
             "The heuristic or model refused these instances (they are stored results, not "
             "failures, and are in no statistic above):", ""]
    rows = [[s.label, len(reasons), reasons[0].replace("|", "/")[:200]]
            for s, reasons in sorted(fr.refused.items(), key=lambda kv: kv[0].label)]
    return lines + _table(["algorithm", "refused", "reason (first)"], rows)


def _not_scored_lines(fr: FamilyResults) -> list[str]:
    """One line per reason of the runs of another problem (MA-28), naming their settings, and
    one for the rows stored before the rule could be read from them.

    Parameters
    ----------
    fr : FamilyResults
        The family's metrics.

    Returns
    -------
    list of str
        Markdown lines, each after an empty one (none when there is nothing to say).
    """
    by_reason: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for s, reasons in sorted(fr.not_scored.items(), key=lambda kv: kv[0].label):
        for reason in reasons:
            by_reason[reason][s.label] += 1
    lines = []
    for reason, settings in by_reason.items():
        n = sum(settings.values())
        who = ", ".join(f"{label}: {k}" for label, k in settings.items())
        lines += ["", f"**{n} run{'s' if n > 1 else ''} not scored** ({reason}; {who}): "
                  "validated, but a run of another problem than its case's, so in no table, "
                  "plot or reference below."]
    if fr.unmarked:
        lines += ["", f"**{fr.unmarked} rows were stored before the `another_problem` field** "
                  "(decision MA-28): measured as before, so a fault-free baseline's run of a "
                  "case with failures among them is scored against that case; run the "
                  "campaign again with `--fresh` to apply the rule."]
    return lines


def _family_section(fr: FamilyResults, figures: list[tuple[str, Path]]) -> list[str]:
    fam = fr.family
    unit = f", in {fam.objective_unit}" if fam.objective_unit else ""
    bound = fam.bounds.get(fr.bound_name)
    lines = [f"## {fam.name} (spec {fam.spec}): {fr.objective}, {fam.sense}imised{unit}",
             "", f"{len(fr.instances)} instances. **Normalized {fr.objective}** = "
             f"{fr.objective} / {fr.bound_name}, the family's first registered bound "
             f"({bound.description if bound else 'none'}), on the same instance and scenario: "
             f"{'>= 1' if fam.sense == 'min' else '<= 1'}, and 1 means the bound is reached."]
    if fr.gap:
        lines += ["", f"**Gap** = {'(h - ref)' if fam.sense == 'min' else '(ref - h)'} / ref in "
                  f"percent, ref being the result of the exact model `{fr.reference_model}` on "
                  f"the same instance and scenario: its proven optimum on "
                  f"{fr.optimal_references} of {fr.references} cases, its proven bound on the "
                  "others (the gap is then an over-estimate)."]
    lines += _not_scored_lines(fr)
    for metric in dict.fromkeys([fr.metric(), "ratio"]):
        if not fr.points(metric):
            continue
        fmt = _fmt(metric)
        title = f"Gap to the {fr.reference_kind} (%)" if metric == "gap" \
            else f"Normalized {fr.objective}"
        lines += ["", f"### {title} per algorithm ({fr.better(metric)} is better)", ""]
        rows = []
        for s, values in _ranked(fr, metric):
            st = summary(values)
            rows.append([s.label, st["n"], *(fmt(st[k]) for k in STATS[1:])])
        lines += _table(["algorithm", *STATS], rows)
        for pname, sweep_lines in _sweeps(fr, metric).items():
            xs = sorted({x for pts in sweep_lines.values() for x in pts},
                        key=lambda x: (isinstance(x, str), str(x) if isinstance(x, str) else x))
            lines += ["", f"Mean (max) per value of {pname}:", ""]
            lines += _table(["algorithm", *(f"{pname} = {x}" for x in xs)],
                            [[label, *(f"{fmt(summary(pts[x])['mean'])} "
                                       f"({fmt(summary(pts[x])['max'])})" if x in pts else ""
                                       for x in xs)]
                             for label, pts in sorted(sweep_lines.items())])
    lines += _refused_section(fr)
    for caption, path in figures:  # a caption without a file says why it was not drawn
        lines += ["", f"![{fam.name}: {caption}]({path.name})" if path.name else caption]
    lines += ["", "Algorithms:", ""]
    lines += [f"- **{alg}**: {desc}" for alg, desc in sorted(fr.descriptions.items())]
    return lines
