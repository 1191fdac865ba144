"""The options of ``resilsched reproduce rigid`` (`resilsched.reproduce.rigid`): every one has a
help text with its default, and malformed values are one-line errors with exit status 2."""

from __future__ import annotations

import pytest

from resilsched.reproduce import rigid as reproduce_rigid

PROG = "resilsched reproduce rigid"


def test_every_option_says_its_default():
    parser = reproduce_rigid.build_parser(PROG)
    for action in parser._actions:
        if action.dest == "help":
            continue
        assert action.help and "default" in action.help, action.option_strings


@pytest.mark.parametrize("argv, message", [
    (["--sets", "0"], "argument --sets: 0 must be in [1, 1000]"),
    (["--sets", "-3"], "argument --sets: -3 must be in [1, 1000]"),
    (["--scenarios", "x"], "argument --scenarios: 'x' is not an integer"),
    (["--mira-days", "0"], "argument --mira-days: 0 must be in [1, 3650]"),
    (["--mira-scenarios", "0"], "argument --mira-scenarios: 0 must be in [1, 100000]"),
    (["--jobs", "0"], "argument --jobs: 0 must be in [1, 256]"),
    (["--cores-per-node", "0"], "argument --cores-per-node: 0 must be in [1, 1000000]"),
    (["--swf-P", "-1"], "argument --swf-P: -1 must be in [1, 10000000]"),
    (["--seed", "-1"], "argument --seed: -1 must be in [0, 2^63)"),
    (["--qbars", ""], "argument --qbars: '' must be a comma-separated list of values"),
    (["--qbars", "0,,0.3"], "must be a comma-separated list of values"),
    (["--qbars", "0,abc"], "argument --qbars: 'abc' is not a number"),
    (["--qbars", "0,1"], "argument --qbars: 1 must be in [0, 1)"),
    (["--qbars", "0,-0.1"], "argument --qbars: -0.1 must be in [0, 1)"),
    (["--qbars", "0,nan"], "argument --qbars: nan must be in [0, 1)"),
    (["--qbars", "0,0.3,0.3"], "argument --qbars: 0.3 is given twice"),
    (["--Ps", "10000,1000"], "argument --Ps: 1000 must be >= 2000"),
    (["--Ps", "10000,1e4"], "argument --Ps: '1e4' is not a number"),
    (["--Ps", " "], "must be a comma-separated list of values"),
    (["--swf", "/nonexistent/log.swf"], "argument --swf: /nonexistent/log.swf: no such file"),
    (["--reuse", "/nonexistent/run"], "argument --reuse: /nonexistent/run: no such directory"),
    (["--only", "fig9"], "--only: unknown ['fig9']"),
    (["--reservations", "fresh,sticky"],
     "argument --reservations: sticky is not a reservation mode"),
    (["--prop3-samples", "0"], "argument --prop3-samples: 0 must be in [1, 10000000]"),
    (["--only", ","], "--only: nothing to run"),
    (["--sets", "99999999999"], "argument --sets: 99999999999 must be in [1, 1000]"),
    (["--scenarios", "99999999999"], "argument --scenarios: 99999999999 must be in [1, 100000]"),
    (["--mira-days", "99999999999"], "argument --mira-days: 99999999999 must be in [1, 3650]"),
    (["--swf-P", "5000"], "--cores-per-node and --swf-P apply only with --swf"),
    (["--cores-per-node", "4"], "--cores-per-node and --swf-P apply only with --swf"),
    (["--qbars", "0.1,0.3"], "--qbars must contain 0"),
    (["--Ps", "5000,20000"], "--Ps must contain 10000"),
])
def test_malformed_options_are_one_line_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        reproduce_rigid.main(argv, prog=PROG)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{PROG}: error: "), err
    assert message in err


def test_an_unusable_swf_log_is_a_one_line_error(tmp_path, capsys):
    log = tmp_path / "empty.swf"
    log.write_text("; MaxProcs: 16\n")
    code = reproduce_rigid.main(["--only", "table1", "--swf", str(log), "--no-plots",
                                 "--jobs", "1", "--out", str(tmp_path / "out")], prog=PROG)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].startswith(f"{PROG}: error: "), err


def test_degenerate_failure_probabilities_are_left_out_with_one_warning(tmp_path, capsys):
    """Issue 14: a real trace's day with one job ~300 times the mean area gets q_j near 1 (at
    q-bar = 0.1, 5e13 expected attempts). The day is left out at q-bar > 0 with one warning
    line on stderr, instead of a table of ratios near 1.000; the other days still count."""
    from resilsched.instances.rigid import RigidInstance
    from resilsched.instances.rigid.mira_like import mira_like_days, write_swf

    normal = mira_like_days(3, days=2)
    P = normal[0].P
    giant = RigidInstance.build(P, [(1, 10)] * 300 + [(P, 100_000)])
    write_swf([giant, *normal], tmp_path / "trace.swf")
    code = reproduce_rigid.main(["--only", "table1", "--swf", str(tmp_path / "trace.swf"),
                                 "--mira-days", "3", "--mira-scenarios", "2", "--no-plots",
                                 "--jobs", "1", "--out", str(tmp_path / "out")], prog=PROG)
    captured = capsys.readouterr()
    assert code == 0
    warnings = [x for x in captured.err.splitlines() if "warning" in x]
    assert len(warnings) == 1, warnings
    assert "q-bar 0.05: 1/3 days left out" in warnings[0]
    assert "q-bar 0.1: 1/3 days left out" in warnings[0]
    assert "expected attempts" in warnings[0] or "attempts" in warnings[0]
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "**Left out**" in summary and "2019-06-01, q-bar 0.1" in summary
    rows = (tmp_path / "out" / "table1_per_day.csv").read_text().splitlines()[1:]
    day0 = [r for r in rows if r.split(",")[4] == "0"]  # set column: day 0 only at q-bar 0
    assert day0 and all(float(r.split(",")[2]) == 0.0 for r in day0)
    assert any(float(r.split(",")[2]) == 0.1 for r in rows)  # the other days are there


def test_both_reservation_modes_by_default_and_one_on_request():
    assert reproduce_rigid.parse_args([]).reservations == ("fresh", "fixed")
    assert reproduce_rigid.parse_args(["--reservations", "fixed"]).reservations == ("fixed",)
    with pytest.raises(SystemExit):
        reproduce_rigid.parse_args(["--reservations", "fresh,sticky"])
