"""A run that solves another problem than its case's is validated but not scored (decision MA-28):
the malleable fault-free baselines on the cases with failures, on the smoke suite and on a
library alike; and a row without a gap above 0 names no worst case."""

import pytest

from resilsched.campaign import ResultStore
from resilsched.errors import InvalidSchedule
from resilsched.gap import GapReport, format_report, run_family, run_gap
from resilsched.library.catalog import find
from resilsched.library.gap import run_library_gap
from resilsched.plugin import Case, ExactModel, Family, Heuristic
from resilsched.registry import get_family
from resilsched.solution import HeuristicResult, Solution, Status

FAM = get_family("malleable")
FF = "FF-ENDGREEDY"


def _rows(report):
    return {h.heuristic: h for h in report.heuristics}


def test_the_smoke_suite_scores_fault_free_baselines_on_the_fault_free_cases_only():
    report = run_gap([FAM], heuristics={"malleable": [FF, "ENDGREEDY-SAF"]})
    rows = _rows(report)
    ff, saf = rows[FF].to_dict(), rows["ENDGREEDY-SAF"].to_dict()
    assert (ff["cases"], ff["not_scored"], ff["violations"]) == (3, 3, 0)
    assert (saf["cases"], saf["not_scored"]) == (6, 0)
    assert {case for _, case in rows[FF].objectives} == {
        c["case"] for c in report.cases if c["case"].endswith("-ff")}
    assert not (ff["worst_case"] or "").endswith("-trace")
    # its fault-free makespans are no "best schedule known" of a case with failures: the other
    # row's interval of gaps to OPT is the one it has alone
    alone = _rows(run_gap([FAM], heuristics={"malleable": ["ENDGREEDY-SAF"]}))
    assert rows["ENDGREEDY-SAF"].certified == alone["ENDGREEDY-SAF"].certified
    text = format_report(report)
    assert f"{FF}: not scored on 3 cases (fault-free baselines on cases with failures" in text
    lines = text.splitlines()
    line = next(r for r in lines if r.lstrip().startswith(FF + " "))
    assert "cases" in lines[1].split() and line.split()[1] == "3"  # scored on 3 cases


def test_the_library_scores_fault_free_baselines_on_the_fault_free_instances_only():
    (lib,) = find("malleable-small", "--library")
    faulty = {e.name for e in lib.entries() if e.data.get("failures")}
    report = run_library_gap([lib], store=ResultStore(":memory:"), jobs=1, progress=False,
                             heuristics={"malleable": [FF]})
    (row,) = report.heuristics
    d = row.to_dict()
    assert faulty and (d["cases"], d["not_scored"]) == (100 - len(faulty), len(faulty))
    assert {case for case, _ in row.not_scored} == faulty
    assert not faulty & {case for _, case in row.objectives} and d["worst_case"] not in faulty
    assert f"{FF}: not scored on {len(faulty)} cases" in format_report(report)


def _toy(another, runs):
    """A minimisation family, OPT = 10 on cases c0 and c1; `another(case, result)` is its
    `another_problem`; `runs` maps a heuristic to its objective, or to an exception class."""
    def validate(case, result):
        if result.extra.get("invalid"):
            raise InvalidSchedule(f"{result.heuristic}: broken")

    fam = Family("toy", "-", "min", "cost", dict, lambda: [Case("c0", 0), Case("c1", 1)],
                 "exact", validate=validate, another_problem=another)
    fam.add(ExactModel("exact", lambda i, s=None, *, time_limit=None:
                       Solution(10, 10, Status.OPTIMAL, "exact", "toy", 0.0), ""))
    for name, what in runs.items():
        def run(i, s=None, p=None, *, seed=0, what=what, name=name):
            if isinstance(what, type):
                raise what("boom")
            return HeuristicResult(what, name, None, [what], {"invalid": what < 0})

        fam.add(Heuristic(name, run, ""))
    report = GapReport([fam.name], 1.0)
    run_family(fam, fam.smoke_suite(), 1.0, report)
    return _rows(report), report


def test_a_run_of_another_problem_is_validated_and_a_crash_is_still_a_violation():
    def another(case, result):
        return "another problem" if case.instance == 1 else None

    rows, report = _toy(another, {"ok": 11, "crash": RuntimeError, "bad": -1})
    ok = rows["ok"].to_dict()
    assert (ok["cases"], ok["not_scored"], ok["violations"]) == (1, 1, 0)
    assert rows["ok"].not_scored == [("c1", "another problem")]
    assert rows["ok"].objectives == {(None, "c0"): 11}
    for name in ("crash", "bad"):  # run and checked on both cases, neither scored nor skipped
        d = rows[name].to_dict()
        assert (d["cases"], d["not_scored"], d["violations"]) == (0, 0, 2)
    assert "  ok: not scored on 1 case (another problem)" in format_report(report)


@pytest.mark.parametrize("objective, worst", [(10, "-"), (12, "c0")])
def test_the_worst_case_is_a_dash_when_no_gap_is_above_zero(objective, worst):
    rows, report = _toy(None, {"h": objective})
    assert rows["h"].to_dict()["not_scored"] == 0
    lines = format_report(report).splitlines()
    line = next(r for r in lines if r.lstrip().startswith("h "))
    assert line.split()[-1] == worst and "cases" not in lines[1].split()  # all cases scored
