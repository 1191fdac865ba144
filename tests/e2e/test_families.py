"""Every registered family honours the CLI contracts of docs/architecture.md."""

import json

import pytest

from resilsched.registry import available_families, get_family

FAMILIES = available_families()


@pytest.mark.parametrize("name", FAMILIES)
def test_gap_json_contract(run, name):
    code, out, err = run("gap", "--family", name, "--json", "--quiet")
    assert code == 0, err
    d = json.loads(out)
    assert d["families"] == [name] and d["violations"] == 0
    fam = get_family(name)
    groups = {fam.group(c.instance) for c in fam.smoke_suite()} if fam.group else {None}
    expected = sum(len(h.priorities) or 1 for h in fam.heuristics.values()) * len(groups)
    assert len(d["heuristics"]) == expected
    for h in d["heuristics"]:
        assert {"heuristic", "priority", "mean_gap", "max_gap", "violations"} <= h.keys()
        assert h["violations"] == 0
        assert h["mean_gap"] is not None and 0 <= h["mean_gap"] <= h["max_gap"] + 1e-12
    for c in d["cases"]:
        assert c["status"] in ("optimal", "feasible")
        assert c["reference"] == ("optimal" if c["status"] == "optimal" else "bound")


@pytest.mark.parametrize("name", FAMILIES)
def test_solve_and_simulate_a_smoke_instance(run, tmp_path, name):
    fam = get_family(name)
    case = fam.smoke_suite()[0]
    path = tmp_path / "inst.json"
    path.write_text(json.dumps(case.instance.to_dict()))
    code, out, err = run("solve", path, "--json", "--time-limit", "20")
    assert code == 0, err
    d = json.loads(out)
    assert {"objective", "bound", "status", "method", "wall_time", "solution"} <= d.keys()
    assert d["method"] == fam.default_exact and d["family"] == name
    h = next(iter(fam.heuristics.values()))
    code, out, err = run("simulate", path, "--heuristic", h.name, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["heuristic"] == h.name and d["objective"] is not None


@pytest.mark.parametrize("name", FAMILIES)
def test_round_trip_of_instances(name):
    fam = get_family(name)
    for case in fam.smoke_suite():
        again = fam.from_dict(json.loads(json.dumps(case.instance.to_dict())))
        assert again.to_dict() == case.instance.to_dict()
