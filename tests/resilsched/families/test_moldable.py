"""The moldable family through the registry and the CLI (docs/architecture.md contracts)."""

from __future__ import annotations

import json

import pytest

from resilsched.registry import get_family

INSTANCE = {
    "family": "moldable", "format_version": 1, "P": 4,
    "jobs": [{"model": "roofline", "w": 6, "pbar": 2},
             {"model": "communication", "w": 8, "c": "1/2"},
             {"model": "amdahl", "w": 5, "gamma": "1/5"},
             {"model": "table", "t": [6, 4, 3, 3]}],
    "failures": [0, 1, 0, 1],
}


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps(INSTANCE))
    return p


def test_family_registration():
    fam = get_family("moldable")
    assert set(fam.heuristics) >= {"LPA-LIST", "BATCH-LIST", "MINTIME", "MINAREA"}
    assert fam.default_exact in fam.exact
    assert {"L'", "L*"} <= set(fam.bounds)
    assert "smoke" in fam.generators
    cases = fam.smoke_suite()
    assert len(cases) >= 6
    for case in cases[:3]:
        for h in fam.heuristics.values():
            res = h.run(case.instance, case.scenario, "LPT", seed=0)
            fam.validate(case, res)


def test_cli_simulate_and_solve(run, path):
    code, out, _ = run("simulate", path, "--heuristic", "LPA-LIST", "--json")
    assert code == 0
    sim = json.loads(out)
    code, out, _ = run("solve", path, "--json", "--time-limit", "10")
    assert code == 0
    sol = json.loads(out)
    assert sol["status"] == "optimal"
    from fractions import Fraction

    assert sim["objective"] >= float(Fraction(str(sol["objective"]))) - 1e-9
    code, out, _ = run("simulate", path, "--heuristic", "BATCH-LIST", "--failures", "0,0,0,3",
                       "--json")
    assert code == 0 and json.loads(out)["objective"] > 0


def test_cli_bad_input(run, tmp_path):
    bad = dict(INSTANCE, jobs=[{"model": "amdahl", "w": 3, "gamma": 1.5}], failures=None)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    code, _, err = run("simulate", p, "--heuristic", "LPA-LIST")
    assert code == 2
    assert "jobs[0].gamma=1.5 must be in [0, 1]" in err


def test_validator_rejects_a_makespan_above_the_certified_bound():
    import dataclasses

    from resilsched.errors import InvalidSchedule
    from resilsched.schedule import Schedule

    fam = get_family("moldable")
    case = fam.smoke_suite()[1]
    res = fam.heuristics["LPA-LIST"].run(case.instance, case.scenario, "LPT", seed=0)
    fam.validate(case, res)
    # stretch the schedule: shift every attempt by a huge delay (still a valid schedule)
    delay = 1000 * res.objective
    atts = tuple(dataclasses.replace(a, start=a.start + delay, end=a.end + delay)
                 for a in res.schedule.attempts)
    bad = dataclasses.replace(res, objective=res.objective + delay,
                              schedule=Schedule(atts, res.objective + delay))
    with pytest.raises(InvalidSchedule, match="certified Lemma 2 bound"):
        fam.validate(case, bad)


def test_entries_point_at_the_functions_themselves():
    from resilsched.bounds import moldable as bounds
    from resilsched.heuristics import moldable as heuristics
    from resilsched.models import moldable as models

    fam = get_family("moldable")
    assert fam.heuristics["LPA-LIST"].run is heuristics.lpa_list
    assert fam.heuristics["BATCH-LIST"].run is heuristics.batch_list
    assert fam.heuristics["LPA-PROOF"].guarantee is bounds.lpa_guarantee
    assert fam.heuristics["MINTIME"].guarantee is None
    assert fam.exact["cpsat-scenario"].solve is models.solve_scenario
    assert fam.exact["cpsat-scenario"].options is models.MoldableOptions
    assert fam.bounds["L'"].compute is bounds.L_prime
    assert fam.bounds["L*"].compute is bounds.L_star
    names = [p.name for p in fam.heuristics["BATCH-LIST"].params]
    assert names == ["eps", "eps2", "area_slack", "attempt_order", "g1_exact"]
    assert fam.heuristics["LPA-LIST"].params == ()


