"""``resilsched reproduce FAMILY [OPTIONS...]`` (docs/architecture.md, "CLI details").

The options after FAMILY go to that family's reproduction (`resilsched.reproduce`), whose help,
errors and exit status (0, 2, 130) come through unchanged; an unknown family is the CLI's usual
one-line error. The reproductions' own numbers are tested in tests/resilsched/reproduce/ and
tests/resilsched/campaign/test_init.py; here only the command around them.
"""

from __future__ import annotations

import csv
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from resilsched.cli import main
from resilsched.registry import reproductions
from resilsched.reproduce import rigid as reproduce_rigid

REPRODUCTIONS = sorted(reproductions())


def load(family):
    return importlib.import_module(f"resilsched.reproduce.{family}")

ROOT = Path(__file__).resolve().parents[3]

#: the smallest rigid run: Fig. 4 only, one job set, two scenarios, no plots, inline (< 1 s)
TINY_RIGID = ["--sets", "1", "--scenarios", "2", "--qbars", "0,0.3", "--Ps", "5000,10000",
              "--only", "fig4", "--no-plots", "--jobs", "1"]


def _words(text: str) -> str:
    """`text` with its line breaks and runs of spaces folded (argparse wraps descriptions)."""
    return " ".join(text.split())


def test_help_explains_the_command(capsys):
    assert main(["reproduce", "--help"]) == 0  # main returns the status (decision T12)
    out = capsys.readouterr().out
    assert out.startswith("usage: resilsched reproduce [-h] [--json] FAMILY")
    for family in ("rigid", "moldable", "worksharing"):
        assert family in out
    assert "examples:" in out and "resilsched reproduce rigid" in out
    assert "campaign.sqlite" in out  # it says that reruns resume


def test_top_level_help_lists_reproduce(capsys):
    assert main(["--help"]) == 0
    assert "reproduce" in capsys.readouterr().out


@pytest.mark.parametrize("family", sorted(REPRODUCTIONS))
def test_family_help_is_the_reproductions_own(run, family):
    code, out, err = run("reproduce", family, "--help")
    assert code == 0, err
    assert out.startswith(f"usage: resilsched reproduce {family} [-h]")
    assert "--store" in out and "--fresh" in out and "--jobs" in out  # campaign options
    assert _words(load(family).__doc__.splitlines()[0]) in _words(out)  # its description


def test_family_name_is_case_insensitive(run):
    code, out, _ = run("reproduce", "Rigid", "--help")
    assert code == 0 and out.startswith("usage: resilsched reproduce rigid ")


def test_unknown_family_is_one_line_and_exit_2(run):
    code, out, err = run("reproduce", "nosuchfamily", "--sets", "1")
    assert code == 2 and out == ""
    assert err == (f"error: family='nosuchfamily' is unknown (choose from "
                   f"{', '.join(sorted(REPRODUCTIONS))})\n")


def test_bad_option_of_the_family_exits_2_with_its_message(run):
    code, _, err = run("reproduce", "rigid", "--only", "fig9")
    assert code == 2
    assert err.splitlines()[-1] == "resilsched reproduce rigid: error: --only: unknown ['fig9']"
    assert "Traceback" not in err
    code, _, err = run("reproduce", "worksharing", "e9")
    assert code == 2 and "resilsched reproduce worksharing: error: argument what" in err


def test_tiny_rigid_run_writes_csv_prints_summary_and_resumes(run, tmp_path, monkeypatch):
    out = tmp_path / "rigid"
    code, stdout, err = run("reproduce", "rigid", *TINY_RIGID, "--out", out)
    assert code == 0, err
    assert "Fig. 4(a) (LPT, P = 10000)" in stdout and "Claims (spec §9)" in stdout
    assert stdout.strip() == (out / "summary.md").read_text().strip()
    with (out / "synthetic.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    # 4 shelf heuristics x the points of Fig. 4: (0, 10000), (0.3, 10000), (0.3, 5000)
    assert len(rows) == 4 * 3
    assert {r["heuristic"] for r in rows} == {"R-SHELF-B", "R-SHELF-NB", "R-SHELFFILL-B",
                                              "R-SHELFFILL-NB"}
    assert all(float(r["mean"]) >= 1 - 1e-9 for r in rows)  # T >= L(f)
    assert "[synthetic] 4 tasks to run (inline), 0 already stored" in err
    first = (out / "synthetic.csv").read_text()
    # the same command again takes every result from the campaign store: no simulation
    calls = []
    monkeypatch.setattr(reproduce_rigid, "run_task", lambda task: calls.append(task) or [])
    code, stdout2, err = run("reproduce", "rigid", *TINY_RIGID, "--out", out)
    assert code == 0, err
    assert calls == []
    timeless = lambda s: [x for x in s.splitlines() if not x.startswith("Wall time")]  # noqa: E731
    assert timeless(stdout2) == timeless(stdout)
    assert (out / "synthetic.csv").read_text() == first
    # another configuration in the same store: the campaign's one-line error, exit status 2
    code, _, err = run("reproduce", "rigid", *TINY_RIGID, "--scenarios", "3", "--out", out)
    assert code == 2
    assert err.splitlines()[-1].startswith(
        "resilsched reproduce rigid: error: campaign 'rigid-synthetic'")


def test_json_wraps_the_summary_in_one_object(run, tmp_path):
    import json

    code, stdout, err = run("reproduce", "--json", "rigid", *TINY_RIGID, "--out", tmp_path)
    assert code == 0, err
    obj = json.loads(stdout)  # exactly one JSON object on stdout
    assert obj["family"] == "rigid" and obj["exit_status"] == 0
    assert obj["output"].strip() == (tmp_path / "summary.md").read_text().strip()
    code, stdout, _ = run("reproduce", "--json", "rigid", "--only", "fig9")
    assert code == 2 and json.loads(stdout)["exit_status"] == 2


def test_ctrl_c_gives_exit_status_130(run, tmp_path, monkeypatch):
    def interrupted(task):
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce_rigid, "run_task", interrupted)
    code, _, err = run("reproduce", "rigid", *TINY_RIGID, "--out", tmp_path)
    assert code == 130
    assert "interrupted: 0/4 tasks stored" in err


def test_runs_without_matplotlib_when_plots_are_off(run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    code, _, err = run("reproduce", "rigid", *TINY_RIGID, "--out", tmp_path)
    assert code == 0, err
    assert (tmp_path / "synthetic.csv").exists()


def test_matplotlib_is_imported_only_for_plots():
    code = ("import sys, resilsched.cli, resilsched.reproduce.rigid, "
            "resilsched.reproduce.moldable, resilsched.reproduce.worksharing; "
            "print('matplotlib' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert res.stdout.strip() == "False"


@pytest.mark.parametrize("family", sorted(REPRODUCTIONS))
def test_scripts_are_wrappers_of_the_same_program(family):
    script = ROOT / "scripts" / f"reproduce_{family}.py"
    res = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    assert res.stdout.startswith(f"usage: reproduce_{family}.py [-h]")
    assert _words(load(family).__doc__.splitlines()[0]) in _words(res.stdout)
