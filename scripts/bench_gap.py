#!/usr/bin/env python3
"""Benchmark the main job: ``resilsched gap``, ``check`` and the shipped libraries, as a user runs
them (a fresh process each; the time is the process's, Python's start-up included).

- ``gap -q --json``: the built-in smoke suites of every family, every heuristic against the
  exact models, solved now;
- ``check --thresholds examples/thresholds.json -q --json``: the CI form of the same;
- ``library verify all --sample K``: K instances of every shipped library re-solved against
  their certificates;
- ``gap --library all --jobs 1 -q --json``: every heuristic against every shipped library's
  certificates, one process.

Each command must exit 0 (a failure stops the benchmark); the JSON it prints gives the counts.

Usage::

    python3 scripts/bench_gap.py [--sample 10] [--no-library-gap] [--write]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from benchpage import Row, Run, add_write_option

ROOT = Path(__file__).resolve().parents[1]
TITLE = "The main job (`scripts/bench_gap.py`)"
INTRO = """`resilsched gap`, `check` and the shipped libraries as a user runs them: each command in
a fresh process from the repository's root, the time being the process's (Python's start-up
and imports included), every command exiting 0."""


def timed(argv: list[str]) -> tuple[float, dict]:
    """Wall seconds of ``resilsched ARGV`` and its JSON output; exit on a failure."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "resilsched", *argv], capture_output=True,
                         text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"resilsched {' '.join(argv)} exited {out.returncode}: {out.stderr.strip()}")
    return wall, json.loads(out.stdout) if out.stdout.strip() else {}


def gap_figure(wall: float, report: dict) -> str:
    cases = sum(h["cases"] for h in report["heuristics"])
    return (f"{wall:.1f} s ({len(report['heuristics'])} heuristic rows, {cases} scored runs, "
            f"{report['violations']} violations)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=10, help="instances per library to verify")
    ap.add_argument("--no-library-gap", action="store_true",
                    help="skip gap --library all (the longest part)")
    add_write_option(ap)
    args = ap.parse_args(argv)
    bench = Run(__file__, argv)
    rows = []
    wall, report = timed(["gap", "-q", "--json"])
    rows.append(Row("`resilsched gap` (smoke suites of every family, solved now)", "-",
                    gap_figure(wall, report)))
    print(rows[-1], flush=True)
    wall, report = timed(["check", "--thresholds", "examples/thresholds.json", "-q", "--json"])
    rows.append(Row("`resilsched check --thresholds examples/thresholds.json`", "passes",
                    f"{wall:.1f} s, {'passes' if report['passed'] else 'FAILS'}"))
    print(rows[-1], flush=True)
    wall, report = timed(["library", "verify", "all", "--sample", str(args.sample), "-q",
                          "--json"])
    rows.append(Row(f"`resilsched library verify all --sample {args.sample}`",
                    "every certificate reproduced",
                    f"{wall:.1f} s, {len(report['libraries'])} libraries, {report['passed']}/"
                    f"{report['checked']} instances reproduced"))
    print(rows[-1], flush=True)
    if not args.no_library_gap:
        wall, report = timed(["gap", "--library", "all", "--jobs", "1", "-q", "--json"])
        rows.append(Row("`resilsched gap --library all --jobs 1` (against the certificates)",
                        "-", gap_figure(wall, report)))
        print(rows[-1], flush=True)
    if args.write:
        bench.write(args.write, TITLE, INTRO, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
