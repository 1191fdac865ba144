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
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from resilsched.bounds.moldable import extremes
from resilsched.campaign import (
    ResultStore,
    Task,
    add_cli_options,
    run_campaign,
    run_script,
)
from resilsched.heuristics.moldable import Simulator, lpa, minarea, mintime
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
#: the paper's algorithms (``--algos``): the allocation rule of a fixed-allocation LIST
#: heuristic (LPA-LIST, MINTIME, MINAREA), or None for BATCH-LIST
ALGOS = {"LPA": lpa, "BATCH": None, "MINTIME": mintime, "MINAREA": minarea}
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
        r = makespans(sim, F, a, task["priority"]) / lp
        out[a] = [float(r.mean()), float(r.max())]
    return out


def makespan(sim: Simulator, failures: np.ndarray, algo: str, priority: str) -> float:
    """Makespan of the paper's algorithm `algo` (a key of `ALGOS`) on one scenario."""
    rule = ALGOS[algo]
    if rule is None:
        return sim.batch_makespan(failures, priority)
    return sim.makespan(failures, rule, priority)


def makespans(sim: Simulator, F: np.ndarray, algo: str, priority: str) -> np.ndarray:
    """`makespan` for every scenario (row) of ``F``: the fixed-allocation algorithms simulate
    all of them in one call of the compiled core."""
    rule = ALGOS[algo]
    if rule is None:
        return np.array([sim.batch_makespan(f, priority) for f in F])
    return sim.makespans(F, rule, priority)


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


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line ``prog: error: message`` (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _count(high: int) -> Callable[[str], int]:
    """argparse type: an integer in [1, high]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not 1 <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} must be in [1, {high}]")
        return value

    return parse


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"{value} must be in [0, 2^32)")
    return value


def _slack(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 1.0 <= value <= 4.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{value} must be in [1, 4] (BATCH-LIST's area_slack)")
    return value


def _subset(allowed: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    """argparse type: a comma-separated, non-empty subset of `allowed`, without repeats."""

    def parse(text: str) -> tuple[str, ...]:
        items = tuple(x.strip() for x in text.split(","))
        bad = [x for x in items if x not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"unknown {bad} (choose from {','.join(allowed)})")
        if len(set(items)) != len(items):
            raise argparse.ArgumentTypeError(f"{text!r} repeats a name")
        return items

    return parse


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command-line options of the reproduction (every one with its default in the help)."""
    ap = _Parser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=_count(1000), default=30,
                    help="job sets per model for Table 1, in [1, 1000] (default %(default)s)")
    ap.add_argument("--scenarios", type=_count(10_000), default=20,
                    help="failure scenarios per job set, in [1, 10000] (default %(default)s)")
    ap.add_argument("--seed", type=_seed, default=2021,
                    help="root seed of the job sets and scenarios (default %(default)s)")
    ap.add_argument("--area-slack", type=_slack, default=1.1,
                    help="BATCH-LIST's area slack, in [1, 4] (default %(default)s; 1 = none)")
    ap.add_argument("--g1-exact", action="store_true",
                    help="BATCH: exact g=1 allotment (no DP, no slack) for the first batch "
                         "(default off)")
    ap.add_argument("--no-table", action="store_true",
                    help="skip Table 1 (default: compute it)")
    ap.add_argument("--sweeps", action="store_true",
                    help="also run the P, n and lambda sweeps of Figs. 4, 7-9 (default off)")
    ap.add_argument("--sweep-sets", type=_count(1000), default=2,
                    help="job sets per sweep point (default %(default)s)")
    ap.add_argument("--sweep-scenarios", type=_count(10_000), default=5,
                    help="scenarios per job set in the sweeps (default %(default)s)")
    ap.add_argument("--grids", type=_subset(("P", "n", "lambda")), default=("P", "n", "lambda"),
                    help="sweeps to run, a subset of P,n,lambda (default all)")
    ap.add_argument("--algos", type=_subset(tuple(ALGOS)), default=tuple(ALGOS),
                    help=f"Table 1's algorithms, a subset of {','.join(ALGOS)} (default all)")
    ap.add_argument("--csv", type=Path, default=None,
                    help="also write every number to this CSV file (default: none)")
    ap.add_argument("--jobs", type=_count(256), default=min(2, os.cpu_count() or 1),
                    help="worker processes, 1 runs inline (default %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("results/moldable"),
                    help="folder of the default --store (default %(default)s)")
    add_cli_options(ap, "<out>/campaign.sqlite")
    return ap


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line options `argv`; exit status 0, 2 or 130.

    `prog` names the program in the help and in error lines (``resilsched reproduce moldable``
    when run from the CLI). Bad options are one line ``prog: error: ...`` with status 2.
    """
    ap = parser(prog)
    args = ap.parse_args(argv)
    args.prog = prog
    store_path = args.store or args.out / "campaign.sqlite"
    for name, path, folder in (("--out", args.out, True), ("--store", store_path, False),
                               ("--csv", args.csv, False)):
        if path is None:
            continue
        if folder and path.exists() and not path.is_dir():
            ap.error(f"{name}: {path} exists and is not a folder")
        if not folder and path.is_dir():
            ap.error(f"{name}: {path} is a folder")
        if not folder and name == "--csv" and not path.parent.is_dir():
            ap.error(f"{name}: folder {path.parent} does not exist")

    def body() -> int:
        try:
            store = ResultStore(store_path)
        except (OSError, sqlite3.Error) as exc:
            print(f"{prog}: error: --store: cannot open {store_path}: {exc}", file=sys.stderr)
            return 2
        with store:
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
                       args.algos, args.g1_exact, run=run)
    if args.sweeps:
        rows += sweeps(args.sweep_sets, args.sweep_scenarios, args.seed, args.area_slack,
                       sys.stdout, which=args.grids, run=run)
    print(f"# total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if args.csv:
        keys = sorted({k for r in rows for k in r})
        try:
            with open(args.csv, "w", newline="") as fh:
                wr = csv.DictWriter(fh, fieldnames=keys)
                wr.writeheader()
                wr.writerows(rows)
        except OSError as exc:
            print(f"{args.prog}: error: --csv: cannot write {args.csv}: {exc.strerror}",
                  file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
