"""SWF traces as their users expect: the drop report, --status, `resilsched trace`, warnings for
--P and --cores-per-node, and jobs so large that their calibrated failure probability cannot
finish (small synthetic traces written here)."""

import json

import pytest

from resilsched.errors import InvalidInstance
from resilsched.instances.rigid.swf import day_table, read_swf

HEADER = ["; Version: 2.2", "; UnixStartTime: 1559347200", "; TimeZoneString: UTC",
          "; MaxProcs: 64", "; MaxNodes: 16"]


def line(job, submit, run, procs, status=1):
    return f"{job} {submit} 0 {run} {procs} -1 -1 {procs} 200 -1 {status} 1 1 -1 1 -1 -1 -1"


@pytest.fixture
def swf(tmp_path):
    """Two days of 6 jobs; day 0 also has a cancelled job, a zero run time and a 128-wide job;
    one job per day is 10^5 times longer than the others (area far above the mean)."""
    rows = []
    for day in range(2):
        base = day * 86400
        rows += [line(10 * day + k, base + 60 * k, 100 + k, 1 + k) for k in range(5)]
        rows.append(line(10 * day + 5, base + 400, 10**7, 64))
    rows += [line(90, 500, 30, 2, status=5), line(91, 600, 0, 2), line(92, 700, 50, 128)]
    path = tmp_path / "log.swf"
    path.write_text("\n".join(HEADER + rows) + "\n")
    return path


def test_read_swf_reports_what_it_dropped(swf):
    notes = []
    days = read_swf(swf, warn=notes.append)
    assert [d.n for d in days] == [7, 6]
    assert notes == ["log.swf: kept 13 of 15 jobs in 2 day(s); dropped 1 with run time <= 0, "
                     "1 wider than P=64"]
    notes.clear()
    days = read_swf(swf, statuses=[1], P=32, cores_per_node=2, warn=notes.append)
    assert [d.n for d in days] == [6, 6]  # the cancelled job goes; 64 / 2 = 32 nodes fit
    assert notes[0] == ("log.swf: kept 12 of 15 jobs in 2 day(s); dropped 1 with run time <= 0, "
                        "1 wider than P=32, 1 with a status (field 11) not in 1")
    assert notes[1] == ("log.swf: warning: P=32 drops 1 job(s) wider than P (the header says "
                        "MaxProcs 64)")
    assert notes[2].startswith("log.swf: warning: cores_per_node=2 does not match the header "
                               "(MaxProcs 64 / MaxNodes 16 = 4 cores per node)")


def test_day_table(swf):
    rows = day_table(read_swf(swf))
    assert [(r["index"], r["day"], r["jobs"], r["max_width"]) for r in rows] == [
        (0, "2019-06-01", 7, 64), (1, "2019-06-02", 6, 64)]


def test_trace_command_text_and_json(run, swf):
    code, out, err = run("trace", swf)
    assert code == 0, err
    assert "2019-06-01" in out and "2019-06-02" in out and "--index" in out
    assert "dropped 1 with run time <= 0" in err
    code, out, err = run("trace", swf, "--json", "--status", "1")
    d = json.loads(out)
    assert code == 0 and d["P"] == 64 and [r["jobs"] for r in d["days"]] == [6, 6]
    assert "with a status (field 11) not in 1" in err


def test_trace_refusals(run, tmp_path, swf):
    code, out, err = run("trace", tmp_path / "x.json")
    assert code == 2 and out == "" and "is not a trace file" in err
    code, out, err = run("trace", swf, "--status", "x")
    assert code == 2 and err.count("\n") == 1 and "argument --status" in err


def test_simulate_on_a_trace_prints_the_report_then_runs(run, swf):
    code, out, err = run("simulate", swf, "--heuristic", "R-LIST-0", "--index", "1",
                         "--P", "32", "--json")
    assert code == 0 and json.loads(out)["objective"] > 0
    assert "warning: P=32 drops" in err
    code, out, err = run("simulate", swf, "--heuristic", "R-LIST-0", "-q")
    assert code == 0 and err == ""  # -q keeps only warnings


def test_a_refusal_after_reading_a_trace_stays_one_line(run, swf):
    code, out, err = run("simulate", swf, "--heuristic", "R-LIST-0", "--index", "7")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--index=7" in err


def test_an_enormous_job_cannot_ask_for_an_unfinishable_scenario(run, tmp_path):
    # 300 jobs of 1 processor x 100 s and one of 64 x 10^7 s (about 300 times the mean area):
    # at q-bar = 0.3 its calibrated q_j is 1 - 1e-46 (rounded to 1 in floats) and it would
    # expect ~1e46 attempts; the command refuses in one line, naming the job
    rows = [line(k, k, 100, 1) for k in range(300)] + [line(300, 400, 10**7, 64)]
    path = tmp_path / "huge.swf"
    path.write_text("\n".join(HEADER + rows) + "\n")
    code, out, err = run("simulate", path, "--heuristic", "R-LIST-0", "--qbar", "0.3", "-q")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: jobs[300]: fails with probability q=1 per attempt: inf "
                          "expected attempts"), err
    # q-bar = 0.05: 0.95^-300 = 5e6 expected attempts, above the cap of 1e5
    code, out, err = run("simulate", path, "--heuristic", "R-LIST-0", "--qbar", "0.05", "-q")
    assert code == 2 and "jobs[300]" in err and "at most 100000" in err
    # q-bar = 0.01: about 20 expected attempts, a scenario that finishes
    code, out, err = run("simulate", path, "--heuristic", "R-LIST-0", "--qbar", "0.01", "-q")
    assert code == 0, err


def test_absurd_trace_lines_are_refused_with_their_line_number(tmp_path):
    path = tmp_path / "bad.swf"
    path.write_text("\n".join(HEADER + [line(1, 0, "1e308", 4)]) + "\n")
    with pytest.raises(InvalidInstance, match=r"^line 6: field 4 \(run time\)='1e308' exceeds"):
        read_swf(path)
    path.write_text("\n".join(HEADER + [line(1, "1e300", 10, 4)]) + "\n")
    with pytest.raises(InvalidInstance, match=r"^line 6: field 2 \(submit time\)"):
        read_swf(path)
    path.write_text("\n".join(HEADER[:3] + ["; MaxProcs: 99999999999", line(1, 0, 10, 4)]))
    with pytest.raises(InvalidInstance, match=r"MaxProcs \(SWF header\)=99999999999 exceeds"):
        read_swf(path)
