"""Nothing a plug-in returns is believed (issue 22, "Trust nothing a plug-in returns").

The `plugins` fixture's throwaway module is scored against the certificates of rigid-small and
gated by ``check``: the correct heuristic passes, every broken one fails with one line per case
naming the heuristic, the case and the rule, and the others still run.
"""

from __future__ import annotations

import json

import pytest

LIB = ("--library", "rigid-small", "--jobs", "1", "-q")


def _rows(out: str) -> dict[str, dict]:
    return {h["heuristic"]: h for h in json.loads(out)["heuristics"]}


def test_the_correct_plugin_passes_check(run, plugins):
    code, out, err = run("check", *LIB, "--heuristic", "myheur:good", "--json")
    assert code == 0, err
    (row,) = json.loads(out)["heuristics"]
    assert (row["heuristic"], row["cases"], row["violations"]) == ("myheur:good", 100, 0)
    # the same gaps as the built-in R-LIST-0/LPT it wraps
    code, out, _ = run("gap", *LIB, "--heuristic", "R-LIST-0", "--json")
    lpt = next(h for h in json.loads(out)["heuristics"] if h["priority"] == "LPT")
    assert row["mean_gap"] == lpt["mean_gap"] and row["max_gap"] == lpt["max_gap"]


@pytest.mark.parametrize("name, rule", [
    ("infeasible", "invalid solution: "),
    ("liar", "myheur:liar: objective "),
    ("raiser", "myheur:raiser raised ZeroDivisionError: division by zero"),
    ("not_a_result", "myheur:not_a_result returned a int, not a resilsched.HeuristicResult"),
    ("exiter", "myheur:exiter raised SystemExit(3)"),
])
def test_each_broken_plugin_fails_check_once_per_case(run, plugins, name, rule):
    code, out, err = run("check", *LIB, "--heuristic", f"myheur:{name}", "--json")
    assert code == 1, err
    d = json.loads(out)
    (row,) = d["heuristics"]
    details = row["violation_details"]
    assert len(details) == 100 and row["violations"] == 100  # once per case
    assert all(rule in line for line in details), details[0]
    assert details[0].startswith("rigid-lib-") and not d["passed"]
    assert all(f"rigid myheur:{name}: " in f for f in d["failures"])


def test_a_lie_is_caught_and_the_schedule_scored(run, plugins):
    import resilsched
    from resilsched.library.catalog import find

    code, out, _ = run("gap", *LIB, "--heuristic", "myheur:liar", "--heuristic", "myheur:good",
                       "--json")
    assert code == 0  # gap reports, check gates
    rows = _rows(out)
    liar, good = rows["myheur:liar"], rows["myheur:good"]
    case = json.loads(out)["cases"][0]
    inst = resilsched.load(find("rigid-small")[0].path / case["file"])
    true = resilsched.simulate(inst, "R-LIST-0", priority="LPT").objective
    assert liar["violation_details"][0] == (
        f"{case['case']}: myheur:liar: objective {true - 1!r} disagrees with its schedule "
        f"({true}); scored with {true}")
    assert liar["cases"] == 100 and liar["mean_gap"] == good["mean_gap"]


def test_broken_plugins_do_not_stop_the_others(run, plugins):
    names = ["good", "infeasible", "liar", "raiser"]
    args = [a for n in names for a in ("--heuristic", f"myheur:{n}")]
    code, out, _ = run("check", *LIB, *args, "--heuristic", "R-SHELF-B", "--json")
    assert code == 1
    rows = {(h["heuristic"], h["priority"]): h for h in json.loads(out)["heuristics"]}
    assert rows[("myheur:good", None)]["violations"] == 0
    assert rows[("myheur:good", None)]["cases"] == 100
    assert rows[("myheur:infeasible", None)]["cases"] == 0  # no valid schedule is scored
    assert rows[("myheur:raiser", None)]["violations"] == 100
    assert all(rows[("R-SHELF-B", p)]["violations"] == 0 for p in ("LPT", "LA", "LJF"))
    assert len(rows) == 4 + 8


def test_text_report_names_heuristic_case_and_reason(run, plugins):
    code, out, _ = run("check", *LIB, "--heuristic", "myheur:raiser")
    assert code == 1
    assert "  myheur:raiser  " in out and "check FAILED" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("  VIOLATION"))
    assert line.startswith("  VIOLATION myheur:raiser: rigid-lib-")
    assert line.endswith(": myheur:raiser raised ZeroDivisionError: division by zero")


def test_a_plugin_that_never_returns_is_bounded_per_case(run, plugins):
    import time

    t0 = time.perf_counter()
    code, out, err = run("check", "--family", "rigid", "--heuristic", "myheur:hang",
                         "--heuristic", "myheur:good", "--time-limit", "0.2", "-q", "--json")
    elapsed = time.perf_counter() - t0
    assert code == 1, err
    rows = _rows(out)
    cases = len(json.loads(out)["cases"])
    assert rows["myheur:hang"]["violations"] == cases
    assert all(v.endswith("myheur:hang did not return within 0.2 s (--time-limit)")
               for v in rows["myheur:hang"]["violation_details"])
    assert rows["myheur:good"]["violations"] == 0 and rows["myheur:good"]["cases"] == cases
    assert elapsed < cases * 0.2 * 2 + 20


def test_built_in_heuristics_go_through_the_same_checks(plugins):
    """A built-in whose schedule is wrong is caught like a plug-in (here: made to lie)."""
    import dataclasses

    from resilsched.gap import GapReport, run_family
    from resilsched.registry import get_family

    fam = get_family("rigid")
    real = fam.heuristics["R-LIST-0"]

    def lying(*args, **kwargs):
        res = real.run(*args, **kwargs)
        return dataclasses.replace(res, objective=res.objective + 1)

    fake = dataclasses.replace(fam, heuristics={"R-LIST-0": dataclasses.replace(real,
                                                                                run=lying)})
    report = GapReport(["rigid"], 5.0)
    run_family(fake, fam.smoke_suite()[:2], 5.0, report)
    assert all(h.violations and all("disagrees with its schedule" in v for v in h.violations)
               for h in report.heuristics)
