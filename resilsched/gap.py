"""The gap harness: every registered heuristic against the exact models (docs/architecture.md,
"The main job: gap reports").

For each case the family's default exact model is solved within a time limit. Its proven optimum
is the reference; when optimality was not proven the reference is the solver's proven bound (the
gap is then an over-estimate, and the report says how many references are bounds). For each
heuristic (and each priority rule it accepts):

- gap = (h - ref) / ref when minimising, (ref - h) / ref when maximising (`relative_gap`, the
  one definition of the gap; campaign reports print the same number in percent);
- a *violation* is a certain breach of a proven fact: an invalid schedule, an objective that its
  schedule disagrees with, a heuristic beating a proven bound, a bound exceeding the optimum, or
  a guarantee h <= c * OPT broken (checked against the incumbent, which is >= OPT, so a flagged
  breach is never a false alarm); a heuristic that raises or does not return within the time
  limit is reported as a violation too, and the report goes on.

Every heuristic run goes through `resilsched.checked.run_checked` (built-in heuristics and
plug-ins alike): the objective scored is the one recomputed from the schedule, and only a valid
schedule is scored. A valid run that solves another problem than the case's (the family's
`Family.another_problem`, e.g. a malleable fault-free baseline on a case with failures, decision
MA-28) is not scored either: no gap, no objective for the certified gaps, not in the row's mean,
max or worst case; its row counts it in ``not_scored`` and the text report says why.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from resilsched.numeric import readable
from resilsched.optimality_gap import certify_family, is_exact, reference, relative_gap
from resilsched.plugin import Bound, Case, Family, Heuristic
from resilsched.solution import Status

REL_TOL = 1e-9


def _gt(a: Any, b: Any) -> bool:
    """a > b beyond numerical noise (exact for ints and Fractions)."""
    if is_exact(a, b):
        return a > b
    a, b = float(a), float(b)
    return a > b + REL_TOL * max(1.0, abs(a), abs(b))



class Score(NamedTuple):
    """One heuristic run judged against a case's reference (`score_heuristic`)."""

    #: the objective scored: the recomputed one of a valid schedule that solves the case's
    #: problem, else None
    value: Any
    #: its gap to the reference (None: not scored, or no reference)
    gap: float | None
    #: the violations found, one line each starting with the case name
    violations: list[str]
    #: the family's `Family.metrics` found in the result's ``extra``
    metrics: dict[str, float]
    #: why a valid run was not scored: it solves another problem (`Family.another_problem`)
    not_scored: str | None = None


