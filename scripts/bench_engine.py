#!/usr/bin/env python3
"""Benchmark the compiled simulation core against the pure-Python reference (issue 15).

Cost per simulated scenario, measured side by side in one process (ratios are what a loaded
machine can still measure: both sides see the same load):

- rigid (spec 002 §8.2: the paper's synthetic sets, n = 100, P = 10,000, q-bar = 0.3, LPT):
  every rigid heuristic through ``record=False`` with the core disabled (the reference: the
  pure-Python fast path), one scenario per call with the core, and all scenarios of a set in
  one call (`resilsched.heuristics.rigid.many.makespans`); R-LIST-1/Q also with fixed
  reservations (``reservations="fixed"``, issue 14: ``rigid_fixed.c`` against RList);
- moldable (spec 000 §5 defaults: n = 500, P = 7500, lambda = 1e-7): LPA-LIST
  (`Simulator.makespan`, one call per scenario, and `Simulator.makespans`, batched) and
  BATCH-LIST (`Simulator.batch_makespan`, its later batches' allotments recomputed per
  scenario, as a campaign meets them), core against ``use_c=False``;
- scaling: the core's cost per scenario for n = 100 ... 10,000 (rigid sets with P = 100 n,
  moldable roofline sets with P = min(15 n, 10^6 / n)), divided by n log2 n: flat or falling
  means the cost grows no faster than n log n.

Every makespan of the core is checked equal to the reference's. Times are medians over
``--repeats`` of (wall, CPU) per scenario; the goals of issue 15 are printed beside them.

Usage::

    python3 scripts/bench_engine.py              # 2 sets x 20 scenarios, 3 repeats
    python3 scripts/bench_engine.py --quick      # 1 set x 5 scenarios, 1 repeat
    python3 scripts/bench_engine.py --write      # ... and its section of docs/performance.md
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np
from benchpage import Row, Run, add_write_option

from resilsched import engine
from resilsched.heuristics.moldable import Simulator, lpa
from resilsched.heuristics.rigid import many
from resilsched.instances.failures import Scenario, q_from_qbar, sample_failures
from resilsched.instances.moldable.generators import paper_instance
from resilsched.instances.rigid.synthetic import paper_sets
from resilsched.registry import get_family

#: per-scenario goals of issue 15 (seconds)
GOALS = {"R-LIST-0": 20e-6, "R-LIST-Q": 200e-6, "LPA-LIST": 50e-6, "BATCH-LIST": 1e-3}
TITLE = "Compiled simulation core (`scripts/bench_engine.py`)"
INTRO = """The C engines of `resilsched._core` against the pure-Python reference, in one process, on
the same scenarios (every makespan checked equal): CPU microseconds per simulated scenario,
medians of the repeats. Rigid: the paper's synthetic sets (n = 100, P = 10,000, q-bar = 0.3,
LPT), batched (all scenarios of a set in one call). Moldable: the paper defaults (n = 500, P =
7500, lambda = 1e-7, LPT). Scaling: the core's cost divided by n log2 n (flat or falling:
no worse than n log n). Goals: issue 15."""


def goal(name: str) -> str:
    return f"<= {1e6 * GOALS[name]:,.0f} us (issue 15)" if name in GOALS else "-"


def clock(fn: Callable[[], object], count: int, repeats: int) -> tuple[float, float]:
    """Median over repeats of (wall, CPU) seconds of one ``fn()`` divided by `count`."""
    wall, cpu = [], []
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        wall.append((time.perf_counter() - t0) / count)
        cpu.append((time.process_time() - c0) / count)
    return statistics.median(wall), statistics.median(cpu)


def us(x: tuple[float, float]) -> str:
    return f"{1e6 * x[0]:,.1f} / {1e6 * x[1]:,.1f}"


def rigid_cases(seed: int, sets: int, scenarios: int, qbar: float, n: int = 100,
                P: int = 10_000):
    out = []
    for k, inst in enumerate(paper_sets(seed, count=sets, n=n, P=P)):
        q = q_from_qbar([float(a) for a in inst.areas], qbar)
        out.append((inst, sample_failures(q, scenarios, np.random.default_rng([seed, k]))))
    return out


def rigid_table(args) -> list[Row]:
    family = get_family("rigid")
    cases = rigid_cases(args.seed, args.sets, args.scenarios, args.qbar)
    count = sum(F.shape[0] for _, F in cases)
    print(f"\n## Rigid: {args.sets} paper sets x {args.scenarios} scenarios (n = 100, "
          f"P = 10,000, q-bar = {args.qbar}, LPT); us per scenario, wall / CPU\n")
    print("| heuristic | reference (pure Python) | core, 1 call per scenario | "
          "core, batched | ratio ref / batched (CPU) | goal |")
    print("|---|---|---|---|---|---|")
    runs = [(name, h, {}) for name, h in family.heuristics.items()]
    runs += [(f"{name}, fixed", family.heuristics[name], {"reservations": "fixed"})
             for name in ("R-LIST-1", "R-LIST-Q")]
    page = []
    for name, h, kw in runs:

        def one_by_one(fn=h.run, kw=kw):
            return [fn(inst, Scenario(tuple(int(x) for x in f)), "LPT", record=False,
                       **kw).objective for inst, F in cases for f in F]

        def batched(b=h.batch, kw=kw):
            return [x for inst, F in cases for x in many.makespans(b, inst, F, "LPT", **kw)]

        with engine.use("python"):
            ref_values = one_by_one()
            ref = clock(one_by_one, count, args.repeats)
        assert one_by_one() == ref_values and batched() == ref_values, name
        single = clock(one_by_one, count, args.repeats)
        batch = clock(batched, count, args.repeats)
        print(f"| {name} | {us(ref)} | {us(single)} | {us(batch)} | {ref[1] / batch[1]:,.0f} | "
              f"{goal(name)} |", flush=True)
        page.append(Row(f"rigid {name}, core batched: us per scenario", goal(name),
                        f"{1e6 * batch[1]:,.1f} (one call per scenario {1e6 * single[1]:,.1f}; "
                        f"pure Python {1e6 * ref[1]:,.0f})"))
    return page


def moldable_table(args) -> list[Row]:
    print(f"\n## Moldable: paper sets at the defaults (n = 500, P = 7500, lambda = 1e-7), "
          f"{args.scenarios} scenarios per model, LPT; us per scenario, wall / CPU\n")
    print("| model | LPA-LIST reference | LPA-LIST core | LPA-LIST core batched | "
          "BATCH-LIST reference | BATCH-LIST core |")
    print("|---|---|---|---|---|---|")
    page = []
    for model in args.models.split(","):
        line, rows = moldable_row(model, args)
        print(line, flush=True)
        page += rows
    return page


def moldable_row(model: str, args) -> tuple[str, list[Row]]:
    rng = np.random.default_rng([args.seed, len(model)])
    inst = paper_instance(model, rng)
    F = rng.geometric(1.0 - inst.q(), size=(args.scenarios, inst.n)) - 1
    sim = Simulator(inst)
    sim.alloc(lpa)
    sim.planner().allocation(np.arange(inst.n), 1)
    S = F.shape[0]
    ref = [sim.makespan(f, lpa, use_c=False) for f in F]
    assert [sim.makespan(f, lpa) for f in F] == ref, model
    assert sim.makespans(F, lpa).tolist() == ref, model
    lpa_ref = clock(lambda: [sim.makespan(f, lpa, use_c=False) for f in F], S, args.repeats)
    lpa_one = clock(lambda: [sim.makespan(f, lpa) for f in F], S, args.repeats)
    lpa_many = clock(lambda: sim.makespans(F, lpa), S, args.repeats)

    def batch(use_c):
        cache = sim.planner().cache
        for key in [k for k in cache if k[0] > 1]:  # later batches: per scenario
            del cache[key]
        return [sim.batch_makespan(f, use_c=use_c) for f in F]

    assert batch(True) == batch(False), model
    b_ref = clock(lambda: batch(False), S, args.repeats)
    b_core = clock(lambda: batch(True), S, args.repeats)
    line = (f"| {model} | {us(lpa_ref)} | {us(lpa_one)} | {us(lpa_many)} | {us(b_ref)} | "
            f"{us(b_core)} |")
    return line, [
        Row(f"moldable LPA-LIST, {model}, core batched: us per scenario", goal("LPA-LIST"),
            f"{1e6 * lpa_many[1]:,.1f} (one call per scenario {1e6 * lpa_one[1]:,.1f}; pure "
            f"Python {1e6 * lpa_ref[1]:,.0f})"),
        Row(f"moldable BATCH-LIST, {model}, core: us per scenario", goal("BATCH-LIST"),
            f"{1e6 * b_core[1]:,.0f} (pure Python {1e6 * b_ref[1]:,.0f})")]


def scaling_table(args) -> list[Row]:
    sizes = [int(x) for x in args.sizes.split(",")]
    family = get_family("rigid")
    names = ("R-LIST-0", "R-LIST-1", "R-SHELF-B")
    print("\n## Scaling of the core (batched calls): us per scenario (CPU), and that cost / "
          "(n log2 n) in ns\n")
    print("| n | " + " | ".join(names) + " | LPA-LIST (roofline, P = min(15 n, 10^6 / n)) |")
    print("|---|" + "---|" * (len(names) + 1))
    page = []
    for n in sizes:
        cells = []
        S = args.scenarios
        (inst, F), = rigid_cases(args.seed, 1, S, args.qbar, n=n, P=100 * n)
        nlogn = n * math.log2(n)
        for name in names:
            b = family.heuristics[name].batch
            s = S if name != "R-LIST-1" else max(2, min(S, 20_000 // n))  # O(n^2): fewer
            c = clock(lambda b=b, inst=inst, F=F[:s]: many.makespans(b, inst, F, "LPT"), s,
                      args.repeats)[1]
            cells.append(f"{1e6 * c:,.0f} ({1e9 * c / nlogn:.1f})")
        mP = min(15 * n, 10**6 // n)  # the time table n x P stays at most 10^6 entries
        minst = paper_instance("roofline", np.random.default_rng(n), n=n, P=mP)
        MF = np.random.default_rng(n).geometric(1.0 - minst.q(), size=(S, n)) - 1
        sim = Simulator(minst)
        sim.alloc(lpa)
        c = clock(lambda sim=sim, MF=MF: sim.makespans(MF, lpa), len(MF), args.repeats)[1]
        cells.append(f"{1e6 * c:,.0f} ({1e9 * c / nlogn:.1f})")
        print(f"| {n:,} | " + " | ".join(cells) + " |", flush=True)
        page.append(Row(f"core at n = {n:,}: us per scenario (ns per n log2 n), "
                        + ", ".join(names) + ", LPA-LIST roofline", "flat or falling in n",
                        ", ".join(cells)))
    return page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int, default=2)
    ap.add_argument("--scenarios", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--qbar", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=2020)
    ap.add_argument("--models", default="roofline,communication,amdahl,mix,power")
    ap.add_argument("--sizes", default="100,300,1000,3000,10000")
    ap.add_argument("--parts", default="rigid,moldable,scaling")
    ap.add_argument("--quick", action="store_true", help="1 set, 5 scenarios, 1 repeat")
    add_write_option(ap)
    args = ap.parse_args(argv)
    bench = Run(__file__, argv)
    if args.quick:
        args.sets, args.scenarios, args.repeats = 1, 5, 1
    if not engine.available():
        print("the compiled core is not available: nothing to compare", file=sys.stderr)
        return 1
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          f"({time.strftime('%H:%M UTC', time.gmtime())})")
    parts = args.parts.split(",")
    page = []
    if "rigid" in parts:
        page += rigid_table(args)
    if "moldable" in parts:
        page += moldable_table(args)
    if "scaling" in parts:
        page += scaling_table(args)
    if args.write:
        bench.write(args.write, TITLE, INTRO, page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
