"""The PNG figures of a campaign report (docs/campaigns.md, "Reports").

matplotlib (extra ``resilsched[plot]``) is imported only in this module, and only through its
object interface (`matplotlib.figure.Figure` with the Agg canvas): drawing a report changes no
global backend.

- `boxplot`: the distribution of a metric per algorithm setting, one horizontal box each (the
  labels spell the algorithm, its priority rule and parameters out), sorted best first, with the
  bound (ratio 1) or the optimum (gap 0) marked.
- `sweep`: the mean of a metric against a swept parameter, one line per algorithm setting, with
  its 95 % confidence band (`resilsched.campaign.metrics.mean_ci`);
- `performance_profile`: the share of the cases within x of the reference, one step curve per
  heuristic setting;
- `worst_case_figures`: each heuristic's worst case drawn above its optimum, through
  `resilsched.plot` (the schedules are computed again from the stored case);
- `report_pictures`: both, for one family of a report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

#: one line of a sweep plot: its label and (x, mean, CI half-width) points in x order
Line = tuple[str, Sequence[tuple[float, float, float]]]


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _horizontal(labels: list[str]) -> dict[str, Any]:
    """Keywords of a horizontal, labelled box plot for the installed matplotlib (3.8 - 3.11+)."""
    import matplotlib

    version = tuple(int(x) for x in matplotlib.__version__.split(".")[:2])
    out: dict[str, Any] = {"tick_labels" if version >= (3, 9) else "labels": labels}
    out.update({"orientation": "horizontal"} if version >= (3, 10) else {"vert": False})
    return out


def boxplot(boxes: Sequence[tuple[str, Sequence[float]]], xlabel: str, title: str,
            reference: tuple[float, str] | None, path: Path) -> Path:
    """Horizontal box plot, one box per (label, values), the first box at the top."""
    height = 1.6 + 0.38 * len(boxes)
    longest = max(len(label) for label, _ in boxes)
    fig = _figure(min(14.0, 6.0 + 0.07 * longest), height)
    ax = fig.add_subplot()
    labels = [label for label, _ in boxes][::-1]
    data = [list(values) for _, values in boxes][::-1]
    ax.boxplot(data, **_horizontal(labels), whis=(5, 95), showmeans=True,
               flierprops={"markersize": 3, "alpha": 0.5},
               meanprops={"marker": "D", "markersize": 4, "markerfacecolor": "white",
                          "markeredgecolor": "black"})
    if reference is not None:
        ax.axvline(reference[0], color="grey", linestyle="--", linewidth=1,
                   label=reference[1])
        ax.legend(loc="best", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(f"{title}\nbox: quartiles and median, whiskers: 5th-95th percentiles, "
                 "diamond: mean", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    fig.savefig(path, dpi=110)
    return path


def sweep(lines: Sequence[Line], xlabel: str, ylabel: str, title: str, path: Path,
          reference: tuple[float, str] | None = None) -> Path:
    """Mean of a metric against a parameter, one line (with its 95 % band) per setting.

    Numeric parameters are placed at their values; booleans and strings at evenly spaced
    positions labelled with the values.
    """
    fig = _figure(8.5, 5.0)
    ax = fig.add_subplot()
    xs = sorted({p[0] for _, pts in lines for p in pts}, key=_order)
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs)
    where = {x: (x if numeric else i) for i, x in enumerate(xs)}
    for label, pts in lines:
        pts = sorted(pts, key=lambda p: _order(p[0]))
        pos = [where[p[0]] for p in pts]
        means = [p[1] for p in pts]
        (line,) = ax.plot(pos, means, marker="o", markersize=4, label=label)
        ax.fill_between(pos, [m - h for _, m, h in pts], [m + h for _, m, h in pts],
                        color=line.get_color(), alpha=0.15, linewidth=0)
    if reference is not None:
        ax.axhline(reference[0], color="grey", linestyle="--", linewidth=1, label=reference[1])
    if not numeric or len(xs) <= 12:
        ax.set_xticks([where[x] for x in xs], [str(x) for x in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.savefig(path, dpi=110)
    return path


def _order(x: Any) -> tuple[int, Any]:
    """Sort key putting numbers (bools included) before strings."""
    return (0, float(x)) if isinstance(x, (int, float)) else (1, str(x))


# -- performance profiles and worst cases (issue 24) ------------------------------------------

#: distinct colours of the profile curves (tab10), then the same with dashes
_CURVE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22", "#17becf")
#: worst cases drawn per family (the settings with the largest worst gaps)
WORST_CASES = 6


def _plain_ticks(ax: Any, axis: str = "x") -> None:
    """Tick labels as plain numbers (``3``, ``0.5``), never ``3x10^0``, on any scale."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def performance_profile(curves: Sequence[tuple[str, Sequence[float]]], xlabel: str,
                        better: str, title: str, path: Path) -> Path:
    """Share of cases within x of the reference, one step curve per setting (the standard
    picture for comparing algorithms: the higher and the further left, the better).

    `better` is ``"lower"`` (gaps, ratios of minimised objectives: the share with value <= x)
    or ``"higher"`` (ratios of maximised ones: the share with value >= x, the axis reversed).
    A ratio axis spanning more than a factor 10 is logarithmic, with plain tick labels."""
    import numpy as np

    fig = _figure(9.5, 5.2)
    ax = fig.add_subplot()
    values = np.concatenate([np.asarray(v, dtype=float) for _, v in curves])
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    for r, (label, vals) in enumerate(curves):
        x = np.sort(np.asarray(vals, dtype=float))
        if better == "higher":
            x = x[::-1]
        share = np.arange(1, x.size + 1) / x.size
        x = np.where(np.isfinite(x), x, high)
        ax.step(np.concatenate([[x[0]], x]), np.concatenate([[0.0], share]), where="post",
                color=_CURVE_COLOURS[r % len(_CURVE_COLOURS)], linewidth=1.6,
                linestyle="-" if r < len(_CURVE_COLOURS) else "--", label=label)
    if low > 0 and high / low > 10:
        ax.set_xscale("log")
    _plain_ticks(ax)
    if better == "higher":
        ax.invert_xaxis()
    ax.set_ylim(0.0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of cases within x (fraction of the cases)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right" if better == "lower" else "lower left")
    fig.savefig(path, dpi=110)
    return path


class Worst(NamedTuple):
    """A heuristic setting's worst case: its row and the reference model's row on that case."""

    setting: Any
    fields: dict[str, Any]
    result: dict[str, Any]
    exact_fields: dict[str, Any]
    exact_result: dict[str, Any]
    gap: float


def _worst(fr: Any, raw: Sequence[tuple[dict[str, Any], Any]]) -> list[Worst]:
    """Each heuristic setting's worst case against a proven optimum of the family's reference
    exact model (`resilsched.campaign.metrics`), the largest gaps first."""
    from collections import defaultdict

    from resilsched.campaign.metrics import _setting, another_problem, reference_model
    from resilsched.optimality_gap import relative_gap

    cases: dict[tuple, list[tuple[dict, Any]]] = defaultdict(list)
    for fields, result in raw:  # a run of another problem is no case's worst or reference
        if isinstance(result, dict) and fields.get("family") == fr.family.name \
                and another_problem(result) is None:
            cases[(fields.get("instance_sha"), fields.get("qbar"), fields.get("scenario"),
                   fields.get("scenario_seed"))].append((fields, result))
    worst: dict[Any, Worst] = {}
    for entries in cases.values():
        exact = {f["algorithm"]: (f, r) for f, r in entries if f.get("kind") == "exact"
                 and r.get("objective") is not None and r.get("status") == "optimal"}
        ref = reference_model(fr.family, exact)
        if ref is None:
            continue
        _, (ref_fields, ref_row) = ref
        for fields, result in entries:
            if fields.get("kind") == "exact" or result.get("objective") is None:
                continue
            gap = relative_gap(float(result["objective"]), float(ref_row["objective"]),
                               fr.family.sense, percent=True)
            setting = _setting(fields)
            if setting not in worst or gap > worst[setting].gap:
                worst[setting] = Worst(setting, fields, result, ref_fields, ref_row, gap)
    return sorted(worst.values(), key=lambda w: (-w.gap, w.setting.label))


def _rebuild(family: str, config: dict[str, Any], fields: dict[str, Any]) -> tuple[Any, Any,
                                                                                   int]:
    """(instance, scenario, heuristic seed) of a stored task, from the campaign's config: the
    instance found by its digest in the spec's sources, the seeds and the scenario from the
    task's stream (`resilsched.campaign.tasks.Work`), as the run drew them."""
    from resilsched.campaign.plan import instance_digest, load_instances
    from resilsched.campaign.spec import InstanceSource
    from resilsched.campaign.tasks import Work, scenario_of
    from resilsched.registry import get_family

    for src in config.get("instances", []):
        if src.get("family") != family:
            continue
        source = InstanceSource(family, src.get("preset"), src.get("count"), src.get("seed", 0),
                                None if src.get("library") is None else Path(src["library"]))
        for _, inst in load_instances(source):
            digest = instance_digest(inst)
            if digest != fields.get("instance_sha"):
                continue
            drawn = fields.get("scenario_seed") is not None
            stream = (fields["scenario_seed"] if drawn else
                      (config.get("scenarios") or {}).get("seed", 0), digest,
                      int(fields.get("scenario") or 0))
            work = Work(family, inst, "heuristic", fields["algorithm"], qbar=fields.get("qbar"),
                        stream=stream, drawn=drawn)
            return inst, scenario_of(get_family(family), work), work.seed
    raise LookupError(f"instance {fields.get('instance')} is no longer in the spec's sources")


def _same(a: Any, b: Any) -> bool:
    return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)


