"""The libraries: the shipped ones, their build specs, and look-up by name or folder.

A library is a folder holding ``manifest.json`` and one JSON file per instance (the manifest
format is in docs/architecture.md, "Libraries"). The shipped libraries are package data in
``resilsched/library/data/<name>/``, built by ``scripts/build_libraries.py`` from `SPECS`. A
family gets a library by registering a generator named ``library`` (`LIBRARY_PRESET`):
`specs()` adds a default spec for every such family that `SPECS` does not list.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resilsched.deadline import check_time_limit
from resilsched.errors import InvalidInstance
from resilsched.io import read_json
from resilsched.library.certificate import brief

#: where the shipped libraries live (package data)
DATA = Path(__file__).resolve().parent / "data"
MANIFEST = "manifest.json"
#: the generator a family registers to get a shipped library
LIBRARY_PRESET = "library"
#: smallest share of instances with a proven optimum a shipped library must have
MIN_PROVEN = 0.9


@dataclass(frozen=True)
class LibrarySpec:
    """How ``scripts/build_libraries.py`` builds one shipped library.

    `method` defaults to the family's reference model; certificates are solved with
    ``deterministic=True`` and one worker (`CERT_OPTIONS`) within `time_limit` seconds (CP-SAT
    then stops on deterministic time, so the status is the same on every machine).
    """

    name: str
    family: str
    preset: str = LIBRARY_PRESET
    seed: int = 1
    count: int | None = None
    method: str | None = None
    time_limit: float = 10.0


#: the options every certificate is solved with (docs/decisions.md L2)
CERT_OPTIONS: dict[str, Any] = {"deterministic": True, "workers": 1}

SPECS: tuple[LibrarySpec, ...] = (
    LibrarySpec("rigid-small", "rigid"),
    # the moldable model's deterministic budget is 0.001 units per second of limit: 60 s lets it
    # prove 96 of the 100 optima in at most ~1.4 s of wall time each
    LibrarySpec("moldable-small", "moldable", time_limit=60.0),
    LibrarySpec("coschedule-small", "coschedule"),
    LibrarySpec("worksharing-small", "worksharing"),
    # the online family's optimal online policies (issue 26), every one proven in well under 1 s
    LibrarySpec("rigid-online", "online", time_limit=60.0),
)


def specs() -> list[LibrarySpec]:
    """`SPECS`, plus ``<family>-small`` for every family with a ``library`` generator that
    `SPECS` does not cover (adding a family's library is one generator entry)."""
    from resilsched.registry import all_families

    out = list(SPECS)
    covered = {s.family for s in out}
    for fam in all_families():
        if fam.name not in covered and LIBRARY_PRESET in fam.generators:
            out.append(LibrarySpec(f"{fam.name}-small", fam.name))
    return out


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One instance of a library: its file, the manifest's record, its JSON object, and the
    sha256 of the file's bytes."""

    library: str
    file: str
    record: dict[str, Any]
    data: dict[str, Any]
    sha256: str

    @property
    def sha_ok(self) -> bool:
        """The file is the one the manifest lists (same sha256)."""
        return self.sha256 == self.record.get("sha256")

    @property
    def name(self) -> str:
        return str(self.record.get("name") or self.data.get("name") or self.file)

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.data.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def label(self) -> str:
        """``library/file (name)``, how reports name the instance."""
        return f"{self.library}/{self.file} ({self.name})"


@dataclass(frozen=True)
class Method:
    """How a library's certificates are made: the manifest's ``"exact"`` (model, time limit and
    options), which `library verify` and ``gap --resolve`` solve with again."""

    name: str
    time_limit: float
    options: dict[str, Any]


@dataclass(frozen=True)
class Library:
    """A library folder and its manifest (checked by `read_library`)."""

    path: Path
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.manifest.get("library") or self.path.name)

    @property
    def family(self) -> str:
        return str(self.manifest["family"])

    @property
    def records(self) -> list[Any]:
        """The manifest's ``files`` (each checked only by `entry`)."""
        return list(self.manifest.get("files", []))

    @property
    def proven(self) -> int:
        return sum(isinstance(r, dict) and r.get("status") == "optimal" for r in self.records)

    def summary(self) -> dict[str, Any]:
        """The row of ``resilsched library list --json``."""
        exact = self.manifest.get("exact") or {}
        return {
            "name": self.name,
            "family": self.family,
            "instances": len(self.records),
            "proven_optimal": self.proven,
            "with_bounds": len(self.records) - self.proven,
            "method": exact.get("method"),
            "preset": self.manifest.get("preset"),
            "seed": self.manifest.get("seed"),
            "path": str(self.path),
        }

    def method(self) -> Method | None:
        """The manifest's ``exact``, checked against the family's registry (None when the
        manifest has none: a library without certificates). `InvalidInstance` naming
        ``manifest.json`` and the field when the model is unknown, the time limit is not a
        number of seconds in range, or an option is not one of the model's or out of range."""
        from resilsched.registry import get_family

        exact = self.manifest.get("exact")
        if exact is None:
            return None
        where = f"{self.path / MANIFEST}: exact"
        fam = get_family(self.family)
        name = exact.get("method")
        if not isinstance(name, str) or name not in fam.exact:
            raise InvalidInstance(f"{where}.method", f"{brief(name)} is not an exact model of "
                                  f"{fam.name} (choose from {', '.join(fam.exact)})")
        try:
            limit = check_time_limit(exact.get("time_limit"), f"{where}.time_limit")
        except OverflowError:  # an integer beyond any float
            raise InvalidInstance(f"{where}.time_limit", "must be a finite number of "
                                                         "seconds") from None
        if limit is None:
            raise InvalidInstance(f"{where}.time_limit", "is required (seconds per solve)")
        options = exact.get("options")
        if not isinstance(options, dict):
            raise InvalidInstance(f"{where}.options", f"{brief(options)} must be an object "
                                                      "of the model's options")
        known = {p.name: p for p in fam.exact[name].params}
        for key, value in options.items():
            if key not in known:
                raise InvalidInstance(f"{where}.options.{key}", f"is not an option of {name} "
                                                                f"(choose from {', '.join(known)})")
            try:
                known[key].check(value, name)
            except InvalidInstance as exc:
                raise InvalidInstance(f"{where}.options.{key}", exc.rule) from None
            except OverflowError:  # an integer beyond any float
                raise InvalidInstance(f"{where}.options.{key}",
                                      "must be a finite number") from None
        return Method(name, limit, dict(options))

    def entry(self, record: Any, index: int | None = None) -> Entry:
        """Read the instance of `record` (the manifest's ``files[index]``): `InvalidInstance`
        naming the record when it does not name a file of the folder, or the file when it
        cannot be read or does not hold one JSON object."""
        where = f"{self.path / MANIFEST}: files[{'?' if index is None else index}]"
        if not isinstance(record, dict):
            raise InvalidInstance(where, f"{brief(record)} must be an object with the file's "
                                         "name and sha256")
        file = record.get("file")
        if not isinstance(file, str) or Path(file).name != file or file in ("", ".", ".."):
            raise InvalidInstance(f"{where}.file", f"{brief(file)} must name a file of the "
                                                   "library folder")
        path = self.path / file
        if not path.is_file():  # missing, a folder, or a device or pipe that never ends
            raise InvalidInstance(str(path), "is listed in the manifest but is not a file "
                                             "of the folder")
        data = read_json(path)  # one-line errors; bounded size
        if not isinstance(data, dict):
            raise InvalidInstance(str(path), "must hold one JSON instance object")
        try:
            raw = path.read_bytes()
        except OSError:
            raise InvalidInstance(str(path),
                                  "is listed in the manifest but cannot be read") from None
        return Entry(self.name, file, record, data, hashlib.sha256(raw).hexdigest())

    def entries(self) -> Iterator[Entry]:
        for index, record in enumerate(self.records):
            yield self.entry(record, index)


