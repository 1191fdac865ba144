"""scripts/bench_interval.py (issue 23): the moldable rows (paper mix sets, failure-free and at
lambda = 1e-7) run, and on a set the benchmark does not use the interval is 0: the chain
construction meets L' and ``solve`` proves it."""

from __future__ import annotations

import pytest

from tests.scripts.test_bench_interval import _bench


def test_the_lambda_row_passes_its_scenario_to_solve():
    (case,) = _bench().moldable_lambda(7, 1)
    failures = [int(f) for f in case.solve_args[1].split(",")]
    assert case.solve_args[0] == "--failures" and failures == list(case.scenario.failures)
    assert sum(failures) > 0  # lambda = 1e-7 on n = 500 mix jobs: some jobs fail


def test_a_failure_free_set_is_proven_optimal():
    (case,) = _bench().moldable_failure_free(7, 1)
    r = _bench().measure(case, 10)
    assert r["interval"] == 0.0 and r["status"] == "optimal"
    assert r["objective"] <= r["best_heuristic"]
    assert r["bound_source"] and r["objective_source"]


@pytest.mark.slow
def test_moldable_rows_run_as_documented(capsys):
    bench = _bench()
    assert bench.main(["--rows", "moldable-ff,moldable-1e-7", "--count", "1",
                       "--time-limit", "10"]) == 0
    (case,) = bench.moldable_lambda(7, 1)
    r = bench.measure(case, 10)
    assert r["interval"] == 0.0 and r["status"] == "optimal"
    capsys.readouterr()
