"""The reproduction: outputs, resumption, bad options (the full-size run is a slow test)."""

from __future__ import annotations

import csv

import pytest

from resilsched.reproduce.malleable import main


def test_small_reproduction_writes_and_resumes(tmp_path, capsys):
    argv = ["--figures", "1.7,f", "--scale", "50", "--reps", "2", "--no-plots", "--no-sanity",
            "--jobs", "1", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = (tmp_path / "summary.md").read_text()
    rows = list(csv.DictReader(open(tmp_path / "fig1_7.csv")))
    assert {r["method"] for r in rows} >= {"NOREDIST", "ENDGREEDY-IG", "FF-ENDGREEDY"}
    assert all(r["method"] != "NOREDIST" or float(r["ratio"]) == 1.0 for r in rows)
    assert "| R4 |" in first and "| R5 |" in first
    capsys.readouterr()
    assert main(argv) == 0  # resumed: nothing to run, same summary up to the timing line
    err = capsys.readouterr().err
    assert "tasks to run" not in err
    again = (tmp_path / "summary.md").read_text()
    assert again.splitlines()[1:] == first.splitlines()[1:]


@pytest.mark.parametrize("argv", [["--figures", "1.9"], ["--reps", "1"], ["--scale", "0"],
                                  ["--reps", "99999999999"], ["--scale", "1e9"],
                                  ["--seed", "-1"], ["--jobs", "0"], ["--figures", ","]])
def test_bad_options_exit_2(argv, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_scaled_reproduction_with_plots(tmp_path):
    assert main(["--scale", "20", "--reps", "2", "--jobs", "1", "--out", str(tmp_path)]) == 0
    for name in ("fig1_4", "fig1_5", "fig1_6", "fig1_7", "figf"):
        assert (tmp_path / f"{name}.csv").exists() and (tmp_path / f"{name}.png").exists()
    assert (tmp_path / "sanity.csv").exists()


def test_shrinks_counts_phases_on_fewer_processors():
    from resilsched.reproduce.malleable_checks import shrinks

    phases = [(0, 0, 0, 4), (1, 0, 0, 2), (0, 5, 5, 6), (0, 9, 9, 2), (1, 9, 9, 2), (1, 12, 12, 1)]
    assert shrinks(phases) == 2


@pytest.mark.parametrize("check, words", [
    ("r1-cause", ("fluid", "caps the gain of every schedule at", "RC ~ 0 (c = 1e-12)")),
    ("r3-rule", ("strict_step", "ratio of means at", "lookahead_pool faulty_only"))])
def test_checks_run_and_resume(check, words, tmp_path, capsys):
    argv = ["--only", check, "--scale", "50", "--reps", "2", "--jobs", "1", "--out",
            str(tmp_path)]
    assert main(argv) == 0
    first = capsys.readouterr()
    for w in words:
        assert w in first.out, w
    assert (tmp_path / f"{check.replace('-', '_')}.txt").read_text() == first.out
    assert main(argv) == 0
    again = capsys.readouterr()
    assert again.out == first.out and "tasks to run" not in again.err


def test_r1_check_runs_are_the_figure_runs(tmp_path, capsys):
    """The check reads Fig. 1.4's instances: its ENDLOCAL ratio is the figure's."""
    from resilsched.reproduce.malleable_checks import check_tasks, run_check

    task = check_tasks("r1-cause", 2, 2016, 50)[0]
    res = run_check(task.payload)
    assert res["fluid"] <= min(res["makespan"].values()) + 1e-6  # the bound holds
    assert res["shrinks"]["FF-ENDLOCAL"] == 0
    assert main(["--figures", "1.4", "--scale", "50", "--reps", "2", "--jobs", "1", "--no-plots",
                 "--no-sanity", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader(open(tmp_path / "fig1_4.csv")))
    row = next(r for r in rows if r["method"] == "FF-ENDLOCAL" and r["x"] == "2000")
    res2 = run_check(check_tasks("r1-cause", 2, 2016, 50)[1].payload)
    ratio = ((res["makespan"]["FF-ENDLOCAL"] + res2["makespan"]["FF-ENDLOCAL"])
             / (res["makespan"]["FF-NOREDIST"] + res2["makespan"]["FF-NOREDIST"]))
    assert float(row["ratio"]) == pytest.approx(ratio, rel=1e-5)


def test_bad_check_is_one_line(tmp_path, capsys):
    assert main(["--only", "r2", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "argument --only: invalid choice: 'r2'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_checks_scaled(tmp_path, capsys):
    """Both checks at 1/10 of the paper's size: the fluid cap holds and is below 1."""
    for check in ("r1-cause", "r3-rule"):
        assert main(["--only", check, "--scale", "10", "--reps", "3", "--jobs", "1", "--out",
                     str(tmp_path)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("2000 "))
    assert 0.5 < float(row.split()[1]) < 1
