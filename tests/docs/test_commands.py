"""Every command the documentation shows runs as written.

Each ```sh block of every page of docs/ is run, line by line and in order, in a user's folder (a
temporary directory with `examples/` and the files the page tells to write), and every line must
exit 0 without a traceback: ``resilsched ...`` lines in this process (as the CLI's `main`; one whose
only shell syntax is a pattern, ``shard-*.sqlite``, with the words bash expands it to), the others
(pipes, redirections, command substitution, ``mkdir``, ``cp``, ...) through bash with this
environment's `resilsched` on the PATH (tests.support.docs.commands.run_line). A command too long
for the default suite is in `LONG`, with the test that runs it instead, or, for a reproduction at
the paper's scale (hours), the reason none does; `LONG` holds nothing that is not on a page. The
```pycon blocks of the pages are doctests, run from the repository's root (docs/own-heuristic.md's
by tests/docs/test_own_heuristic.py).
"""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docs.commands import run_line

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_hooks" not in p.parts)

FRESH_CLONE = "slow: tests/docs/test_site.py::test_a_fresh_clone_installs_and_builds_the_site"
REPRODUCTION = ("a reproduction run, minutes to hours: no test runs it as written; the "
                "family's slow test runs a reduced one")
#: command (its comment left out) -> the test that runs it instead, or why none does
LONG = {
    "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/resilsched gap":
        FRESH_CLONE,
    ".venv/bin/pip install -e '.[docs]' && .venv/bin/mkdocs build --strict": FRESH_CLONE,
    ".venv/bin/python -m pytest -q -n auto": "the test suite itself: .ci/run runs it",
    "python3 -m pytest tests/resilsched/reproduce/test_desktop.py -m slow":
        "the slow tests: pytest -m slow",
    "python3 -m pytest tests/resilsched/reproduce/test_malleable.py -m slow":
        "the slow tests: pytest -m slow",
    "python3 -m pytest tests/resilsched/reproduce/moldable -m slow":
        "the slow tests: pytest -m slow",
    "pytest -m slow tests/resilsched/reproduce/rigid/test_experiments.py":
        "the slow tests: pytest -m slow",
    "resilsched reproduce desktop": REPRODUCTION,
    "resilsched reproduce desktop --machine-sets 2 --job-sets 2 --hosts 100 --job-count 2000":
        REPRODUCTION,
    "resilsched reproduce desktop --stored-only": "reads the store of the paper-scale run above",
    "resilsched reproduce malleable --reps 50 --out results/malleable": REPRODUCTION,
    "resilsched reproduce malleable --reps 50 --figures 1.5": REPRODUCTION,
    "resilsched reproduce moldable --figures --sets 30 --scenarios 100": REPRODUCTION,
    "resilsched reproduce moldable --figures --sweeps --sets 30 --scenarios 100 --sweep-sets 30 "
    "--sweep-scenarios 100": REPRODUCTION,
    "resilsched reproduce moldable --algos BATCH --attempt-order first_only --sets 30 "
    "--scenarios 100": REPRODUCTION,
    "python3 scripts/moldable_mix_minarea.py --sets 10 --scenarios 20": REPRODUCTION,
    "resilsched reproduce moldable --no-table --theorems --jobs 1": REPRODUCTION,
    "resilsched reproduce moldable --models mix-low-com,mix --mix-gamma-scale 2.5 --sets 30 "
    "--scenarios 100 --no-plots": REPRODUCTION,
    "resilsched reproduce moldable --models mix --mix-gamma-scale 2.5 --no-table --sweeps "
    "--grids lambda --sweep-sets 30 --sweep-scenarios 100 --no-plots": REPRODUCTION,
    "resilsched reproduce desktop --machine-sets 2 --job-sets 2 --only r1-sizes": REPRODUCTION,
    "resilsched reproduce desktop --machine-sets 2 --job-sets 2 --only r9-cost": REPRODUCTION,
    "resilsched reproduce malleable --reps 5 --only r1-cause": REPRODUCTION,
    "resilsched reproduce malleable --reps 30 --figures 1.5,1.7,f --jobs 1": REPRODUCTION,
    "resilsched reproduce moldable --models mix,mix-low-com --algos BATCH --no-table --sweeps "
    "--grids lambda --sweep-sets 1 --sweep-scenarios 1 --pn-sets 1 --pn-scenarios 1 "
    "--point-size lambda=1e-6:10x30 --no-plots --jobs 1 --batch-eps2 0.3": REPRODUCTION,
    "resilsched reproduce malleable --reps 10 --only r3-rule": REPRODUCTION,
    "resilsched reproduce rigid --only fig4,fig5,fig6,table1,fig78,prop3": REPRODUCTION,
    "resilsched reproduce rigid --sets 30 --scenarios 100 --qbars 0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,"
    "0.8,0.9 --Ps 5000,7500,10000,12500,15000,17500,20000 --mira-days 30 --mira-scenarios 100 "
    "--reservations fresh --only fig5,fig6,table1,fig78": REPRODUCTION,
    "resilsched reproduce rigid --sets 30 --scenarios 1000 --qbars 0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,"
    "0.8,0.9 --Ps 5000,7500,10000,12500,15000,17500,20000 --mira-days 30 --mira-scenarios 1000 "
    "--reservations fixed --only fig5,fig6,table1,fig78": REPRODUCTION,
    "resilsched reproduce rigid --reuse results/rigid": "reads the outputs of the run above",
    "resilsched reproduce rigid --full": REPRODUCTION,
    "resilsched reproduce rigid --only table1 --swf LOG.swf --cores-per-node 4":
        "needs a trace of one's own (LOG.swf)",
    "resilsched gap --library rigid-online -q":
        "slow: tests/docs/test_commands.py::test_the_online_library_gap_runs_as_written",
    "python scripts/online_study.py":
        "slow: tests/scripts/test_online_study.py"
        "::test_the_study_command_of_the_page_runs_as_written",
}


