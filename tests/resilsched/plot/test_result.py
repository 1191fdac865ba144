"""The library's ``.plot()``: every result draws on the axes it is given (or a new figure) and
returns them; a schedule the family's validator refuses is never drawn."""

from __future__ import annotations

from dataclasses import replace

import pytest

from resilsched.errors import InvalidSchedule
from resilsched.schedule import Schedule
from resilsched.solution import HeuristicResult
from tests.support.plot.fixtures import CASES

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


@pytest.mark.parametrize("case", CASES[:5], ids=[c.label for c in CASES[:5]])
def test_heuristic_results_plot_on_new_axes(case):
    import matplotlib.pyplot as plt

    fam, inst, scenario = case.load()
    h = fam.heuristics[case.heuristic]
    res = h.run(inst, scenario, h.default_priority)
    ax = res.plot(instance=inst, scenario=scenario)
    try:
        assert isinstance(ax, matplotlib.axes.Axes)
        assert ax.collections and ax.get_xlabel().startswith("time (")
        assert case.heuristic in ax.get_title(loc="left")
    finally:
        plt.close(ax.figure)


def test_a_solution_plots_on_the_axes_given():
    from matplotlib.figure import Figure

    fam, inst, scenario = CASES[0].load()
    sol = fam.exact["cpsat-scenario"](inst, scenario, time_limit=30)
    ax = Figure().add_subplot()
    assert sol.plot(ax, instance=inst) is ax  # the stored scenario by default
    assert "optimal" in ax.get_title(loc="left")
    assert len(ax.collections) >= 2  # computations and failed attempts


def test_an_invalid_schedule_is_refused_and_nothing_drawn():
    from matplotlib.figure import Figure

    fam, inst, scenario = CASES[0].load()
    res = fam.heuristics["R-LIST-0"].run(inst, scenario, "LPT")
    attempts = list(res.schedule.attempts)
    attempts[0] = replace(attempts[0], p=attempts[0].p + 1)  # more processors than the job's
    bad = HeuristicResult(res.objective, res.heuristic, res.priority,
                          Schedule(tuple(attempts), res.schedule.makespan))
    ax = Figure().add_subplot()
    with pytest.raises(InvalidSchedule):
        bad.plot(ax, instance=inst, scenario=scenario)
    assert not ax.collections and not ax.texts


def test_the_command_refuses_an_invalid_schedule_in_one_line(run, tmp_path, monkeypatch):
    """A heuristic whose schedule fails the validator: exit 1, one line, no picture."""
    from resilsched.registry import get_family

    fam = get_family("rigid")
    h = fam.heuristics["R-LIST-0"]

    def broken(instance, scenario=None, priority=None, *, seed=0, **params):
        res = h.run(instance, scenario, priority, seed=seed, **params)
        first, *rest = res.schedule.attempts
        moved = replace(first, start=first.start + 1, end=first.end + 2)  # too long
        return HeuristicResult(res.objective, res.heuristic, res.priority,
                               Schedule((moved, *rest), res.schedule.makespan))

    monkeypatch.setitem(fam.heuristics, "R-LIST-0", replace(h, run=broken))
    out = tmp_path / "x.png"
    code, stdout, err = run("plot", CASES[0].path, "--heuristic", "R-LIST-0", "--out", out)
    assert code == 1 and stdout == "" and err.count("\n") == 1
    assert err.startswith("error: the schedule fails the family's validator")
    assert not out.exists()


def test_the_portfolio_names_whose_schedule_it_draws():
    """``resilsched.solve`` without a method: the picture names the source of the schedule
    shown (here the heuristic, when the model has no time to find one)."""
    from matplotlib.figure import Figure

    import resilsched

    inst = resilsched.load(CASES[5].path)  # malleable with a failure trace
    sol = resilsched.solve(inst, time_limit=0.2)
    shown = sol.info["portfolio"]["solution"]
    ax = sol.plot(Figure().add_subplot(), instance=inst)
    assert f"{shown} (portfolio): makespan" in ax.get_title(loc="left")
    assert ax.collections


def test_a_desktop_job_is_named_in_its_plan_and_in_its_run():
    """The plan row and the run row of a machine both show which job each rectangle is."""
    from matplotlib.figure import Figure

    import resilsched
    from resilsched.plot.desktop import PLAN_Y, ROW_H, RUN_Y

    inst = resilsched.load(CASES[7].path)  # disturbed desktop instance
    res = resilsched.simulate(inst, "DAslack")
    ax = res.plot(Figure().add_subplot(), instance=inst)
    rows = {round(y, 6): row for y, row in ((PLAN_Y, "plan"), (RUN_Y, "run"))}
    named = {(t.get_text(), rows[round(t.get_position()[1] % 1 - ROW_H / 2, 6)])
             for t in ax.texts}
    jobs = {f"J{j}" for j in range(inst.n)}
    assert named == {(j, row) for j in jobs for row in ("plan", "run")}


def test_front_door_results_remember_what_they_were_computed_on():
    from matplotlib.figure import Figure

    import resilsched

    fam, inst, scenario = CASES[0].load()
    run = resilsched.simulate(inst, "R-LIST-0", scenario)
    ax = run.plot(Figure().add_subplot())
    assert ax.collections and "R-LIST-0" in ax.get_title(loc="left")
    assert "_computed_on" not in run.to_dict() and run == fam.heuristics["R-LIST-0"].run(
        inst, scenario, fam.heuristics["R-LIST-0"].default_priority)
    sol = resilsched.solve(inst, "cpsat-scenario", scenario, time_limit=30)
    assert sol.plot(Figure().add_subplot()).collections
    bare = fam.heuristics["R-LIST-0"].run(inst, scenario, "LPT")
    with pytest.raises(TypeError, match="instance="):
        bare.plot(Figure().add_subplot())
