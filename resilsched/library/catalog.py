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

from resilsched.errors import InvalidInstance
from resilsched.io import read_json

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
    """One instance of a library: its file, the manifest's record, and its JSON object."""

    library: str
    file: str
    record: dict[str, Any]
    data: dict[str, Any]
    sha_ok: bool

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
class Library:
    """A library folder and its manifest."""

    path: Path
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.manifest.get("library") or self.path.name)

    @property
    def family(self) -> str:
        return str(self.manifest["family"])

    @property
    def records(self) -> list[dict[str, Any]]:
        return list(self.manifest.get("files", []))

    @property
    def proven(self) -> int:
        return sum(r.get("status") == "optimal" for r in self.records)

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

    def entry(self, record: dict[str, Any]) -> Entry:
        """Read one instance file (`InvalidInstance` naming the file when it cannot be read)."""
        path = self.path / str(record.get("file"))
        try:
            text = path.read_text()
        except OSError:
            raise InvalidInstance(str(path),
                                  "is listed in the manifest but cannot be read") from None
        data = read_json(path)
        if not isinstance(data, dict):
            raise InvalidInstance(str(path), "must hold one JSON instance object")
        return Entry(self.name, str(record["file"]), record, data,
                     sha256_text(text) == record.get("sha256"))

    def entries(self) -> Iterator[Entry]:
        for record in self.records:
            yield self.entry(record)


def read_library(path: Path) -> Library:
    """The library in folder `path` (`InvalidInstance` when its manifest is missing or bad)."""
    manifest = read_json(path / MANIFEST)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        raise InvalidInstance(str(path / MANIFEST), 'must be an object with a "files" list')
    if not isinstance(manifest.get("family"), str):
        raise InvalidInstance(str(path / MANIFEST), 'must name its "family"')
    return Library(path, manifest)


def shipped() -> list[Library]:
    """The libraries shipped in the package, by name."""
    if not DATA.is_dir():
        return []
    return [read_library(d) for d in sorted(DATA.iterdir()) if (d / MANIFEST).is_file()]


def find(what: str) -> list[Library]:
    """Libraries named by the command line: a shipped name, ``all``, a library folder, or a
    folder whose subfolders are libraries (a vendored set)."""
    if what == "all":
        return shipped()
    path = Path(what)
    if path.is_dir():
        if (path / MANIFEST).is_file():
            return [read_library(path)]
        found = [read_library(d) for d in sorted(path.iterdir()) if (d / MANIFEST).is_file()]
        if found:
            return found
        raise InvalidInstance(f"--library {what}", "is a folder without manifest.json (nor "
                                                   "subfolders with one)")
    by_name = {lib.name: lib for lib in shipped()}
    if what in by_name:
        return [by_name[what]]
    names = ", ".join(by_name) or "none shipped"
    raise InvalidInstance("library", f"{what!r} is neither a shipped library ({names}, all) "
                                     "nor a folder holding manifest.json")


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    (path / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
