"""Every help text of the command line, as a user reads it (issue 25, section 1).

Each subcommand's ``--help`` (nested ones such as ``campaign run`` included) and each
reproduction's ``reproduce FAMILY --help`` prints without an error and shows no argparse escape
such as a literal ``%%`` (argparse %-formats an argument's help string, not a description or an
epilog: decision T23). ``--version`` prints `resilsched.versions.show_versions`.
"""

from __future__ import annotations

import argparse

import pytest

from resilsched import __version__, cli
from resilsched.registry import reproductions


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple]:
    """Every command path of `parser`: ``()``, ``("gap",)``, ``("campaign", "run")``, ..."""
    out = [path]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _commands(sub, (*path, name))
    return out


COMMANDS = _commands(cli.build_parser())


def test_the_walk_sees_the_nested_commands():
    names = {" ".join(c) for c in COMMANDS}
    assert {"", "gap", "check", "report", "campaign run", "library verify"} <= names


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "resilsched")
def test_help_prints_no_argparse_escape(command, capsys):
    assert cli.main([*command, "--help"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("usage: resilsched")
    assert "%%" not in out and "%(" not in out


@pytest.mark.parametrize("family", sorted(reproductions()))
def test_reproduction_help_prints_no_argparse_escape(family, capsys):
    assert cli.main(["reproduce", family, "--help"]) == 0
    out, _ = capsys.readouterr()
    assert f"resilsched reproduce {family}" in out
    assert "%%" not in out and "%(" not in out


def test_the_three_texts_of_the_issue_print_one_percent_sign(capsys):
    for command, text in [("gap", "5%)"), ("check", "5%)"), ("report", "95 % confidence")]:
        cli.main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert text in out, command


def test_version_prints_the_solver_stack(capsys):
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["resilsched", __version__]
    names = [line.split()[0] for line in out]
    assert {"python", "numpy", "ortools", "highspy", "pyomo", "resilsched._core"} <= set(names)
