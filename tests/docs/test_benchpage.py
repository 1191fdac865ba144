"""The benchmarks page: docs/performance.md is written by the benchmark scripts, each replacing
its own marked section (scripts/benchpage.py), row by row."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
PAGE = ROOT / "docs" / "performance.md"
#: bench_interval.py writes "Certified intervals at paper scale", a section of its own (issue 23)
WRITERS = sorted(p.name for p in SCRIPTS.glob("bench_*.py") if p.name != "bench_interval.py")


def data_rows(text: str) -> list[str]:
    return [ln for ln in text.splitlines()
            if ln.startswith("| ") and not ln.startswith("| measured |")]


@pytest.fixture
def benchpage(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import benchpage

    return benchpage


def test_a_run_replaces_its_rows_and_keeps_the_others(benchpage, tmp_path):
    page = tmp_path / "performance.md"
    page.write_text("# Benchmarks\n\nintro\n\n## Other\n\nby hand | kept\n")
    first = benchpage.Run("bench_x.py", ["--n", "3", "--write", str(page)])
    first.write(page, "X (`scripts/bench_x.py`)", "What\n  it does.",
                [benchpage.Row("a", "<= 1 s", "0.5 s"), benchpage.Row("b | c", "-", "2")])
    text = page.read_text()
    assert text.startswith("# Benchmarks\n\nintro\n\n## Other\n\nby hand | kept\n\n"
                           "<!-- bench_x.py -->\n### X (`scripts/bench_x.py`)\n\nWhat it does.\n")
    assert "| a | <= 1 s | 0.5 s | `python3 scripts/bench_x.py --n 3` | " in text
    assert "| b \\| c | - | 2 |" in text
    second = benchpage.Run("bench_x.py", ["--only-a", "--write"])
    second.write(page, "X (`scripts/bench_x.py`)", "What it does.", [benchpage.Row("a", "<= 1 s",
                                                                               "0.4 s")])
    rows = data_rows(page.read_text())
    assert len(rows) == 2
    assert rows[0].startswith("| a | <= 1 s | 0.4 s | `python3 scripts/bench_x.py --only-a` |")
    assert rows[1].startswith("| b \\| c | - | 2 | `python3 scripts/bench_x.py --n 3` |")
    assert page.read_text().count("<!-- bench_x.py -->") == 1
    assert page.read_text().endswith("<!-- /bench_x.py -->\n")


def test_the_machine_cell_names_the_load_and_the_date(benchpage):
    machine = benchpage.Run("bench_x.py", []).machine
    assert re.fullmatch(r".+, \d+ cores, Python 3\.\d+\.\d+, load \d+\.\d, \d{4}-\d\d-\d\d",
                        machine)


@pytest.mark.parametrize("script", WRITERS)
def test_every_benchmark_script_writes_its_own_section(script):
    text = (SCRIPTS / script).read_text()
    assert "add_write_option(ap)" in text and ".write(" in text, script
    page = PAGE.read_text()
    assert page.count(f"<!-- {script} -->") == 1 and page.count(f"<!-- /{script} -->") == 1
    section = page.split(f"<!-- {script} -->")[1].split(f"<!-- /{script} -->")[0]
    rows = data_rows(section)
    assert rows, f"{script}: no measured rows on the page"
    assert all(f"`python3 scripts/{script}" in row for row in rows), script


def test_the_page_keeps_no_session_log():
    page = PAGE.read_text()
    assert len(page.splitlines()) < 500
    assert not re.search(r"\bsession\b|\d\d:\d\d UTC", page.split("## Certified intervals")[0])


def test_a_benchmark_writes_the_page_as_run(tmp_path):
    page = tmp_path / "performance.md"
    page.write_text(PAGE.read_text())
    done = subprocess.run([sys.executable, str(SCRIPTS / "bench_rigid.py"), "--quick",
                           "--heuristics", "R-LIST-0", "--priorities", "LPT", "--write",
                           str(page)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    section = page.read_text().split("<!-- bench_rigid.py -->")[1].split("<!-- /bench_rigid.py")[0]
    assert ("| R-LIST-0: ms per scenario, fast path / full simulation (LPT) | - | LPT "
            in section)
    assert "`python3 scripts/bench_rigid.py --quick --heuristics R-LIST-0 --priorities LPT`" \
        in section
    assert page.read_text().replace(section, "") == PAGE.read_text().replace(
        PAGE.read_text().split("<!-- bench_rigid.py -->")[1].split("<!-- /bench_rigid.py")[0],
        "")


def test_the_online_row_counts_the_proofs_and_names_a_stopped_instance(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import bench_online

    done = {"status": "optimal", "seconds": 1.5, "states": 2688,
            "phases": {"explore": 0.2, "float": 0.1, "exact": 1.2}}
    stopped = {"status": "no_solution", "seconds": 60.0, "states": 27360,
               "phases": {"explore": 2.9, "float": 0.4}}
    row = bench_online.page_row("rigid", 8, 5, 0.1, 60.0, [done, stopped, {"status": "refused"}])
    assert row.measured == "rigid, n = P = 8, tmax 5, q-bar 0.1: instances solved within 60 s"
    assert row.goal == "optimal within 60 s (issue 26)"
    assert row.figure == ("1/3 optimal; slowest 60.0 s (no_solution, 27,360 states; explore "
                          "2.9 s, float 0.4 s; stopped at the limit); 1 refused up front")
