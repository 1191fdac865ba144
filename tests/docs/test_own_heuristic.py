"""docs/own-heuristic.md, "Score your own heuristic", runs as written: its module is
examples/plugins/rigid_widest.py, its files are written where it names them, its CI step is one
of the commands of its shell blocks (tests/docs/test_commands.py runs them all, in order), its
error line is the one printed, and its Python lines pass as doctests."""

from __future__ import annotations

import doctest
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "own-heuristic.md"
PLUGINS = ROOT / "examples" / "plugins"
TEXT = DOC.read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", TEXT, flags=re.S)


def _commands() -> list[list[str]]:
    return [line.split("#")[0].split() for block in _blocks("sh")
            for line in block.splitlines() if line.startswith("resilsched ")]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A user's folder: examples/, the module, and the files the page tells to write."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    shutil.copy(PLUGINS / "rigid_widest.py", tmp_path)
    for name, body in re.findall(r"`([\w.-]+)`:\n\n```\w+\n(.*?)```", TEXT, flags=re.S):
        (tmp_path / name).write_text(body)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("rigid_widest", None)


def test_the_page_shows_the_example_modules_as_they_are():
    assert _blocks("python")[0] == (PLUGINS / "rigid_widest.py").read_text()
    shown = re.findall(r"### \w+: `examples/plugins/(\w+\.py)`\n\n```python\n(.*?)```", TEXT,
                       flags=re.S)
    assert len(shown) == 5
    for name, code in shown:
        assert code == (PLUGINS / name).read_text(), name


def test_the_ci_step_is_a_command_of_the_page():
    steps = re.findall(r"run: (resilsched .*?) --json > ", "\n".join(_blocks("yaml")))
    assert steps and all(step.split() in _commands() for step in steps)


def test_the_error_line_shown_is_the_one_printed(run, project):
    shown = re.search(r"`(error: --heuristic rigid_widest:widest: .*?)`", TEXT, flags=re.S)
    code, out, err = run("simulate", "examples/rigid-small.json", "--heuristic",
                         "rigid_widest:widest")
    assert (code, out) == (2, "")
    assert err.strip() == " ".join(shown.group(1).split())


def test_the_python_lines_pass(project, monkeypatch):
    monkeypatch.syspath_prepend(str(project))  # `python` started in the folder
    result = doctest.testfile(str(DOC), module_relative=False)
    assert result.attempted >= 4 and result.failed == 0


FAMILIES = [("rigid", "rigid_widest:widest_list"),
            ("moldable", "moldable_efficient:efficient_list"),
            ("coschedule", "coschedule_fold:fold"),
            ("worksharing", "worksharing_slices:equal_slices"),
            ("malleable", "malleable_best:best_end"),
            ("desktop", "desktop_best:best_local")]


@pytest.mark.parametrize("family, ref", FAMILIES, ids=[f for f, _ in FAMILIES])
def test_each_family_example_passes_check_on_its_library(run, monkeypatch, family, ref):
    module = ref.split(":")[0]
    assert f"| {family} | `{ref}` |" in TEXT
    lines = (PLUGINS / f"{module}.py").read_text().splitlines()
    assert 15 <= len([ln for ln in lines if ln.strip()]) <= 40  # about 20-40 lines of code
    monkeypatch.chdir(PLUGINS)
    try:
        code, out, err = run("check", "--library", f"{family}-small", "--heuristic", ref,
                             "--jobs", "1", "-q", "--json")
    finally:
        sys.modules.pop(module, None)
    assert code == 0, err
    import json

    (row,) = [h for h in json.loads(out)["heuristics"] if h.get("group") in (None, "slack")]
    assert row["heuristic"] == ref and row["cases"] > 0 and row["violations"] == 0
