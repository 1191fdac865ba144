"""One module per subcommand (issue 28): every module of `resilsched.commands` but the shared
`args` is a subcommand of the same name, owning its parser (``add_parser``) and its handler,
and `resilsched --help` lists them in the order of `COMMANDS`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import resilsched.commands
from resilsched.cli import build_parser
from resilsched.commands import COMMANDS

SHARED = {"args"}


def test_every_command_module_is_a_subcommand():
    modules = {m.name for m in pkgutil.iter_modules(resilsched.commands.__path__)}
    assert modules - SHARED == set(COMMANDS)
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    for name in COMMANDS:
        module = importlib.import_module(f"resilsched.commands.{name}")
        assert callable(module.add_parser), name
        handler = sub.choices[name].get_default("func")
        if handler is None:  # a command of actions: each action's handler is in the module
            actions = next(a for a in sub.choices[name]._actions
                           if isinstance(a, argparse._SubParsersAction))
            handlers = [p.get_default("func") for p in actions.choices.values()]
        else:
            handlers = [handler]
        for h in handlers:
            assert h.__module__ == module.__name__, (name, h)
