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
