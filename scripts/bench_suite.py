"""Benchmark of the test suite itself (issue 28: the README's test command under 3 minutes).

The project machine is shared and its speed moves from day to day: the same code's suite has
taken 380 CPU-seconds on one day and over 700 on another. So the suite's time is printed beside
a reference measured by this process: a fixed pure-Python workload (`reference`, `--loops`
additions in a loop, the kind of work most of the suite does), timed before and after the
suite, the median of ``--repeat`` runs each. The suite's wall and CPU time divided by the
reference say what it costs in units of the machine's speed of the day, which days can compare.

    python scripts/bench_suite.py [--repeat 3] [--workers auto] [--write] [-- PYTEST ARGS]

The suite is ``python -m pytest -q -n WORKERS`` (the README's command with ``auto``) from the
checkout, followed by any PYTEST ARGS (a folder, ``-m slow``); its CPU time is that of the
pytest process and every process it waited for. ``--write`` puts the rows on
docs/performance.md (scripts/benchpage.py), the suite's summary and exit status with them.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchpage import Row, Run, add_write_option

from resilsched.commands.args import integer

ROOT = Path(__file__).resolve().parents[1]
TITLE = "The test suite (`scripts/bench_suite.py`)"
INTRO = """The README's test command (`python -m pytest -q -n auto`, every default test) from the
checkout: wall time, CPU time of pytest and the processes it waited for, and both divided by a
fixed pure-Python workload timed by the same script before and after (the machine's speed of
the day; median of 3 each). Goal: issue 28's, the suite under 3 minutes on this machine."""


def reference(loops: int) -> float:
    """Seconds of one run of the reference workload: `loops` additions in a Python loop."""
    start = time.perf_counter()
    total = 0
    for i in range(loops):
        total += i
    return time.perf_counter() - start


def median_reference(loops: int, repeat: int) -> float:
    """The median of `repeat` runs of `reference`."""
    return statistics.median(reference(loops) for _ in range(repeat))


def children_cpu() -> float:
    """CPU seconds of the processes this one has waited for, so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_suite(workers: str, extra: list[str]) -> tuple[float, float, int, str, list[str]]:
    """(wall s, CPU s, exit status, pytest's summary line, its FAILED and ERROR lines) of one
    run of the suite."""
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "-n", workers, *extra]
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    lines = done.stdout.splitlines()
    counts = [line for line in lines if re.search(r"\d+ (passed|failed)", line)]
    summary = counts[-1].strip("= ") if counts else f"no summary (exit {done.returncode})"
    return wall, cpu, done.returncode, summary, [
        line for line in lines if line.startswith(("FAILED ", "ERROR "))]


def workers(text: str) -> str:
    """argparse type of ``--workers``: pytest-xdist's ``auto``, or a number of workers 0-64."""
    return "auto" if text == "auto" else str(integer(0, 64, "auto or a number of workers")(text))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=integer(1, 100), default=3,
                    help="runs of the reference workload before and after (1-100, default 3)")
    ap.add_argument("--loops", type=integer(1, 10**9), default=30_000_000,
                    help="additions of the reference workload (1-10^9, default 30,000,000)")
    ap.add_argument("--workers", type=workers, default="auto",
                    help="pytest-xdist's -n: auto (the default: one per core), or 0-64 (0: no "
                         "xdist)")
    add_write_option(ap)
    ap.add_argument("pytest_args", nargs="*", metavar="PYTEST ARGS",
                    help="after --: more arguments of pytest (a folder, -m slow)")
    args = ap.parse_args(argv)
    if importlib.util.find_spec("pytest") is None or importlib.util.find_spec("xdist") is None:
        ap.error(f"{sys.executable} has no pytest and pytest-xdist: run the script with the "
                 "test environment's Python (.venv/bin/python)")
    run = Run(__file__, argv)
    before = median_reference(args.loops, args.repeat)
    print(f"reference before: {before:.2f} s ({args.loops:,} additions, median of "
          f"{args.repeat})", flush=True)
    wall, cpu, code, summary, failures = run_suite(args.workers, args.pytest_args)
    print(f"suite: {summary}; exit {code}; wall {wall:.1f} s, CPU {cpu:.1f} s", flush=True)
    for line in failures:
        print(f"  {line}")
    after = median_reference(args.loops, args.repeat)
    ref = statistics.mean([before, after])
    print(f"reference after: {after:.2f} s; suite in reference units: wall {wall / ref:.0f}, "
          f"CPU {cpu / ref:.0f}")
    if args.write:
        rows = [
            Row("the suite: wall / CPU s", "< 180 s wall (issue 28)",
                f"{wall:.0f} / {cpu:.0f} ({summary}; exit {code})"),
            Row("reference workload before / after the suite: s", "-",
                f"{before:.2f} / {after:.2f} ({args.loops:,} additions, median of "
                f"{args.repeat})"),
            Row("suite / reference: wall / CPU", "-", f"{wall / ref:.0f} / {cpu / ref:.0f}"),
        ]
        run.write(args.write, TITLE, INTRO, rows)
        print(f"wrote {args.write}")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
