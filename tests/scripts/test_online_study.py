"""The study of docs/online.md (scripts/online_study.py) and the sizes of docs/performance.md
(scripts/bench_online.py): the commands run, their outputs hold what the page says."""

from __future__ import annotations

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from resilsched.instances.rigid.synthetic import tiny_rigid
from resilsched.models.online.solve import solve_moldable, solve_rigid
from resilsched.solution import Status

ROOT = Path(__file__).resolve().parents[2]


def _script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_study_on_a_slice_writes_the_table_the_csv_and_the_plot(tmp_path, capsys):
    study = _script("online_study")
    png, table = tmp_path / "s.png", tmp_path / "s.csv"
    assert study.main(["--limit", "4", "--max-scenarios", "200", "--png", str(png),
                       "--csv", str(table), "-q"]) == 0
    out = capsys.readouterr().out
    assert "| q-bar | heuristic |" in out and "unavoidable" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 4 * 7 * 8  # instances x heuristics x priorities
    for row in rows:
        low, online = float(row["e_clairvoyant_low"]), float(row["e_online"])
        assert low <= online <= float(row["e_heuristic"])


@pytest.mark.slow
def test_the_study_command_of_the_page_runs_as_written(tmp_path):
    """docs/online.md: ``python scripts/online_study.py`` (about 15 minutes alone), from a
    folder of its own: its CSV goes to ``results/`` under the working folder (the picture to
    the checkout's docs/, as the page says)."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "online_study.py"), "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=7200)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "100 instances" in done.stdout
    assert (tmp_path / "results" / "online" / "study.csv").stat().st_size > 0


def test_bench_command_runs_on_a_small_size(capsys):
    bench = _script("bench_online")
    assert bench.main(["--family", "both", "--sizes", "3", "--count", "1",
                       "--time-limit", "20"]) == 0
    out = capsys.readouterr().out
    assert out.count("| optimal |") == 2


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_rigid_eight_jobs_on_eight_processors_within_60_s(seed):
    """The issue's target: n = 8 on P = 8 (t in 1..5, q-bar = 0.1) proven within 60 s."""
    inst = tiny_rigid(np.random.default_rng(seed), n=8, P=8, tmax=5)
    sol = solve_rigid(inst, qbar=0.1, time_limit=60.0)
    assert sol.status is Status.OPTIMAL


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_moldable_six_jobs_on_six_processors_within_60_s(seed):
    bench = _script("bench_online")
    inst = bench.moldable_instance(np.random.default_rng(seed), 6, 6, 5)
    sol = solve_moldable(inst, qbar=0.1, time_limit=60.0)
    assert sol.status is Status.OPTIMAL


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["--family", "rigid", "--sizes", "6", "7", "8", "9"],
                                  ["--family", "moldable", "--sizes", "5", "6", "7"]])
def test_the_benchmark_commands_of_the_performance_page_run_as_written(argv):
    """docs/performance.md, "Online optimum" (a few minutes each)."""
    done = subprocess.run([sys.executable, "scripts/bench_online.py", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("| optimal |") >= 8
