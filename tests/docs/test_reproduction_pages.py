"""The reproduction pages: one per paper, each opening with its claims table, and the summary
tables that scripts/reproduction_page.py replaces with a run's own summary.md."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "reproduction"
FAMILIES = ["rigid", "moldable", "coschedule", "worksharing", "malleable", "desktop"]
SCRIPT = ROOT / "scripts" / "reproduction_page.py"


def _script():
    spec = importlib.util.spec_from_file_location("reproduction_page", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_page_per_paper_each_linked_from_the_overview():
    assert sorted(p.stem for p in PAGES.glob("*.md")) == sorted(FAMILIES)
    overview = (ROOT / "docs" / "reproduction.md").read_text()
    for family in FAMILIES:
        assert f"(reproduction/{family}.md)" in overview, family


@pytest.mark.parametrize("family", FAMILIES)
def test_the_page_opens_with_its_claims_table(family):
    text = (PAGES / f"{family}.md").read_text()
    sections = re.findall(r"^## (.+)$", text, flags=re.M)
    assert sections[0] == "Claims at a glance"
    claims = text.split("## Claims at a glance", 1)[1].split("\n## ", 1)[0]
    header = next(line for line in claims.splitlines() if line.startswith("| "))
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[0].startswith("claim") and cells[1] == "paper" and cells[-1] == "command"
    assert cells[-2] == "verdict" and any(c.startswith("ours") for c in cells[2:-2])


def test_the_summary_replaces_only_what_is_between_the_markers():
    page = "# P\n\n## Claims at a glance\n\n| a |\n\n## Results\n\n<!-- summary.md -->\nold\n" \
           "<!-- /summary.md -->\n\nReading: by hand.\n"
    summary = "# Rigid jobs: scaled-down reproduction\n\nsets=2\n\n## Fig. 5\n\n| q | x |\n"
    new = _script().page_text(page, summary)
    assert new == ("# P\n\n## Claims at a glance\n\n| a |\n\n## Results\n\n<!-- summary.md -->\n"
                   "sets=2\n\n### Fig. 5\n\n| q | x |\n<!-- /summary.md -->\n\nReading: by hand.\n")
    assert _script().page_text(new, summary) == new  # twice is once


@pytest.mark.parametrize("family", ["rigid", "malleable", "desktop"])
def test_the_pages_with_summary_tables_have_one_pair_of_markers(family):
    text = (PAGES / f"{family}.md").read_text()
    assert text.count("<!-- summary.md -->") == 1 and text.count("<!-- /summary.md -->") == 1
    assert f"scripts/reproduction_page.py {family} results/{family}/summary.md" in text


def test_the_script_refuses_in_one_line(tmp_path):
    page, summary = tmp_path / "page.md", tmp_path / "summary.md"
    page.write_text("# no markers\n")
    summary.write_text("| x |\n")
    for argv in (["rigid", str(summary), "--page", str(page)],
                 ["rigid", str(tmp_path / "missing.md"), "--page", str(page)]):
        done = subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True,
                              text=True)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert page.read_text() == "# no markers\n"
