"""The CLI as a user drives it on rigid instances: JSON contracts, errors, exit statuses."""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from resilsched.solution import SHOWN_LINES

DATA = Path(__file__).resolve().parents[1] / "support" / "rigid" / "data"


def test_solve_json_contract(run, rigid_file):
    code, out, err = run("solve", rigid_file, "--json")
    assert code == 0, err
    d = json.loads(out)
    for key in ("objective", "bound", "status", "method", "wall_time", "solution"):
        assert key in d
    assert d["status"] == "optimal"
    assert d["failures"] == [0, 2, 1, 0]
    assert Fraction(str(d["objective"])) == Fraction(str(d["bound"]))
    assert len(d["solution"]["schedule"]["attempts"]) == 4 + 3


def test_solve_failures_override_and_failure_free_model_agree(run, rigid_file):
    _, out, _ = run("solve", rigid_file, "--failures", "0,0,0,0", "--json")
    _, out2, _ = run("solve", rigid_file, "--method", "cpsat-failure-free", "--json")
    assert json.loads(out)["objective"] == json.loads(out2)["objective"]


def test_simulate_json_contract_and_priority(run, rigid_file):
    code, out, err = run(
        "simulate", rigid_file, "--heuristic", "r-list-0", "--priority", "la", "--json"
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["heuristic"] == "R-LIST-0" and d["priority"] == "LA"
    assert d["objective"] is not None and "solution" in d
    code, out, _ = run(
        "simulate", rigid_file, "--heuristic", "R-SHELF-B", "--qbar", "0.3", "--seed", "7", "--json"
    )
    assert code == 0 and len(json.loads(out)["failures"]) == 4


def test_params_reach_the_heuristic_and_the_model(run, rigid_file):
    """``--param`` names the heuristic's keyword arguments and the model's options."""
    code, out, err = run("simulate", rigid_file, "--heuristic", "R-LIST-1", "--param",
                         "classic_easy=true", "--param", "ljf_secondary=SPT", "--priority",
                         "LJF", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["params"] == {"classic_easy": True, "ljf_secondary": "SPT"}
    code, _, err = run("simulate", rigid_file, "--heuristic", "R-LIST-0", "--param",
                       "classic_easy=true")
    assert code == 2 and "not a parameter of R-LIST-0" in err and "\n" not in err.strip()
    code, out, err = run("solve", rigid_file, "--param", "refute_share=0.5", "--param",
                         "deterministic=true", "--param", "forbidden_set_size=0", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "optimal"
    code, _, err = run("solve", rigid_file, "--param", "refute_share=1.5")
    assert code == 2 and "refute_share" in err


def test_reservation_mode_reaches_r_list_and_is_listed(run, tmp_path):
    """``--param reservations=fixed`` (issue 14): the hand example of
    tests/heuristics/rigid/test_rlist_fixed_reservations.py, makespan 11 fixed against 10 fresh."""
    path = tmp_path / "fixed.json"
    path.write_text(json.dumps({"family": "rigid", "format_version": 1, "P": 2,
                                "jobs": [{"p": 1, "t": 5}, {"p": 1, "t": 6}, {"p": 1, "t": 2}],
                                "failures": [1, 0, 0]}))
    objectives = {}
    for mode in ("fresh", "persistent", "fixed"):
        code, out, err = run("simulate", path, "--heuristic", "R-LIST-Q", "--priority", "HPA",
                             "--param", f"reservations={mode}", "--json")
        assert code == 0, err
        objectives[mode] = json.loads(out)["objective"]
    assert objectives == {"fresh": 10, "persistent": 10, "fixed": 11}
    code, _, err = run("simulate", path, "--heuristic", "R-LIST-1", "--param",
                       "reservations=sticky")
    assert code == 2 and "reservations" in err and "\n" not in err.strip()
    code, out, _ = run("list", "--family", "rigid")
    assert code == 0 and "reservations=fresh (fresh|persistent|fixed)" in out


def test_list_names_what_solve_method_takes(run):
    """cpsat-merged is an upper bound, not an exact model: the list names what ``solve
    --method`` takes, each described for what it computes."""
    code, out, _ = run("list", "--family", "rigid")
    assert code == 0
    assert "  method    cpsat-merged: merged-job shortcut: an UPPER bound" in out
    assert "exact     " not in out


def test_text_output_is_readable(run, rigid_file):
    code, out, _ = run("solve", rigid_file)
    assert code == 0 and "status optimal" in out and "attempt" in out


def test_solve_shows_the_first_lines_of_a_long_schedule(run, tmp_path):
    """25 one-attempt jobs: the text shows SHOWN_LINES of them and counts the rest; -v and
    --json give the whole schedule."""
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"family": "rigid", "format_version": 1, "P": 2,
                                "jobs": [{"p": 1, "t": 1 + j % 3} for j in range(25)]}))
    code, out, _ = run("solve", path, "--time-limit", "5", "-q")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 1 + SHOWN_LINES + 1
    assert lines[-1] == f"  ... and {25 - SHOWN_LINES} more lines"
    code, out, _ = run("solve", path, "--time-limit", "5", "-q", "-v")
    assert code == 0 and len(out.splitlines()) == 1 + 25 and "more lines" not in out
    code, out, _ = run("solve", path, "--time-limit", "5", "-q", "--json")
    assert code == 0 and len(json.loads(out)["solution"]["attempts"]) == 25


