"""docs/ci.md is ready to copy: its workflow parses, and its commands pass as written on a
vendored copy of the shipped rigid-small library with its thresholds file (cut to its first 25
instances to keep the test fast; the whole library passes too, docs/performance.md)."""

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from resilsched.cli import main
from resilsched.library.catalog import find

DOC = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text()


def _block(lang, index=0):
    return re.findall(rf"```{lang}\n(.*?)```", DOC, re.S)[index]


def test_the_workflow_is_valid_yaml_with_the_gate_steps():
    yaml = pytest.importorskip("yaml")
    flow = yaml.safe_load(_block("yaml"))
    steps = flow["jobs"]["gap-gate"]["steps"]
    runs = " ".join(s.get("run", "") for s in steps)
    assert "resilsched library verify" in runs and "resilsched check --library" in runs
    assert any(s.get("if") == "always()" for s in steps)


def test_the_commands_pass_as_written(tmp_path, monkeypatch, capsys):
    vendor = tmp_path / "vendor" / "libraries"
    shutil.copytree(find("rigid-small")[0].path, vendor / "rigid-small")
    manifest = json.loads((vendor / "rigid-small" / "manifest.json").read_text())
    manifest["files"] = manifest["files"][:25]
    (vendor / "rigid-small" / "manifest.json").write_text(json.dumps(manifest))
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "thresholds.json").write_text(_block("json"))
    monkeypatch.chdir(tmp_path)
    commands = [line.strip() for line in _block("yaml").splitlines()
                if line.strip().startswith("run: resilsched")]
    assert len(commands) == 2
    for command in commands:
        argv = shlex.split(command.removeprefix("run: ").replace('"$GITHUB_RUN_NUMBER"', "7"))
        argv = argv[: argv.index(">")] if ">" in argv else argv
        assert argv[0] == "resilsched"
        assert main([*argv[1:], "-q"]) == 0, command
    report = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert report["passed"] and report["libraries"][0]["name"] == "rigid-small"
