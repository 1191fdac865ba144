"""Bad input at the command line is a one-line refusal (exit 2), never a traceback, a hang or a
silent wrong answer (issue 10): one test per class the fuzzer (scripts/fuzz_cli.py) found."""

import json
from pathlib import Path

import pytest

from resilsched.cli import build_parser
from resilsched.instances.failures import MAX_ATTEMPTS

ROOT = Path(__file__).resolve().parents[2]
RIGID = json.loads((ROOT / "examples" / "rigid-small.json").read_text())
COSCHEDULE = json.loads((ROOT / "examples" / "coschedule-small.json").read_text())
WORKSHARING = json.loads((ROOT / "examples" / "worksharing-small.json").read_text())
MOLDABLE = json.loads((ROOT / "examples" / "moldable-small.json").read_text())
DESKTOP = json.loads((ROOT / "examples" / "desktop-small.json").read_text())
MALLEABLE = json.loads((ROOT / "examples" / "malleable-small.json").read_text())


def refused(run, *argv, message=""):
    code, out, err = run(*argv)
    assert code == 2, (code, out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    assert message in err, err
    return err


def write(tmp_path, data, name="inst.json"):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else
                     (data if isinstance(data, str) else json.dumps(data)).encode())
    return path


@pytest.mark.parametrize(("data", "message"), [
    (b'{"family": "rigid", "P": 4\xff}', "is not UTF-8 text (byte 0xff at offset 26)"),
    (b"[" * 100_000 + b"]" * 100_000, "nests arrays/objects too deeply"),
    (json.dumps({**RIGID, "metadata": {"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
        [[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}),
     "levels deep (at most 64)"),
    (b"", "is not valid JSON"),
    (json.dumps(RIGID).replace('"P": 4', '"P": NaN'), "NaN is not a JSON number"),
    (json.dumps(RIGID).replace('"P": 4', '"P": 1' + "0" * 5000), "4300 digits"),
    (json.dumps(RIGID).replace('"name": "rigid-small"', '"name": Infinity'),
     "Infinity is not a JSON number"),
])
def test_unreadable_files(run, tmp_path, data, message):
    refused(run, "solve", write(tmp_path, data), message=message)


def test_a_directory_a_missing_file_and_an_unknown_suffix(run, tmp_path):
    refused(run, "solve", tmp_path, message="is a directory")
    refused(run, "simulate", tmp_path / "nope.json", "--heuristic", "R-LIST-0",
            message="no such file")
    refused(run, "solve", write(tmp_path, RIGID, "inst.txt"), message="suffix '.txt'")


@pytest.mark.parametrize(("doc", "message"), [
    ({**RIGID, "failures": -1}, "failures=-1 must be a list"),
    ({**RIGID, "failures": ["5", 0, 0, 0]}, "failures[0]='5' is not an integer"),
    ({**RIGID, "failures": [1e29, 0, 0, 0]}, "exceed the maximum of 100000 attempts"),
    ({**RIGID, "failures": [60000, 60000, 0, 0]}, "attempts in all (at most 100000)"),
    ({**RIGID, "metadata": 5}, "metadata=5 must be a JSON object"),
    ({**RIGID, "P": 1e308}, "P=1e+308 exceeds the maximum 10000000"),
    ({**RIGID, "jobs": [{"p": 1, "t": 1e300}], "failures": None},
     "jobs[0].t=1e+300 exceeds the maximum 1e+12"),
    ({**WORKSHARING, "workers": 1e308}, "workers=1e+308 exceeds the maximum 1000"),
    ({**WORKSHARING, "metadata": 5}, "metadata=5 must be a JSON object"),
    ({**WORKSHARING, "max_chunks": 10**9}, "max_chunks=1000000000 exceeds the maximum"),
    ({**COSCHEDULE, "tasks": [{"model": "synthetic", "m": 1e308}]}, "tasks[0].m=1e+308"),
    ({**COSCHEDULE, "cap": "no"}, "cap='no' must be true or false"),
    ({**COSCHEDULE, "p": 10**6, "k": 2}, "make a table of 5000000 entries"),
    ({**MOLDABLE, "P": 10**7}, "make a time table of 40000000 entries"),
    ({**MOLDABLE, "jobs": [{"model": "communication", "w": 1e12, "c": 1e12}], "P": 2 * 10**6,
      "failures": None}, "beyond 1e+18"),
    ({**MOLDABLE, "lambda": 1e308}, "lambda=1e+308 must be a finite number >= 0"),
    ({**MOLDABLE, "lambda": None}, "lambda=null must be a finite number >= 0"),
    ({**DESKTOP, "metadata": 1e29}, "metadata=1e+29 must be a JSON object"),
    ({**MALLEABLE, "metadata": [1]}, "metadata=[1] must be a JSON object"),
])
def test_fields_of_the_wrong_type_or_size(run, tmp_path, doc, message):
    refused(run, "solve", write(tmp_path, doc), "--time-limit", "1", message=message)


def test_derived_times_that_overflow_are_refused_at_construction():
    from resilsched.errors import InvalidInstance
    from resilsched.instances.coschedule import CoscheduleInstance

    with pytest.raises(InvalidInstance, match=r"tasks\[0\].t\[0\]=inf is beyond 1e\+18"):
        CoscheduleInstance(p=2, k=1, times=((float("inf"), 5.0),))


@pytest.mark.parametrize(("argv", "message"), [
    (("--seed", "-1"), "argument --seed: -1 must be in [0, 9223372036854775807]"),
    (("--seed", str(2**64)), "must be in [0, 9223372036854775807]"),
    (("--qbar", "nan"), "argument --qbar: nan must be in [0, 1]"),
    (("--qbar", "1.5"), "argument --qbar: 1.5 must be in [0, 1]"),
    (("--qbar", "1"), "qbar=1.0 must be a number in [0, 1)"),  # the rigid family's own range
    (("--qbar", "inf"), "argument --qbar"),
    (("--index", "-1"), "argument --index: -1 must be in [0, 1000000000]"),
    (("--time-limit", "nan"), "--time-limit=nan must be a finite number of seconds"),
    (("--time-limit", "inf"), "--time-limit=inf"),
    (("--time-limit", "1e-6"), "--time-limit=1e-06"),
    (("--failures", "0,2,1,x"), "failures[3]='x' is not an integer"),
    (("--failures", "1e29,0,0,0"), "failures[0]='1e29' is not an integer"),
    (("--failures", "99999999999999999999,0,0,0"), "failures[0]=99999999999999999999 failures"),
    (("--P", "8"), "--P: applies to trace files (.swf)"),
    (("--cores-per-node", "0"), "argument --cores-per-node: 0 must be in [1, 10000000]"),
    (("--qbar", "0.999999"), "expected attempts"),
    (("--priority", ""), "--priority='' is unknown"),
    (("--seed",), "argument --seed: expected one argument"),
])
def test_options_out_of_range(run, tmp_path, argv, message):
    path = write(tmp_path, RIGID)
    if argv[0] == "--time-limit":
        refused(run, "solve", path, *argv, message=message)
    else:
        refused(run, "simulate", path, "--heuristic", "R-LIST-0", *argv, message=message)


@pytest.mark.parametrize("argv", [("--store", "x.sqlite"), ("--dask", "local"),
                                  ("--jobs", "2"), ("--resolve",)])
def test_gap_options_of_a_library_run_are_refused_without_library(run, tmp_path, argv):
    # they were ignored: the smoke suite is solved in this process, and nothing was stored
    argv = [str(tmp_path / a) if a.endswith(".sqlite") else a for a in argv]
    refused(run, "gap", "--family", "rigid", *argv,
            message=f"{argv[0]}: applies with --library only")
    assert not (tmp_path / "x.sqlite").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (("--count", "100000"), "argument --count: 100000 must be in [1, 10000]"),
    (("--count", "0"), "argument --count: 0 must be in [1, 10000]"),
    (("--seed", "-3"), "argument --seed"),
])
def test_generate_options(run, tmp_path, argv, message):
    refused(run, "generate", "--family", "rigid", "--preset", "smoke", "--out", tmp_path / "o",
            *argv, message=message)


def test_generate_output_that_is_a_file_or_cannot_be_made(run, tmp_path):
    (tmp_path / "taken").write_text("x")
    base = ("generate", "--family", "rigid", "--preset", "smoke", "--count", "1")
    refused(run, *base, "--out", tmp_path / "taken", message="is a file, not a directory")
    refused(run, *base, "--out", tmp_path / "taken" / "sub", message="cannot be created")
    code, _, err = run(*base, "--out", tmp_path / "new" / "deep")
    assert code == 0 and (tmp_path / "new" / "deep" / "manifest.json").exists(), err


@pytest.mark.parametrize(("text", "message"), [
    ('{"max_gap": NaN}', "NaN is not a JSON number"),
    ('{"rigid": {"max_gap": Infinity}}', "Infinity is not a JSON number"),
    ('{"mean_gap": -0.1}', "mean_gap=-0.1 must be a number >= 0"),
    ('{"rigdi": {"max_gap": 0.5}}', "rigdi: is not a threshold key here"),
    ('{"rigid": {"R-LIST-9": {"max_gap": 0.5}}}', "rigid.R-LIST-9: is not a threshold key"),
    ('{"rigid": {"R-LIST-0/XX": {"max_gap": 0.5}}}', "R-LIST-0/XX: is not a threshold key"),
    ('{"max_gapp": 0.5}', "max_gapp: is not a threshold key"),
    ("[1, 2]", "must hold a JSON object of thresholds"),
])
def test_threshold_files_are_checked_before_the_run(run, tmp_path, text, message):
    path = write(tmp_path, text, "t.json")
    refused(run, "check", "--family", "rigid", "-q", "--thresholds", path, message=message)


def test_infinite_gaps_are_printed_as_null(capsys):
    from resilsched.cli import _emit

    _emit({"max_gap": float("inf"), "rows": [{"mean_gap": float("nan")}, 1.5]}, True, "")
    assert json.loads(capsys.readouterr().out) == {"max_gap": None,
                                                   "rows": [{"mean_gap": None}, 1.5]}


def test_a_drawn_scenario_is_capped(run, tmp_path):
    # q-bar just below 1: every job expects about 1e5 attempts, far beyond the cap
    path = write(tmp_path, RIGID)
    err = refused(run, "simulate", path, "--heuristic", "R-LIST-0", "--qbar", "0.99999")
    assert "expected attempts" in err and str(MAX_ATTEMPTS) in err


def _options(parser):
    for action in parser._actions:
        if action.option_strings and action.dest not in ("help", "version"):
            yield action


def test_every_option_says_its_default():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        for action in _options(p):
            assert action.help and ("default" in action.help or "required" in action.help), (
                name, action.option_strings)


def test_check_help_points_at_the_example_thresholds(run):
    code, out, _ = run("check", "--help")
    assert code == 0 and "examples/thresholds.json" in out and "percent" in out


def test_the_example_thresholds_name_known_entries():
    from resilsched.gap import check_threshold_file
    from resilsched.registry import all_families

    data = json.loads((ROOT / "examples" / "thresholds.json").read_text())
    assert check_threshold_file(data, all_families()) == data
    assert set(data) == {f.name for f in all_families()}


def test_smoke_preset_descriptions_match_what_they_generate():
    from resilsched.instances.moldable.presets import PRESETS as MOLDABLE_PRESETS
    from resilsched.instances.rigid.presets import PRESETS as RIGID_PRESETS

    desc, make = RIGID_PRESETS["smoke"]
    xs = make(0, None)
    assert desc.startswith(f"{len(xs)} small integer instances (n 5..9, P 4..16")
    assert all(5 <= x.n <= 9 and 4 <= x.P <= 16 and x.failures.attempts <= 18 for x in xs)
    assert "<= 18 attempts" in desc
    desc, make = MOLDABLE_PRESETS["smoke"]
    xs = make(0, None)
    assert desc.startswith(f"{len(xs)} tiny exact instances (n 3..4, P 4..6")
    assert all(3 <= x.n <= 4 and 4 <= x.P <= 6 and x.failures.attempts <= 7 for x in xs)
