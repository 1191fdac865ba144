"""The family through the CLI and the gap harness, and the validator refusing broken runs."""

from __future__ import annotations

import dataclasses
import json

import pytest

from resilsched.errors import InvalidSchedule
from resilsched.heuristics.malleable import endgreedy_ig
from resilsched.instances.malleable import tiny_instance
from resilsched.registry import get_family
from resilsched.validation.malleable import validate_malleable_run

FAM = get_family("malleable")


def test_registration():
    assert FAM.spec == "001" and FAM.default_exact == "yardstick"
    assert {"ENDLOCAL-SAF", "ENDLOCAL-IG", "ENDGREEDY-SAF", "ENDGREEDY-IG", "NOREDIST",
            "FF-NOREDIST", "FF-ENDLOCAL", "FF-ENDGREEDY"} == set(FAM.heuristics)
    assert {"yardstick", "static-optimal", "faultfree-optimal"} == set(FAM.exact)
    params = {p.name for p in FAM.heuristics["ENDGREEDY-IG"].params}
    assert {"end_mode", "progress", "baseline", "improve_rule", "on_stuck",
            "lookahead_release", "lookahead_pool", "refill", "step"} == params


def test_solve_and_simulate(run, tmp_path):
    inst = tiny_instance(5, 3, 10)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(inst.to_dict()))
    code, out, err = run("solve", path, "--method", "static-optimal", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["status"] == "optimal" and d["solution"]["sigma"]
    code, out, err = run("simulate", path, "--heuristic", "ENDGREEDY-IG", "--seed", "4",
                         "--param", "refill=true", "--json")
    assert code == 0, err
    d = json.loads(out)
    again = json.loads(run("simulate", path, "--heuristic", "ENDGREEDY-IG", "--seed", "4",
                           "--param", "refill=true", "--json")[1])
    assert d["objective"] == again["objective"] and d["trace_source"] == "drawn"
    code, out, err = run("simulate", path, "--heuristic", "NOREDIST", "--json",
                         "--failures", "[[1.0, 0], [2.5, 3]]")
    assert code == 0, err
    assert json.loads(out)["failures"] == [[1.0, 0], [2.5, 3]]
    code, out, err = run("simulate", path, "--heuristic", "FF-ENDGREEDY", "--param", "step=1",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["solution"]["options"]["step"] == 1
    code, out, err = run("simulate", path, "--heuristic", "ENDGREEDY-IG", "--param", "step=1")
    assert code == 2 and "step" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, needle", [
    (["--failures", "[[1, 99]]"], "--failures[0][1]"),
    (["--qbar", "0.3"], "--qbar"),
    (["--param", "progress=exact"], "--param progress"),
    (["--param", "step=3"], "--param step"),
])
def test_bad_input_is_one_line(run, tmp_path, argv, needle):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(tiny_instance(5, 3, 10).to_dict()))
    code, out, err = run("simulate", path, "--heuristic", "NOREDIST", *argv)
    assert code == 2 and needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_gap_has_no_violation():
    from resilsched.gap import run_gap

    report = run_gap([FAM], time_limit=10)
    assert report.violations == 0
    kinds = {c["reference"] for c in report.cases}
    assert kinds == {"optimal", "bound"}


def test_validator_refuses_broken_runs():
    inst = tiny_instance(8, 3, 10)
    res = endgreedy_ig(inst, seed=1)
    validate_malleable_run(inst, res.schedule, res.objective)
    pay = res.schedule
    with pytest.raises(InvalidSchedule, match="objective"):
        validate_malleable_run(inst, pay, res.objective * 0.9)
    ph = list(pay.phases)
    app, start, restart, count, alpha, end, kind, done = ph[0]
    bad = dataclasses.replace(pay, phases=tuple([(app, start, restart, count + 1, alpha, end,
                                                  kind, done)] + ph[1:]))
    with pytest.raises(InvalidSchedule, match="even"):
        validate_malleable_run(inst, bad, None)
    fins = [r for r, q in enumerate(ph) if q[6] == "finished"]
    q = list(ph[fins[0]])
    q[5] *= 0.99  # ends too early
    bad = dataclasses.replace(pay, phases=tuple(ph[:fins[0]] + [tuple(q)] + ph[fins[0] + 1:]))
    with pytest.raises(InvalidSchedule, match="model says"):
        validate_malleable_run(inst, bad, None)
    wide = [(a, s, r, inst.p, al, e, k, d) for a, s, r, _, al, e, k, d in ph]
    with pytest.raises(InvalidSchedule):
        validate_malleable_run(inst, dataclasses.replace(pay, phases=tuple(wide)), None)


def test_fault_free_baselines_say_they_ignore_a_trace(run, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(tiny_instance(5, 3, 10).to_dict()))
    trace = "[[1.0, 0], [2.5, 3]]"
    for name in ("FF-NOREDIST", "FF-ENDLOCAL", "FF-ENDGREEDY"):
        code, out, err = run("simulate", path, "--heuristic", name, "--failures", trace, "--json")
        assert code == 0, err
        d = json.loads(out)
        assert "2 failures of the trace given are ignored" in d["warning"]
        code, out, _ = run("simulate", path, "--heuristic", name, "--failures", trace, "-v")
        assert "warning: " in out and "ignored" in out
        assert "warning" not in json.loads(run("simulate", path, "--heuristic", name,
                                               "--json")[1])
    d = json.loads(run("simulate", path, "--heuristic", "NOREDIST", "--failures", trace,
                       "--json")[1])
    assert "warning" not in d and d["failures_struck"] == 2


def test_failures_help_describes_the_malleable_trace(run):
    code, out, _ = run("simulate", "--help")
    assert code == 0 and "[[time, processor], ...]" in " ".join(out.split())
