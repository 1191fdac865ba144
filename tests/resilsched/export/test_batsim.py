"""``resilsched export --to batsim``: the workload loads under Batsim's own rules and every job
ends as the instance says (docs/interop.md).

The rules are checked by `batsim_rules`, written from Batsim's sources independently of
`resilsched.export`; the checker is itself tested to refuse each broken rule, the walltime
that equals the delay (the old export, which Batsim kills) first.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resilsched.export import rigid_to_batsim
from resilsched.export.batsim import WALLTIME_MARGIN
from resilsched.instances.rigid import RigidInstance
from tests.support.library.batsim_rules import end_state, problems

ROOT = Path(__file__).resolve().parents[3]
SWF = ROOT / "tests" / "support" / "rigid" / "data" / "tiny.swf"
INSTANCE = RigidInstance.build(4, [(2, 3), (1, Fraction(5, 2)), (4, 3)], name="toy")
WITH_SCENARIO = RigidInstance(4, INSTANCE.jobs, "toy", INSTANCE.scenario("0,2,0"))


def text(workload: dict) -> str:
    return json.dumps(workload, indent=1, allow_nan=False)


# --- the checker refuses what Batsim refuses ------------------------------------------------
VALID = {"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 10},
                                   "f": {"type": "delay", "delay": 5, "ret": 1}},
         "jobs": [{"id": "1", "subtime": 0, "walltime": 11, "res": 2, "profile": "d"},
                  {"id": "2", "subtime": 3, "res": 4, "profile": "f", "extra_data": "{}"},
                  {"id": "3", "subtime": 3, "walltime": -1, "res": 1, "profile": "d"}]}


def mutate(path, value):
    w = json.loads(json.dumps(VALID))
    *parents, last = path
    node = w
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return w


@pytest.mark.parametrize("path, value, rule", [
    (["nb_res"], 0, "nb_res"), (["nb_res"], 4.0, "nb_res"), (["nb_res"], KeyError, "nb_res"),
    (["nb_res"], 2**31, "nb_res"), (["profiles"], [], "profiles"), (["jobs"], {}, "jobs"),
    (["profiles", "d", "type"], "DelayProfile", "delay type"),
    (["profiles", "d", "type"], 3, "string type"),
    (["profiles", "d", "delay"], 0, "delay="), (["profiles", "d", "delay"], "10", "delay="),
    (["profiles", "f", "ret"], 1.0, "ret="), (["profiles", "f", "ret"], -1, "ret="),
    (["jobs", 1, "id"], "1", "not unique"), (["jobs", 1, "id"], "w0!2", "'!'"),
    (["jobs", 1, "id"], True, "neither a string"), (["jobs", 0, "subtime"], KeyError, "subtime"),
    (["jobs", 0, "subtime"], -1, "subtime"), (["jobs", 0, "walltime"], 0, "walltime"),
    (["jobs", 0, "walltime"], "11", "walltime"), (["jobs", 0, "res"], 5, "res="),
    (["jobs", 0, "res"], 0, "res="), (["jobs", 0, "res"], 2.0, "res="),
    (["jobs", 0, "profile"], "nope", "profile="), (["jobs", 1, "extra_data"], {}, "extra_data"),
])
def test_the_checker_refuses_each_broken_rule(path, value, rule):
    assert problems(text(VALID), 4) == []
    found = problems(text(mutate(path, value)), 4)
    assert found and any(rule in p for p in found), found


def test_the_checker_refuses_duplicate_profiles_and_non_json_numbers():
    dup = text(VALID).replace('"f": {', '"d": {', 1)
    assert "duplicate key 'd'" in problems(dup, 4)[0]
    assert "NaN" in problems(text(VALID).replace('"delay": 10', '"delay": NaN'), 4)[0]


def test_batsim_kills_a_delay_job_whose_walltime_equals_its_delay():
    w = mutate(["jobs", 0, "walltime"], 10)
    assert [end_state(w, j) for j in w["jobs"]] == ["walltime", "failed", "success"]
    w = mutate(["jobs", 1, "walltime"], 5)  # the failing job is killed: its ret 1 is lost
    assert end_state(w, w["jobs"][1]) == "walltime"


# --- the export follows the rules --------------------------------------------------------------
@pytest.mark.parametrize("version, spelling", [(4, "delay"), (5, "DelayProfile")])
def test_one_job_per_rigid_job_that_batsim_runs_to_its_end(version, spelling):
    result = rigid_to_batsim(INSTANCE, version=version)
    w = result.document
    assert problems(text(w), version) == []
    assert problems(text(w), 9 - version)  # the other version's loader refuses the type
    assert w["nb_res"] == 4
    assert [(j["id"], j["subtime"], j["res"], j["profile"]) for j in w["jobs"]] == [
        ("0", 0, 2, "delay-3"), ("1", 0, 1, "delay-2.5"), ("2", 0, 4, "delay-3")]
    assert w["profiles"] == {"delay-3": {"type": spelling, "delay": 3},
                             "delay-2.5": {"type": spelling, "delay": 2.5}}
    assert [j["walltime"] for j in w["jobs"]] == [3.000003, 2.5000025, 3.000003]
    assert all(end_state(w, j) == "success" for j in w["jobs"])
    assert result.notes == ()


def test_failed_attempts_fail_in_batsim_and_the_last_one_succeeds():
    w = rigid_to_batsim(WITH_SCENARIO, attempts=True).document
    assert problems(text(w), 4) == []
    assert [j["id"] for j in w["jobs"]] == ["0.0", "1.0", "1.1", "1.2", "2.0"]
    assert [end_state(w, j) for j in w["jobs"]] == ["success", "failed", "failed", "success",
                                                    "success"]
    assert w["profiles"]["delay-2.5-fail"] == {"type": "delay", "delay": 2.5, "ret": 1}
    assert json.loads(w["jobs"][2]["extra_data"]) == {"job": 1, "attempt": 1, "fails": True,
                                                      "after": "1.0"}


def test_a_dropped_scenario_is_said_and_attempts_need_one():
    assert rigid_to_batsim(WITH_SCENARIO).notes == (
        "note: instance toy: its stored failure scenario (2 failed attempt(s) of 1 job(s)) is "
        "not exported: one job per rigid job; --attempts exports the failed attempts",)
    with pytest.raises(ValueError, match="stores no failure scenario"):
        rigid_to_batsim(INSTANCE, attempts=True)


times = st.one_of(st.fractions(Fraction(1, 10**9), 10**12, max_denominator=10**9),
                  st.floats(1e-9, 1e12), st.integers(1, 10**12))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 8), times), min_size=1, max_size=6))
def test_walltime_is_strictly_above_the_delay_by_the_margin(jobs):
    inst = RigidInstance.build(8, jobs)
    w = rigid_to_batsim(inst).document
    assert problems(text(w), 4) == []
    for job in w["jobs"]:
        delay = w["profiles"][job["profile"]]["delay"]
        assert end_state(w, job) == "success"
        assert 0 < job["walltime"] / delay - 1 <= float(WALLTIME_MARGIN) * (1 + 1e-9)


# --- submit times of a trace -------------------------------------------------------------------
def test_a_trace_day_keeps_its_submit_times(run, tmp_path):
    out = tmp_path / "day0.json"
    code, stdout, err = run("export", SWF, "--to", "batsim", "--out", out, "--json")
    assert code == 0, err
    w = json.loads(out.read_text())
    assert problems(out.read_text(), 4) == []
    assert [j["subtime"] for j in w["jobs"]] == [0, 3600, 10000, 86399]
    assert [json.loads(j["extra_data"])["swf_job"] for j in w["jobs"]] == [1, 2, 7, 8]
    summary = json.loads(stdout)
    assert summary["submit_times"] is True and summary["submit_shift"] == 0
    lines = err.splitlines()  # the trace's drops, then this day's
    assert lines[0].startswith("tiny.swf: kept 9 of 14 jobs in 3 day(s); dropped ")
    assert lines[1] == ("note: day 2019-06-01 of the trace: 4 of its lines were dropped when "
                        "reading (2 with run time <= 0, 1 without a processor count, 1 wider "
                        "than P=64) and are not in the workload")
    code, stdout, err = run("export", SWF, "--index", "1", "--to", "batsim", "--out", out)
    assert code == 0 and "submitted at their submit times - 86400 s" in stdout
    assert [j["subtime"] for j in json.loads(out.read_text())["jobs"]] == [0, 13600, 33600]
    code, _, _ = run("export", SWF, "--index", "1", "--to", "batsim", "--out", out,
                     "--release-at-zero")
    w = json.loads(out.read_text())
    assert code == 0 and [j["subtime"] for j in w["jobs"]] == [0, 0, 0]
    assert "extra_data" not in w["jobs"][0]


@pytest.mark.parametrize("value, message", [
    ([0, 1], "submit_times: must list one number per job (3)"),
    ([0, -1, 2], "submit_times[1]=-1 must be a number in [0, 1e+12]"),
    ([0, "1", 2], "submit_times[1]='1' must be a number in [0, 1e+12]"),
    ([0, 10**400, 2], "submit_times[1]=1000000000000000000000000000000000000... must be a "
                      "number in [0, 1e+12]"),
    ("0,1,2", "submit_times: must list one number per job (3)"),
])
def test_malformed_submit_times_are_refused_in_one_line(run, tmp_path, value, message):
    src = tmp_path / "inst.json"
    src.write_text(json.dumps({**INSTANCE.to_dict(), "submit_times": value}))
    code, out, err = run("export", src, "--to", "batsim", "--out", tmp_path / "w.json")
    assert (code, out, err) == (2, "", f"error: {message}\n")
    assert not (tmp_path / "w.json").exists()


# --- the command -------------------------------------------------------------------------------
def test_export_command_on_a_library_instance(run, tmp_path):
    from resilsched.library.catalog import find

    lib = find("rigid-small")[0]
    src = lib.path / lib.records[0]["file"]
    out = tmp_path / "workload.json"
    for version in (4, 5):
        code, stdout, err = run("export", src, "--to", "batsim", "--out", out, "--attempts",
                                "--batsim-version", version, "--json")
        assert code == 0 and err == ""
        summary = json.loads(stdout)
        w = json.loads(out.read_text())
        assert problems(out.read_text(), version) == []
        data = json.loads(src.read_text())
        assert summary["jobs"] == len(data["jobs"]) + sum(data["failures"])
        assert summary["failed_attempts"] == sum(data["failures"])
        assert w["nb_res"] == data["P"] == summary["nb_res"]
        states = [end_state(w, j) for j in w["jobs"]]
        assert states.count("failed") == sum(data["failures"])
        assert states.count("success") == len(data["jobs"])


def _listing(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b""
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("out, message", [
    ("{d}", "--out={d}: is a directory, not a file"),
    ("{d}/missing/w.json", "--out={d}/missing/w.json: its folder {d}/missing does not exist"),
    ("{d}/inst.json/w.json", "--out={d}/inst.json/w.json: its folder {d}/inst.json is not a "
                             "directory"),
    ("{d}/inst.json", "--out={d}/inst.json: is the input file: the export would overwrite the "
                      "instance it reads"),
])
def test_the_command_writes_only_its_out_file(run, tmp_path, out, message):
    src = tmp_path / "inst.json"
    src.write_text(json.dumps(INSTANCE.to_dict()))
    before = _listing(tmp_path)
    code, stdout, err = run("export", src, "--to", "batsim", "--out", out.format(d=tmp_path))
    assert (code, stdout, err) == (2, "", f"error: {message.format(d=tmp_path)}\n")
    assert _listing(tmp_path) == before


def test_a_refusal_prints_no_notes(run, tmp_path):
    """--attempts on a trace day (no stored scenario): the one line, not the trace report."""
    code, out, err = run("export", SWF, "--to", "batsim", "--attempts",
                         "--out", tmp_path / "w.json")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("error: --attempts: instance 2019-06-01 stores no failure scenario")


def test_other_families_are_refused_in_one_line(run, tmp_path):
    code, _, err = run("export", ROOT / "examples" / "moldable-small.json", "--to", "batsim",
                       "--out", tmp_path / "w.json")
    assert code == 2 and err == "error: --to: batsim exports rigid instances, not moldable\n"


def _doc_commands() -> list[list[str]]:
    doc = (ROOT / "docs" / "interop.md").read_text()
    blocks = [b.split("```", 1)[0] for b in doc.split("```sh\n")[1:]]
    return [ln.split("#")[0].split() for block in blocks for ln in block.splitlines()
            if ln.startswith("resilsched ")]


def test_the_commands_of_docs_interop_run_as_written(run, tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    commands = _doc_commands()
    assert len(commands) >= 4
    for argv in commands:
        code, _, err = run(*argv[1:])
        assert code == 0, (argv, err)
        out = Path(argv[argv.index("--out") + 1])
        version = int(argv[argv.index("--batsim-version") + 1]) \
            if "--batsim-version" in argv else 4
        assert problems(out.read_text(), version) == [], argv


def test_a_link_to_the_input_is_the_input(run, tmp_path):
    src = tmp_path / "inst.json"
    src.write_text(json.dumps(INSTANCE.to_dict()))
    (tmp_path / "link.json").symlink_to(src)
    code, _, err = run("export", src, "--to", "batsim", "--out", tmp_path / "link.json")
    assert code == 2 and "is the input file" in err
    assert json.loads(src.read_text()) == INSTANCE.to_dict()


def test_every_exporter_version_is_an_option_of_the_command(run, tmp_path):
    from resilsched.export.batsim import PROFILE_TYPE

    for version in PROFILE_TYPE:
        out = tmp_path / f"w{version}.json"
        code, _, err = run("export", ROOT / "examples" / "rigid-small.json", "--to", "batsim",
                           "--batsim-version", version, "--out", out)
        assert code == 0, err
        assert problems(out.read_text(), version) == []
    code, _, err = run("export", ROOT / "examples" / "rigid-small.json", "--to", "batsim",
                       "--batsim-version", max(PROFILE_TYPE) + 1, "--out", tmp_path / "w.json")
    assert code == 2 and err.count("\n") == 1


def test_the_trace_options_read_the_trace_as_solve_does(run, tmp_path):
    """``--P``, ``--cores-per-node`` and ``--status`` are taken, and read the trace as
    ``simulate`` reads it (audit finding 2: ``unrecognized arguments: --status 1``)."""
    trace = ROOT / "examples" / "rigid-trace.swf"
    out = tmp_path / "w.json"
    for options in (["--status", "1"], ["--P", "16", "--cores-per-node", "2"]):
        code, stdout, err = run("export", trace, *options, "--to", "batsim", "--out", out,
                                "--json")
        assert code == 0, err
        code, sim, err = run("simulate", trace, *options, "--heuristic", "R-LIST-0", "-q",
                             "--json")
        assert code == 0, err
        jobs = {a["job"] for a in json.loads(sim)["solution"]["attempts"]}
        assert json.loads(stdout)["jobs"] == len(jobs) == len(json.loads(out.read_text())["jobs"])
    code, _, err = run("export", ROOT / "examples" / "rigid-small.json", "--status", "1",
                       "--to", "batsim", "--out", out)
    assert code == 2 and "--status: applies to trace files" in err


def test_the_summary_line_reads_as_a_sentence(run, tmp_path):
    """``wrote 4 jobs on 4 resources (Batsim 4 workload, ...)``, not ``wrote 4 Batsim 4 jobs``
    (audit finding 3); failed attempts exported as jobs of their own are counted."""
    src, out = ROOT / "examples" / "rigid-small.json", tmp_path / "w.json"
    code, stdout, err = run("export", src, "--to", "batsim", "--out", out)
    assert code == 0, err
    assert stdout == ("wrote 4 jobs on 4 resources (Batsim 4 workload, all submitted at 0) "
                      f"to {out}\n")
    code, stdout, err = run("export", src, "--to", "batsim", "--attempts", "--batsim-version",
                            "5", "--out", out)
    assert code == 0, err
    assert stdout.startswith("wrote 7 jobs (3 of them failed attempts) on 4 resources (Batsim 5 "
                             "workload, all submitted at 0) to ")
