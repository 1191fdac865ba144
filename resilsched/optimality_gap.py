"""The optimality gap: its one definition, and what a gap report can say about the optimum
when it is not proven everywhere.

On a case whose optimum is not proven, the optimum lies between the best bound and the best
schedule known (the exact model's incumbent or any heuristic schedule the report scored: valid,
and of the case's own problem, `resilsched.gap.Score`), so a heuristic's gap to the optimum
lies between its gap to the best schedule and its gap to the bound. Averaged over the cases,
each heuristic's mean gap to the optimum lies in the mean of those intervals, its *certified
gap*. Two heuristics can be ranked by their mean gap to the optimum when the sign of the
difference is the same wherever the unknown optima lie: the difference on one case, (a - b) /
OPT (a minimisation; (b - a) / OPT maximising), is monotone in OPT, so the sum's extremes are
at the ends of each case's interval. Where they are not ranked, the report says so: the
interval is wider than what separates them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any


def is_exact(*xs: Any) -> bool:
    """Whether every value is exact (an int or a Fraction)."""
    return all(isinstance(x, (int, Fraction)) for x in xs)


def relative_gap(value: Any, reference: Any, sense: str, *, percent: bool = False) -> float:
    """The gap of `value` to `reference`: (value - ref) / ref for minimisation, (ref - value)
    / ref for maximisation; 0 when both are 0, infinite when only the reference is.

    The one definition of the gap: the gap report (fractions, 0.05 = 5 %) and campaign reports
    (`resilsched.campaign.metrics`, ``percent=True``: 100 x the same number) both use it.
    Exact values (ints, Fractions) are divided exactly, then rounded once.

    >>> relative_gap(21, 20, "min"), relative_gap(21, 20, "min", percent=True)
    (0.05, 5.0)
    >>> relative_gap(19, 20, "max")
    0.05
    """
    diff = value - reference if sense == "min" else reference - value
    if reference == 0:
        return 0.0 if diff == 0 else math.inf
    if is_exact(diff, reference):
        ratio = Fraction(diff) / Fraction(reference)
        return float(100 * ratio if percent else ratio)
    return (100.0 * float(diff) if percent else float(diff)) / float(reference)


def reference(optimal: bool, objective: Any, bound: Any) -> tuple[Any, str]:
    """The value gaps are measured against, and its kind: the optimum when it is proven
    (``"optimal"``), else the best bound (``"bound"``), else nothing (``None, "none"``).

    The one rule of every gap: the gap report (a solver's `Solution`), campaign reports (an
    exact model's stored row) and libraries (a certificate) all choose with it.

    >>> reference(True, 20, 18), reference(False, 21, 18), reference(False, 21, None)
    ((20, 'optimal'), (18, 'bound'), (None, 'none'))
    """
    if optimal:
        return objective, "optimal"
    return (bound, "bound") if bound is not None else (None, "none")


def case_key(case: dict[str, Any]) -> tuple[str | None, str]:
    """How a report's case is named in `HeuristicStats.objectives`: (library or None, case)."""
    return case.get("library"), case["case"]


def _interval(case: dict[str, Any], best: float | None) -> tuple[float, float] | None:
    """The known ends of a case's optimum: (best schedule, best bound), or None."""
    if case["reference"] == "optimal":
        opt = float(case["objective"])
        return opt, opt
    if case["reference"] != "bound" or case["bound"] is None or best is None:
        return None
    return best, float(case["bound"])


def _best(case: dict[str, Any], rows: Sequence[Any], sense: str) -> float | None:
    values = [case["objective"], *(h.objectives.get(case_key(case)) for h in rows)]
    known = [float(v) for v in values if v is not None]
    if not known:
        return None
    return min(known) if sense == "min" else max(known)


def _difference(a: float, b: float, ends: tuple[float, float], sense: str
                ) -> tuple[float, float]:
    """The least and greatest gap(a) - gap(b) over the optimum's ends (monotone between)."""
    terms = [relative_gap(a, o, sense) - relative_gap(b, o, sense) for o in ends]
    return min(terms), max(terms)


def certify_family(report: Any, family: str, sense: str) -> None:
    """Set the certified gaps and the unranked pairs of `family`'s rows in `report`.

    Does nothing when every case of the family has a proven optimum (the gaps are then exact and
    the report stays as it was). Otherwise each row gets ``certified`` (the mean of its cases'
    intervals of gaps to the optimum) and ``not_ranked`` (the labels of the rows of its group it
    cannot be ranked against by mean gap to the optimum).
    """
    cases = [c for c in report.cases if c["family"] == family]
    if all(c["reference"] == "optimal" for c in cases):
        return
    rows = [h for h in report.heuristics if h.family == family]
    ends: dict[tuple[str | None, str], tuple[float, float]] = {}
    for case in cases:
        interval = _interval(case, _best(case, rows, sense))
        if interval is not None and min(interval) > 0:
            ends[case_key(case)] = interval
    for h in rows:
        los, his = [], []
        for name, value in h.objectives.items():
            if name in ends:
                gaps = sorted(relative_gap(float(value), o, sense) for o in ends[name])
                los.append(gaps[0])
                his.append(gaps[1])
        h.certified = (sum(los) / len(los), sum(his) / len(his)) if los else None
    for h in rows:
        h.not_ranked = []
        for other in rows:
            if other is h or other.group != h.group:
                continue
            common = [n for n in h.objectives if n in other.objectives and n in ends]
            if not common:
                continue
            low = high = 0.0
            for name in common:
                lo, hi = _difference(float(h.objectives[name]), float(other.objectives[name]),
                                     ends[name], sense)
                low, high = low + lo, high + hi
            if not (low > 0 or high < 0):
                h.not_ranked.append(other.label)
