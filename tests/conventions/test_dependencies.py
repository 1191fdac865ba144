"""One dependency direction between the role folders (docs/architecture.md, "Layout").

Layers, from the ground up: the shared types of ``resilsched/`` (errors, numeric, params, deadline,
options, engine, solution, schedule, validation) and the solver runner (solvers), then instances
<- bounds <- heuristics <- models, and on top the registry, plug-in types, families, gap, CLI,
campaigns and reproductions. A module may import its own layer and the layers below,
function-level imports included, and no two modules may import each other, directly or through
others.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
ROLES = ("instances", "bounds", "heuristics", "models")
GROUND = ("errors", "numeric", "params", "deadline", "options", "solution", "schedule",
          "validation", "engine", "solvers")
TOP = "top"
ORDER = {"ground": 0, "instances": 1, "bounds": 2, "heuristics": 3, "models": 4, TOP: 5}


def _modules() -> dict[str, Path]:
    """resilsched module name -> source file, for the package and the four role folders."""
    out = {}
    for folder, prefix in [("resilsched", "resilsched")] + [(r, f"resilsched.{r}") for r in ROLES]:
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([prefix, *parts])] = path
    return out


MODULES = _modules()


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ROLES:
        return parts[1]
    if len(parts) > 1 and parts[1] in GROUND:
        return "ground"
    return TOP


def _imports(module: str, path: Path) -> set[str]:
    """Every resilsched module `module` imports, anywhere in its source."""
    out = set()
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("resilsched") and name != module and name != "resilsched":
                out.add(name)
    return out


GRAPH = nx.DiGraph()
for _module, _path in MODULES.items():
    GRAPH.add_node(_module)
    for _target in _imports(_module, _path):
        GRAPH.add_edge(_module, _target)


def test_the_graph_sees_the_packages():
    assert "resilsched.registry" in MODULES and "resilsched.models" in MODULES
    assert layer("resilsched.models.coschedule.setpart") == "models"
    assert layer("resilsched.validation.attempts") == "ground"
    assert GRAPH.number_of_edges() > 100


@pytest.mark.parametrize("role", ["ground", *ROLES])
def test_no_layer_imports_upward(role):
    upward = sorted(
        f"{a} -> {b}"
        for a, b in GRAPH.edges
        if layer(a) == role and ORDER[layer(b)] > ORDER[role]
    )
    assert upward == []


def test_no_import_cycles():
    cycles = [sorted(c) for c in nx.strongly_connected_components(GRAPH) if len(c) > 1]
    assert cycles == []
