"""``resilsched plot`` as a user runs it: bad input is one line and exit status 2, before
anything runs and without writing a file; matplotlib missing is one line saying how to install
it; ``--json`` is one object."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.plot.fixtures import EXAMPLES

RIGID = EXAMPLES / "rigid-small.json"


def refused(run, tmp_path, *argv, says=""):
    """Run the command in `tmp_path`; assert one error line (mentioning `says`), exit 2,
    nothing on stdout and no file written."""
    before = set(tmp_path.rglob("*"))
    code, out, err = run("plot", *argv)
    assert code == 2, err
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert says in err, err
    assert set(tmp_path.rglob("*")) == before
    return err


@pytest.mark.parametrize("argv, says", [
    (["--heuristic", "R-LIST-0", "--out", "{tmp}/missing/x.png"], "does not exist"),
    (["--heuristic", "R-LIST-0", "--out", "{tmp}/x.jpg"], "unknown suffix '.jpg'"),
    (["--heuristic", "R-LIST-0", "--out", "{tmp}/x"], "unknown suffix '(none)'"),
    (["--heuristic", "R-LIST-0", "--out", "{tmp}/x.png", "--csv", "{tmp}/x.txt"],
     "unknown suffix '.txt'"),
    (["--heuristic", "R-LIST-0", "--out", "{tmp}/x.png", "--csv", "{tmp}/no/x.csv"],
     "does not exist"),
    (["--heuristic", "R-LIST-0", "--compare", "--out", "{tmp}/x.png"], "--method is missing"),
    (["--method", "cpsat-scenario", "--compare", "--out", "{tmp}/x.png"],
     "--heuristic is missing"),
    (["--heuristic", "R-LIST-0", "--method", "cpsat-scenario", "--out", "{tmp}/x.png"],
     "add --compare"),
    (["--out", "{tmp}/x.png"], "needs --heuristic H or --method M"),
    (["--heuristic", "NOPE", "--out", "{tmp}/x.png"], "NOPE"),
    (["--heuristic", "R-LIST-0", "--priority", "XYZ", "--out", "{tmp}/x.png"], "XYZ"),
    (["--heuristic", "R-LIST-0", "--failures", "9,9", "--out", "{tmp}/x.png"], "failures"),
    (["--heuristic", "R-LIST-0", "--qbar", "nan", "--out", "{tmp}/x.png"], "--qbar"),
    (["--heuristic", "R-LIST-0", "--param", "bogus=1", "--out", "{tmp}/x.png"], "bogus"),
    (["--heuristic", "R-LIST-0", "--seed", "-1", "--out", "{tmp}/x.png"], "--seed"),
    (["--heuristic", "R-LIST-0", "--index", "3", "--out", "{tmp}/x.png"], "out of range"),
    (["--method", "cpsat-scenario", "--time-limit", "inf", "--out", "{tmp}/x.png"],
     "--time-limit"),
])
def test_bad_input_is_one_line(run, tmp_path, argv, says):
    refused(run, tmp_path, RIGID, *[a.format(tmp=tmp_path) for a in argv], says=says)


def test_the_output_cannot_be_a_directory_or_the_input(run, tmp_path):
    refused(run, tmp_path, RIGID, "--heuristic", "R-LIST-0", "--out", tmp_path,
            says="unknown suffix")
    (tmp_path / "d.png").mkdir()
    refused(run, tmp_path, RIGID, "--heuristic", "R-LIST-0", "--out", tmp_path / "d.png",
            says="is a directory")
    copy = tmp_path / "inst.pdf"
    copy.write_text(RIGID.read_text())
    refused(run, tmp_path, copy, "--heuristic", "R-LIST-0", "--out", copy,
            says="is the input file")


def test_family_specific_refusals(run, tmp_path):
    refused(run, tmp_path, EXAMPLES / "coschedule-small.json", "--heuristic", "MAKE-PACK",
            "--failures", "0,1", "--out", tmp_path / "x.png", says="no failure scenarios")
    refused(run, tmp_path, EXAMPLES / "worksharing-small.json", "--heuristic", "greedy",
            "--priority", "LPT", "--out", tmp_path / "x.png", says="takes no priority")
    refused(run, tmp_path, EXAMPLES / "malleable-small.json", "--method", "static-optimal",
            "--out", tmp_path / "x.png", says="not a schedule")


@pytest.mark.parametrize("argv, says", [
    ([EXAMPLES / "online-small.json", "--heuristic", "R-LIST-0"],
     "'online' has no schedule to draw"),
    ([EXAMPLES / "online-small.json", "--method", "online-optimal"],
     "draws the schedules of coschedule, desktop, malleable, moldable, rigid, worksharing"),
    ([RIGID, "--method", "online-optimal", "--qbar", "0.1"], "not a schedule"),
    ([RIGID, "--heuristic", "R-LIST-0", "--method", "online-optimal", "--compare", "--qbar",
      "0.1"], "online-optimal averages over the failure model"),
    ([EXAMPLES / "moldable-small.json", "--method", "online-optimal"], "nothing to draw"),
])
def test_expected_makespans_are_not_drawn(run, tmp_path, argv, says):
    """The online family and the online-optimal model give expectations, not a schedule."""
    refused(run, tmp_path, *argv, "--out", tmp_path / "x.png", says=says)


def test_without_matplotlib_the_command_says_how_to_install_it(run, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    err = refused(run, tmp_path, RIGID, "--heuristic", "R-LIST-0", "--out",
                  tmp_path / "x.png", says="pip install 'resilsched[plot]'")
    assert "matplotlib" in err


def test_json_is_one_object(run, tmp_path):
    code, out, err = run("plot", RIGID, "--heuristic", "R-LIST-0", "--out", tmp_path / "r.svg",
                         "--csv", tmp_path / "r.csv", "--json", "-q")
    assert code == 0, err
    d = json.loads(out)
    assert d["family"] == "rigid" and d["out"] == str(tmp_path / "r.svg")
    assert d["segments"] == sum(1 for _ in open(tmp_path / "r.csv")) - 1
    assert [p["schedule"] for p in d["panels"]] == ["heuristic"]
    assert (tmp_path / "r.svg").read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("suffix, magic", [(".pdf", b"%PDF"), (".png", b"\x89PNG")])
def test_every_format_is_written(run, tmp_path, suffix, magic):
    out = tmp_path / f"m{suffix}"
    code, _, err = run("plot", EXAMPLES / "moldable-small.json", "--heuristic", "LPA-LIST",
                       "--failures", "0,0,0,0", "--out", out, "-q")
    assert code == 0, err
    assert out.read_bytes().startswith(magic)


def test_a_drawn_scenario_is_named_in_the_summary(run, tmp_path):
    code, out, err = run("plot", RIGID, "--heuristic", "R-SHELF-B", "--qbar", "0.5", "--seed",
                         "3", "--out", tmp_path / "q.png", "--json", "-q")
    assert code == 0, err
    assert "drawn at q-bar 0.5 with seed 3" in json.loads(out)["scenario"]


def test_importing_resilsched_loads_no_matplotlib():
    code = "import resilsched, sys; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_a_trace_is_read_with_the_trace_options(run, tmp_path):
    """``--status`` (with ``--P``, ``--cores-per-node``) is taken, as by ``solve`` (audit
    finding 2); an unknown option points at ``resilsched plot --help``."""
    pytest.importorskip("matplotlib")
    trace = EXAMPLES / "rigid-trace.swf"
    code, out, err = run("plot", trace, "--status", "1", "--P", "16", "--heuristic", "R-LIST-0",
                         "--out", tmp_path / "t.png", "--json")
    assert code == 0, err
    assert "with a status (field 11) not in 1" in err and (tmp_path / "t.png").exists()
    err = refused(run, tmp_path, RIGID, "--heuristic", "R-LIST-0", "--out", tmp_path / "x.png",
                  "--bogus", "1", says="unrecognized arguments: --bogus 1")
    assert "(see `resilsched plot --help`)" in err
