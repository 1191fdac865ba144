#!/usr/bin/env python3
"""Benchmark the moldable simulators at the paper defaults (spec 000 §5; docs/performance.md).

Per model: one job set (n = 500, P = 7500, lambda = 1e-7) and S scenarios; reports the median
over R repeats of the mean time per scenario of

- LPA-LIST through the fast path (compiled kernel), its pure-Python twin, and the engine path
  (attempt log recorded, what the registry's heuristic runs);
- BATCH-LIST through the fast path (MT-ALLOTMENT of batches >= 2 included, since it depends on
  the scenario; the batch-1 allotment is computed once per job set);
- the once-per-set setup: time table, LPA / MINTIME / MINAREA allocations, batch-1 allotment.

Usage::

    python3 scripts/bench_moldable.py [--models mix,amdahl] [--scenarios 20] [--repeats 3]
                                      [--write]  # ... its section of docs/performance.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from benchpage import Row, Run, add_write_option

from resilsched.heuristics.moldable import Simulator, _kernel, lpa, minarea, mintime
from resilsched.heuristics.moldable.listsched import run_list
from resilsched.instances.moldable.generators import PAPER_MODELS, paper_instance

TITLE = "Moldable simulators (`scripts/bench_moldable.py`)"
INTRO = """One job set per speedup model at the paper defaults (spec 000 §5: n = 500, P = 7500,
lambda = 1e-7) and its failure scenarios: CPU milliseconds per scenario (medians of the
repeats) of LPA-LIST through the fast path (compiled kernel), its pure-Python twin and the
engine path (attempt log recorded, what the registry's heuristic runs), and of BATCH-LIST
(the allotments of batches >= 2 recomputed per scenario, as they depend on it); the setup
(time table, allocations, batch-1 allotment) is once per job set. Goals: the moldable task's
(LPA-LIST <= 1 ms, BATCH-LIST <= 30 ms per scenario)."""


def _per_scenario(fn, F, repeats: int, before=None) -> tuple[float, float]:
    """Median over repeats of (wall, CPU) seconds per scenario."""
    wall, cpu = [], []
    for _ in range(repeats):
        if before is not None:
            before()
        c0, t0 = time.process_time(), time.perf_counter()
        for f in F:
            fn(f)
        wall.append((time.perf_counter() - t0) / len(F))
        cpu.append((time.process_time() - c0) / len(F))
    return statistics.median(wall), statistics.median(cpu)


def _forget_later_batches(sim: Simulator) -> None:
    """Drop cached allotments of batches >= 2 (they depend on the scenario; keep batch 1)."""
    cache = sim.planner().cache
    for k in [k for k in cache if k[0] > 1]:
        del cache[k]


def bench(model: str, scenarios: int, repeats: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng([seed, PAPER_MODELS.index(model)])
    t0 = time.perf_counter()
    inst = paper_instance(model, rng)
    _ = inst.T
    sim = Simulator(inst)
    for rule in (lpa, mintime, minarea):
        sim.alloc(rule)
    sim.planner().allocation(np.arange(inst.n), 1)
    setup = time.perf_counter() - t0
    F = rng.geometric(1.0 - inst.q(), size=(scenarios, inst.n)) - 1
    p = sim.alloc(lpa)
    few = F[: max(1, scenarios // 4)]
    return {
        "setup_s": setup,
        "lpa": _per_scenario(lambda f: sim.makespan(f, lpa), F, repeats),
        "lpa_py": _per_scenario(lambda f: sim.makespan(f, lpa, use_c=False), few, repeats),
        "lpa_engine": _per_scenario(
            lambda f: run_list(inst, f.tolist(), lambda j, k: int(p[j]), "LPT"), few, repeats),
        "batch": _per_scenario(lambda f: sim.batch_makespan(f), F, repeats,
                               before=lambda: _forget_later_batches(sim)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(PAPER_MODELS))
    ap.add_argument("--scenarios", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    add_write_option(ap)
    args = ap.parse_args(argv)
    bench = Run(__file__, argv)
    print(f"compiled kernel: {_kernel.have_c()}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          "per-scenario times in ms as wall / CPU")
    print("| model | setup per set (s) | LPA-LIST fast | LPA-LIST pure Python | "
          "LPA-LIST engine+log | BATCH-LIST fast |")
    print("|---|---|---|---|---|---|")

    def fmt(x: tuple[float, float]) -> str:
        return f"{1e3 * x[0]:.3f} / {1e3 * x[1]:.3f}"

    page = []
    for model in args.models.split(","):
        r = bench(model, args.scenarios, args.repeats, args.seed)
        print(f"| {model} | {r['setup_s']:.2f} | {fmt(r['lpa'])} | {fmt(r['lpa_py'])} | "
              f"{fmt(r['lpa_engine'])} | {fmt(r['batch'])} |", flush=True)
        page += [Row(f"LPA-LIST, {model}: ms per scenario, fast / pure Python / engine with log",
                     "<= 1 ms", f"{1e3 * r['lpa'][1]:.3f} / {1e3 * r['lpa_py'][1]:.2f} / "
                     f"{1e3 * r['lpa_engine'][1]:.2f} (setup {r['setup_s']:.2f} s per set)"),
                 Row(f"BATCH-LIST, {model}: ms per scenario, fast path", "<= 30 ms",
                     f"{1e3 * r['batch'][1]:.2f}")]
    if args.write:
        bench.write(args.write, TITLE, INTRO, page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
