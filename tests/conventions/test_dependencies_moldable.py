"""Dependency direction of the moldable modules (docs/architecture.md, "Dependency direction").

instances <- bounds <- heuristics <- models, with the ground of `resilsched/` below them: a module
imports its own layer and lower ones only (function-level imports included), and never its own
package's ``__init__`` (which imports it: a cycle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GROUND = {"errors", "numeric", "params", "deadline", "options", "solution", "schedule",
          "validation", "solvers"}
LAYERS = {"instances": 1, "bounds": 2, "heuristics": 3, "models": 4}
MODULES = sorted([ROOT / "bounds" / "moldable.py", *(ROOT / "heuristics" / "moldable").glob("*.py"),
                  *(ROOT / "models" / "moldable").glob("*.py")])


def _layer(module: str) -> int:
    part = module.split(".")[1]
    if part in GROUND:
        return 0
    return LAYERS.get(part, 5)  # registry, plugin, families, cli, campaign, reproduce: the top


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [m for m in out if m.startswith("resilsched.")]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_go_down_only(path):
    role = path.relative_to(ROOT).parts[0]
    own = LAYERS[role]
    package = f"resilsched.{role}.moldable"
    for module in _imports(path):
        assert _layer(module) <= own, f"{path.name} imports {module} (a higher layer)"
        if path.name != "__init__.py":
            assert module != package, f"{path.name} imports its own package {package}"
