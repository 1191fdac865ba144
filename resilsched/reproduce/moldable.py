"""Reproduce Table 1 and the sweeps of Figs. 4, 7-9 of the moldable paper (spec 000 §5, §6).

Table 1: normalised makespan T / L'(J, f) of LPA, BATCH, MINTIME, MINAREA (LPT priority) on the
six models at the defaults (P = 7500, n = 500, lambda = 1e-7): "expected" = mean over sets of the
per-set mean over scenarios (expectation of ratios, spec §7 item 21), "maximum" = max over all
(set, scenario) pairs. Sweeps: the same, varying one of P, n, lambda (spec §5 grids), at reduced
repetitions. Set k of model m uses child k of SeedSequence([seed, model index, config index]);
scenarios are geometric draws from the same child (common random numbers for all algorithms).

Each (configuration, set) is one task of the campaign ``moldable`` (`resilsched.campaign`),
stored in ``--store`` (default ``<out>/campaign.sqlite``, ``--out`` default ``results/moldable``):
after an interruption (Ctrl-C, exit status 130) the same command resumes and prints the same
tables; ``--fresh`` starts over, ``--jobs`` sets the worker processes, ``--dask ADDRESS|local``
runs on Dask distributed. A task's key holds all its parameters (seed included), so runs with
other parameters share the store without mixing.

Usage::

    resilsched reproduce moldable --sets 30 --scenarios 20 [--sweeps] [--csv out.csv]

``python3 scripts/reproduce_moldable.py`` (a thin wrapper of this module) takes the same options.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.bounds.moldable import extremes
from resilsched.campaign import (
    ResultStore,
    Task,
    add_cli_options,
    run_campaign,
    run_script,
)
from resilsched.heuristics.moldable import Simulator
from resilsched.instances.moldable.generators import (
    DEFAULT_LAMBDA,
    DEFAULT_N,
    DEFAULT_P,
    LAMBDA_GRID,
    N_GRID,
    P_GRID,
    PAPER_MODELS,
    paper_instance,
)

#: program name in the help and error lines (the script's name, as before the move)
PROG = "reproduce_moldable.py"
ALGOS = {"LPA": "LPA-LIST", "BATCH": "BATCH-LIST", "MINTIME": "MINTIME", "MINAREA": "MINAREA"}
PAPER_TABLE1 = {  # spec §6.1 (expected, maximum)
    "LPA": {"roofline": (1.057, 1.219), "communication": (1.312, 2.241), "amdahl": (1.961, 2.349),
            "mix-low-com": (1.896, 1.987), "mix": (1.867, 1.995), "power": (1.861, 9.655)},
    "BATCH": {"roofline": (1.158, 1.999), "communication": (1.434, 2.449),
              "amdahl": (1.529, 2.874), "mix-low-com": (1.548, 3.674), "mix": (1.571, 4.164),
              "power": (1.549, 3.975)},
    "MINTIME": {"roofline": (1.057, 1.219), "communication": (2.044, 2.666),
                "amdahl": (15.567, 49.795), "mix-low-com": (2.810, 12.611),
                "mix": (2.704, 27.174), "power": (20.386, 61.726)},
    "MINAREA": {"roofline": (114.079, 1217.13), "communication": (122.199, 871.38),
                "amdahl": (23.594, 199.572), "mix-low-com": (16.875, 259.163),
                "mix": (9.686, 120.9), "power": (2.571, 27.109)},
}


#: runs a list of tasks, returns their results in order (inline, or a campaign)
Runner = Callable[[Sequence[Task]], list[Any]]


def set_tasks(model: str, P: int, n: int, lam: float, sets: int, scenarios: int, seed: int,
              config: int, algos=tuple(ALGOS), priority: str = "LPT", area_slack: float = 1.1,
              g1_exact: bool = False) -> list[Task]:
    """One task per job set of a configuration; its fields are all run_set needs."""
    return [Task(f, f) for f in (
        {"model": model, "P": P, "n": n, "lambda": lam, "scenarios": scenarios, "seed": seed,
         "config": config, "set": k, "algos": list(algos), "priority": priority,
         "area_slack": area_slack, "g1_exact": g1_exact} for k in range(sets))]


def run_set(task: dict[str, Any]) -> dict[str, list[float]]:
    """Set ``task["set"]`` of a configuration: algorithm -> [mean, max] of T/L' over scenarios.

    The set uses child k of SeedSequence([seed, model index, config]) (the same child `spawn`
    gives), so its result does not depend on how many sets the configuration has.
    """
    k, model, n, P = task["set"], task["model"], task["n"], task["P"]
    child = np.random.SeedSequence([task["seed"], PAPER_MODELS.index(model), task["config"]],
                                   spawn_key=(k,))
    rng = np.random.default_rng(child)
    inst = paper_instance(model, rng, n=n, P=P, lam=task["lambda"], name=f"{model}-{k}")
    F = rng.geometric(1.0 - inst.q(), size=(task["scenarios"], n)) - 1
    tmin, amin = extremes(inst)
    m = F + 1.0
    lp = np.maximum((m * tmin).max(axis=1), (m * amin).sum(axis=1) / P)
    sim = Simulator(inst, area_slack=task["area_slack"], g1_exact=task["g1_exact"])
    out = {}
    for a in task["algos"]:
        r = np.array([sim.makespan(F[s], ALGOS[a], task["priority"])
                      for s in range(task["scenarios"])]) / lp
        out[a] = [float(r.mean()), float(r.max())]
    return out


def inline(tasks: Sequence[Task]) -> list[Any]:
    return [run_set(t.payload) for t in tasks]


def combine(results: Sequence[dict[str, list[float]]], algos) -> dict[str, tuple[float, float]]:
    """(expected, maximum) per algorithm: mean of the per-set means, max over all scenarios."""
    return {a: (float(np.mean([r[a][0] for r in results])),
                max(0.0, *(r[a][1] for r in results))) for a in algos}


def run_config(model: str, P: int, n: int, lam: float, sets: int, scenarios: int, seed: int,
               config: int, algos=tuple(ALGOS), priority: str = "LPT",
               area_slack: float = 1.1, g1_exact: bool = False,
               run: Runner = inline) -> dict[str, tuple[float, float]]:
    """(expected, maximum) of T/L' per algorithm for one configuration."""
    tasks = set_tasks(model, P, n, lam, sets, scenarios, seed, config, algos, priority,
                      area_slack, g1_exact)
    return combine(run(tasks), algos)


