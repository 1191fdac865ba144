"""What a campaign report measures: the normalized objective and the gap to a stored optimum.

docs/campaigns.md, "Reports". Per family:

- the **normalized objective** of a row is its ``ratio`` = objective / the family's first
  registered bound on the same instance and scenario (rigid: makespan / L(f), the papers'
  normaliser; moldable: makespan / L'(J, f); co-scheduling: makespan / area bound; worksharing:
  expected work / omniscient upper bound). It is >= 1 for minimised objectives and <= 1 for
  maximised ones; 1 means the bound is reached.
- the **gap** of a row exists when the campaign also ran an exact model on the same instance
  and scenario: the reference is the proven optimum of the family's default exact model (else
  of the first exact model run), or its proven bound when optimality was not proven (the gap is
  then an over-estimate); gap = (h - ref) / ref when minimising, (ref - h) / ref when
  maximising (`resilsched.gap.relative_gap`, the gap of the gap report), reported in percent.

Rows whose heuristic or model refused the instance (``status`` ``"refused"``, with its
``reason``) are counted per setting (`FamilyResults.refused`), not measured. Rows whose run
solves another problem than its case's (``another_problem``, the task's `Family.another_problem`:
a malleable fault-free baseline on an instance with failures, decision MA-28) are validated but
not scored, as in the gap report: counted per setting (`FamilyResults.not_scored`), with no
gap, no ratio point, never the case's reference. Rows of a family with that hook stored before
the field existed (`FamilyResults.unmarked`) are measured as before and counted. Rows that are not
rows of a spec campaign as `resilsched.campaign.tasks` writes them (a family that is not
registered, a field or a value of the wrong type) are left out and named.

`Setting` is one algorithm setting (algorithm, priority, parameter values): one box, one line.

>>> s = Setting("R-LIST-0", "heuristic", "LPT", '{"eps":0.3}')
>>> s.label
'R-LIST-0, priority LPT, eps=0.3'
>>> summary([1.0, 2.0, 3.0, 4.0])["median"]
2.5
"""

from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from resilsched.optimality_gap import reference, relative_gap
from resilsched.plugin import Family
from resilsched.registry import UnknownName, find_heuristic, get_family

#: the status of a row whose heuristic or model refused its instance (`resilsched.campaign.tasks`)
REFUSED = "refused"


class Setting(NamedTuple):
    """One algorithm setting of a campaign; `params` is canonical JSON."""

    algorithm: str
    kind: str
    priority: str | None
    params: str

    @property
    def param_values(self) -> dict[str, Any]:
        return dict(_params(self.params))

    @property
    def label(self) -> str:
        """The algorithm spelled out: name, priority rule, parameters (exact models marked)."""
        return _label(self)


@functools.lru_cache(maxsize=4096)
def _params(text: str) -> tuple[tuple[str, Any], ...]:
    return tuple(json.loads(text).items())


@functools.lru_cache(maxsize=4096)
def _label(s: Setting) -> str:
    parts = [s.algorithm + (" (exact)" if s.kind == "exact" else "")]
    if s.priority:
        parts.append(f"priority {s.priority}")
    parts += [f"{k}={v}" for k, v in _params(s.params)]
    return ", ".join(parts)


class Point(NamedTuple):
    """One value of a metric: its setting, q-bar (None without scenarios), value."""

    setting: Setting
    qbar: float | None
    value: float


