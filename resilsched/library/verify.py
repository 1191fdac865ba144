"""``resilsched library verify``: re-derive certificates and check them.

A certificate is re-derived, not believed: the manifest's ``"exact"`` (`Method`: model,
options, time limit) says how every certificate of the library was made, and each instance
checked (all, or a seeded sample of K per library) is solved again that way, whatever its own
certificate claims. For each instance:

1. `static_problems`, the checks that need no solve (also made by ``gap --library``): the
   file's sha256 is the manifest's, the manifest's summary is the file's certificate, the
   certificate names the manifest's model, options and time limit, and it is coherent by itself;
2. the instance is solved again with the manifest's model, options and time limit
   (``deterministic=True``: the same status and values on any machine);
3. `resilsched.library.certificate.compare`: an optimal certificate must be reproduced (same
   optimum, proven again) and no stored bound may lie beyond what the re-solve proved; under the
   manifest's own time limit a certificate that is not optimal must be reproduced too
   (`reproduced`: same status and bounds).

A manifest that cannot be read as a whole (not JSON, no ``files`` list, an unknown family, a
malformed ``exact``) is refused before any solve (`InvalidInstance`, exit status 2); a record,
an instance file or a certificate that is malformed is a failed check of that instance. Every
failure names the instance and both values; the command exits 1 when there is one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from resilsched.errors import InvalidInstance
from resilsched.library.catalog import Entry, Library, Method
from resilsched.library.certificate import (
    Certificate,
    brief,
    certify,
    coherence,
    compare,
    read_number,
    reproduced,
    same,
)
from resilsched.progress import ProgressBar


@dataclass
class Check:
    """The verdict on one instance."""

    library: str
    file: str
    name: str
    stored: str
    resolved: str = ""
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.library}/{self.file} ({self.name})"

    def to_dict(self) -> dict[str, Any]:
        return {"library": self.library, "file": self.file, "name": self.name,
                "stored": self.stored, "resolved": self.resolved,
                "seconds": round(self.seconds, 3), "problems": self.problems}


def sample(library: Library, k: int | None, seed: int) -> list[int]:
    """The indices of the manifest records to check: all of them, or `k` drawn with
    ``random.Random("<library>:<seed>")`` (in manifest order, the same on every machine)."""
    n = len(library.records)
    if k is None or k >= n:
        return list(range(n))
    return sorted(random.Random(f"{library.name}:{seed}").sample(range(n), k))


def certified_by(library: Library) -> Method:
    """The library's `Method`; `InvalidInstance` when its manifest names none (nothing to
    verify: a library written without certificates)."""
    method = library.method()
    if method is None:
        raise InvalidInstance(f"{library.path / 'manifest.json'}: exact",
                              "is missing: the manifest names no exact model, so the library "
                              "holds no certificates to verify (write them with generate "
                              "--solve)")
    return method


def _summary_problems(entry: Entry, stored: Certificate) -> list[str]:
    """The manifest's record must say what the file says."""
    out = []
    rec = entry.record
    if rec.get("status") != stored.status:
        out.append(f"manifest status {brief(rec.get('status'))} differs from the file's "
                   f"{stored.status!r}")
    for key in ("optimum", "lower_bound", "upper_bound"):
        if key not in rec and f"{key}_exact" not in rec:
            continue
        try:
            mine = read_number(rec, key, "manifest record")
        except ValueError as exc:
            out.append(str(exc))
            continue
        theirs = getattr(stored, key)
        if mine is None or theirs is None or not same(mine, theirs):
            out.append(f"manifest {key} {mine} differs from the file's {theirs}")
    return out


def _provenance_problems(stored: Certificate, method: Method) -> list[str]:
    """The certificate must say it was made the way the manifest says every one was."""
    out = []
    if stored.method != method.name:
        out.append(f"certificate.method {stored.method!r} differs from the manifest's "
                   f"exact.method {method.name!r}")
    if stored.options != method.options:
        out.append(f"certificate.options {brief(stored.options)} differ from the manifest's "
                   f"exact.options {brief(method.options)}")
    if stored.time_limit != method.time_limit:
        out.append(f"certificate.time_limit {brief(stored.time_limit)} differs from the "
                   f"manifest's exact.time_limit {method.time_limit:g}")
    return out


def static_problems(entry: Entry, stored: Certificate, method: Method) -> list[str]:
    """What is wrong with a stored certificate short of solving (empty: nothing): a file
    changed since its manifest, a manifest summary that is not the file's, a certificate made by
    another model, options or time limit than the manifest's, or one that contradicts itself."""
    out = [] if entry.sha_ok else ["sha256 differs from the manifest's (the file was changed)"]
    return out + _summary_problems(entry, stored) + _provenance_problems(stored, method) \
        + coherence(stored)


def _failed(library: Library, index: int, record: Any, problem: str) -> Check:
    """The check of a record or file that cannot be read."""
    file = record.get("file") if isinstance(record, dict) else None
    name = record.get("name") if isinstance(record, dict) else None
    return Check(library.name, file if isinstance(file, str) else f"files[{index}]",
                 str(name or "-"), "-", problems=[problem])


def check_entry(library: Library, index: int, method: Method,
                time_limit: float | None = None) -> Check:
    """Verify the instance of the manifest's ``files[index]`` (see the module docstring):
    re-solved with `method` (the library's), `time_limit` overriding its time limit."""
    from resilsched.registry import get_family

    t0 = time.perf_counter()
    record = library.records[index]
    try:
        entry = library.entry(record, index)
    except InvalidInstance as exc:
        return _failed(library, index, record, str(exc))
    try:
        stored = Certificate.from_metadata(entry.metadata)
    except ValueError as exc:
        return Check(entry.library, entry.file, entry.name, "-", problems=[str(exc)])
    check = Check(entry.library, entry.file, entry.name, stored.describe())
    check.problems += static_problems(entry, stored, method)
    family = get_family(library.family)
    limit = method.time_limit if time_limit is None else time_limit
    try:
        instance = family.from_dict(entry.data)
        fresh = certify(family, instance, method.name, limit, method.options)
    except Exception as exc:  # a bad file or a crashing model is a failed check, not a crash
        check.problems.append(f"re-solve failed: {type(exc).__name__}: {exc}")
        check.seconds = time.perf_counter() - t0
        return check
    check.resolved = f"{fresh.describe()} in {fresh.proof_time:.2f} s"
    check.seconds = time.perf_counter() - t0
    for problem in compare(stored, fresh) + (reproduced(stored, fresh)
                                             if limit == method.time_limit else []):
        if problem not in check.problems:  # coherence is in both lists
            check.problems.append(problem)
    return check


def verify(libraries: Sequence[Library], k: int | None = None, seed: int = 0,
           time_limit: float | None = None, bar: ProgressBar | None = None) -> list[Check]:
    """Check `k` instances of each library (all when None); one `Check` per instance. Every
    manifest's `Method` is read before the first solve (`InvalidInstance` when one is bad)."""
    methods = [certified_by(lib) for lib in libraries]
    work = [(lib, method, i) for lib, method in zip(libraries, methods, strict=True)
            for i in sample(lib, k, seed)]
    if bar is not None:
        bar.set_total(len(work))
    out = []
    for lib, method, index in work:
        check = check_entry(lib, index, method, time_limit)
        out.append(check)
        if bar is not None:
            if check.problems:
                bar.say(f"FAILED {check.label}: " + "; ".join(check.problems))
            bar.tick(1, f"{check.label}: {'ok' if not check.problems else 'FAILED'}")
    if bar is not None:
        bar.close()
    return out
