"""The Python front door (issue 22, point 3): ``import resilsched`` gives load, scenario,
simulate, solve, bounds and gap, through the registry, with typed results; the README's Python
section runs as doctests on all six families."""

from __future__ import annotations

import dataclasses
import doctest
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import resilsched
from resilsched import InvalidInstance, InvalidSchedule
from resilsched.schedule import Schedule

ROOT = Path(__file__).resolve().parents[2]
RIGID = ROOT / "examples" / "rigid-small.json"


def test_readme_python_section_runs_as_doctests(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 14 and result.failed == 0


def test_import_resilsched_loads_no_solver_and_the_front_door_is_there():
    code = ("import sys, resilsched; heavy = {'ortools', 'highspy', 'pyomo', 'numpy'}; "
            "print(sorted(heavy & set(sys.modules))); print(all(callable(getattr(resilsched, "
            "n)) for n in resilsched.FRONT_DOOR))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out == "[]\nTrue\n"


def test_gap_and_bounds_stay_modules_and_are_callable():
    import resilsched.bounds.rigid
    import resilsched.gap

    assert resilsched.bounds.rigid.lower_bound is not None  # the role package is intact
    assert resilsched.gap.GapReport is not None
    inst = resilsched.load(RIGID)
    assert resilsched.bounds(inst).values == {"L": resilsched.bounds.rigid.lower_bound(
        inst, inst.scenario()), "LB-big": 4}


def _run(objective_shift=0, overlap=False, boom=False):
    def mine(instance, scenario=None, priority=None, *, seed: int = 0, scale: int = 1):
        if boom:
            raise KeyError("no such job")
        res = resilsched.simulate(instance, "R-LIST-0", scenario)
        attempts = res.schedule.attempts
        if overlap:
            attempts = tuple(dataclasses.replace(a, start=0, end=a.end - a.start)
                             for a in attempts)
        return dataclasses.replace(res, objective=res.objective + objective_shift,
                                   schedule=Schedule(attempts, res.schedule.makespan))
    return mine


def test_simulate_takes_a_function_and_checks_it():
    inst = resilsched.load(RIGID)
    true = resilsched.simulate(inst, "R-LIST-0").objective
    res = resilsched.simulate(inst, _run(), scale=2)
    assert (res.objective, res.heuristic) == (true, "mine")
    with pytest.warns(UserWarning, match="disagrees with its schedule"):
        assert resilsched.simulate(inst, _run(objective_shift=-1)).objective == true
    with pytest.raises(InvalidSchedule, match="invalid solution: "):
        resilsched.simulate(inst, _run(overlap=True))
    with pytest.raises(KeyError, match="no such job"):  # the plug-in's own traceback
        resilsched.simulate(inst, _run(boom=True))
    with pytest.raises(InvalidInstance, match="--param colour"):
        resilsched.simulate(inst, _run(), colour=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resilsched.simulate(inst, "R-LIST-0", priority="la")  # built-ins: no warning


def test_one_field_name_for_what_was_built_and_the_json_at_both_paths():
    inst = resilsched.load(RIGID)
    sol = resilsched.solve(inst, time_limit=10)
    assert sol.payload is sol.schedule  # the former name, kept as a deprecated alias
    d = sol.to_dict()["solution"]  # the schedule where a heuristic's is, and where it was
    assert {"makespan", "attempts", "info", "schedule"} <= set(d)
    assert [a.to_dict() for a in sol.schedule.attempts] == d["attempts"] == \
        d["schedule"]["attempts"]


def test_the_registry_stamps_the_registered_name():
    from resilsched.registry import get_family

    fam = get_family("rigid")
    model = dataclasses.replace(fam.exact["cpsat-scenario"], name="renamed")
    inst = resilsched.load(RIGID)
    assert model(inst, inst.scenario(), time_limit=5).method == "renamed"
    with pytest.raises(InvalidInstance, match="--param nope: is not a parameter of renamed"):
        model(inst, inst.scenario(), time_limit=5, nope=1)


def test_gap_on_instances_and_bad_arguments():
    inst = resilsched.load(RIGID)
    report = resilsched.gap(heuristics=["R-LIST-0"], instances=[inst, RIGID], time_limit=5)
    assert [c["case"] for c in report.cases] == ["rigid-small"] * 2
    assert {h.heuristic for h in report.heuristics} == {"R-LIST-0"}
    with pytest.raises(InvalidInstance, match="exclusive"):
        resilsched.gap(library="rigid-small", instances=[inst])
    with pytest.raises(InvalidInstance, match="cannot be imported back by worker processes"):
        resilsched.gap(heuristics=[lambda *a, **k: None], family="rigid")
    with pytest.raises(InvalidInstance, match="index=3 is out of range"):
        resilsched.load(RIGID, index=3)
    with pytest.raises(InvalidInstance, match="is not an instance of a registered family"):
        resilsched.solve(object())


def test_solve_is_the_command_line_solve_portfolio_included():
    """`resilsched.solve` and ``resilsched solve`` share one function: without a method both
    run the portfolio and give the same interval and sources; with one, that model alone."""
    import json

    inst = resilsched.load(RIGID)
    both = resilsched.solve(inst, time_limit=20)
    assert both.objective_source and both.bound_source and both.status.value == "optimal"
    alone = resilsched.solve(inst, method="cpsat-scenario", time_limit=20)
    assert alone.objective_source == alone.bound_source == "cpsat-scenario"
    out = subprocess.run([sys.executable, "-m", "resilsched", "solve", str(RIGID), "--json",
                          "--time-limit", "20"], capture_output=True, text=True, check=True)
    d = json.loads(out.stdout)
    assert (d["objective"], d["bound"], d["objective_source"], d["bound_source"]) == (
        both.objective, both.bound, both.objective_source, both.bound_source)
