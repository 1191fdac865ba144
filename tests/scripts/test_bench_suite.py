"""scripts/bench_suite.py on one small test file without xdist: the suite's summary and exit
status, the reference before and after, and the three rows written into its section."""

from __future__ import annotations

import pytest

from tests.support.fuzzing import load


def test_a_small_suite_is_timed_against_the_reference_and_written(tmp_path, capsys):
    page = tmp_path / "performance.md"
    page.write_text("# page\n\n<!-- bench_suite.py -->\n### old\n<!-- /bench_suite.py -->\n")
    bench = load("bench_suite")  # scripts/bench_suite.py (it imports benchpage beside it)
    code = bench.main(["--repeat", "1", "--loops", "1000", "--workers", "0", "--write",
                       str(page), "--", "tests/resilsched/test_cli.py", "-p", "no:cacheprovider"])
    out = capsys.readouterr().out
    assert code == 0 and "suite: 1 passed" in out and "exit 0" in out
    assert out.startswith("reference before: ") and "suite in reference units: wall " in out
    rows = [line for line in page.read_text().splitlines() if line.startswith("| ")][1:]
    assert [row.split(" | ")[0] for row in rows] == [
        "| the suite: wall / CPU s",
        "| reference workload before / after the suite: s",
        "| suite / reference: wall / CPU"]
    assert "1 passed" in rows[0] and "1,000 additions, median of 1" in rows[1]


def test_a_failing_suite_exits_1_and_its_row_says_so(tmp_path, capsys):
    page = tmp_path / "performance.md"
    page.write_text("# page\n")
    bench = load("bench_suite")
    assert bench.main(["--repeat", "1", "--loops", "10", "--workers", "0", "--write", str(page),
                       "--", "tests/resilsched/no_such_test.py"]) == 1
    assert "exit 4" in capsys.readouterr().out  # pytest's status for a path it cannot find
    assert "exit 4)" in page.read_text()


@pytest.mark.parametrize(("option", "rule"), [("--repeat", "[1, 100]"),
                                              ("--loops", "[1, 1000000000]")])
def test_a_count_below_one_is_refused(option, rule, capsys):
    with pytest.raises(SystemExit) as exc:
        load("bench_suite").main([option, "0"])
    assert exc.value.code == 2 and f"argument {option}: 0 must be in {rule}" in \
        capsys.readouterr().err


@pytest.mark.parametrize(("value", "rule"), [("many", "'many' is not auto or a number of workers"),
                                             ("65", "65 must be in [0, 64]")])
def test_a_bad_number_of_workers_is_refused_before_the_suite_runs(value, rule, capsys):
    with pytest.raises(SystemExit) as exc:
        load("bench_suite").main(["--workers", value])
    assert exc.value.code == 2 and f"argument --workers: {rule}" in capsys.readouterr().err
