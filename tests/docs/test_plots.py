"""docs/plots.md as a user reads it: its pictures are drawn by the script whose commands the page
shows, every command and the Python example run as written (outputs moved to a temporary
folder), and every picture it shows exists."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys

import pytest

from tests.support.plot.fixtures import ROOT

PAGE = ROOT / "docs" / "plots.md"
SCRIPT = ROOT / "scripts" / "draw_docs_pictures.py"

pytest.importorskip("matplotlib")


def _script():
    spec = importlib.util.spec_from_file_location("draw_docs_pictures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["draw_docs_pictures"] = module
    spec.loader.exec_module(module)
    return module


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", PAGE.read_text(), flags=re.S)


def _commands() -> list[str]:
    return [line for block in _blocks("sh") for line in block.splitlines()
            if line.startswith("resilsched ")]


def test_the_page_shows_the_scripts_commands_and_its_pictures():
    script = _script()
    shown = _commands()
    assert [c for _, c in script.COMMANDS] == [c for c in shown if "docs/img/" in c]
    for name, _ in script.COMMANDS:
        assert f"](img/{name})" in PAGE.read_text()
        assert (ROOT / "docs" / "img" / name).read_bytes().startswith(b"\x89PNG")


def test_the_script_draws_every_picture(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)  # the commands name files from the repository root
    script = _script()
    assert script.main(["--out", str(tmp_path)]) == 0
    for name, _ in script.COMMANDS:
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 20_000, name


def _moved(command: str, tmp) -> list[str]:
    """The arguments of `command` with its inputs from the repository and outputs in tmp."""
    words = shlex.split(command)[1:]
    for i, w in enumerate(words):
        if words[i - 1] in ("--out", "--csv"):
            words[i] = str(tmp / w.rsplit("/", 1)[-1])
        elif (ROOT / w).exists() and i:
            words[i] = str(ROOT / w)
    return words


@pytest.mark.parametrize("command", [c for c in _commands() if "docs/img/" not in c])
def test_the_other_commands_run_as_written(command, run, tmp_path):
    code, out, err = run(*_moved(command, tmp_path), "-q")
    assert code == 0, err
    if command.startswith("resilsched plot "):
        assert out.startswith("wrote ")
    else:  # the JSON example: the attempt the page quotes is in the output
        import json

        quoted = re.search(r"attempts such as `(\{.*?\})`", PAGE.read_text(), flags=re.S)
        attempt = json.loads(" ".join(quoted.group(1).split()))
        assert attempt in json.loads(out)["solution"]["attempts"]


def test_the_python_example_runs(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    (code,) = _blocks("python")
    monkeypatch.chdir(tmp_path)
    code = code.replace('"examples/', f'"{ROOT}/examples/')
    exec(compile(code, str(PAGE), "exec"), {})
    for name in ("rigid-list.png", "rigid-optimum.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")


def _help_examples() -> list[str]:
    from resilsched.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    text = sub.choices["plot"].format_help().split("examples:\n", 1)[1]
    return [" ".join(c.split()) for c in text.replace("\\\n", " ").splitlines() if c.strip()]


@pytest.mark.parametrize("command", _help_examples())
def test_the_help_examples_run_as_written(command, run, tmp_path):
    assert command.startswith("resilsched plot ")
    code, out, err = run(*_moved(command, tmp_path), "-q")
    assert code == 0, err
    assert out.startswith("wrote ")
