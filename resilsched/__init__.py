"""resilsched: exact formulations beside heuristics for resilient scheduling.

The front door (`resilsched.api`, imported on first use so that ``import resilsched`` loads no
solver): ``load``, ``scenario``, ``simulate``, ``solve``, ``bounds`` and ``gap``, each going
through the registry and returning a typed result (``objective``, ``bound``, ``status``,
``schedule``, ``to_dict()``). Role subpackages: `resilsched.instances`, `resilsched.heuristics`,
`resilsched.models`, `resilsched.bounds`; shared types here (`InvalidInstance`,
`InvalidOption`, `Solution`, `Status`, `HeuristicResult`).

``resilsched.show_versions()`` prints the versions of Python, resilsched and the solver stack and
whether the compiled modules are loaded (`resilsched.versions`).

``resilsched.gap`` and ``resilsched.bounds`` are also modules (the gap harness, the role package
of bounds): each is a module that can be called, ``resilsched.gap(...)`` being
`resilsched.api.gap` and ``resilsched.bounds(...)`` `resilsched.api.bounds`.
"""

from __future__ import annotations

import importlib as _importlib
import types as _types
from typing import Any as _Any

from resilsched import plot as _plot  # noqa: F401  (gives the results their .plot())
from resilsched.errors import HeuristicRefusal, InvalidInstance, InvalidOption, InvalidSchedule
from resilsched.solution import HeuristicResult, Solution, Status

__version__ = "0.1.0"

#: the functions of `resilsched.api` reachable as ``resilsched.NAME``
FRONT_DOOR = ("load", "scenario", "simulate", "solve", "bounds", "gap")

__all__ = [
    *FRONT_DOOR,
    "HeuristicRefusal",
    "InvalidInstance",
    "InvalidOption",
    "InvalidSchedule",
    "HeuristicResult",
    "Solution",
    "Status",
    "__version__",
    "show_versions",
]


class _CallableModule(_types.ModuleType):
    """A module that is also the front-door function of its name (``resilsched.gap``,
    ``resilsched.bounds``): calling it calls `resilsched.api`'s function."""

    def __call__(self, *args: _Any, **kwargs: _Any) -> _Any:
        from resilsched import api

        return getattr(api, self.__name__.rpartition(".")[2])(*args, **kwargs)


for _name in ("gap", "bounds"):
    _importlib.import_module(f"{__name__}.{_name}").__class__ = _CallableModule


def __getattr__(name: str) -> _Any:
    if name in FRONT_DOOR:
        from resilsched import api

        return getattr(api, name)
    if name == "show_versions":  # resilsched.versions.show_versions, imported on first use
        from resilsched.versions import show_versions

        return show_versions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
