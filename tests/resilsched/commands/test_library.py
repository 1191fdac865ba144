"""``library list/verify/path``, ``generate --solve``, ``gap``/``check --library``."""

import json
from pathlib import Path

import pytest

from resilsched.cli import main
from tests.support.library.fixtures import tamper


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_library_list_json(capsys):
    code, out, _ = _run(capsys, "library", "list", "--json")
    rows = {r["name"]: r for r in json.loads(out)["libraries"]}
    assert code == 0 and rows["rigid-small"]["family"] == "rigid"
    assert rows["rigid-small"]["instances"] >= 100
    assert all(r["proven_optimal"] >= 0.9 * r["instances"] for r in rows.values())
    code, out, _ = _run(capsys, "library", "path", "rigid-small")
    assert code == 0 and out.strip().endswith("rigid-small")


def test_generate_solve_writes_certificates_into_metadata_and_manifest(built_library):
    manifest = json.loads((built_library / "manifest.json").read_text())
    assert manifest["count"] == 4 and manifest["proven_optimal"] == 4
    assert manifest["exact"]["method"] == "cpsat-scenario"
    assert manifest["exact"]["options"] == {"deterministic": True, "workers": 1}
    rec = manifest["files"][0]
    assert rec["status"] == "optimal" and isinstance(rec["optimum"], int)
    data = json.loads((built_library / rec["file"]).read_text())
    meta = data["metadata"]
    assert meta["optimum"] == rec["optimum"] == meta["lower_bound"] == meta["upper_bound"]
    assert meta["certificate"]["method"] == "cpsat-scenario"
    assert meta["certificate"]["time_limit"] == 10.0
    assert meta["generated_by"] == {"family": "rigid", "preset": "library", "seed": 5,
                                    "index": 0}
    assert "failures" in data  # the certificate is for this scenario


def test_verify_passes_on_a_good_library(built_library, capsys):
    code, out, err = _run(capsys, "library", "verify", str(built_library), "--json", "-q")
    d = json.loads(out)
    assert code == 0 and d["checked"] == 4 and d["failed"] == 0 and err == ""


def test_verify_fails_loudly_on_a_wrong_optimum(library_copy, capsys):
    rec = tamper(library_copy, 1, optimum=1, lower_bound=1, upper_bound=1)
    code, out, _ = _run(capsys, "library", "verify", str(library_copy), "-q")
    assert code == 1
    assert f"FAILED rigid-tiny/{rec['file']} ({rec['name']}): stored optimum 1" in out
    assert f"stored optimum 1 not reproduced: the re-solve proves the optimum {rec['optimum']}" \
        in out
    assert "sha256 differs" in out  # the file no longer matches its manifest


def test_verify_flags_a_bound_beyond_the_optimum(library_copy, capsys):
    rec = tamper(library_copy, 2, optimum=None, lower_bound=10**6, upper_bound=10**6 + 1,
                 certificate={"status": "feasible", "method": "cpsat-scenario",
                              "time_limit": 10.0,
                              "options": {"deterministic": True, "workers": 1}})
    code, out, _ = _run(capsys, "library", "verify", str(library_copy), "--sample", "4", "-q",
                        "--json")
    [failure] = json.loads(out)["failures"]
    assert code == 1 and failure["file"] == rec["file"]
    assert any(f"stored lower_bound 1000000 is beyond a solution of value {rec['optimum']}" in p
               for p in failure["problems"])


@pytest.mark.parametrize("argv, message", [
    (["library", "verify", "rigid-small", "--sample", "0"], "--sample=0 must be >= 1"),
    (["library", "verify", "nope"], "library='nope' is neither a shipped library"),
    (["library", "verify", "rigid-small", "--time-limit", "-1"], "--time-limit=-1"),
    (["gap", "--library", "rigid-small", "--jobs", "0"], "--jobs=0 must be >= 1"),
    (["gap", "--library", "rigid-small", "--family", "moldable"], "no library of that family"),
    (["generate", "--family", "rigid", "--preset", "library", "--out", "x", "--solve",
      "--method", "nope"], "--method='nope' is unknown"),
    (["generate", "--family", "rigid", "--preset", "library", "--out", "pyproject.toml",
      "--solve"], "--out=pyproject.toml: is a file, not a directory"),
    (["export", "examples/rigid-small.json", "--to", "batsim", "--out", "/nonexistent/w.json"],
     "--out=/nonexistent/w.json: its folder /nonexistent does not exist"),
])
def test_bad_input_is_one_line_and_status_2(capsys, monkeypatch, argv, message):
    monkeypatch.chdir(Path(__file__).resolve().parents[3])  # examples/, pyproject.toml
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_gap_on_a_library_uses_the_certificates_and_resumes_from_its_store(
        built_library, tmp_path, capsys):
    store = tmp_path / "gap.sqlite"
    argv = ["gap", "--library", str(built_library), "--jobs", "1", "--store", str(store),
            "--json"]
    code, out, err = _run(capsys, *argv)
    d = json.loads(out)
    assert code == 0 and d["families"] == ["rigid"] and d["violations"] == 0
    assert len(d["cases"]) == 4 and {c["reference"] for c in d["cases"]} == {"optimal"}
    assert d["libraries"][0]["name"] == "rigid-tiny" and d["resolved"] is False
    assert {h["cases"] for h in d["heuristics"]} == {4}
    assert "tasks to run" in err
    code, again, err = _run(capsys, *argv, "-q")
    d2 = json.loads(again)
    assert code == 0 and err == ""  # everything came from the store, silently
    d.pop("wall_time"), d2.pop("wall_time")
    assert d == d2


