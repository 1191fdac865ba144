"""Build the shipped instance libraries (resilsched/library/data/<name>/) from their specs.

Every library of `resilsched.library.catalog.specs()` (the explicit `SPECS`, plus one per family
that registers a ``library`` generator) is generated from its seed, certified by its exact model
with ``deterministic=True`` (same statuses and values on every machine), and written with its
manifest. Rebuilding gives the same files except for the measured ``proof_time`` (and the
``versions`` after an upgrade); ``--check`` rebuilds into a temporary folder and compares.

    python scripts/build_libraries.py                    # all libraries, 2 processes
    python scripts/build_libraries.py --only rigid-small --jobs 1
    python scripts/build_libraries.py --check            # rebuild and compare, build nothing

Exit status 1 when a library has fewer than 100 instances or less than 90 % proven optima, or
(``--check``) when a rebuilt certificate differs from the shipped one.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from resilsched.campaign import ResultStore
from resilsched.library.build import build_library
from resilsched.library.catalog import DATA, MIN_PROVEN, read_library, specs

MIN_INSTANCES = 100
#: fields of an instance's certificate that legitimately differ between two builds
VOLATILE = ("proof_time", "versions")


def _stable(meta: dict) -> dict:
    cert = {k: v for k, v in meta.get("certificate", {}).items() if k not in VOLATILE}
    return {**meta, "certificate": cert}


def compare_builds(shipped: Path, rebuilt: Path) -> list[str]:
    """Differences between two builds of a library, proof times and versions aside."""
    old, new = read_library(shipped), read_library(rebuilt)
    out = []
    if [r["file"] for r in old.records] != [r["file"] for r in new.records]:
        return [f"{old.name}: the file lists differ"]
    for a, b in zip(old.entries(), new.entries(), strict=True):
        da = {**a.data, "metadata": _stable(a.metadata)}
        db = {**b.data, "metadata": _stable(b.metadata)}
        if da != db:
            out.append(f"{a.label}: stored {a.metadata.get('certificate', {}).get('status')} "
                       f"{a.metadata.get('optimum', a.metadata.get('lower_bound'))}, rebuilt "
                       f"{b.metadata.get('certificate', {}).get('status')} "
                       f"{b.metadata.get('optimum', b.metadata.get('lower_bound'))}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_libraries.py", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DATA,
                        help=f"folder of the libraries (default {DATA})")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="build only these libraries (default: all)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="worker processes for the exact solves (default 2)")
    parser.add_argument("--store", type=Path, default=None,
                        help="campaign store making an interrupted build resumable "
                             "(default: in memory)")
    parser.add_argument("--check", action="store_true",
                        help="rebuild into a temporary folder and compare with --out")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    todo = [s for s in specs() if not args.only or s.name in args.only]
    unknown = set(args.only or ()) - {s.name for s in todo}
    if unknown:
        parser.error(f"--only: unknown libraries {sorted(unknown)} "
                     f"(choose from {', '.join(s.name for s in specs())})")
    store = ResultStore(args.store if args.store else ":memory:")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in todo:
            target = (Path(tmp) if args.check else args.out) / spec.name
            if target.exists():
                shutil.rmtree(target)
            t0 = time.perf_counter()
            manifest = build_library(spec, target, jobs=args.jobs, store=store,
                                     progress=not args.quiet, say=print)
            proven, count = manifest["proven_optimal"], manifest["count"]
            size = sum(f.stat().st_size for f in target.iterdir())
            times = [r["proof_time"] for r in manifest["files"]]
            print(f"{spec.name}: {count} instances, {proven} proven optima, "
                  f"{count - proven} with bounds; proof time max {max(times):.2f} s, "
                  f"mean {sum(times) / len(times):.3f} s; {size / 1024:.0f} KiB; "
                  f"built in {time.perf_counter() - t0:.0f} s")
            if count < MIN_INSTANCES or proven < MIN_PROVEN * count:
                failures.append(f"{spec.name}: {count} instances, {proven} proven optima "
                                f"(at least {MIN_INSTANCES} and {MIN_PROVEN:.0%} needed)")
            if args.check:
                failures += compare_builds(args.out / spec.name, target)
    store.close()
    for f in failures:
        print(f"FAILED {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
