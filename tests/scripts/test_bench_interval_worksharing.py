"""scripts/bench_interval.py (issue 23): the worksharing row (E5, p = 25, eps = 1e-3) runs, and
on workloads the benchmark does not draw the certified interval is below 0.5 %: the static
schedule against the static bound."""

from __future__ import annotations

from tests.scripts.test_bench_interval import _bench


def test_worksharing_row_interval(capsys):
    bench = _bench()
    assert bench.main(["--rows", "worksharing-p25", "--count", "1", "--time-limit", "10"]) == 0
    for case in bench.worksharing_p25(5, 2):
        r = bench.measure(case, 20)
        assert 0 <= r["objective"] <= r["bound"]
        assert r["interval"] == r["bound"] / r["objective"] - 1 < 0.005
        assert r["objective"] >= r["best_heuristic"]
    capsys.readouterr()