def table1(sets: int, scenarios: int, seed: int, area_slack: float, out,
           algos=tuple(ALGOS), g1_exact: bool = False, run: Runner = inline) -> list[dict]:
    rows = []
    tasks = {model: set_tasks(model, DEFAULT_P, DEFAULT_N, DEFAULT_LAMBDA, sets, scenarios, seed,
                              0, algos, area_slack=area_slack, g1_exact=g1_exact)
             for model in PAPER_MODELS}
    results = iter(run([t for model in PAPER_MODELS for t in tasks[model]]))
    res = {model: combine([next(results) for _ in tasks[model]], algos)
           for model in PAPER_MODELS}
    out.write(f"Table 1 at the defaults (P={DEFAULT_P}, n={DEFAULT_N}, lambda={DEFAULT_LAMBDA}), "
              f"{sets} sets x {scenarios} scenarios, LPT, area_slack={area_slack}, "
              f"g1_exact={g1_exact}; "
              "computed (paper)\n\n")
    out.write("| algo | stat | " + " | ".join(PAPER_MODELS) + " |\n")
    out.write("|---|---|" + "---|" * len(PAPER_MODELS) + "\n")
    for a in algos:
        for i, stat in enumerate(("Expected", "Maximum")):
            cells = [f"{res[m][a][i]:.3f} ({PAPER_TABLE1[a][m][i]})" for m in PAPER_MODELS]
            out.write(f"| {a} | {stat} | " + " | ".join(cells) + " |\n")
            for m in PAPER_MODELS:
                rows.append({"table": "table1", "model": m, "algo": a, "stat": stat,
                             "value": res[m][a][i], "paper": PAPER_TABLE1[a][m][i]})
    out.write("\n")
    return rows


