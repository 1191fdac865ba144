"""Build time of the 20 desktop variants (spec 004 §3.4) against the straightforward reference.

The fast implementations (`resilsched.heuristics.desktop`: the C kernels of the build-time
extension, D-19), with ``--python`` the same algorithms without the extension (the pure-Python
fallback, as under RESILSCHED_NO_CORE=1), and the literal pseudocode
(`resilsched.heuristics.desktop.reference`, DAslack without its shortcuts) build the same
allocation; all are timed in the same run, on the same instance (the synthetic traces of spec
4.1-4.2), wall clock and CPU time; the table reports the median of ``--repeat`` runs of the
fast version (one run of the others). A reference run that would take longer than ``--cap`` seconds
is stopped and reported as "> cap". The instance data (durations t_ij, sorted orders, the dates
of the trace) are computed once, before the timings.

    python scripts/bench_desktop.py --hosts 500 --job-count 10000 --cap 60 [--write]

``--write`` replaces its section of docs/performance.md (scripts/benchpage.py).
"""

from __future__ import annotations

import argparse
import time

from benchpage import Row, Run, add_write_option

from resilsched import engine
from resilsched.heuristics.desktop import _ckernel
from resilsched.heuristics.desktop.policies import (
    GLOBAL,
    LOCAL,
    VARIANTS,
    LocalPolicy,
    da_slack,
    parse_variant,
)
from resilsched.heuristics.desktop.reference import LITERAL
from resilsched.instances.desktop.generators import AvailabilityModel, synthetic_instance

TITLE = "Desktop grids (`scripts/bench_desktop.py`)"
INTRO = """Build time of each of the 20 variants (spec 004 §3.4: global policy x local policy x
slack rule) on one instance of the synthetic traces (spec 4.1-4.2), its data (t_ij, sorted
orders, dates) computed once before: the shipped code with the C kernels (median of the
repeats), with `--python` the same algorithms without them (the `RESILSCHED_NO_CORE=1`
fallback), and the straightforward reference (the pseudocode line by line) stopped after
`--cap` seconds; all must build the same allocation (checked). Goal: the desktop task's,
every variant under 2 s at the paper's size (500 hosts x 10,000 jobs)."""


def reference_policy(name: str, deadline: float) -> LocalPolicy:
    fn = LITERAL[name]
    return LocalPolicy(name, lambda view, T, slack: fn(view, T, slack, deadline), False,
                       name in ("FFD", "FFI", "DPslack"))


def timed(fn) -> tuple[object, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def median_timed(fn, repeat: int) -> tuple[object, float, float]:
    runs = [timed(fn) for _ in range(repeat)]
    walls, cpus = sorted(r[1] for r in runs), sorted(r[2] for r in runs)
    return runs[0][0], walls[len(walls) // 2], cpus[len(cpus) // 2]


def python_only(fn):
    with engine.use("python"):
        return fn()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=500)
    ap.add_argument("--job-count", type=int, default=10_000)
    ap.add_argument("--machine-seed", type=int, default=0)
    ap.add_argument("--job-seed", type=int, default=100)
    ap.add_argument("--span-days", type=float, default=30)
    ap.add_argument("--absorb", action="store_true")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--cap", type=float, default=60.0, help="seconds per reference run")
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument("--python", action="store_true",
                    help="also time the pure-Python engine (no C extension)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the fast version (median)")
    add_write_option(ap)
    a = ap.parse_args(argv)
    bench = Run(__file__, argv)
    page = []
    t0 = time.perf_counter()
    inst = synthetic_instance(a.hosts, a.job_count, a.machine_seed, a.job_seed,
                              model=AvailabilityModel(span=a.span_days * 86400), absorb=a.absorb)
    inst.sorted_durations, inst.durations_by_position  # noqa: B018
    for mach in inst.machines:
        mach.e, mach.q  # noqa: B018
    print(f"instance: m={inst.m} n={inst.n} K={inst.K} (H1 {inst.assumption_h1}), "
          f"generated in {time.perf_counter() - t0:.1f} s")
    print(f"C extension: {'yes' if _ckernel.lib() is not None else 'NO (pure Python)'}")
    print("| variant | horizon | fast wall s | fast CPU s | Python CPU s | reference wall s "
          "| reference CPU s | same allocation |")
    print("|---|---|---|---|---|---|---|---|")
    for name in a.variants.split(","):
        g, loc, slack = parse_variant(name)
        def build(g=g, loc=loc, slack=slack):
            return GLOBAL[g](inst, LOCAL[loc], slack)

        fast, wall, cpu = median_timed(build, a.repeat)
        py_cpu = "-"
        same_py = True
        if a.python:
            slow, _, pc = timed(lambda: python_only(build))  # noqa: B023
            py_cpu = f"{pc:.2f}"
            same_py = slow.intervals == fast.intervals and slow.horizon == fast.horizon
        ref_wall = ref_cpu = "-"
        compared = a.python  # "yes" only when some other engine was compared with the fast one
        same = "NO (Python)" if not same_py else "yes" if compared else "not compared"
        if not a.no_reference:
            pol = reference_policy(loc, time.perf_counter() + a.cap)
            run = (lambda: da_slack(inst, pol, slack, shortcuts=False)) if g == "DAslack" \
                else (lambda: GLOBAL[g](inst, pol, slack))  # noqa: B023
            try:
                ref, rw, rc = timed(run)
                ref_wall, ref_cpu = f"{rw:.2f}", f"{rc:.2f}"
                if ref.intervals != fast.intervals or ref.horizon != fast.horizon:
                    same = "NO (reference)"
                elif same_py:
                    same = "yes"
            except TimeoutError:
                ref_wall = ref_cpu = f"> {a.cap:g}"
        print(f"| {name} | {fast.horizon} | {wall:.2f} | {cpu:.2f} | {py_cpu} | {ref_wall} | "
              f"{ref_cpu} | {same} |", flush=True)
        paper = (a.hosts, a.job_count) == (500, 10_000)
        page.append(Row(f"{name}, {inst.m} hosts x {inst.n} jobs: build CPU / wall s",
                        "< 2 s" if paper else "-",
                        f"{cpu:.2f} / {wall:.2f} (Python CPU {py_cpu}, reference CPU {ref_cpu}); "
                        f"same allocation: {same}"))
    if a.write:
        bench.write(a.write, TITLE, INTRO, page)


if __name__ == "__main__":
    main()
