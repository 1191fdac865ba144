"""scripts/bench_worksharing.py: the static bound's rows (``--static``) compare the chunk
program in C with the pure-Python one on the same bound, and ``--write`` puts them into their
section of the page without touching the other rows."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from resilsched import engine

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _bench():
    sys.path.insert(0, str(SCRIPTS))  # the script imports its sibling benchpage
    try:
        spec = importlib.util.spec_from_file_location("bench_worksharing",
                                                      SCRIPTS / "bench_worksharing.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module


@pytest.mark.skipif(not engine.built("_chunks"), reason="chunk program not built")
def test_static_rows_write_their_section(tmp_path, capsys):
    page = tmp_path / "performance.md"
    page.write_text("# page\n\n<!-- bench_worksharing.py -->\n### title\n\nintro\n\n"
                    "| measured | goal | figure | command | machine |\n|---|---|---|---|---|\n"
                    "| Table 4, 4043 instances x 6 charts: wall / CPU | < 10 s | 1 | c | m |\n"
                    "<!-- /bench_worksharing.py -->\n")
    _bench().main(["--static", "--write", str(page)])
    out = capsys.readouterr().out
    assert out.count("chunk program in C |") == 2 and "pure Python" in out
    text = page.read_text()
    assert "| Table 4, 4043 instances x 6 charts: wall / CPU | < 10 s | 1 | c | m |" in text
    assert text.count("static bound p=") == 2
