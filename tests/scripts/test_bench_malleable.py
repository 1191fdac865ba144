"""scripts/bench_malleable.py at tiny sizes: the fast code agrees with its line-by-line
reference (the script asserts it), and ``--large`` gives one row per failure-aware heuristic
and n, written into the script's section of the page."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _bench():
    sys.path.insert(0, str(SCRIPTS))  # the script imports its sibling benchpage
    try:
        spec = importlib.util.spec_from_file_location("bench_malleable",
                                                      SCRIPTS / "bench_malleable.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


def test_tiny_run_with_large_rows_writes_its_section(tmp_path, capsys):
    page = tmp_path / "performance.md"
    page.write_text("# page\n\n<!-- bench_malleable.py -->\n### old\n<!-- /bench_malleable.py -->\n"
                    "after\n")
    bench = _bench()
    bench.main(["--n", "12", "--p", "60", "--ref-n", "6", "--ref-p", "40", "--repeat", "1",
                "--large", "--large-n", "4", "6", "--large-p", "4000", "--write", str(page)])
    out = capsys.readouterr().out
    assert out.count("same makespan: True") == 2 * len(bench.COMBOS)
    text = page.read_text()
    assert text.endswith("<!-- /bench_malleable.py -->\nafter\n") and "### old" not in text
    large = [line for line in text.splitlines() if "p = 4,000: CPU seconds of one" in line]
    assert len(large) == 2 * len(bench.COMBOS)
    assert all("failures struck" in line for line in large)
