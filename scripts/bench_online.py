#!/usr/bin/env python3
"""Sizes and times of the online optimum (issue 26; docs/performance.md, "Online optimum").

For each size, random instances with integer times are solved by ``online-optimal`` under a
time limit (one process): rigid jobs (p in 1..P, t in 1..tmax, `tiny_rigid`) and moldable jobs
(integer roofline tables t(p) = ceil(w / min(p, pbar)), w in 1..wmax, pbar in 1..P), q_j
calibrated to q-bar (the exact rationals of the floats). Prints one markdown row per instance:
states explored, states reached by the optimal policy, the seconds of each phase, the status.

    python scripts/bench_online.py                         # the table of docs/performance.md
    python scripts/bench_online.py --family rigid --sizes 8 --count 3 --tmax 5
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.instances.moldable import MoldableInstance
from resilsched.instances.moldable.speedup import Table
from resilsched.instances.rigid.synthetic import tiny_rigid
from resilsched.models.online.solve import solve_moldable, solve_rigid


def moldable_instance(rng: np.random.Generator, n: int, P: int, wmax: int) -> MoldableInstance:
    jobs = []
    for _ in range(n):
        w = int(rng.integers(1, wmax, endpoint=True))
        pbar = int(rng.integers(1, P, endpoint=True))
        jobs.append(Table(tuple(math.ceil(w / min(p, pbar)) for p in range(1, P + 1))))
    return MoldableInstance(P, tuple(jobs))


def run(family: str, n: int, P: int, tmax: int, qbar: float, seed: int,
        limit: float) -> str:
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
        return f"| {family} | {n} | {P} | {tmax} | {seed} | refused: {exc} |"
    info = sol.info
    sec = info.get("seconds", {})
    value = f"{float(sol.objective):.4f}" if sol.objective is not None else "-"
    return (f"| {family} | {n} | {P} | {tmax} | {seed} | {info.get('states', '-')} | "
            f"{info.get('policy_states', '-')} | {sec.get('explore', '-')} | "
            f"{sec.get('float', '-')} | {sec.get('exact', '-')} | "
            f"{time.perf_counter() - t0:.2f} | {sol.status.value} | {value} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_online.py", description=__doc__.split("\n")[0])
    parser.add_argument("--family", choices=("rigid", "moldable", "both"), default="both")
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="n (= P) values (default: rigid 5..8, moldable 3..6)")
    parser.add_argument("--count", type=int, default=3, help="instances per size")
    parser.add_argument("--tmax", type=int, default=5, help="largest t_j (rigid) or w_j")
    parser.add_argument("--qbar", type=float, default=0.1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; q-bar {args.qbar}; time limit "
          f"{args.time_limit:g} s")
    print("| family | n | P | tmax | seed | states | policy states | explore s | float s | "
          "exact s | total s | status | E[T_online-OPT] |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    families = ("rigid", "moldable") if args.family == "both" else (args.family,)
    for family in families:
        sizes = args.sizes or (list(range(5, 9)) if family == "rigid" else list(range(3, 7)))
        for n in sizes:
            for seed in range(args.count):
                print(run(family, n, n, args.tmax, args.qbar, seed, args.time_limit),
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
