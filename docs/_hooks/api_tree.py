"""MkDocs hook: the source tree that the API reference is read from.

The role folders sit at the repository root and install as ``resilsched.models``, ... (setup.py's
``package_dir``), which griffe, the reader behind mkdocstrings, cannot follow in a checkout: it
looks for ``resilsched/models/``. Before the build this hook lays out ``build/api-src/resilsched``
as links: every entry of ``resilsched/`` and the four role folders beside them. mkdocs.yml's
mkdocstrings ``paths`` points there; nothing is imported or copied.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
ROLES = ("models", "heuristics", "bounds", "instances")
TREE = ROOT / "build" / "api-src" / "resilsched"


def lay_out(root: Path = ROOT, tree: Path = TREE) -> Path:
    """Link ``resilsched/*`` and the role folders into `tree`; return `tree`."""
    if tree.exists():
        shutil.rmtree(tree)
    tree.mkdir(parents=True)
    for entry in (root / "resilsched").iterdir():
        if entry.name != "__pycache__" and (entry.is_dir() or entry.suffix == ".py"):
            (tree / entry.name).symlink_to(entry)
    for role in ROLES:
        (tree / role).symlink_to(root / role)
    return tree


@event_priority(100)  # before mkdocstrings reads its paths (it drops a missing one)
def on_config(config, **kwargs):
    lay_out()
    return config
