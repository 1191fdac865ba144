"""The CLI on desktop instances: JSON contracts, disturbances, CSV traces, bad input."""

import json

import pytest

X1 = {"family": "desktop", "format_version": 1,
      "machines": [{"b": 1, "e0": 0, "a": [10, 8, 12], "u": [5, 5, 5]}],
      "jobs": [{"p": 4}, {"p": 3}]}


@pytest.fixture
def x1_file(tmp_path):
    path = tmp_path / "x1.json"
    path.write_text(json.dumps(X1))
    return path


def test_solve_and_simulate(run, x1_file):
    code, out, err = run("solve", x1_file, "--json", "--time-limit", "10")
    assert code == 0, err
    d = json.loads(out)
    assert d["objective"] == 26 and d["status"] == "optimal" and d["method"] == "cpsat"
    assert d["solution"]["intervals"] == [{"machine": 0, "k": 1, "jobs": [0]},
                                          {"machine": 0, "k": 2, "jobs": [1]}]
    code, out, err = run("solve", x1_file, "--method", "milp", "--json")
    assert code == 0 and json.loads(out)["objective"] == 26, err
    code, out, err = run("simulate", x1_file, "--heuristic", "daslack", "--priority", "ffi",
                         "--failures=-7,0,0", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["objective"] == 26 and d["priority"] == "FFI" and d["failures"] == [[-7, 0, 0]]
    assert d["disturbed_makespan"] == 15 and d["stability"] == 15 / 26
    code, out, err = run("simulate", x1_file, "--heuristic", "GreedySlack", "--param",
                         "slack=off", "--qbar", "1", "--seed", "3", "--json")
    assert code == 0, err
    assert json.loads(out)["objective"] == 12


def test_gap_reports_all_twenty_variants(run):
    code, out, err = run("gap", "--family", "desktop", "--json", "--quiet")
    assert code == 0, err
    d = json.loads(out)
    assert d["violations"] == 0 and len(d["heuristics"]) == 20  # 10 x (slack, noslack)
    assert {h["group"] for h in d["heuristics"]} == {"slack", "noslack"}
    assert all(0 <= h["mean_stability"] <= h["max_stability"] for h in d["heuristics"])
    rules = {c["case"].endswith("-noslack") for c in d["cases"]}
    assert rules == {True, False} and all(c["status"] == "optimal" for c in d["cases"])


def test_csv_trace_through_the_cli(run, tmp_path):
    trace = tmp_path / "hosts.csv"
    trace.write_text("machine,start,end\nh1,0,10\nh1,15,23\nh1,28,40\n")
    (tmp_path / "hosts.jobs.csv").write_text("p\n4\n3\n")
    code, out, err = run("simulate", trace, "--heuristic", "GreedySlack", "--json")
    assert code == 0, err
    assert json.loads(out)["objective"] == 26


@pytest.mark.parametrize("args, words", [
    (["--failures", "1,2"], "deltas[0]"),
    (["--failures", "0,0,1"], "deltas[0][2]"),
    (["--qbar", "1.5"], "--qbar"),
    (["--priority", "EDF"], "--priority"),
    (["--param", "slack=maybe"], "--param slack"),
])
def test_bad_simulate_input(run, x1_file, args, words):
    code, out, err = run("simulate", x1_file, "--heuristic", "GreedySlack", *args)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("patch, words", [
    ({"jobs": [{"p": 7}]}, "jobs[0].p"),
    ({"machines": [{"b": 1, "a": [10], "u": [0]}]}, "machines[0].u[0]"),
    ({"machines": [{"b": "1e999", "a": [10], "u": [1]}]}, "machines[0].b"),
])
def test_bad_instance_files(run, tmp_path, patch, words):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**X1, **patch}))
    code, out, err = run("solve", path)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_generate_presets(run, tmp_path):
    code, out, err = run("generate", "--family", "desktop", "--preset", "tiny", "--seed", "1",
                         "--count", "3", "--out", tmp_path)
    assert code == 0, err
    assert len(list(tmp_path.glob("tiny-1-*.json"))) == 3


def test_gap_validation_flags_a_proposition_1_breach():
    from dataclasses import replace

    from resilsched.errors import InvalidSchedule
    from resilsched.registry import get_family

    fam = get_family("desktop")
    case = fam.smoke_suite()[0]  # X1: H1 holds
    res = fam.heuristics["GreedySlack"].run(case.instance, case.scenario, "LPT")
    fam.validate(case, res)  # a real run passes
    with pytest.raises(InvalidSchedule, match="Proposition 1"):
        fam.validate(case, replace(res, extra={**res.extra, "stability": 1.5}))
