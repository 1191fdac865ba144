#!/usr/bin/env python3
"""Sizes and times of the online optimum (issue 26; docs/performance.md, "Online optimum").

For each size, random instances with integer times are solved by ``online-optimal`` under a
time limit (one process): rigid jobs (p in 1..P, t in 1..tmax, `tiny_rigid`) and moldable jobs
(integer roofline tables t(p) = ceil(w / min(p, pbar)), w in 1..wmax, pbar in 1..P), q_j
calibrated to q-bar (the exact rationals of the floats). Prints one markdown row per instance:
states explored, states reached by the optimal policy, the seconds of each phase, the status;
``--write`` puts one row per family and size on docs/performance.md (scripts/benchpage.py).

    python scripts/bench_online.py                         # the table of docs/performance.md
    python scripts/bench_online.py --family rigid --sizes 8 --count 3 --tmax 5
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchpage, when loaded by its path
from benchpage import Row, Run, add_write_option  # noqa: E402

from resilsched.errors import InvalidInstance  # noqa: E402
from resilsched.instances.moldable import MoldableInstance  # noqa: E402
from resilsched.instances.moldable.speedup import Table  # noqa: E402
from resilsched.instances.rigid.synthetic import tiny_rigid  # noqa: E402
from resilsched.models.online.solve import solve_moldable, solve_rigid  # noqa: E402

TITLE = "Online optimum (`scripts/bench_online.py`)"
INTRO = """`online-optimal` (issue 26; models/online/, docs/online.md) on random instances with
integer times, one process, each under the time limit, q_j calibrated to q-bar (the exact
rationals of the floats, the heavy case for the exact arithmetic): rigid jobs p_j in 1..P, t_j
in 1..tmax; moldable jobs with integer roofline tables t_j(p) = ceil(w_j / min(p, pbar_j)), w_j
in 1..tmax, pbar_j in 1..P; P = n. Per size: the instances proven optimal, the slowest one's
wall time with its explored states and the seconds of each phase it finished (exploring the
states, the float policy iteration, the exact proof in Fractions). Goal: issue 26's target
sizes (rigid n = 8 on P = 8, moldable n = 6 on P = 6, within 60 s)."""
GOALS = {("rigid", 8): "optimal within 60 s (issue 26)",
         ("moldable", 6): "optimal within 60 s (issue 26)"}


def moldable_instance(rng: np.random.Generator, n: int, P: int, wmax: int) -> MoldableInstance:
    jobs = []
    for _ in range(n):
        w = int(rng.integers(1, wmax, endpoint=True))
        pbar = int(rng.integers(1, P, endpoint=True))
        jobs.append(Table(tuple(math.ceil(w / min(p, pbar)) for p in range(1, P + 1))))
    return MoldableInstance(P, tuple(jobs))


def run(family: str, n: int, P: int, tmax: int, qbar: float, seed: int,
        limit: float) -> tuple[str, dict]:
    """The markdown row of one instance, and its record (status, seconds, states, phases)."""
    rng = np.random.default_rng(seed)
    if family == "rigid":
        inst = tiny_rigid(rng, n=n, P=P, tmax=tmax)
        solve = solve_rigid
    else:
        inst = moldable_instance(rng, n, P, tmax)
        solve = solve_moldable
    t0 = time.perf_counter()
    try:
        sol = solve(inst, qbar=qbar, time_limit=limit)
    except InvalidInstance as exc:
        return f"| {family} | {n} | {P} | {tmax} | {seed} | refused: {exc} |", {"status": "refused"}
    info = sol.info
    sec = info.get("seconds", {})
    total = time.perf_counter() - t0
    value = f"{float(sol.objective):.4f}" if sol.objective is not None else "-"
    line = (f"| {family} | {n} | {P} | {tmax} | {seed} | {info.get('states', '-')} | "
            f"{info.get('policy_states', '-')} | {sec.get('explore', '-')} | "
            f"{sec.get('float', '-')} | {sec.get('exact', '-')} | "
            f"{total:.2f} | {sol.status.value} | {value} |")
    return line, {"status": sol.status.value, "seconds": total, "states": info.get("states"),
                  "phases": {k: v for k, v in sec.items() if isinstance(v, (int, float))}}


def page_row(family: str, n: int, tmax: int, qbar: float, limit: float,
             records: list[dict]) -> Row:
    """One size's row of the page: instances proven optimal, the slowest and where its time went."""
    proven = sum(r["status"] == "optimal" for r in records)
    figure = f"{proven}/{len(records)} optimal"
    timed = [r for r in records if "seconds" in r]
    if timed:
        slow = max(timed, key=lambda r: r["seconds"])
        phases = ", ".join(f"{k} {v:.1f} s" for k, v in slow["phases"].items())
        figure += f"; slowest {slow['seconds']:.1f} s ({slow['status']}"
        if slow["states"] is not None:
            figure += f", {slow['states']:,} states"
        figure += f"; {phases}" if phases else ""
        figure += "; stopped at the limit)" if slow["status"] != "optimal" else ")"
    refused = len(records) - len(timed)
    if refused:
        figure += f"; {refused} refused up front"
    return Row(f"{family}, n = P = {n}, tmax {tmax}, q-bar {qbar:g}: instances solved within "
               f"{limit:g} s", GOALS.get((family, n), "-"), figure)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_online.py", description=__doc__.split("\n")[0])
    ap.add_argument("--family", choices=("rigid", "moldable", "both"), default="both")
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help="n (= P) values (default: rigid 5..8, moldable 3..6)")
    ap.add_argument("--count", type=int, default=3, help="instances per size")
    ap.add_argument("--tmax", type=int, default=5, help="largest t_j (rigid) or w_j")
    ap.add_argument("--qbar", type=float, default=0.1)
    ap.add_argument("--time-limit", type=float, default=60.0)
    add_write_option(ap)
    args = ap.parse_args(argv)
    bench = Run(__file__, argv)
    print(f"load average {os.getloadavg()[0]:.1f}; q-bar {args.qbar}; time limit "
          f"{args.time_limit:g} s")
    print("| family | n | P | tmax | seed | states | policy states | explore s | float s | "
          "exact s | total s | status | E[T_online-OPT] |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    families = ("rigid", "moldable") if args.family == "both" else (args.family,)
    rows = []
    for family in families:
        sizes = args.sizes or (list(range(5, 9)) if family == "rigid" else list(range(3, 7)))
        for n in sizes:
            records = []
            for seed in range(args.count):
                line, record = run(family, n, n, args.tmax, args.qbar, seed, args.time_limit)
                print(line, flush=True)
                records.append(record)
            rows.append(page_row(family, n, args.tmax, args.qbar, args.time_limit, records))
    if args.write:
        bench.write(args.write, TITLE, INTRO, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
