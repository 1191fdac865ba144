"""Certified intervals at the papers' own scale (issue 23): one table row per family setting.

For every seeded instance of a row the script runs ``resilsched solve FILE --time-limit S
--json`` as a user would (the time column: the command's ``wall_time``, loading included, and
in parentheses the process's, Python's start included), then every
registered heuristic of the family with every priority on the same scenario (each schedule
checked by the family's validator) and every registered bound. The certified interval is

    best schedule / best bound - 1      (minimisation; bound / schedule - 1 when maximising)

with the schedule from the solve's objective or the best heuristic, the bound from the solve's
bound or the best registered bound, and each one's source. When ``solve --json`` reports
``objective_source`` / ``bound_source`` itself, they are shown.

Rows are registered in `ROWS`: ``name -> builder(seed, count) -> list[BenchCase]``, one
function per row, so that every family adds its rows without touching the others'. Instances
come from the family's paper preset with a seed the tests do not use (default 23).

Usage: python3 scripts/bench_interval.py [--rows rigid-ff,rigid-q0.3] [--count 3]
       [--seed 23] [--time-limit 60] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resilsched.errors import InvalidInstance
from resilsched.io import write_instance
from resilsched.plugin import Case
from resilsched.registry import get_family


@dataclass
class BenchCase:
    """One instance of a row: the family, the instance, its scenario (None: the family's
    default) and the extra ``solve`` arguments that select that scenario."""

    row: str
    family: str
    label: str
    instance: Any
    scenario: Any = None
    solve_args: list[str] = field(default_factory=list)


def _rigid_paper(seed: int, count: int) -> list[Any]:
    return get_family("rigid").generators["paper-default"].generate(seed, count)


def rigid_failure_free(seed: int, count: int) -> list[BenchCase]:
    """Rigid, the paper's synthetic sets (n = 100, P = 10^4), failure-free."""
    fam = get_family("rigid")
    return [BenchCase("rigid n=100, P=10^4, failure-free", "rigid", f"set {k}", inst,
                      fam.scenario(inst, None))
            for k, inst in enumerate(_rigid_paper(seed, count))]


def rigid_qbar(seed: int, count: int, qbar: float = 0.3) -> list[BenchCase]:
    """Rigid, the same sets with one scenario drawn from the failure model at `qbar`."""
    fam = get_family("rigid")
    out = []
    for k, inst in enumerate(_rigid_paper(seed, count)):
        sc = fam.sample_scenario(inst, qbar, seed + k)
        failures = ",".join(str(f) for f in sc.failures)
        out.append(BenchCase(f"rigid, q-bar {qbar}", "rigid", f"set {k}", inst, sc,
                             ["--failures", failures]))
    return out


def coschedule_amdahl(n: int, k: int = 3, p: int = 16) -> Callable[[int, int], list[BenchCase]]:
    """Co-scheduling, Amdahl tasks (w ~ U[10, 100], f ~ U[0, 0.3]) at p = 16: instance seeds
    seed, seed + 1, ... (the tests and the development runs used seeds 0-9)."""
    from resilsched.instances.coschedule import random_instance

    row = (f"coschedule Amdahl k=p={p}, n={n}" if k == p
           else f"coschedule Amdahl k={k}, p={p}, n={n}")

    def build(seed: int, count: int) -> list[BenchCase]:
        return [BenchCase(row, "coschedule", f"seed {seed + j}",
                          random_instance(seed + j, n, p, k, kind="amdahl"))
                for j in range(count)]

    return build


def _moldable_mix(seed: int, count: int) -> list[Any]:
    return get_family("moldable").generators["paper-mix"].generate(seed, count)


def moldable_failure_free(seed: int, count: int) -> list[BenchCase]:
    """Moldable, the paper's mix job sets (n = 500, P = 7500), failure-free."""
    fam = get_family("moldable")
    return [BenchCase("moldable mix n=500, P=7500, failure-free", "moldable", f"set {k}", inst,
                      fam.scenario(inst, None))
            for k, inst in enumerate(_moldable_mix(seed, count))]


def moldable_lambda(seed: int, count: int) -> list[BenchCase]:
    """Moldable, the same sets with one scenario drawn at the paper's lambda = 1e-7 (stored in
    the preset's instances: q_j = 1 - exp(-lambda w_j)), seed + k for set k."""
    from resilsched.instances.failures import sample_scenarios

    fam = get_family("moldable")
    out = []
    for k, inst in enumerate(_moldable_mix(seed, count)):
        drawn = sample_scenarios(inst.q(), 1, seed + k)[0]
        failures = ",".join(str(f) for f in drawn.failures)
        out.append(BenchCase("moldable mix, lambda = 1e-7", "moldable", f"set {k}", inst,
                             fam.scenario(inst, failures), ["--failures", failures]))
    return out


def worksharing_p25(seed: int, count: int) -> list[BenchCase]:
    """Worksharing, the E5 configurations with p = 25 and eps = 1e-3 (linear risk, X = 1):
    `count` of the workloads W = 1..25 drawn with `seed`."""
    from resilsched.instances.worksharing import LinearRisk, WorksharingInstance

    rng = np.random.default_rng(seed)
    loads = sorted(int(w) for w in rng.choice(np.arange(1, 26), count, replace=False))
    return [BenchCase("worksharing p=25, eps=1e-3", "worksharing", f"W={w}",
                      WorksharingInstance(float(w), 25, LinearRisk(1.0), 0.001,
                                          name=f"e5-p25-W{w}-eps0.001"))
            for w in loads]