def worst_case_figures(fr: Any, raw: Sequence[tuple[dict[str, Any], Any]],
                       config: dict[str, Any] | None, out: Path) -> list[tuple[str, Path]]:
    """Each heuristic's worst case drawn above its optimum (`resilsched.plot`), for the
    `WORST_CASES` settings with the largest worst gaps. The heuristic is run again and the
    reference model solved again (deterministically, with the stored time limit and workers)
    on the stored case; a case whose runs do not give the stored objectives again is said in
    its caption (with an empty path), not drawn."""
    from resilsched.plot.result import (
        Headline,
        figure_of,
        has_picture,
        pictures_of,
        save,
        scenario_text,
    )

    fam = fr.family
    if config is None or not has_picture(fam.name):
        return []
    made: list[tuple[str, Path]] = []
    for w in _worst(fr, raw)[:WORST_CASES]:
        label = w.setting.label
        try:
            inst, scenario, h_seed = _rebuild(fam.name, config, w.fields)
        except LookupError as exc:
            made.append((f"worst case of {label} not drawn: {exc}", Path()))
            continue
        h = fam.heuristics[w.setting.algorithm]
        res = h.run(inst, scenario, w.setting.priority, seed=h_seed, **w.setting.param_values)
        model = fam.exact[w.exact_fields["algorithm"]]
        known = {p.name for p in model.params}
        options = {k: v for k, v in (("deterministic", True),
                                     ("workers", w.exact_fields.get("workers", 1)))
                   if k in known}
        sol = model(inst, scenario, time_limit=w.exact_fields.get("time_limit"), **options)
        if sol.status.value != "optimal" or not (_same(res.objective, w.result["objective"])
                                                 and _same(sol.objective,
                                                           w.exact_result["objective"])):
            made.append((f"worst case of {label} not drawn: run again, it gives "
                         f"{float(res.objective):.6g} against an optimum of "
                         f"{float(sol.objective):.6g} ({sol.status.value}); the store holds "
                         f"{float(w.result['objective']):.6g} and "
                         f"{float(w.exact_result['objective']):.6g}", Path()))
            continue
        pictures = pictures_of(fam, inst, scenario, [("heuristic", res), ("exact", sol)])
        name = getattr(inst, "name", "") or w.fields.get("instance", "")
        head = Headline(f"{fam.name} instance {name}: worst case of {label}, "
                        f"{w.gap:.2f} % above the optimum", scenario_text(fam, scenario))
        slug = "".join(c if c.isalnum() else "-" for c in label).strip("-")
        path = save(figure_of(pictures, head), out / f"{fam.name}-worst-{slug}.png")
        made.append((f"worst case of {label} ({w.gap:.2f} % gap) above the optimum of "
                     f"{model.name}", path))
    return made


def report_pictures(fr: Any, raw: Sequence[tuple[dict[str, Any], Any]],
                    config: dict[str, Any] | None, out: Path) -> list[tuple[str, Path]]:
    """The performance profile of the headline metric (one curve per heuristic setting), then,
    when the campaign solved exactly, each heuristic's worst case above its optimum."""
    from collections import defaultdict

    metric = fr.metric()
    groups: dict[Any, list[float]] = defaultdict(list)
    for p in fr.points(metric):
        if p.setting.kind == "heuristic":
            groups[p.setting].append(p.value)
    if not groups:
        return []
    better = fr.better(metric)
    curves = sorted(((s.label, v) for s, v in groups.items()), key=lambda c: c[0])
    path = performance_profile(curves, fr.metric_label(metric), better,
                               f"{fr.family.name}: performance profiles (share of the cases "
                               "within x), one curve per heuristic setting",
                               out / f"{fr.family.name}-{metric}-profile.png")
    side = "left" if better == "lower" else "right"
    made = [(f"performance profile of the {fr.metric_label(metric)}: the share of the cases "
             f"within x (higher and further {side} is better)", path)]
    return made + (worst_case_figures(fr, raw, config, out) if metric == "gap" else [])