def test_gap_resolve_solves_again(built_library, capsys):
    code, out, _ = _run(capsys, "gap", "--library", str(built_library), "--jobs", "1",
                        "--resolve", "--time-limit", "5", "-q", "--json")
    d = json.loads(out)
    assert code == 0 and d["resolved"] is True and d["time_limit"] == 5.0
    assert all(c["status"] == "optimal" for c in d["cases"])


def test_check_on_a_library_gates_on_thresholds_and_on_beaten_optima(
        library_copy, tmp_path, capsys):
    thresholds = tmp_path / "thresholds.json"
    thresholds.write_text(json.dumps({"max_gap": 10.0}))
    base = ["check", "--library", str(library_copy), "--jobs", "1", "-q"]
    code, out, _ = _run(capsys, *base, "--thresholds", str(thresholds))
    assert code == 0 and "check passed" in out
    thresholds.write_text(json.dumps({"rigid": {"R-SHELF-NB": {"max_gap": 0.0}}}))
    code, out, _ = _run(capsys, *base, "--thresholds", str(thresholds), "--json")
    d = json.loads(out)
    assert code == 1 and not d["passed"]
    assert any("R-SHELF-NB" in f and "exceeds the threshold 0.0" in f for f in d["failures"])
    # a wrong "optimum" in a file changed since its manifest: refused, nothing scored
    rec = tamper(library_copy, 0, optimum=10**6, lower_bound=10**6, upper_bound=10**6)
    code, out, err = _run(capsys, *base)
    assert code == 2 and out == "" and f"{rec['file']} ({rec['name']}): sha256 differs" in err
    assert "run resilsched library verify" in err and "--resolve" in err
    # the same lie with the manifest rewritten to match: gap trusts the values (library verify
    # re-derives them), and every heuristic is reported better than the "optimum"
    tamper(library_copy, 0, fix=True)
    code, out, _ = _run(capsys, *base)
    assert code == 1 and "beats the proven optimal 1000000" in out
    code, out, _ = _run(capsys, "library", "verify", str(library_copy), "-q")
    assert code == 1 and "stored optimum 1000000 not reproduced" in out


def test_a_library_without_certificates_needs_resolve(tmp_path, capsys):
    out = tmp_path / "plain"
    assert main(["generate", "--family", "coschedule", "--preset", "library", "--count", "2",
                 "--out", str(out)]) == 0
    code, _, err = _run(capsys, "gap", "--library", str(out), "--jobs", "1", "-q")
    assert code == 2 and "holds no certificates" in err and "--resolve" in err
    code, text, _ = _run(capsys, "gap", "--library", str(out), "--jobs", "1", "-q", "--resolve")
    assert code == 0 and "reference = optimum on 2" in text


def test_every_library_option_says_its_default():
    import argparse

    from resilsched.cli import build_parser

    def parsers(p):
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    yield child
                    yield from parsers(child)

    mine = {"library", "resolve", "store", "jobs", "dask", "solve", "method"}
    seen = 0
    for p in parsers(build_parser()):
        command = p.prog.split()[1]
        for action in p._actions:
            if command in ("gap", "check", "generate") and action.dest not in mine:
                continue  # the options of resilsched.cli, checked by tests/e2e
            if command not in ("library", "export", "gap", "check", "generate"):
                continue
            if action.option_strings and action.dest not in ("help", "version"):
                seen += 1
                assert action.help and ("default" in action.help or "required" in action.help), \
                    (p.prog, action.option_strings)
    assert seen > 25
