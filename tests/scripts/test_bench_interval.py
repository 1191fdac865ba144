"""scripts/bench_interval.py (issue 23): the rigid rows run as documented (here with a short
limit and one instance), the interval is best schedule / best bound - 1 with a valid bound,
and an unknown row is refused in one line."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_interval.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_interval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_interval"] = module
    spec.loader.exec_module(module)
    return module


def test_rigid_rows_give_an_interval_with_its_sources(tmp_path, capsys):
    bench = _bench()
    out = tmp_path / "table.md"
    assert bench.main(["--rows", "rigid-ff,rigid-q0.3", "--count", "1", "--time-limit", "0.3",
                       "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("| row | instance | interval |") and len(lines) == 4
    for case in (bench.rigid_failure_free(23, 1) + bench.rigid_qbar(23, 1)):
        r = bench.measure(case, 0.3)
        assert 0 <= r["bound"] <= r["objective"] <= r["best_heuristic"]
        assert r["interval"] == r["objective"] / r["bound"] - 1
        assert r["bound_source"] and r["objective_source"]
    capsys.readouterr()


def test_unknown_row_is_refused(capsys):
    assert _bench().main(["--rows", "nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --rows")
