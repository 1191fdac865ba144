#!/usr/bin/env python3
"""Benchmark the campaign engine (issue 13, docs/performance.md "Campaigns").

Workload: R-LIST-0 on failure scenarios, as a spec campaign would run it
(`resilsched.campaign.tasks.run_task`: draw the scenario, compute L(f), simulate): 10 job sets
of the paper's distribution cut to `--n` jobs (default 20, about a millisecond per task) in a
library folder, the 8 priority rules, 5 q-bar values and as many scenarios as needed for
`--tasks` tasks (default 100,000). It times

- **loop**: the same tasks run one after the other in this process, no store;
- **campaign**: `run_campaign` on `--jobs` pool processes (default 2) into a fresh SQLite store
  (keys, one row per task, chunks sized by the engine), and the CPU it used (this process and
  its workers, from ``os.times``), i.e. how many cores were busy;
- with ``--unchunked``, also the campaign with one task per message (``chunk_seconds`` ~ 0).

Each measurement is repeated (`--repeat`, default 3) and the medians and ratios are printed as
a markdown table. The issue's goal: campaign / loop < 2 with both cores used.

Usage::

    python3 scripts/bench_campaign.py                          # 100,000 tasks, 3 repeats
    python3 scripts/bench_campaign.py --tasks 20000 --repeat 1 --unchunked
    python3 scripts/bench_campaign.py --write      # ... its section of docs/performance.md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchpage import Row, Run, add_write_option

from resilsched.campaign import ResultStore, run_campaign
from resilsched.campaign.plan import plan
from resilsched.campaign.spec import parse_spec
from resilsched.campaign.tasks import run_task
from resilsched.instances.rigid import RigidInstance
from resilsched.registry import get_family

TITLE = "Campaigns (`scripts/bench_campaign.py`)"
INTRO = """R-LIST-0 on failure scenarios as a spec campaign runs it (`run_task`: draw the scenario,
compute L(f), simulate; 10 paper job sets cut to `--n` jobs, 8 priorities, 5 q-bar values):
the tasks one after the other in one process with no store (the loop), then `run_campaign`
on `--jobs` pool processes into a fresh SQLite store (keys, one row per task, chunks sized
by the engine); medians of the repeats, and the cores busy on average (CPU of the process and
its workers / wall). Goal: issue 13's, a campaign at most twice the loop's time."""

INSTANCES = 10
PRIORITIES = ["LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random", "LJF"]
QBARS = [0.1, 0.2, 0.3, 0.4, 0.5]


def library(folder: Path, n: int) -> None:
    """10 paper-default job sets cut to their first `n` jobs, as instance JSON files."""
    sets = get_family("rigid").generators["paper-default"].generate(1, INSTANCES)
    for k, inst in enumerate(sets):
        small = RigidInstance(inst.P, inst.jobs[:n], f"bench-{k}")
        (folder / f"bench-{k:02d}.json").write_text(json.dumps(small.to_dict()))


def spec_text(folder: Path, tasks: int) -> str:
    scenarios = math.ceil(tasks / (INSTANCES * len(PRIORITIES) * len(QBARS)))
    return f"""
