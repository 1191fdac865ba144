"""The registry: per family, its generators, heuristics, exact models and bounds by stable names.

The CLI, the gap harness and campaigns discover everything through it (docs/architecture.md,
"Registry"). A family registers itself in ``resilsched/families/<name>.py`` by building one
`Family` object named ``FAMILY``; adding an algorithm is one entry in that object.

Family modules are imported lazily, so ``resilsched --help`` does not pay for importing solvers.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resilsched.solution import HeuristicResult, Solution

#: family name -> module that defines ``FAMILY``; families not yet built are simply absent.
FAMILY_MODULES: dict[str, str] = {
    "rigid": "resilsched.families.rigid",
    "moldable": "resilsched.families.moldable",
    "coschedule": "resilsched.families.coschedule",
    "worksharing": "resilsched.families.worksharing",
    "desktop": "resilsched.families.desktop",
}


@dataclass(frozen=True)
class Case:
    """One gap-report case: an instance and, for the failure families, a scenario."""

    name: str
    instance: Any
    scenario: Any = None


@dataclass(frozen=True)
class Heuristic:
    """A registered heuristic.

    ``run(instance, scenario, priority, seed) -> HeuristicResult``; `priorities` lists the rules
    it accepts (empty when it has none); ``guarantee(instance, priority)`` returns the proven
    ratio c with objective <= c * OPT (>= c * OPT when maximising), or None.
    """

    name: str
    run: Callable[..., HeuristicResult]
    description: str
    priorities: tuple[str, ...] = ()
    default_priority: str | None = None
    guarantee: Callable[[Any, str | None], Any] | None = None


@dataclass(frozen=True)
class ExactModel:
    """A registered exact model: ``solve(instance, scenario, time_limit) -> Solution``."""

    name: str
    solve: Callable[..., Solution]
    description: str


@dataclass(frozen=True)
class Bound:
    """A registered bound: ``compute(instance, scenario)`` is <= OPT (>= OPT when maximising)."""

    name: str
    compute: Callable[[Any, Any], Any]
    description: str


@dataclass(frozen=True)
class Generator:
    """A registered generator or preset: ``generate(seed, count) -> list of instances``."""

    name: str
    generate: Callable[[int, int | None], list[Any]]
    description: str


@dataclass
class Family:
    """Everything the toolkit knows about one problem family."""

    name: str
    spec: str
    sense: str  # "min" or "max"
    objective_name: str
    from_dict: Callable[[dict], Any]
    smoke_suite: Callable[[], list[Case]]
    default_exact: str
    heuristics: dict[str, Heuristic] = field(default_factory=dict)
    exact: dict[str, ExactModel] = field(default_factory=dict)
    bounds: dict[str, Bound] = field(default_factory=dict)
    generators: dict[str, Generator] = field(default_factory=dict)
    #: file suffix (".swf") -> reader(path, **options) returning a list of instances
    readers: dict[str, Callable[..., list[Any]]] = field(default_factory=dict)
    #: (instance, failures-or-None) -> scenario object, None for families without scenarios
    scenario: Callable[[Any, Any], Any] | None = None
    #: (instance, qbar, seed) -> sampled scenario, for the failure families
    sample_scenario: Callable[[Any, float, int], Any] | None = None
    #: (case, HeuristicResult) -> None or raises; the independent validator
    validate: Callable[[Case, HeuristicResult], None] | None = None

    def add(self, item: Heuristic | ExactModel | Bound | Generator) -> None:
        table = {
            Heuristic: self.heuristics,
            ExactModel: self.exact,
            Bound: self.bounds,
            Generator: self.generators,
        }[type(item)]
        if item.name in table:
            raise ValueError(f"{self.name}: {item.name!r} is registered twice")
        table[item.name] = item


class UnknownName(LookupError):
    """A name that is not in the registry; the message lists the known names."""


def _lookup(table: dict[str, Any], name: str, what: str):
    if name in table:
        return table[name]
    folded = {k.lower(): v for k, v in table.items()}
    if name.lower() in folded:
        return folded[name.lower()]
    raise UnknownName(f"{what}={name!r} is unknown (choose from {', '.join(table) or 'none'})")


def available_families() -> list[str]:
    """Names of the families whose registration module is installed."""
    out = []
    for name, module in FAMILY_MODULES.items():
        if importlib.util.find_spec(module) is not None:
            out.append(name)
    return out


def get_family(name: str) -> Family:
    """The `Family` registered under `name` (imports its module on first use)."""
    if name not in FAMILY_MODULES or name not in available_families():
        raise UnknownName(
            f"family={name!r} is unknown (choose from {', '.join(available_families())})"
        )
    return importlib.import_module(FAMILY_MODULES[name]).FAMILY


def heuristic(family: Family, name: str) -> Heuristic:
    return _lookup(family.heuristics, name, "--heuristic")


def exact_model(family: Family, name: str) -> ExactModel:
    return _lookup(family.exact, name, "--method")


def generator(family: Family, name: str) -> Generator:
    return _lookup(family.generators, name, "--preset")


def reader_for(family: Family, path: Path):
    return family.readers.get(path.suffix.lower())
