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