@dataclass
class FamilyResults:
    """The metrics of one family of a campaign.

    `refused` and `not_scored` list, per setting, the reasons of the rows counted but not
    measured: refused tasks, and runs of another problem than their case's (MA-28, the row's
    ``another_problem``); `unmarked` counts the rows of a family with that rule stored before
    the field (measured as before).
    """

    family: Family
    ratio: list[Point] = field(default_factory=list)
    gap: list[Point] = field(default_factory=list)
    instances: set[str] = field(default_factory=set)
    references: int = 0
    optimal_references: int = 0
    reference_model: str | None = None
    descriptions: dict[str, str] = field(default_factory=dict)
    refused: dict[Setting, list[str]] = field(default_factory=dict)
    not_scored: dict[Setting, list[str]] = field(default_factory=dict)
    unmarked: int = 0

    @property
    def objective(self) -> str:
        """The objective's name for a reader (``expected work``, not ``expected_work``)."""
        return self.family.objective_name.replace("_", " ")

    @property
    def scenarios(self) -> bool:
        """Whether the rows were drawn on failure scenarios (q-bar values)."""
        return any(p.qbar is not None for p in self.ratio)

    @property
    def bound_name(self) -> str:
        return next(iter(self.family.bounds), "none")

    @property
    def reference_kind(self) -> str:
        """What the gaps are measured to, for a title: ``optimum`` when every reference is a
        proven optimum, ``proven bound`` when none is, else ``optimum or proven bound``."""
        if self.optimal_references == self.references:
            return "optimum"
        return "proven bound" if self.optimal_references == 0 else "optimum or proven bound"

    def metric(self) -> str:
        """The headline metric: the gap when the campaign solved exactly, else the ratio."""
        return "gap" if self.gap else "ratio"

    def points(self, metric: str) -> list[Point]:
        return self.gap if metric == "gap" else self.ratio

    def metric_label(self, metric: str) -> str:
        """Axis label of `metric`, with its unit."""
        if metric == "gap":
            return f"gap of the {self.objective} to the {self.reference_kind} (%)"
        return f"normalized {self.objective}: {self.objective} / {self.bound_name} " \
               "(dimensionless)"

    def better(self, metric: str) -> str:
        """'lower' or 'higher': which values of `metric` are better."""
        return "higher" if metric == "ratio" and self.family.sense == "max" else "lower"


def summary(values: Sequence[float]) -> dict[str, float]:
    """n, mean, standard deviation, quartiles, 95th percentile and max of `values`."""
    x = np.asarray(values, dtype=float)
    q25, q50, q75, q95 = np.percentile(x, [25, 50, 75, 95])
    return {"n": int(x.size), "mean": float(x.mean()), "std": float(x.std(ddof=1))
            if x.size > 1 else 0.0, "min": float(x.min()), "q25": float(q25),
            "median": float(q50), "q75": float(q75), "q95": float(q95), "max": float(x.max())}


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % confidence interval (normal approximation,
    1.96 s / sqrt(n); 0 for a single value)."""
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return float(x.mean()), 0.0
    return float(x.mean()), float(1.96 * x.std(ddof=1) / math.sqrt(x.size))


def _setting(fields: dict[str, Any]) -> Setting:
    params = fields.get("params") or {}
    return _setting_of(fields["algorithm"], fields.get("kind", "heuristic"),
                       fields.get("priority"), tuple(sorted(params.items())))


@functools.lru_cache(maxsize=4096)
def _setting_of(algorithm: str, kind: str, priority: str | None,
                params: tuple[tuple[str, Any], ...]) -> Setting:
    return Setting(algorithm, kind, priority,
                   json.dumps(dict(params), sort_keys=True, separators=(",", ":")))


def reference_model(fam: Family, exact: dict[str, Any]) -> tuple[str, Any] | None:
    """(model, row) of the reference exact model among the exact rows of one case: the
    family's default exact model when it ran, else the first by name."""
    if not exact:
        return None
    name = fam.default_exact if fam.default_exact in exact else sorted(exact)[0]
    return name, exact[name]


def _number(x: Any) -> bool:
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))


def _scalar(x: Any) -> bool:
    return x is None or isinstance(x, (bool, int, float, str))


