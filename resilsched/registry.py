"""The registry: the families discovered, and their entries looked up by stable names.

A family is a module ``resilsched/families/<name>.py`` defining ``FAMILY``, a
`resilsched.plugin.Family` whose ``name`` is the module name (docs/architecture.md, "Adding a
family"). Modules are found in the `resilsched.families` package (every module whose name does
not start with ``_``) and in the ``resilsched.families`` entry-point group of other installed
distributions; they are imported on first use, so ``resilsched --help`` pays for no solver.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from resilsched.plugin import (  # noqa: F401  (re-exported: the types a family registers)
    Bound,
    Case,
    ExactModel,
    Family,
    Generator,
    Heuristic,
    Reproduction,
)


class UnknownName(LookupError):
    """A name that is not in the registry; the message lists the known names."""


def _lookup(table: dict[str, Any], name: str, what: str):
    if name in table:
        return table[name]
    folded = {k.lower(): v for k, v in table.items()}
    if isinstance(name, str) and name.lower() in folded:
        return folded[name.lower()]
    raise UnknownName(f"{what}={name!r} is unknown (choose from {', '.join(table) or 'none'})")


def family_modules() -> dict[str, str]:
    """family name -> module defining ``FAMILY``, in discovery order (package, then plug-ins)."""
    import resilsched.families as package

    found = {
        info.name: f"{package.__name__}.{info.name}"
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name)
        if not info.name.startswith("_")
    }
    for ep in entry_points(group="resilsched.families"):
        found.setdefault(ep.name, ep.value)
    return found


def available_families() -> list[str]:
    """Names of the families installed."""
    return list(family_modules())


def get_family(name: str) -> Family:
    """The `Family` registered under `name` (its module is imported on first use)."""
    modules = family_modules()
    if not isinstance(name, str) or name not in modules:
        raise UnknownName(f"family={name!r} is unknown (choose from {', '.join(modules)})")
    family = importlib.import_module(modules[name]).FAMILY
    if family.name != name:
        raise RuntimeError(f"{modules[name]} registers {family.name!r}, not {name!r}")
    return family


def all_families() -> list[Family]:
    return [get_family(name) for name in available_families()]


def heuristic(family: Family, name: str) -> Heuristic:
    return _lookup(family.heuristics, name, "--heuristic")


def exact_model(family: Family, name: str) -> ExactModel:
    return _lookup(family.exact, name, "--method")


def generator(family: Family, name: str) -> Generator:
    return _lookup(family.generators, name, "--preset")


def reader_for(family: Family, path: Path):
    return family.readers.get(path.suffix.lower())


def reproductions() -> dict[str, Family]:
    """family name -> family, for the families that register a paper reproduction."""
    return {fam.name: fam for fam in all_families() if fam.reproduction is not None}


def reproduction(name: str) -> Family:
    """The family of ``resilsched reproduce NAME`` (case-insensitive), or `UnknownName`."""
    table = reproductions()
    fam = _lookup(table, name, "family")
    return fam