[campaign]
name = "bench"
[[instances]]
library = "{folder}"
[[algorithms]]
name = "R-LIST-0"
priority = {json.dumps(PRIORITIES)}
[scenarios]
qbar = {json.dumps(QBARS)}
count = {scenarios}
seed = 1
"""


def cpu() -> tuple[float, float]:
    """CPU seconds of this process, and of its terminated children."""
    t = os.times()
    return t.user + t.system, t.children_user + t.children_system


def time_loop(tasks: list) -> tuple[float, float]:
    """(wall seconds, cores busy on average) of the plain loop."""
    c0, t0 = cpu()[0], time.perf_counter()
    for task in tasks:
        run_task(task.payload)
    wall = time.perf_counter() - t0
    return wall, (cpu()[0] - c0) / wall


def time_campaign(tasks: list, jobs: int, chunk_seconds: float
                  ) -> tuple[float, float, float]:
    """(wall seconds, cores busy on average, of which the parent) of a fresh campaign."""
    with tempfile.TemporaryDirectory() as tmp, ResultStore(Path(tmp) / "b.sqlite") as store:
        (p0, c0), t0 = cpu(), time.perf_counter()
        run_campaign("bench", tasks, run_task, store, jobs=jobs, progress=False,
                     chunk_seconds=chunk_seconds, collect=False)
        wall = time.perf_counter() - t0
        p1, c1 = cpu()
        assert store.count("bench") == len(tasks)
    return wall, (p1 - p0 + c1 - c0) / wall, (p1 - p0) / wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", type=int, default=100_000, help="number of tasks (default 100000)")
    ap.add_argument("--n", type=int, default=20, help="jobs per instance (default 20)")
    ap.add_argument("--jobs", type=int, default=2, help="pool processes (default 2)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions (default 3)")
    ap.add_argument("--unchunked", action="store_true",
                    help="also time one task per message (default: off)")
    add_write_option(ap)
    args = ap.parse_args(argv)
    bench = Run(__file__, argv)
    with tempfile.TemporaryDirectory() as tmp:
        library(Path(tmp), args.n)
        tasks = plan(parse_spec(spec_text(Path(tmp), args.tasks)))[: args.tasks]
    print(f"{len(tasks)} tasks (R-LIST-0, n = {args.n}, 8 priorities, 5 q-bar values), "
          f"{args.jobs} processes, {args.repeat} repeats; Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    loops, loop_cores, camps, cores, parent, flat = [], [], [], [], [], []
    for r in range(args.repeat):
        wall, busy = time_loop(tasks)
        loops.append(wall)
        loop_cores.append(busy)
        wall, busy, mine = time_campaign(tasks, args.jobs, 1.0)
        camps.append(wall)
        cores.append(busy)
        parent.append(mine)
        if args.unchunked:
            flat.append(time_campaign(tasks, args.jobs, 1e-9)[0])
        print(f"repeat {r + 1}: loop {loops[-1]:.1f} s ({loop_cores[-1]:.2f} cores), campaign "
              f"{camps[-1]:.1f} s ({busy:.2f} cores, parent {mine:.2f})"
              + (f", unchunked {flat[-1]:.1f} s" if flat else ""), file=sys.stderr)
    loop, camp = statistics.median(loops), statistics.median(camps)
    med = statistics.median
    print("| tasks | loop, no store (s) | ms/task | loop cores | campaign, "
          f"{args.jobs} processes + store (s) | campaign / loop | campaign cores (parent) |"
          + (" one task per message (s) |" if flat else ""))
    print("|---|---|---|---|---|---|---|" + ("---|" if flat else ""))
    print(f"| {len(tasks)} | {loop:.1f} | {1000 * loop / len(tasks):.2f} | "
          f"{med(loop_cores):.2f} | {camp:.1f} | {camp / loop:.2f} | "
          f"{med(cores):.2f} ({med(parent):.2f}) |"
          + (f" {med(flat):.1f} |" if flat else ""))
    if args.write:
        rows = [Row(f"campaign on {args.jobs} process(es) + store / loop, {len(tasks):,} tasks",
                    "< 2 (issue 13)", f"{camp / loop:.2f} ({camp:.1f} s / {loop:.1f} s; "
                    f"{med(cores):.2f} cores busy, parent {med(parent):.2f})"),
                Row("loop: ms per task (no store)", "-", f"{1000 * loop / len(tasks):.2f}")]
        if flat:
            rows.append(Row(f"campaign, one task per message, {len(tasks):,} tasks", "-",
                            f"{med(flat):.1f} s"))
        bench.write(args.write, TITLE, INTRO, rows)
    return 0 if camp < 2 * loop else 1


if __name__ == "__main__":
    sys.exit(main())