@dataclass
class HeuristicStats:
    """Gaps of one heuristic (with one priority rule) over the cases of a family, or over the
    cases of one group of it (`Family.group`), with the family's extra `metrics`."""

    family: str
    heuristic: str
    priority: str | None
    group: str | None = None
    gaps: list[float] = field(default_factory=list)
    worst_case: str | None = None
    violations: list[str] = field(default_factory=list)
    metrics: dict[str, list[float]] = field(default_factory=dict)
    #: (library or None, case) -> the objective of its validated schedule
    objectives: dict[tuple[str | None, str], Any] = field(default_factory=dict)
    #: mean (lowest, highest) gap to the optimum where it is not proven everywhere, and the
    #: labels of the rows this one cannot be ranked against (`resilsched.optimality_gap`)
    certified: tuple[float, float] | None = None
    not_ranked: list[str] | None = None
    #: (case, reason) of the valid runs not scored: another problem than the case's
    not_scored: list[tuple[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``heuristic/priority``: the name thresholds use (a threshold covers every group)."""
        return self.heuristic if self.priority is None else f"{self.heuristic}/{self.priority}"

    @property
    def row(self) -> str:
        """The label with its group, as the report prints it."""
        return self.label + (f" [{self.group}]" if self.group else "")

    def record(self, library: str | None, case: str, score: Score) -> None:
        """Count one run of the row, on `case` (of `library`, None for the smoke suite): its
        objective (for the certified gaps), its gap, its violations, or why it is not scored.

        The one bookkeeping of a run, for the smoke suites (`run_family`) and the libraries
        (`resilsched.library.gap.run_library_gap`).
        """
        if score.value is not None:
            self.objectives[library, case] = score.value
        if score.gap is not None:
            self.add(case, score.gap, score.metrics)
        if score.not_scored is not None:
            self.not_scored.append((case, score.not_scored))
        self.violations.extend(score.violations)

    def add(self, case: str, gap: float, metrics: dict[str, float] | None = None) -> None:
        """Count one gap (and the family's metrics) of the row on `case`."""
        if not self.gaps or gap > max(self.gaps):
            self.worst_case = case
        self.gaps.append(gap)
        for name, value in (metrics or {}).items():
            self.metrics.setdefault(name, []).append(value)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "family": self.family,
            "heuristic": self.heuristic,
            "priority": self.priority,
            "cases": len(self.gaps),
            "mean_gap": sum(self.gaps) / len(self.gaps) if self.gaps else None,
            "max_gap": max(self.gaps) if self.gaps else None,
            "worst_case": self.worst_case,
            "violations": len(self.violations),
            "violation_details": self.violations,
            "not_scored": len(self.not_scored),
        }
        if self.group is not None:
            d["group"] = self.group
        if self.certified is not None:
            d["certified_gap"] = list(self.certified)
            d["not_ranked"] = list(self.not_ranked or [])
        for name, values in self.metrics.items():
            d[f"mean_{name}"] = sum(values) / len(values)
            d[f"max_{name}"] = max(values)
        return d


@dataclass
class GapReport:
    families: list[str]
    time_limit: float | None
    cases: list[dict[str, Any]] = field(default_factory=list)
    heuristics: list[HeuristicStats] = field(default_factory=list)
    bounds: list[dict[str, Any]] = field(default_factory=list)
    wall_time: float = 0.0
    #: more top-level fields of the JSON report (e.g. ``libraries`` for ``gap --library``)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def violations(self) -> int:
        return sum(len(h.violations) for h in self.heuristics) + sum(
            b["violations"] for b in self.bounds
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "families": self.families,
            "time_limit": self.time_limit,
            "wall_time": round(self.wall_time, 3),
            "violations": self.violations,
            "heuristics": [h.to_dict() for h in self.heuristics],
            "bounds": self.bounds,
            "cases": self.cases,
            **self.meta,
        }


def _num(x: Any) -> Any:
    return float(x) if isinstance(x, Fraction) else x


def score_heuristic(family: Family, h: Heuristic, case: Case, priority: str | None, seed: int,
                    ref: Any, kind: str, incumbent: Any, time_limit: float | None = None
                    ) -> Score:
    """Run one heuristic (with one priority rule) on a case and judge it against a reference.

    The run goes through `resilsched.checked.run_checked`, built-in heuristics and plug-ins
    alike: bounded by `time_limit` seconds, its exceptions reported, its objective recomputed
    from its schedule and the schedule validated. `ref` is the value gaps are measured against
    (the optimum, or a proven bound when `kind` is ``"bound"``; None: no gap), `incumbent` a
    feasible value >= OPT (<= OPT when maximising) for the guarantee check. Returns a `Score`:
    the objective scored (None without a valid schedule), the gap, the violations found (crash,
    time-out, invalid schedule, an objective its schedule disagrees with, a value beating the
    reference, a broken guarantee), each as one line starting with the case name, and the
    family's `metrics` found in the result's ``extra``. A valid run that solves another problem
    than the case's (`Checked.another_problem`) is not scored: no objective, no gap, no
    comparison with the reference or the guarantee, and the reason in ``not_scored``.
    """
    from resilsched.checked import run_checked

    sense = family.sense
    run = run_checked(family, h, case, priority, seed=seed, time_limit=time_limit)
    violations = [f"{case.name}: {problem}" for problem in run.problems]
    value = run.scored
    if value is None:
        return Score(None, None, violations, {})
    if run.another_problem is not None:
        return Score(None, None, violations, {}, run.another_problem)
    res = run.result
    metrics = {m: float(res.extra[m]) for m in family.metrics
               if isinstance(res.extra.get(m), (int, float, Fraction))}
    gap = None
    if ref is not None:
        gap = relative_gap(value, ref, sense)
        if _gt(ref, value) if sense == "min" else _gt(value, ref):
            violations.append(f"{case.name}: objective {value} beats the proven {kind} {ref}")
    if h.guarantee is not None and incumbent is not None:
        c = h.guarantee(case.instance, priority)
        if c is not None:
            limit = c * incumbent
            if _gt(value, limit) if sense == "min" else _gt(limit, value):
                violations.append(
                    f"{case.name}: objective {value} breaks the guarantee "
                    f"{c} x OPT ({incumbent})"
                )
    return Score(value, gap, violations, metrics)


def score_bound(family: Family, bound: Bound, case: Case, incumbent: Any) -> tuple[Any, str | None]:
    """A bound's value on a case, and a violation line when it lies beyond a feasible value."""
    value = bound.compute(case.instance, case.scenario)
    if incumbent is not None and (
        _gt(value, incumbent) if family.sense == "min" else _gt(incumbent, value)
    ):
        return value, f"{case.name}: bound {value} beyond the optimum's incumbent {incumbent}"
    return value, None


#: (heuristic, priority, group) -> its statistics
StatsTable = dict[tuple[str, str | None, str | None], HeuristicStats]


def group_of(family: Family, instance: Any) -> str | None:
    """The report group of an instance (None when the family does not split its rows)."""
    return family.group(instance) if family.group is not None else None


def stats_for(table: StatsTable, family: Family, heuristic: str, priority: str | None,
              group: str | None) -> HeuristicStats:
    """The statistics of one row, created on first use (rows appear in the order met)."""
    key = (heuristic, priority, group)
    if key not in table:
        table[key] = HeuristicStats(family.name, heuristic, priority, group)
    return table[key]


def new_bound_rows(family: Family) -> dict[str, dict[str, Any]]:
    """One empty row of the report's ``bounds`` per bound of `family`."""
    return {
        name: {
            "family": family.name,
            "bound": name,
            "cases": 0,
            "violations": 0,
            "mean_ratio": 0.0,
            "violation_details": [],
        }
        for name in family.bounds
    }


def add_bound(row: dict[str, Any], value: Any, ref: Any, violation: str | None) -> None:
    """Count one case in a bound row (`finish_bound_rows` turns the sum into a mean); a bound
    that could not be computed (`value` None) counts its violation only."""
    row["cases"] += 1
    if violation is not None:
        row["violations"] += 1
        row["violation_details"].append(violation)
    if ref and value is not None:
        row["mean_ratio"] += float(value) / float(ref)


def finish_bound_rows(rows: dict[str, dict[str, Any]], report: GapReport) -> None:
    for row in rows.values():
        if row["cases"]:
            row["mean_ratio"] /= row["cases"]
        report.bounds.append(row)


def selected(family: Family, names: Sequence[str] | None = None) -> list[Heuristic]:
    """The heuristics a report scores: `names` (registered names or ``MODULE:FUNCTION``
    references, looked up in the registry), or every heuristic of `family`."""
    from resilsched.registry import heuristic

    if names is None:
        return list(family.heuristics.values())
    return [heuristic(family, name) for name in names]


def run_family(
    family: Family,
    cases: Iterable[Case],
    time_limit: float,
    report: GapReport,
    progress: Callable[[str], None] | None = None,
    heuristics: Sequence[str] | None = None,
) -> None:
    """Score the `heuristics` (default: every heuristic) of `family` on `cases` and append the
    results to `report`; each heuristic run is bounded by `time_limit` seconds too."""
    cases = list(cases)
    chosen = selected(family, heuristics)
    exact = family.exact[family.default_exact]
    stats: StatsTable = {}
    bound_rows = new_bound_rows(family)
    for index, case in enumerate(cases, 1):
        t0 = time.perf_counter()
        sol = exact(case.instance, case.scenario, time_limit=time_limit)
        ref, kind = reference(sol.status is Status.OPTIMAL, sol.objective, sol.bound)
        incumbent = sol.objective
        report.cases.append(
            {
                "family": family.name,
                "case": case.name,
                "reference": kind,
                "method": exact.name,
                "status": sol.status.value,
                "objective": _num(sol.objective),
                "bound": _num(sol.bound),
                "wall_time": round(sol.wall_time, 4),
            }
        )
        for name, bound in family.bounds.items():
            value, violation = score_bound(family, bound, case, incumbent)
            add_bound(bound_rows[name], value, ref, violation)
        group = group_of(family, case.instance)
        for h in chosen:
            for prio in h.priorities or (None,):
                score = score_heuristic(family, h, case, prio, index, ref, kind, incumbent,
                                        time_limit)
                stats_for(stats, family, h.name, prio, group).record(None, case.name, score)
        if progress is not None:
            progress(
                f"[{family.name} {index}/{len(cases)}] {case.name}: {kind} {readable(ref)} "
                f"({sol.status.value}, {time.perf_counter() - t0:.2f} s)"
            )
    finish_bound_rows(bound_rows, report)
    report.heuristics.extend(stats.values())
    certify_family(report, family.name, family.sense)


def run_gap(
    families: list[Family],
    time_limit: float = 10.0,
    cases: dict[str, list[Case]] | None = None,
    progress: Callable[[str], None] | None = None,
    heuristics: Mapping[str, Sequence[str]] | None = None,
) -> GapReport:
    """Run the gap report on the given families (their smoke suites unless `cases` is given);
    `heuristics` maps a family to the heuristics to score (default: all of them).

    `progress` is called with one line per case; when it has ``set_total`` (a
    `resilsched.progress.ProgressBar`) it is first told the number of cases.
    """
    report = GapReport([f.name for f in families], time_limit)
    t0 = time.perf_counter()
    suites = {
        fam.name: list(cases[fam.name] if cases and fam.name in cases else fam.smoke_suite())
        for fam in families
    }
    set_total = getattr(progress, "set_total", None)
    if callable(set_total):
        set_total(sum(len(c) for c in suites.values()))
    for fam in families:
        run_family(fam, suites[fam.name], time_limit, report, progress,
                   (heuristics or {}).get(fam.name))
    report.wall_time = time.perf_counter() - t0
    return report


def format_report(report: GapReport) -> str:
    """The aligned text table printed by ``resilsched gap``.

    Where a row of a family has runs it does not score (another problem than the case's,
    `HeuristicStats.not_scored`), the family's table gets a column ``cases``, the cases each row
    was scored on (``-``: none), and one line per reason names the rows not scored. A row's
    worst case is ``-`` when it has no gap above 0 (no case is worse than another).
    """
    lines = []
    for lib in report.meta.get("libraries", []):
        lines.append(
            f"library {lib['name']} ({lib['family']}, {lib['instances']} instances, "
            f"{lib['proven_optimal']} proven optima): {lib['path']}"
        )
    for fam in report.families:
        cases = [c for c in report.cases if c["family"] == fam]
        n_opt = sum(c["reference"] == "optimal" for c in cases)
        lines.append(
            f"family {fam}: {len(cases)} cases, reference = optimum on {n_opt}, "
            f"best bound on {len(cases) - n_opt}"
        )
        rows = [h for h in report.heuristics if h.family == fam]
        width = max([len(h.row) for h in rows] + [9])
        metrics = list(dict.fromkeys(m for h in rows for m in h.metrics))
        extra = "".join(f"  {'mean ' + m:>15}  {'max ' + m:>15}" for m in metrics)
        certified = any(h.certified is not None for h in rows)
        if certified:
            extra += f"  {'gap to OPT':>15}"
        counted = any(h.not_scored for h in rows)
        head = f"  {'cases':>5}" if counted else ""
        lines.append(
            f"  {'heuristic':<{width}}{head}  {'mean gap':>9}  {'max gap':>9}{extra}  "
            f"{'violations':>10}  worst case"
        )
        for h in rows:
            d = h.to_dict()
            mean = "-" if d["mean_gap"] is None else f"{100 * d['mean_gap']:8.2f}%"
            mx = "-" if d["max_gap"] is None else f"{100 * d['max_gap']:8.2f}%"
            nan = float("nan")
            cols = "".join(f"  {d.get('mean_' + m, nan):>15.4f}  {d.get('max_' + m, nan):>15.4f}"
                           for m in metrics)
            if certified:
                cols += f"  {_range(h.certified):>15}"
            flag = f"{d['violations']:>10}" + ("  <-- VIOLATION" if d["violations"] else "")
            worst = d["worst_case"] if d["max_gap"] else "-"
            scored = f"  {d['cases'] or '-':>5}" if counted else ""
            lines.append(
                f"  {h.row:<{width}}{scored}  {mean:>9}  {mx:>9}{cols}  {flag}  {worst}"
            )
        lines += _not_scored(rows)
        for b in (b for b in report.bounds if b["family"] == fam):
            lines.append(
                f"  bound {b['bound']}: mean bound/reference {b['mean_ratio']:.4f}, "
                f"violations {b['violations']}"
            )
        seen: set[tuple[str | None, str]] = set()
        pairs = []
        for h in rows:
            seen.add((h.group, h.label))
            pairs += [f"{h.row} ~ {other}" for other in h.not_ranked or ()
                      if (h.group, other) not in seen]
        if pairs:
            lines.append("  not ranked by mean gap to OPT (tied, or the order depends on where "
                         "the unproven optima lie):")
            line = "   "
            for pair in pairs:
                if len(line) + len(pair) + 2 > 100 and line.strip():
                    lines.append(line.rstrip(","))
                    line = "   "
                line += f" {pair},"
            lines.append(line.rstrip(","))
        for h in rows:
            for v in h.violations:
                lines.append(f"  VIOLATION {h.row}: {v}")
        for b in (b for b in report.bounds if b["family"] == fam):
            for v in b["violation_details"]:
                lines.append(f"  VIOLATION bound {b['bound']}: {v}")
    lines.append(f"total violations: {report.violations}; wall time {report.wall_time:.1f} s")
    return "\n".join(lines)


def _not_scored(rows: Sequence[HeuristicStats]) -> list[str]:
    """One line per reason and count of the runs the `rows` do not score, naming the rows."""
    groups: dict[tuple[int, str], list[str]] = {}
    for h in rows:
        if h.not_scored:
            groups.setdefault((len(h.not_scored), h.not_scored[0][1]), []).append(h.row)
    return [f"  {', '.join(names)}: not scored on {n} case{'s' if n != 1 else ''} ({reason})"
            for (n, reason), names in groups.items()]


def _range(certified: tuple[float, float] | None) -> str:
    """A certified gap as printed: ``0.12-0.84%``."""
    if certified is None:
        return "-"
    return f"{100 * certified[0]:.2f}-{100 * certified[1]:.2f}%"


GAP_KEYS = ("max_gap", "mean_gap")


def check_threshold_file(data: Any, families: list[Family], where: str = "thresholds",
                         scored: Mapping[str, Sequence[Heuristic]] | None = None) -> dict:
    """A thresholds file, checked: ``max_gap``/``mean_gap`` (finite fractions >= 0, 0.05 = 5 %)
    at the top level, under a family name, under ``family -> heuristic`` or under
    ``family -> "heuristic/priority"``. Unknown families, heuristics and keys are refused (a
    typo would silently disable the check), as are NaN and infinities (refused when the JSON
    is read). `scored` adds the heuristics of the run that a family does not register
    (``MODULE:FUNCTION`` references)."""
    from resilsched.errors import InvalidInstance

    if not isinstance(data, dict):
        raise InvalidInstance(where, "must hold a JSON object of thresholds "
                                     "(see examples/thresholds.json)")
    fams = {f.name: f for f in families}

    def number(value: Any, field: str) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value < 0:
            raise InvalidInstance(field, f"{value!r} must be a number >= 0 (a fraction: "
                                         "0.05 = 5%)")

    def scope(d: Any, field: str, children: dict[str, Any]) -> None:
        if not isinstance(d, dict):
            raise InvalidInstance(field.rstrip("."), "must be a JSON object")
        for key, value in d.items():
            if key in GAP_KEYS:
                number(value, f"{field}{key}")
            elif key in children:
                scope(value, f"{field}{key}.", children[key])
            else:
                known = ", ".join([*GAP_KEYS, *children]) or "none"
                raise InvalidInstance(f"{field}{key}", f"is not a threshold key here (choose "
                                                       f"from {known[:300]})")

    labels = {
        name: {label: {} for h in [*fam.heuristics.values(), *(scored or {}).get(name, ())]
               for label in [h.name, *(f"{h.name}/{p}" for p in h.priorities)]}
        for name, fam in fams.items()
    }
    scope(data, "", labels)
    return data


def _percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def check_thresholds(report: GapReport, thresholds: dict[str, Any]) -> list[str]:
    """Failures of a ``resilsched check`` run: every violation and every gap above its threshold.

    `thresholds` maps ``max_gap``/``mean_gap`` at the top level (all heuristics), under a family
    name, under ``family -> heuristic`` or under ``family -> "heuristic/priority"``; the most
    specific entry wins. Gaps and thresholds are fractions; the messages print both in percent.
    """
    failures = [f"{h.family} {h.label}: {v}" for h in report.heuristics for v in h.violations]
    failures += [
        f"{b['family']} bound {b['bound']}: {v}"
        for b in report.bounds
        for v in b["violation_details"]
    ]
    for h in report.heuristics:
        d = h.to_dict()
        for key in ("max_gap", "mean_gap"):
            limit = _threshold(thresholds, h, key)
            if limit is not None and d[key] is not None and d[key] > limit + REL_TOL:
                failures.append(
                    f"{h.family} {h.label}: {key.replace('_', ' ')} {_percent(d[key])} exceeds "
                    f"the threshold {_percent(limit)}"
                )
    return failures


def _threshold(thresholds: dict[str, Any], h: HeuristicStats, key: str) -> float | None:
    fam = thresholds.get(h.family, {}) if isinstance(thresholds.get(h.family), dict) else {}
    for scope in (fam.get(h.label), fam.get(h.heuristic), fam, thresholds):
        if isinstance(scope, dict) and key in scope:
            return float(scope[key])
    return None


def stderr_progress(message: str) -> None:
    """Progress lines for long runs, on standard error (standard output stays clean for --json)."""
    print(message, file=sys.stderr, flush=True)
