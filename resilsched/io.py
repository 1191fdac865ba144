"""Reading instance files of any family (docs/architecture.md, "Contracts users script against").

JSON files carry ``"family"`` and ``"format_version"``; other formats are recognised by suffix
through the family readers of the registry (e.g. ``.swf`` traces for the rigid family).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.registry import Family, available_families, get_family, reader_for


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise InvalidInstance(str(path), "no such file") from None
    except OSError as exc:
        raise InvalidInstance(str(path), f"cannot be read ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInstance(
            str(path), f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def read_instances(
    path: str | Path, family: str | None = None, **reader_options: Any
) -> tuple[Family, list[Any]]:
    """Load the instances of a file: one for a JSON instance, several for a trace or a library.

    A JSON file may hold one instance object or ``{"instances": [...]}``; its family comes from the
    ``"family"`` field (or `family`). Other suffixes go to the registered family readers.
    """
    path = Path(path)
    if path.suffix.lower() != ".json":
        fams = [family] if family else available_families()
        for name in fams:
            fam = get_family(name)
            reader = reader_for(fam, path)
            if reader is not None:
                if not path.exists():
                    raise InvalidInstance(str(path), "no such file")
                return fam, list(reader(path, **reader_options))
        if path.suffix:
            raise InvalidInstance(
                str(path),
                f"suffix {path.suffix!r} is not a known instance format "
                "(.json, or a family reader's)",
            )
    data = _read_json(path)
    items = data.get("instances") if isinstance(data, dict) and "instances" in data else [data]
    if not isinstance(items, list) or not items:
        raise InvalidInstance("instances", "must be a non-empty list")
    out, fam = [], None
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InvalidInstance(
                f"instances[{i}]" if len(items) > 1 else "instance", "must be a JSON object"
            )
        name = item.get("family", family)
        if name is None:
            raise InvalidInstance(
                "family", f"is required (one of {', '.join(available_families())})"
            )
        if name not in available_families():
            raise InvalidInstance(
                "family", f"{name!r} is unknown (choose from {', '.join(available_families())})"
            )
        if fam is not None and fam.name != name:
            raise InvalidInstance(f"instances[{i}].family", f"{name!r} differs from {fam.name!r}")
        fam = get_family(name)
        out.append(fam.from_dict(item))
    return fam, out


def write_instance(instance: Any, path: str | Path) -> str:
    """Write one instance as canonical JSON (sorted keys off, 1-space indent); returns the text."""
    text = json.dumps(instance.to_dict(), indent=1) + "\n"
    Path(path).write_text(text)
    return text