def test_cli_batch_params(run, path):
    code, out, err = run("simulate", path, "--heuristic", "BATCH-LIST", "--failures", "0,0,0,3",
                         "--param", "attempt_order=first_only", "--param", "eps=0.5", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["params"] == {"attempt_order": "first_only", "eps": 0.5}
    from resilsched.heuristics.moldable import batch_list

    inst = get_family("moldable").from_dict(INSTANCE)
    res = batch_list(inst, inst.scenario([0, 0, 0, 3]), attempt_order="first_only", eps=0.5)
    assert d["objective"] == res.objective
    code, out, _ = run("list", "--family", "moldable", "--json")
    params = json.loads(out)["families"]["moldable"]["heuristics"]["BATCH-LIST"]["params"]
    assert params["attempt_order"]["default"] == "desc_p"


@pytest.mark.parametrize("param, message", [
    ("eps=0", "--param eps=0.0 must be in [0.05, 1.0] for BATCH-LIST"),
    ("area_slack=nan", "--param area_slack=nan must be a finite number for BATCH-LIST"),
    ("attempt_order=last", "--param attempt_order='last' is not allowed for BATCH-LIST"),
    ("g1_exact=maybe", "--param g1_exact='maybe' is not a boolean for BATCH-LIST"),
    ("gamma=1", "--param gamma: is not a parameter of BATCH-LIST"),
])
def test_cli_bad_batch_params_are_one_line(run, path, param, message):
    code, out, err = run("simulate", path, "--heuristic", "BATCH-LIST", "--param", param)
    assert code == 2 and out == ""
    assert err.startswith(f"error: {message}") and err.count("\n") == 1


def test_python_bad_batch_params():
    from resilsched.errors import InvalidInstance
    from resilsched.heuristics.moldable import batch_list

    inst = get_family("moldable").from_dict(INSTANCE)
    with pytest.raises(InvalidInstance, match="--param eps2=2.0 must be in"):
        batch_list(inst, eps2=2.0)
    with pytest.raises(InvalidInstance, match="attempt_order"):
        batch_list(inst, attempt_order="sideways")
    with pytest.raises(InvalidInstance, match="f_max=90000 needs MT-ALLOTMENT DPs"):
        batch_list(inst, inst.scenario([0, 0, 0, 90_000]))  # within the boundary's 10^5


def test_cli_scenarios_that_cannot_finish_are_refused(run, path):
    code, _, err = run("simulate", path, "--heuristic", "LPA-LIST", "--failures",
                       "0,0,5000000,0")
    assert code == 2
    assert err == ("error: failures[2]=5000000 failures exceed the maximum of 100000 attempts "
                   "per scenario\n")  # the boundary's limit (instances/failures.py)


def test_cli_exact_non_integral_optimum_is_a_number_with_its_exact_value(run, tmp_path):
    p = tmp_path / "frac.json"
    p.write_text(json.dumps({"family": "moldable", "format_version": 1, "P": 4,
                             "jobs": [{"model": "roofline", "w": 6, "pbar": 2},
                                      {"model": "roofline", "w": 5, "pbar": 4}],
                             "failures": [0, 1]}))
    code, out, err = run("solve", p, "--json", "--time-limit", "10", "-q")
    assert code == 0, err
    d = json.loads(out)
    assert d["status"] == "optimal"
    assert d["objective"] == 4.25 and d["objective_exact"] == "17/4"
    assert d["bound"] == 4.25 and d["bound_exact"] == "17/4"
    code, out, _ = run("solve", p, "--time-limit", "10", "-q")
    assert "makespan 17/4 = 4.25 s (status optimal" in out
