"""Build time of the 20 desktop variants (spec 004 §3.4) against the straightforward reference.

The fast implementations (`resilsched.heuristics.desktop`) and the literal pseudocode
(`resilsched.heuristics.desktop.reference`, DAslack without its shortcuts) build the same
allocation; both are timed in the same run, on the same instance (the synthetic traces of spec
4.1-4.2), wall clock and CPU time. A reference run that would take longer than ``--cap`` seconds
is stopped and reported as "> cap". The instance data (durations t_ij, sorted orders, the dates
of the trace) are computed once, before the timings.

    python scripts/bench_desktop.py --hosts 500 --job-count 10000 --cap 60
"""

from __future__ import annotations

import argparse
import time

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


def reference_policy(name: str, deadline: float) -> LocalPolicy:
    fn = LITERAL[name]
    return LocalPolicy(name, lambda view, T, slack: fn(view, T, slack, deadline), False,
                       name in ("FFD", "FFI", "DPslack"))


def timed(fn) -> tuple[object, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
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
    a = ap.parse_args()
    t0 = time.perf_counter()
    inst = synthetic_instance(a.hosts, a.job_count, a.machine_seed, a.job_seed,
                              model=AvailabilityModel(span=a.span_days * 86400), absorb=a.absorb)
    inst.sorted_durations, inst.durations_by_position  # noqa: B018
    for mach in inst.machines:
        mach.e, mach.q  # noqa: B018
    print(f"instance: m={inst.m} n={inst.n} K={inst.K} (H1 {inst.assumption_h1}), "
          f"generated in {time.perf_counter() - t0:.1f} s")
    print("| variant | horizon | fast wall s | fast CPU s | reference wall s | reference CPU s "
          "| same allocation |")
    print("|---|---|---|---|---|---|---|")
    for name in a.variants.split(","):
        g, loc, slack = parse_variant(name)
        fast, wall, cpu = timed(lambda: GLOBAL[g](inst, LOCAL[loc], slack))  # noqa: B023
        ref_wall = ref_cpu = same = "-"
        if not a.no_reference:
            pol = reference_policy(loc, time.perf_counter() + a.cap)
            run = (lambda: da_slack(inst, pol, slack, shortcuts=False)) if g == "DAslack" \
                else (lambda: GLOBAL[g](inst, pol, slack))  # noqa: B023
            try:
                ref, rw, rc = timed(run)
                ref_wall, ref_cpu = f"{rw:.2f}", f"{rc:.2f}"
                same = "yes" if ref.intervals == fast.intervals and \
                    ref.horizon == fast.horizon else "NO"
            except TimeoutError:
                ref_wall = ref_cpu = f"> {a.cap:g}"
        print(f"| {name} | {fast.horizon} | {wall:.2f} | {cpu:.2f} | {ref_wall} | {ref_cpu} | "
              f"{same} |", flush=True)


if __name__ == "__main__":
    main()