@pytest.mark.parametrize(
    "argv, message",
    [
        (("simulate", "{f}", "--heuristic", "NOPE"), "--heuristic='NOPE' is unknown"),
        (
            ("simulate", "{f}", "--heuristic", "R-LIST-0", "--priority", "XYZ"),
            "--priority='XYZ' is unknown",
        ),
        (
            ("solve", "{f}", "--failures", "0,1"),
            "failures: has 2 entries but the instance has 4 jobs",
        ),
        (("solve", "{f}", "--failures", "0,1,-1,0"), "failures[2]=-1 must be >= 0"),
        (("solve", "{f}", "--method", "nope"), "--method='nope' is unknown"),
        (("solve", "{f}", "--time-limit", "0"),
         "--time-limit=0.0 must be a finite number of seconds"),
        (("solve", "{f}", "--index", "3"), "--index=3 is out of range"),
        (("solve", "missing.json"), "missing.json: no such file"),
        (("gap", "--family", "nope"), "--family='nope' is unknown"),
        (("list", "--family", "nope"), "--family='nope' is unknown"),
        (("generate", "--family", "nope", "--preset", "x", "--out", "{f}.d"),
         "--family='nope' is unknown"),
        (("gap", "--heuristic", "NOPE"), "--heuristic='NOPE' is unknown"),
        (("gap", "--library", "nope"), "--library='nope' is neither a shipped library"),
        (("gap", "--library", "rigid-small", "--family", "desktop"),
         "--family='desktop': no library of that family"),
    ],
)
def test_bad_input_is_one_line_exit_2(run, rigid_file, argv, message):
    code, out, err = run(*[a.format(f=rigid_file) for a in argv])
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    "content, message",
    [
        (
            '{"family": "rigid", "format_version": 1, "P": 4, "jobs": [{"p": 5, "t": 1}]}',
            "jobs[0].p=5 exceeds P=4",
        ),
        (
            '{"family": "rigid", "format_version": 1, "P": 4, "jobs": [{"p": 1, "t": 0}]}',
            "jobs[0].t=0 must be > 0",
        ),
        (
            '{"family": "rigid", "format_version": 1, "P": 4, "jobs": [{"p": 1}]}',
            "jobs[0].t: is required",
        ),
        (
            '{"family": "rigid", "format_version": 2, "P": 4, "jobs": [{"p": 1, "t": 1}]}',
            "format_version=2",
        ),
        ('{"family": "rigid", "P": "four", "jobs": []}', "P='four' must be a positive integer"),
        ('{"family": "nope", "P": 4}', "family='nope' is unknown"),
        ('{"P": 4, "jobs": [', "is not valid JSON"),
    ],
)
def test_bad_instance_files(run, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, _, err = run("solve", path)
    assert code == 2 and message in err and err.count("\n") == 1


def test_generate_is_deterministic_with_manifest(run, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    argv = ("generate", "--family", "rigid", "--preset", "smoke", "--seed", "3", "--count", "2")
    assert run(*argv, "--out", a)[0] == 0
    code, out, _ = run(*argv, "--out", b, "--json")
    manifest = json.loads(out)
    assert code == 0 and manifest["count"] == 2 and manifest["seed"] == 3
    for f in manifest["files"]:
        assert (a / f["file"]).read_bytes() == (b / f["file"]).read_bytes()
    # generated files load back and solve
    code, out, _ = run("solve", b / manifest["files"][0]["file"], "--json")
    assert code == 0 and json.loads(out)["status"] == "optimal"


def test_gap_rigid_json_reports_every_heuristic_and_priority(run):
    code, out, err = run("gap", "--family", "rigid", "--json", "--quiet")
    assert code == 0, err
    d = json.loads(out)
    labels = {(h["heuristic"], h["priority"]) for h in d["heuristics"]}
    assert ("R-LIST-0", "LA") in labels and ("R-SHELFFILL-NB", "Random") in labels
    assert len(labels) == 7 * 8
    assert d["violations"] == 0
    for h in d["heuristics"]:
        assert h["cases"] >= 1 and 0 <= h["mean_gap"] <= h["max_gap"]
    assert all(c["reference"] == "optimal" for c in d["cases"])


def test_check_thresholds(run, tmp_path):
    strict = tmp_path / "strict.json"
    strict.write_text(json.dumps({"rigid": {"R-SHELF-NB": {"max_gap": 0.0}}}))
    code, out, _ = run("check", "--family", "rigid", "--thresholds", strict, "--json", "-q")
    d = json.loads(out)
    assert code == 1 and not d["passed"] and any("R-SHELF-NB" in f for f in d["failures"])
    loose = tmp_path / "loose.json"
    loose.write_text(json.dumps({"max_gap": 10.0}))
    code, out, _ = run("check", "--family", "rigid", "--thresholds", loose, "-q")
    assert code == 0 and "check passed" in out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"rigid": {"max_gap": "big"}}))
    code, _, err = run("check", "--family", "rigid", "--thresholds", bad, "-q")
    assert code == 2 and "rigid.max_gap='big' must be a number >= 0" in err


