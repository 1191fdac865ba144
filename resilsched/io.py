"""Reading instance files of any family (docs/architecture.md, "Contracts users script against").

JSON files carry ``"family"`` and ``"format_version"``; other formats are recognised by suffix
through the family readers of the registry (e.g. ``.swf`` traces for the rigid family).
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance, InvalidOption
from resilsched.registry import Family, available_families, get_family, reader_for

#: Deepest nesting of arrays and objects accepted in a JSON file (instances are 3-4 deep).
MAX_JSON_DEPTH = 64
#: Largest JSON file read (bytes); an instance of 10^6 jobs is about 20 MB.
MAX_JSON_BYTES = 512 * 2**20
_CONSTANT = re.compile(r"-?Infinity|NaN")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_CHUNK = 2**24


class _NotJson(ValueError):
    """A NaN/Infinity literal, which Python's json accepts and JSON (RFC 8259) does not."""


def _refuse_constant(name: str) -> Any:
    raise _NotJson(name)


def _depth(text: str) -> int:
    """Nesting depth of valid JSON `text`: its brackets outside strings, counted vectorised in
    chunks (a walk of the parsed value took 4 s on a 10^6-entry file; this takes milliseconds)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    deepest, level = 0, 0
    for start in range(0, len(brackets), _CHUNK):
        codes = np.frombuffer(brackets, dtype=np.uint8, count=min(_CHUNK, len(brackets) - start),
                              offset=start)
        levels = level + np.cumsum(np.where((codes == 91) | (codes == 123), 1, -1))
        deepest, level = max(deepest, int(levels.max())), int(levels[-1])
    return deepest


def read_json(path: str | Path) -> Any:
    """The JSON value of a file, or a one-line `InvalidInstance` naming the file.

    Refused: a directory or a missing file, more than `MAX_JSON_BYTES`, bytes that are not
    UTF-8, invalid JSON, the literals NaN/Infinity/-Infinity (Python's json accepts them, JSON
    does not: a NaN threshold would silently disable a check), integers of more than 4300
    digits, nesting deeper than `MAX_JSON_DEPTH`. A UTF-8 byte order mark is skipped.
    """
    path = Path(path)
    name = str(path)
    try:
        if path.is_dir():
            raise InvalidInstance(name, "is a directory, not a JSON file")
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise InvalidInstance(name, f"holds {size} bytes (at most {MAX_JSON_BYTES})")
        data = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInstance(name, "no such file") from None
    except OSError as exc:
        raise InvalidInstance(name, f"cannot be read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise InvalidInstance(name, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                                    f"offset {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInstance(
            name, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except _NotJson as exc:
        match = _CONSTANT.search(text)
        line = text.count("\n", 0, match.start()) + 1 if match else "?"
        raise InvalidInstance(name, f"is not valid JSON (line {line}: {exc.args[0]} is not a "
                                    "JSON number; use a finite number or null)") from None
    except RecursionError:
        raise InvalidInstance(name, f"nests arrays/objects too deeply (at most "
                                    f"{MAX_JSON_DEPTH} levels)") from None
    except ValueError as exc:  # e.g. an integer beyond Python's 4300-digit conversion limit
        raise InvalidInstance(name, f"is not valid JSON ({str(exc).split(';')[0]})") from None
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise InvalidInstance(name, f"nests arrays/objects {depth} levels deep (at most "
                                    f"{MAX_JSON_DEPTH})")
    return value


def read_instances(
    path: str | Path, family: str | None = None, **reader_options: Any
) -> tuple[Family, list[Any]]:
    """Load the instances of a file: one for a JSON instance, several for a trace or a library.

    A JSON file may hold one instance object or ``{"instances": [...]}``; its family comes from the
    ``"family"`` field (or `family`). Other suffixes go to the registered family readers, with
    `reader_options`; an option the reader does not take, or any option for a JSON file (where
    it would be ignored), is an `InvalidOption` naming it, before the file is read.
    """
    path = Path(path)
    if path.suffix.lower() != ".json":
        fams = [family] if family else available_families()
        for name in fams:
            fam = get_family(name)
            reader = reader_for(fam, path)
            if reader is not None:
                _check_reader_options(reader, path, reader_options)
                if not path.exists():
                    raise InvalidInstance(str(path), "no such file")
                return fam, list(reader(path, **reader_options))
        if path.suffix:
            raise InvalidInstance(
                str(path),
                f"suffix {path.suffix!r} is not a known instance format "
                "(.json, or a family reader's)",
            )
    if reader_options and path.suffix.lower() == ".json":
        raise InvalidOption(next(iter(reader_options)), f"applies to trace files (.swf), not to "
                                                        f"the JSON instance {path}")
    data = read_json(path)
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


def _check_reader_options(reader: Any, path: Path, options: dict[str, Any]) -> None:
    """Refuse an option the trace `reader` does not take (it would be a `TypeError` inside
    it), naming the options it does take."""
    params = list(inspect.signature(reader).parameters.values())[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    known = [p.name for p in params if p.kind is not p.VAR_POSITIONAL]
    for name in options:
        if name not in known:
            raise InvalidOption(name, f"is not an option of the {path.suffix} reader (choose "
                                      f"from {', '.join(known)})")


def write_instance(instance: Any, path: str | Path) -> str:
    """Write one instance as canonical JSON (sorted keys off, 1-space indent); returns the text."""
    text = json.dumps(instance.to_dict(), indent=1) + "\n"
    Path(path).write_text(text)
    return text
