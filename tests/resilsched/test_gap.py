"""The gap harness flags what it must and nothing else (docs/decisions.md T4)."""

from fractions import Fraction

from resilsched.gap import GapReport, check_thresholds, format_report, run_family
from resilsched.optimality_gap import relative_gap
from resilsched.plugin import Bound, Case, ExactModel, Family, Heuristic
from resilsched.solution import HeuristicResult, Solution, Status


def _family(objectives, optimal=True, bound=10, guarantee=None):
    """A toy minimisation family: OPT = 10 on one case; heuristics return fixed objectives."""
    fam = Family("toy", "-", "min", "cost", dict, lambda: [Case("c0", None)], "exact")
    status = Status.OPTIMAL if optimal else Status.FEASIBLE
    solution = Solution(10, bound, status, "exact", "toy", 0.0)
    fam.add(ExactModel("exact", lambda i, s=None, *, time_limit=None: solution, ""))
    fam.add(Bound("lb", lambda i, s: 9, ""))
    for name, obj in objectives.items():
        def run(i, s=None, p=None, *, seed=0, obj=obj, name=name):
            if obj is None:
                raise RuntimeError("boom")
            return HeuristicResult(obj, name)

        fam.add(Heuristic(name, run, "", guarantee=guarantee))
    return fam


def _report(fam):
    report = GapReport([fam.name], 1.0)
    run_family(fam, fam.smoke_suite(), 1.0, report)
    return {h.heuristic: h.to_dict() for h in report.heuristics}, report


def test_gaps_and_exact_fractions():
    assert relative_gap(Fraction(11), Fraction(10), "min") == 0.1
    assert relative_gap(9, 10, "max") == 0.1
    rows, report = _report(_family({"a": 10, "b": 12}))
    assert rows["a"]["max_gap"] == 0 and abs(rows["b"]["mean_gap"] - 0.2) < 1e-12
    assert report.violations == 0


def test_guarantee_breach_beating_the_optimum_and_crash_are_violations():
    rows, report = _report(_family({"ok": 20, "over": 21, "cheat": 9, "crash": None},
                                   guarantee=lambda i, p: 2))
    assert rows["ok"]["violations"] == 0  # 20 <= 2 x 10
    assert "guarantee" in rows["over"]["violation_details"][0]
    assert "beats the proven optimal" in rows["cheat"]["violation_details"][0]
    assert rows["crash"]["violation_details"] == ["c0: crash raised RuntimeError: boom"]
    assert report.violations == 3


def test_unproven_reference_uses_the_bound_and_never_flags_a_gap():
    rows, report = _report(_family({"a": 12}, optimal=False, bound=8))
    assert abs(rows["a"]["mean_gap"] - 0.5) < 1e-12  # against the bound 8, an over-estimate
    assert report.cases[0]["reference"] == "bound" and report.violations == 0


def test_thresholds_most_specific_wins():
    _, report = _report(_family({"a": 12}))
    assert check_thresholds(report, {"max_gap": 0.5}) == []
    assert check_thresholds(report, {"max_gap": 0.5, "toy": {"a": {"max_gap": 0.1}}})
    assert check_thresholds(report, {"max_gap": 0.1, "toy": {"max_gap": 0.3}}) == []


def test_groups_split_rows_and_metrics_are_aggregated():
    """`Family.group` gives one row per (heuristic, group); `Family.metrics` entries of the
    results' ``extra`` are reported as mean_/max_ beside the gap."""
    fam = Family("toy", "-", "min", "cost", dict,
                 lambda: [Case("a", {"g": "x"}), Case("b", {"g": "y"}), Case("c", {"g": "y"})],
                 "exact", group=lambda inst: inst["g"], metrics=("stability",))
    fam.add(ExactModel("exact", lambda i, s=None, *, time_limit=None:
                       Solution(10, 10, Status.OPTIMAL, "exact", "toy", 0.0), ""))

    def run(i, s=None, p=None, *, seed=0):
        return HeuristicResult(11 if i["g"] == "y" else 10, "h", extra={"stability": seed / 4})

    fam.add(Heuristic("h", run, ""))
    report = GapReport([fam.name], 1.0)
    run_family(fam, fam.smoke_suite(), 1.0, report)
    rows = {h.group: h.to_dict() for h in report.heuristics}
    assert set(rows) == {"x", "y"}
    assert rows["x"]["cases"] == 1 and rows["x"]["max_gap"] == 0
    assert rows["y"]["cases"] == 2 and abs(rows["y"]["mean_gap"] - 0.1) < 1e-12
    assert (rows["y"]["mean_stability"], rows["y"]["max_stability"]) == (0.625, 0.75)
    assert "h [y]" in format_report(report) and "mean stability" in format_report(report)
