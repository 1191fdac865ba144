"""Every command and Python line of docs/online.md runs as written (the study's own command is
in test_study.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "online.md").read_text()


def _blocks(kind: str) -> list[str]:
    return [b.split("```", 1)[0] for b in PAGE.split(f"```{kind}\n")[1:]]


def _commands() -> list[list[str]]:
    return [line.split("#")[0].split() for block in _blocks("sh") for line in block.splitlines()
            if line.startswith("resilsched ")]


QUICK = [c for c in _commands() if "--library" not in c]
SLOW = [c for c in _commands() if "--library" in c]


def test_the_page_shows_commands():
    assert len(QUICK) >= 4 and SLOW


def _json_of(run, argv):
    """The command run from the repository's root, with --json: its JSON object."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code, out, err = run(*argv[1:], "--json")
    finally:
        os.chdir(cwd)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("argv", QUICK, ids=lambda c: " ".join(c[1:3]))
def test_command_runs_as_written(run, argv):
    d = _json_of(run, argv)
    if argv[1] == "gap":
        assert d["violations"] == 0
    else:
        assert d["objective"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("argv", SLOW, ids=lambda c: " ".join(c[1:3]))
def test_library_command_runs_as_written(run, argv):
    assert _json_of(run, argv)["violations"] == 0


def test_python_lines_run_and_say_what_the_comments_say():
    (block,) = _blocks("python")
    scope: dict = {}
    exec(compile(block, "docs/online.md", "exec"), scope)
    table = scope["table"]
    assert sorted(table.decision()) == [(0, 1), (1, 1)]
    assert table.decision(running={1: (1, 1)}) == [(0, 1)]
    assert table.replay([1, 0]).makespan == 4
