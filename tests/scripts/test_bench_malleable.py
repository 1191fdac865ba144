"""scripts/bench_malleable.py at tiny sizes: the fast code agrees with its line-by-line
reference (the script asserts it), and ``--large`` gives one row per failure-aware heuristic
and n, written into the script's section of the page."""

from __future__ import annotations

import pytest

from tests.support.fuzzing import load


def test_tiny_run_with_large_rows_writes_its_section(tmp_path, capsys):
    page = tmp_path / "performance.md"
    page.write_text("# page\n\n<!-- bench_malleable.py -->\n### old\n<!-- /bench_malleable.py -->\n"
                    "after\n")
    bench = load("bench_malleable")  # scripts/bench_malleable.py (it imports benchpage beside it)
    bench.main(["--n", "12", "--p", "60", "--ref-n", "6", "--ref-p", "40", "--repeat", "1",
                "--large", "--large-n", "4", "6", "--large-p", "4000", "--write", str(page)])
    out = capsys.readouterr().out
    assert out.count("same makespan: True") == 2 * len(bench.COMBOS)
    text = page.read_text()
    assert text.endswith("<!-- /bench_malleable.py -->\nafter\n") and "### old" not in text
    large = [line for line in text.splitlines() if "p = 4,000: CPU seconds of one" in line]
    assert len(large) == 2 * len(bench.COMBOS)
    assert all("failures struck" in line for line in large)


def test_a_large_platform_beyond_the_limit_is_refused_before_any_run(capsys):
    bench = load("bench_malleable")
    with pytest.raises(SystemExit) as exc:
        bench.main(["--large", "--large-p", str(10**8)])
    assert exc.value.code == 2 and "--large-p in [2 max(--large-n), 10^7]" in \
        capsys.readouterr().err