def read_library(path: Path) -> Library:
    """The library in folder `path`: `InvalidInstance` naming ``manifest.json`` when it cannot
    be read as a whole (not JSON, no ``files`` list, a family that is not registered, ``library``
    not a string, ``exact`` not an object). Each record of ``files`` is checked by
    `Library.entry`, one at a time."""
    from resilsched.registry import available_families

    where = str(path / MANIFEST)
    manifest = read_json(path / MANIFEST)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        raise InvalidInstance(where, 'must be an object with a "files" list')
    family = manifest.get("family")
    if family not in available_families():
        raise InvalidInstance(f"{where}: family", f"{brief(family)} is not a family "
                              f"(choose from {', '.join(available_families())})")
    if manifest.get("library") is not None and not isinstance(manifest["library"], str):
        raise InvalidInstance(f"{where}: library", f"{brief(manifest['library'])} must be "
                                                   "the library's name (a string)")
    if not isinstance(manifest.get("exact", {}), dict):
        raise InvalidInstance(f"{where}: exact", f"{brief(manifest['exact'])} must be an "
                                                 "object (method, time_limit, options)")
    return Library(path, manifest)


def shipped() -> list[Library]:
    """The libraries shipped in the package, by name."""
    if not DATA.is_dir():
        return []
    return [read_library(d) for d in sorted(DATA.iterdir()) if (d / MANIFEST).is_file()]


def find(what: str, option: str | None = None) -> list[Library]:
    """Libraries named by the command line: a shipped name, ``all``, a library folder, or a
    folder whose subfolders are libraries (a vendored set); `option` (e.g. ``--library``) is
    how the command line gave `what`, named in errors (None: a positional argument)."""
    if what == "all":
        return shipped()
    path = Path(what)
    if path.is_dir():
        if (path / MANIFEST).is_file():
            return [read_library(path)]
        found = [read_library(d) for d in sorted(path.iterdir()) if (d / MANIFEST).is_file()]
        if found:
            return found
        raise InvalidInstance(f"{option}={what}" if option else what,
                              "is a folder without manifest.json (nor subfolders with one)")
    by_name = {lib.name: lib for lib in shipped()}
    if what in by_name:
        return [by_name[what]]
    names = ", ".join(by_name) or "none shipped"
    raise InvalidInstance(option or "library", f"{what!r} is neither a shipped library "
                                               f"({names}, all) nor a folder holding "
                                               "manifest.json")


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    (path / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