def sweeps(sets: int, scenarios: int, seed: int, area_slack: float, out,
           models=PAPER_MODELS, which=("P", "n", "lambda"), run: Runner = inline) -> list[dict]:
    rows = []
    grids = [("P", P_GRID, lambda v: (v, DEFAULT_N, DEFAULT_LAMBDA)),
             ("n", N_GRID, lambda v: (DEFAULT_P, v, DEFAULT_LAMBDA)),
             ("lambda", LAMBDA_GRID, lambda v: (DEFAULT_P, DEFAULT_N, v))]
    for gname, grid, conf in grids:
        if gname not in which:
            continue
        out.write(f"Sweep over {gname} (Fig. 4 for mix, Figs. 7-9 for all models): expected T/L', "
                  f"{sets} sets x {scenarios} scenarios, LPT\n\n")
        out.write("| model | algo | " + " | ".join(str(v) for v in grid) + " |\n")
        out.write("|---|---|" + "---|" * len(grid) + "\n")
        tasks = {(model, ci): set_tasks(model, *conf(v), sets, scenarios, seed, 100 + ci,
                                        area_slack=area_slack)
                 for model in models for ci, v in enumerate(grid)}
        results = iter(run([t for ts in tasks.values() for t in ts]))
        res = {mc: combine([next(results) for _ in ts], ALGOS) for mc, ts in tasks.items()}
        for model in models:
            vals = {a: [] for a in ALGOS}
            for ci, v in enumerate(grid):
                r = res[model, ci]
                for a in ALGOS:
                    vals[a].append(r[a][0])
                    rows.append({"table": f"sweep-{gname}", "model": model, "algo": a,
                                 "stat": "Expected", "x": v, "value": r[a][0]})
            for a in ALGOS:
                out.write(f"| {model} | {a} | " + " | ".join(f"{x:.3f}" for x in vals[a]) + " |\n")
        out.write("\n")
    return rows


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line options `argv`; exit status 0, 2 or 130.

    `prog` names the program in the help and in error lines (``resilsched reproduce moldable``
    when run from the CLI).
    """
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=30)
    ap.add_argument("--scenarios", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--area-slack", type=float, default=1.1)
    ap.add_argument("--g1-exact", action="store_true",
                    help="BATCH: exact g=1 allotment (no DP, no slack) for the first batch")
    ap.add_argument("--no-table", action="store_true")
    ap.add_argument("--sweeps", action="store_true")
    ap.add_argument("--sweep-sets", type=int, default=2)
    ap.add_argument("--sweep-scenarios", type=int, default=5)
    ap.add_argument("--grids", default="P,n,lambda", help="sweeps to run (subset of P,n,lambda)")
    ap.add_argument("--algos", default=",".join(ALGOS), help="subset of LPA,BATCH,MINTIME,MINAREA")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="worker processes (default 2; 1 runs inline)")
    ap.add_argument("--out", type=Path, default=Path("results/moldable"),
                    help="folder of the default --store")
    add_cli_options(ap, "<out>/campaign.sqlite")
    args = ap.parse_args(argv)

    def body() -> int:
        with ResultStore(args.store or args.out / "campaign.sqlite") as store:
            return _main(args, store)

    return run_script(prog, args.dask, body)


def _main(args: argparse.Namespace, store: ResultStore) -> int:
    if args.fresh:
        store.forget("moldable")

    def run(tasks: Sequence[Task]) -> list[Any]:
        return run_campaign("moldable", tasks, run_set, store, jobs=args.jobs, dask=args.dask)

    rows: list[dict] = []
    t0 = time.perf_counter()
    if not args.no_table:
        rows += table1(args.sets, args.scenarios, args.seed, args.area_slack, sys.stdout,
                       tuple(args.algos.split(",")), args.g1_exact, run=run)
    if args.sweeps:
        rows += sweeps(args.sweep_sets, args.sweep_scenarios, args.seed, args.area_slack,
                       sys.stdout, which=tuple(args.grids.split(",")), run=run)
    print(f"# total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if args.csv:
        keys = sorted({k for r in rows for k in r})
        with open(args.csv, "w", newline="") as fh:
            wr = csv.DictWriter(fh, fieldnames=keys)
            wr.writeheader()
            wr.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