def test_swf_trace_solve_and_simulate(run):
    swf = sorted(DATA.glob("*.swf"))
    assert swf, "the SWF fixture is missing"
    code, out, err = run("simulate", swf[0], "--heuristic", "R-LIST-0", "--index", "0", "--json")
    assert code == 0, err
    assert json.loads(out)["objective"] > 0
    code, out, err = run("solve", swf[0], "--index", "0", "--time-limit", "5", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] in ("optimal", "feasible")


def test_console_script_help_has_examples():
    for cmd in ([], ["gap"], ["check"], ["solve"], ["simulate"], ["generate"], ["list"]):
        res = subprocess.run(
            [sys.executable, "-m", "resilsched", *cmd, "--help"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "examples:" in res.stdout


def test_the_failure_free_model_says_that_it_ignores_the_scenario(run, rigid_file):
    """The stored failures are not used by cpsat-failure-free: a note says so on standard
    error, the JSON keeps its keys (audit finding 6); no note without failures."""
    code, out, err = run("solve", rigid_file, "--method", "cpsat-failure-free", "-q")
    assert code == 0, err
    assert err == ("note: cpsat-failure-free does not use the failure scenario (the instance's "
                   "stored failures: 3 failed attempts of 2 jobs); it gives the failure-free "
                   "optimum\n")
    code, out, err = run("solve", rigid_file, "--method", "cpsat-failure-free", "--failures",
                         "1,0,0,0", "--json", "-q")
    assert code == 0 and "(--failures: 1 failed attempt of 1 job)" in err
    assert json.loads(out)["failures"] == [1, 0, 0, 0]
    code, out, err = run("solve", rigid_file, "--method", "cpsat-failure-free", "--failures",
                         "0,0,0,0", "-q")
    assert code == 0 and err == ""
