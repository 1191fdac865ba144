"""A campaign row of a run that solves another problem than its case's is counted, not measured
(decision MA-28, the gap report's rule): a malleable fault-free baseline, or a
``faultfree-optimal`` plan, on an instance with failures gets no gap and no ratio point, is never
a case's reference or a worst case, and the report says so in a line and in its JSON. The task
writes the reason into the row; its fast path (the trusted built-in run) and the checked path of
the gap report give the same answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from resilsched.campaign.export import open_store
from resilsched.campaign.metrics import collect, row_problem
from resilsched.campaign.plots import _worst
from resilsched.campaign.tasks import Work, run_task
from resilsched.checked import run_checked
from resilsched.families.malleable import FAULT_FREE_RUN
from resilsched.registry import get_family

FAM = get_family("malleable")
FF, SAF = "FF-ENDGREEDY", "ENDGREEDY-SAF"

#: 3 tiny instances with failures (drawn from their mtbf) and 2 fault-free ones
SPEC = """
[campaign]
name = "ma-ff"
[[instances]]
family = "malleable"
preset = "tiny"
count = 3
seed = 1
[[instances]]
family = "malleable"
preset = "tiny-fault-free"
count = 2
seed = 1
[[algorithms]]
name = "FF-ENDGREEDY"
[[algorithms]]
name = "ENDGREEDY-SAF"
[[algorithms]]
name = "{exact}"
"""


def _run(spec, run, tmp_path: Path, exact: str = "yardstick") -> Path:
    store = tmp_path / "ma.sqlite"
    code, _, err = run("campaign", "run", spec(SPEC.format(exact=exact)), "--store", store,
                       "--executor", "inline", "-q")
    assert code == 0, err
    return store


def _rows(store: Path) -> list[tuple[str, dict, dict]]:
    with open_store(store) as s:
        return [(k, f, r) for k, f, r, _, _ in s.rows("ma-ff")]


def _counts(fr, metric: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in fr.points(metric):
        out[p.setting.algorithm] = out.get(p.setting.algorithm, 0) + 1
    return out


def _faulty(rows) -> set[str]:
    return {f["instance_sha"] for _, f, r in rows
            if f["algorithm"] == "yardstick" and r["status"] != "optimal"}


@pytest.fixture()
def campaign(spec, run, tmp_path):
    """The rows of `SPEC` with the yardstick as the exact model."""
    return _rows(_run(spec, run, tmp_path))


def test_a_fault_free_baseline_on_a_case_with_failures_gets_no_gap_and_no_ratio(campaign):
    rows = campaign
    assert len(rows) == 15 and len(_faulty(rows)) == 3
    fr = collect(rows)[0]["malleable"]
    assert _counts(fr, "gap") == {FF: 2, SAF: 5}  # on main: FF 5 (mean 9.03 %, max 32.35 %)
    assert _counts(fr, "ratio") == {FF: 2, SAF: 5, "yardstick": 5}
    for _, f, r in rows:  # the task wrote the rule into every row of the family
        faulty = f["instance_sha"] in _faulty(rows)
        assert r["another_problem"] == (FAULT_FREE_RUN if faulty and f["algorithm"] == FF
                                        else None), f
    assert {s.algorithm: len(v) for s, v in fr.not_scored.items()} == {FF: 3}
    assert fr.references == 5 and fr.unmarked == 0
    assert max(p.value for p in fr.gap if p.setting.algorithm == FF) == 0.0
    worst = {w.setting.algorithm: w for w in _worst(fr, [(f, r) for _, f, r in rows])}
    assert worst[FF].fields["instance_sha"] not in _faulty(rows)  # a fault-free case's


def test_the_report_says_how_many_runs_are_not_scored(spec, run, tmp_path):
    store = _run(spec, run, tmp_path)
    code, out, err = run("report", store, "--out", tmp_path / "rep", "--no-plots", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["not_scored"], result["unmarked"], result["refused"]) == (3, 0, 0)
    md = (tmp_path / "rep" / "report.md").read_text()
    assert f"**3 runs not scored** ({FAULT_FREE_RUN}; {FF}: 3)" in md
    assert "stored before" not in md
    table = md.split("### Gap to the optimum or proven bound")[1].split("###")[0]
    ff = next(line for line in table.splitlines() if line.startswith(f"| {FF} |"))
    assert ff.split("|")[2].strip() == "2"  # n: the 2 fault-free cases
    summary = (tmp_path / "rep" / "summary.csv").read_text().splitlines()
    assert any(line.startswith(f"malleable,gap,{FF},heuristic,,{{}},all,2,") for line in summary)


def test_a_fault_free_optimum_is_no_reference_of_a_case_with_failures(spec, run, tmp_path):
    rows = _rows(_run(spec, run, tmp_path, exact="faultfree-optimal"))
    fr = collect(rows)[0]["malleable"]
    # on main its fault-free optimum (status optimal) was the reference of the 3 faulty cases
    assert (fr.references, fr.optimal_references) == (2, 2)
    assert {s.algorithm: len(v) for s, v in fr.not_scored.items()} == {
        FF: 3, "faultfree-optimal": 3}
    assert _counts(fr, "gap") == {FF: 2, SAF: 2}
    assert _counts(fr, "ratio")["faultfree-optimal"] == 2  # the fault-free cases


def test_rows_stored_before_the_field_are_measured_as_before_and_counted(campaign):
    old = [(k, f, {n: v for n, v in r.items() if n != "another_problem"})
           for k, f, r in campaign]
    fr = collect(old)[0]["malleable"]
    assert not fr.not_scored and fr.unmarked == 15
    assert _counts(fr, "gap") == {FF: 5, SAF: 5}


def test_a_row_whose_reason_is_not_a_string_is_left_out(campaign):
    _, fields, result = campaign[0]
    assert row_problem(fields, result) is None
    assert row_problem(fields, {**result, "another_problem": 3}) == \
        "result.another_problem is not a string"


@pytest.mark.parametrize("name", sorted(FAM.heuristics))
def test_the_fast_path_and_the_checked_path_give_the_same_answer(name):
    """The campaign task's trusted run and the gap report's checked run of every registered
    heuristic, on every smoke case: one rule, `Family.another_problem`."""
    h = FAM.heuristics[name]
    seen = set()
    for case in FAM.smoke_suite():
        work = Work("malleable", case.instance, "heuristic", name)
        row = run_task(work)
        checked = run_checked(FAM, h, case, seed=work.seed)
        assert checked.valid and row["objective"] == checked.scored
        assert row["another_problem"] == checked.another_problem, case.name
        seen.add(row["another_problem"])
    assert seen == ({None, FAULT_FREE_RUN} if h.baseline else {None})


def test_an_exact_model_row_reads_the_same_rule():
    faulty = [c for c in FAM.smoke_suite() if not c.instance.fault_free]
    for model, reason in (("faultfree-optimal", FAULT_FREE_RUN), ("yardstick", None)):
        row = run_task(Work("malleable", faulty[0].instance, "exact", model, time_limit=10))
        assert row["status"] in ("optimal", "feasible") and row["another_problem"] == reason


@pytest.mark.parametrize(("optimal", "kind"), [(5, "optimum"), (0, "proven bound"),
                                               (2, "optimum or proven bound")])
def test_the_gap_is_named_after_what_its_references_are(optimal, kind):
    """A report's gap titles say what the gaps are measured to: the yardstick of a case with
    failures is a bound, never an optimum."""
    from resilsched.campaign.metrics import FamilyResults

    fr = FamilyResults(FAM, references=5, optimal_references=optimal)
    assert fr.reference_kind == kind
    assert fr.metric_label("gap") == f"gap of the makespan to the {kind} (%)"
