"""JSON Schemas of resilsched's file formats (docs/schemas.md), shipped as package data.

One schema per instance format (``instance-<family>.json``), the library manifest
(``library-manifest.json``) and the campaign spec (``campaign-spec.json``, the JSON form of the
TOML file), in JSON Schema draft 2020-12, so that editors and other tools can check a file
before resilsched reads it. resilsched's own readers stay the authority: they also check what
a schema cannot express (a job no wider than P, a table of exactly P entries, names known to
the registry), each schema's description says which.

>>> sorted(SCHEMAS)[:2]
['campaign-spec', 'instance-coschedule']
>>> load("instance-rigid")["required"]
['family', 'P', 'jobs']
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: the folder of the schema files
FOLDER = Path(__file__).resolve().parent

#: the schemas shipped, by name (the file name without ``.json``)
SCHEMAS = tuple(sorted(p.stem for p in FOLDER.glob("*.json")))


def path(name: str) -> Path:
    """The file of schema `name` (``"instance-rigid"``, ``"library-manifest"``, ...).

    Raises
    ------
    KeyError
        when no such schema is shipped.
    """
    if name not in SCHEMAS:
        raise KeyError(f"{name!r} is not a shipped schema (choose from {', '.join(SCHEMAS)})")
    return FOLDER / f"{name}.json"


def load(name: str) -> dict[str, Any]:
    """Schema `name` as a JSON object."""
    return json.loads(path(name).read_text(encoding="utf-8"))


def instance_schema(family: str) -> dict[str, Any]:
    """The schema of the instance files of `family`."""
    return load(f"instance-{family}")
