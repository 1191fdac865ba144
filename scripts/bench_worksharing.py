#!/usr/bin/env python3
"""Benchmarks of the worksharing family (docs/performance.md, "## Worksharing").

- Table 4: the full 4043-instance chart comparison (exact integer K), median of ``--repeats``;
- evaluator: exact expected work and 1000-trial realised work of the greedy schedule on the
  heaviest E5 shapes, median of 5;
- E5: the reduced grid (p in {5, 10, 25}) or, with ``--full-e5``, all 760 configurations at
  1000 trials each (one run);
- the static bound (`resilsched.bounds.worksharing_static.static_dual`) of the E5 shapes with
  the chunk program in C and in pure Python, in this process, the same value checked; with
  ``--static`` only these rows.

Prints a markdown table; CPU (process) time and wall time are both reported. ``--write``
replaces its section of docs/performance.md (scripts/benchpage.py).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from benchpage import Row, Run, add_write_option

from resilsched import engine
from resilsched.bounds.worksharing_static import static_dual
from resilsched.heuristics.worksharing.run import greedy
from resilsched.instances.worksharing import LinearRisk, WorksharingInstance
from resilsched.instances.worksharing.evaluate import expected_work, realised_work, sample_taus
from resilsched.instances.worksharing.generators import e5_configs
from resilsched.reproduce.worksharing.experiments import (
    E5_HEURISTICS,
    heuristics_named,
    run_config,
)
from resilsched.reproduce.worksharing.table4 import table4_statistics

TITLE = "Worksharing (`scripts/bench_worksharing.py`)"
INTRO = """Spec 003's experiments and evaluator: Table 4 (every chart on the 4043 instances, exact
integer K), the exact expected work and the 1000-trial realised work of the greedy schedule
on heavy E5 shapes, the greedy heuristic with its chunk-count search, and E5 (the reduced grid
p in {5, 10, 25}, or with `--full-e5` all 760 configurations) at 1000 trials; wall / CPU
seconds; the static bound of the E5 shapes with its chunk program in C (`resilsched._chunks`)
and in pure Python, medians of 3, the same value checked. Goals: the worksharing task's
(Table 4 under 10 s, the full E5 under 10 minutes)."""
GOALS = {"Table 4": "< 10 s", "E5, p in (5, 10, 25, 50, 100)": "< 10 min"}


def timed(fn, repeats: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--full-e5", action="store_true")
    ap.add_argument("--static", action="store_true", help="only the static bound's rows")
    add_write_option(ap)
    a = ap.parse_args(argv)
    bench = Run(__file__, argv)
    rows = static_rows()
    if not a.static:
        rows = other_rows(a.repeats, a.full_e5) + rows
    print("| workload | repeats | wall s | CPU s |")
    print("|---|---|---:|---:|")
    for name, rep, w, c in rows:
        print(f"| {name} | {rep} | {w:.3f} | {c:.3f} |")
    if a.write:
        goal = {name: g for name, _, _, _ in rows for key, g in GOALS.items()
                if name.startswith(key)}
        bench.write(a.write, TITLE, INTRO, [
            Row(f"{name}: wall / CPU", goal.get(name, "-"), f"{w:.3f} / {c:.3f} s ({rep})")
            for name, rep, w, c in rows])


def static_rows() -> list[tuple[str, str, float, float]]:
    """The static bound of the E5 shapes, chunk program in C then in Python (same value)."""
    rows = []
    for p, W, eps in ((100, 50.0, 1e-4), (25, 7.0, 1e-3)):
        values, times = {}, {}
        for name in ("c", "python"):
            with engine.use(name):
                values[name] = static_dual(W, p, 1.0, eps).value
                times[name] = timed(lambda W=W, p=p, e=eps: static_dual(W, p, 1.0, e), 3)
        if values["c"] != values["python"]:
            raise SystemExit(f"static bound p={p}: C {values['c']!r} != Python "
                             f"{values['python']!r}")
        (w, c), (pw, pc) = times["c"], times["python"]
        rows.append((f"static bound p={p} W={W:g} eps={eps:g}, chunk program in C",
                     f"median of 3; pure Python {pw:.3f} / {pc:.3f} s, x{pc / c:.0f} CPU", w, c))
    return rows


def other_rows(repeats: int, full_e5: bool) -> list[tuple[str, str, float, float]]:
    """Table 4, the evaluator and E5 (module docstring)."""
    rows = []
    w, c = timed(table4_statistics, repeats)
    rows.append(("Table 4, 4043 instances x 6 charts", f"median of {repeats}", w, c))
    for p, W, eps in ((100, 1.0, 1e-4), (100, 50.0, 1e-4), (25, 7.0, 1e-3)):
        inst = WorksharingInstance(W, p, LinearRisk(1.0), eps)
        plan = greedy(inst).schedule
        taus = sample_taus(inst.risk, p, 1000, np.random.default_rng(0))
        w, c = timed(lambda i=inst, s=plan.schedule: expected_work(s, i.risk, i.eps), 5)
        rows.append((f"exact E, greedy p={p} W={W:g} eps={eps:g}", "median of 5", w, c))
        w, c = timed(lambda i=inst, s=plan.schedule, t=taus: realised_work(s, i.eps, t), 5)
        rows.append(("1000-trial realised work, same schedule", "median of 5", w, c))
        w, c = timed(lambda i=inst: greedy(i), 3)
        rows.append((f"greedy incl. chunk-count search, p={p} W={W:g}", "median of 3", w, c))
    ps = (5, 10, 25, 50, 100) if full_e5 else (5, 10, 25)
    cfgs = [cf for cf in e5_configs() if cf[0] in ps]

    heuristics = heuristics_named(E5_HEURISTICS)

    def e5():
        for p, W, eps in cfgs:
            run_config(p, W, eps, heuristics, None, 1000, 0)

    w, c = timed(e5, 1)
    rows.append((f"E5, p in {ps}, {len(cfgs)} configs x 1000 trials x 4 heuristics", "1 run",
                 w, c))
    return rows


if __name__ == "__main__":
    main()