def commands(page: Path) -> list[str]:
    """The command lines of the page's ```sh blocks: continuations joined, comments left out."""
    out = []
    for block in re.findall(r"^```sh\n(.*?)^```", page.read_text(), flags=re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(" ".join(line.split()))
    return out


def shown_files(page: Path) -> dict[str, str]:
    """The files a page shows under their name ("`NAME`:" then a code block)."""
    return dict(re.findall(r"`([\w.-]+)`:\n\n```\w+\n(.*?)```", page.read_text(), flags=re.S))


PICTURES = ("writes the pictures of docs/img (scripts/draw_docs_pictures.py): "
            "tests/docs/test_plots.py::test_the_script_draws_every_picture")
LONG.update({c: PICTURES for c in commands(DOCS / "plots.md") if "--out docs/img/" in c})
RUN = [(p, c) for p in PAGES for c in commands(p) if c not in LONG]
RUN_PAGES = sorted({p for p, _ in RUN})


def test_the_pages_show_commands_and_long_lists_only_shown_ones():
    shown = {c for p in PAGES for c in commands(p)}
    assert len(RUN) >= 40 and len(RUN_PAGES) >= 10
    assert set(LONG) <= shown, sorted(set(LONG) - shown)  # a stale entry: its page changed
    for reason in {r for r in LONG.values() if r.startswith("slow: ")}:
        path, name = reason.removeprefix("slow: ").split("::")
        assert f"def {name}(" in (ROOT / path).read_text(), reason


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A user's folder: a git repository with examples/ (linked), the current directory."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith(("rigid_widest", "examples.plugins"))]:
        sys.modules.pop(name, None)


@pytest.mark.parametrize("page", RUN_PAGES, ids=[str(p.relative_to(DOCS)) for p in RUN_PAGES])
def test_every_command_of_the_page_runs(page, run, folder):
    for name, body in shown_files(page).items():
        (folder / name).write_text(body)
    for line in [c for p, c in RUN if p == page]:
        code, _, err = run_line(line, run, folder)
        assert code == 0, (line, err[-2000:])
        assert "Traceback" not in err, (line, err[-2000:])
    if page.name == "own-heuristic.md":  # the report describes the plug-in by its docstring
        report = (folder / "report" / "report.md").read_text()
        assert ("- **rigid_widest:widest_list**: WIDEST-LIST: greedy list scheduling, the widest "
                "job first") in report


@pytest.mark.slow
def test_the_online_library_gap_runs_as_written(run, folder):
    """docs/online.md: the gap report of the shipped library rigid-online (minutes)."""
    code, _, err = run_line("resilsched gap --library rigid-online -q", run, folder)
    assert code == 0 and "Traceback" not in err, err[-2000:]


DOCTEST_PAGES = [p for p in PAGES if "```pycon" in p.read_text() and p.name != "own-heuristic.md"]


@pytest.mark.parametrize("page", DOCTEST_PAGES,
                         ids=[str(p.relative_to(DOCS)) for p in DOCTEST_PAGES])
def test_the_python_lines_of_the_page_pass(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(str(page), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0


@pytest.mark.parametrize("page", [p for p in PAGES if (DOCS / "families") in p.parents],
                         ids=lambda p: p.name)
def test_a_family_page_shows_its_example_file_as_it_is(page):
    import json

    name = f"examples/{page.stem}-small.json"
    shown = re.search(rf"`{re.escape(name)}`:\n\n```json\n(.*?)```", page.read_text(), flags=re.S)
    assert shown, f"{page.name} does not show {name}"
    assert json.loads(shown.group(1)) == json.loads((ROOT / name).read_text())


@pytest.mark.parametrize("page", [p for p in PAGES if (DOCS / "families") in p.parents],
                         ids=lambda p: p.name)
def test_a_family_page_shows_its_plugin_example_as_it_is(page):
    shown = re.search(r"`examples/plugins/(\w+\.py)`:\n\n```python\n(.*?)```", page.read_text(),
                      flags=re.S)
    assert shown, f"{page.name} shows no heuristic of one's own"
    assert shown.group(2) == (ROOT / "examples" / "plugins" / shown.group(1)).read_text()
    assert shown.group(1).startswith(page.stem)