#: row name -> builder; families add their own rows here.
ROWS: dict[str, Callable[[int, int], list[BenchCase]]] = {
    "rigid-ff": rigid_failure_free,
    "rigid-q0.3": rigid_qbar,
    "coschedule-n150": coschedule_amdahl(150),
    "coschedule-n200": coschedule_amdahl(200),
    "coschedule-n300": coschedule_amdahl(300),
    "coschedule-pinp40": coschedule_amdahl(40, k=16),
    "moldable-ff": moldable_failure_free,
    "moldable-1e-7": moldable_lambda,
    "worksharing-p25": worksharing_p25,
}


def _better(sense: str, a: Any, b: Any) -> bool:
    return a < b if sense == "min" else a > b


def best_heuristic(case: BenchCase) -> tuple[Any, str]:
    """The best validated heuristic objective over every registered heuristic and priority."""
    fam = get_family(case.family)
    best: tuple[Any, str] = (None, "")
    for h in fam.heuristics.values():
        if h.baseline:  # not a schedule of the problem (e.g. fault-free runs)
            continue
        for prio in h.priorities or (None,):
            try:
                res = h.run(case.instance, case.scenario, prio)
            except InvalidInstance:  # a refusal (too large for it): no schedule
                continue
            if fam.validate is not None:
                fam.validate(Case(case.label, case.instance, case.scenario), res)
            if best[0] is None or _better(fam.sense, res.objective, best[0]):
                best = (res.objective, f"{h.name}/{prio}" if prio else h.name)
    return best


def best_bound(case: BenchCase) -> tuple[Any, str]:
    """The best registered bound of the family on the case."""
    fam = get_family(case.family)
    best: tuple[Any, str] = (None, "")
    for b in fam.bounds.values():
        try:
            value = b.compute(case.instance, case.scenario)
        except InvalidInstance:  # a refusal (e.g. an explicit pool too large): no bound
            continue
        if best[0] is None or _better("max" if fam.sense == "min" else "min", value, best[0]):
            best = (value, b.name)
    return best


def run_solve(case: BenchCase, time_limit: float) -> tuple[dict[str, Any], float]:
    """``resilsched solve`` on the case as a subprocess: its JSON and its wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "instance.json")
        write_instance(case.instance, path)
        cmd = [sys.executable, "-m", "resilsched", "solve", path, "--time-limit",
               str(time_limit), "--json", *case.solve_args]
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return json.loads(out.stdout), time.perf_counter() - start


def measure(case: BenchCase, time_limit: float) -> dict[str, Any]:
    """The certified interval of one case and its sources."""
    fam = get_family(case.family)
    solved, wall = run_solve(case, time_limit)
    objective, obj_src = solved["objective"], solved.get("objective_source",
                                                          f"solve:{solved['method']}")
    bound, bound_src = solved["bound"], solved.get("bound_source", f"solve:{solved['method']}")
    h_obj, h_src = best_heuristic(case)
    if objective is None or h_obj is not None and _better(fam.sense, h_obj, objective):
        objective, obj_src = h_obj, h_src
    b_val, b_src = best_bound(case)
    worse = "max" if fam.sense == "min" else "min"
    if bound is None or b_val is not None and not _better(worse, bound, b_val):  # ties: named
        bound, bound_src = b_val, b_src
    interval = (float(objective) / float(bound) - 1.0 if fam.sense == "min"
                else float(bound) / float(objective) - 1.0)
    return {"row": case.row, "label": case.label, "objective": float(objective),
            "objective_source": obj_src, "bound": float(bound), "bound_source": bound_src,
            "interval": interval, "best_heuristic": float(h_obj), "heuristic": h_src,
            "status": solved["status"], "wall_time": solved["wall_time"], "process_time": wall}


def table(results: list[dict[str, Any]]) -> list[str]:
    lines = ["| row | instance | interval | schedule (source) | bound (source) | best heuristic "
             "| solve wall_time (process) |", "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['row']} | {r['label']} | {100 * r['interval']:.2f}% | "
                     f"{r['objective']:.7g} ({r['objective_source']}) | {r['bound']:.7g} "
                     f"({r['bound_source']}) | {r['best_heuristic']:.7g} ({r['heuristic']}) "
                     f"| {r['wall_time']:.1f} s ({r['process_time']:.1f} s) |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default=",".join(ROWS), help="comma-separated rows of ROWS")
    ap.add_argument("--count", type=int, default=3, help="instances per row")
    ap.add_argument("--seed", type=int, default=23, help="seed of the row builders")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--out", help="also write the table to this file")
    args = ap.parse_args(argv)
    names = [r for r in args.rows.split(",") if r]
    unknown = [r for r in names if r not in ROWS]
    if unknown:
        print(f"error: --rows: unknown row {unknown[0]!r} (known: {', '.join(ROWS)})",
              file=sys.stderr)
        return 2
    results = []
    print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
    for name in names:
        for case in ROWS[name](args.seed, args.count):
            results.append(measure(case, args.time_limit))
            print(table(results[-1:])[-1], flush=True)
    lines = table(results)
    print("\n".join(lines))
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
