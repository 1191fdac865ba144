"""Issue 27's look inside BATCH-LIST: ``reproduce moldable --batch-eps / --batch-eps2`` (M30).

The default tasks keep their keys (no eps field, so stored results stay valid); a changed eps
reaches BATCH-LIST and nothing else; out-of-range values are one-line refusals."""

from __future__ import annotations

import pytest

from resilsched.reproduce.moldable.experiments import DEFAULT, Config, run_set, set_tasks

COMBOS = (("BATCH", "LPT"), ("LPA", "LPT"))


def test_default_tasks_keep_their_keys():
    plain = set_tasks("mix", DEFAULT, 1, 3, 2021, COMBOS)[0].payload
    assert "eps" not in plain and "eps2" not in plain
    same = set_tasks("mix", DEFAULT, 1, 3, 2021, COMBOS, eps=0.3, eps2=0.03)[0].payload
    assert same == plain


def test_eps_reaches_batch_list_only():
    cfg = Config(300, 40, 1e-6)
    plain = set_tasks("mix", cfg, 1, 4, 2021, COMBOS)[0].payload
    coarse = set_tasks("mix", cfg, 1, 4, 2021, COMBOS, eps=1.0, eps2=0.5)[0].payload
    assert (coarse["eps"], coarse["eps2"]) == (1.0, 0.5)
    a, b = run_set(plain), run_set(coarse)
    assert a["LPA/LPT"] == b["LPA/LPT"]
    assert a["BATCH/LPT"] != b["BATCH/LPT"]


@pytest.mark.parametrize("option, value, message", [
    ("--batch-eps", "2", "2.0 must be in [0.05, 1] (BATCH-LIST's eps)"),
    ("--batch-eps", "nan", "nan must be in [0.05, 1] (BATCH-LIST's eps)"),
    ("--batch-eps2", "x", "'x' is not a number"),
    ("--batch-eps2", "0", "0.0 must be in [0.001, 1] (BATCH-LIST's eps2)"),
])
def test_batch_eps_errors_are_one_line(capsys, option, value, message):
    from resilsched.reproduce.moldable import main

    with pytest.raises(SystemExit) as exc:
        main([option, value], prog="rm")
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"rm: error: argument {option}: {message}")
    assert captured.err.count("\n") == 1


def test_the_documented_command_runs_reduced(tmp_path, capsys):
    """The page's command (docs/reproduction/moldable.md, "The generator hypothesis") at 1 set x
    2 scenarios: the header names the eps2 used, the lambda sweep has its BATCH row."""
    from resilsched.reproduce.moldable import main

    argv = ["--models", "mix", "--algos", "BATCH", "--no-table", "--sweeps", "--grids",
            "lambda", "--sweep-sets", "1", "--sweep-scenarios", "1", "--pn-sets", "1",
            "--pn-scenarios", "1", "--point-size", "lambda=1e-6:1x2", "--batch-eps2", "0.3",
            "--no-plots", "--jobs", "1", "--out", str(tmp_path)]
    assert main(argv, prog="rm") == 0
    out = capsys.readouterr().out
    assert "BATCH: eps=0.3, eps2=0.3, area_slack=1.1" in out.splitlines()[0]
    assert any(line.startswith("| mix | BATCH |") for line in out.splitlines())
    assert (tmp_path / "summary.md").read_text().startswith(out.splitlines()[0])
