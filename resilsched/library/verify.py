"""``resilsched library verify``: re-solve instances and check their stored certificates.

For each instance checked (all, or a seeded sample of K per library):

1. the file's sha256 must match the manifest, and the manifest's summary the file's metadata;
2. the instance is solved again with the certificate's exact model, options and time limit
   (``deterministic=True``: the same status and values on any machine);
3. `resilsched.library.certificate.compare`: an optimal certificate must be reproduced (same
   optimum, proven again), and no stored bound may lie beyond what the re-solve proved.

Every failure names the instance and both values; the command exits 1 when there is one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from resilsched.library.catalog import Entry, Library
from resilsched.library.certificate import Certificate, certify, compare, same
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


def sample(library: Library, k: int | None, seed: int) -> list[dict[str, Any]]:
    """The manifest records to check: all of them, or `k` drawn with `random.Random(seed)`
    (in manifest order, so that a sample is the same on every machine)."""
    records = library.records
    if k is None or k >= len(records):
        return records
    picked = set(random.Random(f"{library.name}:{seed}").sample(range(len(records)), k))
    return [r for i, r in enumerate(records) if i in picked]


def _summary_problems(entry: Entry, stored: Certificate) -> list[str]:
    """The manifest's record must say what the file says."""
    out = []
    rec = entry.record
    if rec.get("status") != stored.status:
        out.append(f"manifest status {rec.get('status')!r} differs from the file's "
                   f"{stored.status!r}")
    for key in ("optimum", "lower_bound", "upper_bound"):
        if key not in rec:
            continue
        mine = _record_value(rec, key)
        theirs = getattr(stored, key)
        if mine is None or theirs is None or not same(mine, theirs):
            out.append(f"manifest {key} {mine} differs from the file's {theirs}")
    return out


def _record_value(record: dict[str, Any], key: str) -> Any:
    """The record's value of `key` (its exact string first)."""
    exact = record.get(f"{key}_exact")
    return Fraction(exact) if isinstance(exact, str) else record.get(key)


def check_entry(family: Any, entry: Entry, time_limit: float | None = None) -> Check:
    """Verify one instance (see the module docstring); `time_limit` overrides the stored one."""
    t0 = time.perf_counter()
    try:
        stored = Certificate.from_metadata(entry.metadata)
    except ValueError as exc:
        return Check(entry.library, entry.file, entry.name, "-", problems=[str(exc)])
    check = Check(entry.library, entry.file, entry.name, stored.describe())
    if not entry.sha_ok:
        check.problems.append("sha256 differs from the manifest's (the file was changed)")
    check.problems += _summary_problems(entry, stored)
    method = stored.method or family.default_exact
    if method not in family.exact:
        check.problems.append(f"exact model {method!r} is not registered in {family.name}")
        return check
    limit = stored.time_limit if time_limit is None else time_limit
    try:
        instance = family.from_dict(entry.data)
        fresh = certify(family, instance, method, limit, stored.options)
    except Exception as exc:  # a bad file or a crashing model is a failed check, not a crash
        check.problems.append(f"re-solve failed: {type(exc).__name__}: {exc}")
        check.seconds = time.perf_counter() - t0
        return check
    check.resolved = f"{fresh.describe()} in {fresh.proof_time:.2f} s"
    check.seconds = time.perf_counter() - t0
    check.problems += compare(stored, fresh)
    return check


def verify(libraries: Sequence[Library], k: int | None = None, seed: int = 0,
           time_limit: float | None = None, bar: ProgressBar | None = None) -> list[Check]:
    """Check `k` instances of each library (all when None); one `Check` per instance."""
    from resilsched.registry import get_family

    work = [(lib, rec) for lib in libraries for rec in sample(lib, k, seed)]
    if bar is not None:
        bar.set_total(len(work))
    out = []
    for lib, rec in work:
        check = check_entry(get_family(lib.family), lib.entry(rec), time_limit)
        out.append(check)
        if bar is not None:
            if check.problems:
                bar.say(f"FAILED {check.label}: " + "; ".join(check.problems))
            bar.tick(1, f"{check.label}: {'ok' if not check.problems else 'FAILED'}")
    if bar is not None:
        bar.close()
    return out