def row_problem(fields: dict[str, Any], result: Any) -> str | None:
    """Why (fields, result) is not a row of a spec campaign as `resilsched.campaign.tasks`
    writes it, or None when it is one (values of other JSON types in known places, a family
    that is not registered)."""
    family = fields.get("family")
    if not isinstance(family, str):
        return "fields.family is not a string"
    try:
        get_family(family)
    except UnknownName:
        return f"fields.family={family!r} is not a registered family"
    if not isinstance(fields.get("algorithm"), str):
        return "fields.algorithm is not a string"
    if fields.get("kind", "heuristic") not in ("heuristic", "exact"):
        return "fields.kind is not heuristic or exact"
    params = fields.get("params") or {}
    if not isinstance(params, dict) or not all(_scalar(v) for v in params.values()):
        return "fields.params is not a table of numbers, strings and booleans"
    for name in ("priority", "instance", "instance_sha"):
        if not (fields.get(name) is None or isinstance(fields[name], str)):
            return f"fields.{name} is not a string"
    for name in ("qbar", "scenario", "scenario_seed"):
        if not _number(fields.get(name)):
            return f"fields.{name} is not a number"
    for name in ("objective", "ratio", "solver_bound", "reference_bound"):
        if not _number(result.get(name)):
            return f"result.{name} is not a number"
    for name in ("status", "another_problem"):
        if not (result.get(name) is None or isinstance(result[name], str)):
            return f"result.{name} is not a string"
    return None


def another_problem(result: dict[str, Any]) -> str | None:
    """Why a stored row's run solves another problem than its case's (its
    ``another_problem``, written by the task: `resilsched.checked.another_problem`), or
    None: such a row is counted, not measured (decision MA-28).

    Parameters
    ----------
    result : dict
        A stored row.

    Returns
    -------
    str or None
        The reason, or None (also for a row stored before the field existed).
    """
    return result.get("another_problem") or None


def collect(rows: Iterable[tuple[str, dict[str, Any], Any]]
            ) -> tuple[dict[str, FamilyResults], list[tuple[str, str]]]:
    """Family name -> its metrics, from (key, fields, result) rows of a spec campaign, and the
    (key, problem) of the rows left out (`row_problem`). Rows of other campaigns (a result that
    is not an object, fields without an algorithm) are skipped silently."""
    out: dict[str, FamilyResults] = {}
    left: list[tuple[str, str]] = []
    cases: dict[tuple, list[tuple[Setting, dict]]] = defaultdict(list)
    for key, fields, result in rows:
        if not isinstance(result, dict) or "algorithm" not in fields:
            continue  # not a spec campaign's row
        problem = row_problem(fields, result)
        if problem is not None:
            left.append((key, problem))
            continue
        name = fields["family"]
        if name not in out:
            out[name] = FamilyResults(get_family(name))
        fr = out[name]
        fr.instances.add(fields.get("instance_sha", fields.get("instance", "")))
        setting = _setting(fields)
        if setting.algorithm not in fr.descriptions:
            table = fr.family.exact if setting.kind == "exact" else fr.family.heuristics
            entry = table.get(setting.algorithm) or (
                None if setting.kind == "exact" else find_heuristic(fr.family, setting.algorithm))
            fr.descriptions[setting.algorithm] = entry.description if entry else ""
        if result.get("status") == REFUSED:
            fr.refused.setdefault(setting, []).append(str(result.get("reason", "")))
            continue
        reason = another_problem(result)
        if reason is not None:  # validated, not scored: no ratio, no gap, no reference
            fr.not_scored.setdefault(setting, []).append(reason)
            continue
        if fr.family.another_problem is not None and "another_problem" not in result:
            fr.unmarked += 1  # stored before MA-28's field: measured as before
        if result.get("ratio") is not None:
            fr.ratio.append(Point(setting, fields.get("qbar"), float(result["ratio"])))
        case = (name, fields.get("instance_sha"), fields.get("qbar"), fields.get("scenario"),
                fields.get("scenario_seed"))
        cases[case].append((setting, result))
    for (name, _, qbar, _, _), entries in cases.items():
        fr = out[name]
        exact = {s.algorithm: r for s, r in entries if s.kind == "exact"
                 and r.get("objective") is not None}
        ref = reference_model(fr.family, exact)
        if ref is None:
            continue
        model, row = ref
        value, kind = reference(row.get("status") == "optimal", row["objective"],
                                row.get("solver_bound"))
        optimal = kind == "optimal"
        if value is None:
            continue
        fr.reference_model = model
        fr.references += 1
        fr.optimal_references += optimal
        for setting, result in entries:
            if (setting.kind == "exact" and setting.algorithm == model) \
                    or result.get("objective") is None:
                continue
            fr.gap.append(Point(setting, qbar, relative_gap(
                float(result["objective"]), float(value), fr.family.sense, percent=True)))
    return out, left
