"""Reproduce Figures 1.4-1.7 of the chapter (spec 001 §4-5) and the f sweep of [2] (R5).

Grids (spec §4 [REC]): Fig. 1.4 fault-free, n = 1000, p = 2000..10000; Fig. 1.5 p = 5000,
n = 100..1000; Fig. 1.6 n = 100, p = 5000, MTBF 5..125 years; Fig. 1.7 n = 100, p = 1000,
checkpoint factor c in {0.01, ..., 2}; the f sweep n = 100, p = 1000, f in {0, ..., 0.16}.
Instances are the paper's setting (`instances.malleable.paper_instance`: (1.13), f = 0.08,
m ~ U{1.5e6..2.5e6}, MTBF 100 years, D = 60 s, c = 1). Each repetition draws a new instance and
trace from ``SeedSequence([seed, figure, x index, repetition])`` and runs every method on them
(common random numbers, A-20). Ratios are normalised by the no-redistribution makespan (fault-
free for Fig. 1.4, faulty otherwise): the ratio of the means (A-21, primary), with the mean of
the per-run ratios and its 95% half-width beside it.

Every (figure, x, repetition) is one task of the campaign ``malleable`` stored in ``--store``
(default ``<out>/campaign.sqlite``), so an interrupted run resumes where it stopped; ``--fresh``
starts over. Outputs in ``--out`` (default ``results/malleable``): ``fig1_4.csv`` ... and
``fig1_4.png`` ..., ``sanity.csv`` (failures per run, spec §4 table) and ``summary.md`` with
the verdicts of claims R1-R5 (spec §5).

Usage::

    resilsched reproduce malleable [--reps 10] [--figures 1.4,1.5,1.6,1.7,f] [--scale 1]
    resilsched reproduce malleable --only r1-cause|r3-rule [--reps 10] [--scale 1]

``--only`` runs one check of `malleable_checks` instead of the figures (R1's cause: the fluid
cap, RC ~ 0 and the shrinks; R3: ITERATEDGREEDY against no redistribution under both look-ahead
rules), written to ``<check>.txt``.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.campaign import Task, add_cli_options, run_script
from resilsched.campaign.experiment import Experiment, ExperimentRunner
from resilsched.commands.args import ReproductionParser, integer
from resilsched.reproduce.malleable_checks import CHECKS
from resilsched.reproduce.malleable_grid import (  # noqa: F401  (the figures' grid, re-exported)
    BASELINES,
    FAULTY,
    FIGURES,
    YEARS,
    point_instance,
    settings,
)

PROG = "reproduce_malleable.py"
#: spec §4 sanity table: (n, p, MTBF years) -> about this many failures per run
SANITY = ((100, 5000, 100, 18), (100, 5000, 5, 365), (1000, 5000, 100, 73),
          (100, 1000, 100, 7.5), (1000, 2000, 100, 53))


def run_point(payload: dict[str, Any]) -> dict[str, Any]:
    """One repetition: a new instance and trace, every method on them (campaign task)."""
    from resilsched.registry import get_family

    fam = get_family("malleable")
    inst, seed = point_instance(payload["settings"], payload["seed"])
    out: dict[str, Any] = {"makespan": {}, "seconds": {}}
    for name in payload["methods"]:
        t0 = time.process_time()
        res = fam.heuristics[name].run(inst, None, None, seed=seed)
        out["seconds"][name] = time.process_time() - t0
        out["makespan"][name] = res.objective
        if name == "NOREDIST":
            run = res.schedule
            out["failures_struck"] = run.counts["failures"]
            out["trace_failures"] = sum(1 for t, _ in run.trace if t <= res.objective)
    return out


def tasks_for(fig: str, reps: int, seed: int, scale: int) -> list[Task]:
    name, values, _, methods, ref = FIGURES[fig]
    code = list(FIGURES).index(fig)
    out = []
    for xi, x in enumerate(values):
        s = settings(fig, x, scale)
        for r in range(reps):
            fields = {"figure": fig, "x": x, "rep": r, "seed": seed, "scale": scale}
            out.append(Task(fields, {"settings": s, "seed": [seed, code, xi, r],
                                     "methods": [ref, *methods]}))
    return out


def aggregate(fig: str, results: list[dict], reps: int) -> list[dict[str, Any]]:
    """Rows of the figure's CSV: one per (x, method)."""
    name, values, _, methods, ref = FIGURES[fig]
    rows = []
    for xi, x in enumerate(values):
        runs = results[xi * reps:(xi + 1) * reps]
        base = np.array([r["makespan"][ref] for r in runs])
        for m in (ref, *methods):
            vals = np.array([r["makespan"][m] for r in runs])
            per = vals / base
            half = 1.96 * per.std(ddof=1) / math.sqrt(per.size) if per.size > 1 else float("nan")
            rows.append({"figure": fig, "parameter": name, "x": x, "method": m, "reps": len(runs),
                         "mean_days": vals.mean() / 86400, "ratio": vals.mean() / base.mean(),
                         "mean_ratio": per.mean(), "ci95": half,
                         "cpu_seconds": float(np.mean([r["seconds"][m] for r in runs])),
                         "failures_struck": float(np.mean([r.get("failures_struck", 0)
                                                           for r in runs]))})
    return rows


def sanity_tasks(reps: int, seed: int, scale: int) -> list[Task]:
    out = []
    for k, (n, p, years, _) in enumerate(SANITY):
        s = {"n": max(1, n // scale), "p": max(2 * n // scale, p // scale),
             "mtbf_years": float(years), "c": 1.0, "f": 0.08}
        for r in range(reps):
            out.append(Task({"sanity": k, "rep": r, "seed": seed, "scale": scale},
                            {"settings": s, "seed": [seed, 99, k, r],
                             "methods": ["NOREDIST", "FF-NOREDIST"]}))
    return out


def figure_tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks of every figure of ``--figures``, figure by figure (`tasks_for`)."""
    return [t for fig in args.figs for t in tasks_for(fig, args.reps, args.seed, args.scale)]


def sanity_tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks of the failure-count table (`sanity_tasks`)."""
    return sanity_tasks(args.reps, args.seed, args.scale)


def check_tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks of the check ``--only`` (`malleable_checks.check_tasks`)."""
    from resilsched.reproduce.malleable_checks import check_tasks

    return check_tasks(args.only, args.reps, args.seed, args.scale)


def _experiment(name: str, task: str, plan: str, what: str, arguments: tuple[str, ...],
                fixed: tuple[str, ...] = ()) -> Experiment:
    return Experiment(name, task, f"malleable jobs: {what}",
                      plan=f"resilsched.reproduce.malleable:{plan}",
                      options="resilsched.reproduce.malleable:parse_args", arguments=arguments,
                      fixed=fixed)


#: the experiments (`resilsched.campaign.experiment`): the figures, the failure-count table
#: and each check of ``--only``
CAMPAIGNS = {e.name: e for e in (
    _experiment("malleable", "resilsched.reproduce.malleable:run_point", "figure_tasks_of",
                "the figures of --figures", ("reps", "figures", "seed", "scale")),
    _experiment("malleable-sanity", "resilsched.reproduce.malleable:run_point",
                "sanity_tasks_of", "the failure-count table", ("reps", "seed", "scale")),
    *(_experiment(f"malleable-{check}", "resilsched.reproduce.malleable_checks:run_check",
                  "check_tasks_of", f"the check {check}", ("reps", "seed", "scale"),
                  ("--only", check)) for check in CHECKS))}


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        for row in rows:
            wr.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


def parse_args(argv: Sequence[str] | None, prog: str = PROG) -> argparse.Namespace:
    """The options `argv`, ``figs`` the list of ``--figures`` (a bad option: one line on
    stderr, `SystemExit` 2)."""
    ap = ReproductionParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=integer(2, 1000), default=10,
                    help="repetitions per point, in [2, 1000] (paper: 50; default 10)")
    ap.add_argument("--figures", default="1.4,1.5,1.6,1.7,f",
                    help="subset of 1.4,1.5,1.6,1.7,f (default all)")
    ap.add_argument("--seed", type=integer(0, 2**32 - 1), default=2016,
                    help="root seed of instances and failure traces (default 2016)")
    ap.add_argument("--scale", type=integer(1, 50), default=1,
                    help="divide n and p by this factor, in [1, 50] (smoke runs; default 1 = "
                         "paper size)")
    ap.add_argument("--only", choices=CHECKS, default=None,
                    help="run one check instead of the figures: r1-cause (Fig. 1.4 grid: fluid "
                         "cap, RC ~ 0, shrinks), r3-rule (Fig. 1.6 grid: IG vs no "
                         "redistribution, look-ahead and strict_step rules)")
    ap.add_argument("--no-sanity", action="store_true", help="skip the failure-count table")
    ap.add_argument("--no-plots", action="store_true", help="CSV and summary only")
    ap.add_argument("--jobs", type=integer(1, 256), default=min(2, os.cpu_count() or 1),
                    help="worker processes (default 2; 1 runs inline)")
    ap.add_argument("--out", type=Path, default=Path("results/malleable"))
    add_cli_options(ap, "<out>/campaign.sqlite")
    args = ap.parse_args(argv)
    args.figs = [f.strip() for f in args.figures.split(",") if f.strip()]
    bad = [f for f in args.figs if f not in FIGURES]
    if bad or not args.figs:
        what = (f"--figures: {bad[0]!r} is unknown" if bad else "--figures: is empty")
        ap.error(f"{what} (choose from {', '.join(FIGURES)})")
    return args


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line options `argv`; exit status 0, 2 or 130."""
    try:
        args = parse_args(argv, prog)
    except SystemExit as exc:  # --help (0) or a one-line error (2)
        return int(exc.code or 0)

    def body() -> int:
        args.out.mkdir(parents=True, exist_ok=True)
        fresh = ([f"malleable-{args.only}"] if args.only else ["malleable", "malleable-sanity"]
                 ) if args.fresh else []
        with ExperimentRunner(args.store or args.out / "campaign.sqlite", jobs=args.jobs,
                              dask=args.dask, fresh=fresh) as runner:
            return _main(args, args.figs, runner)

    return run_script(prog, args.dask, body)


def _main(args: argparse.Namespace, figs: list[str], runner: ExperimentRunner) -> int:
    from resilsched.reproduce.malleable_report import claims, summary

    if args.only:
        return _check(args, runner)
    t0 = time.perf_counter()
    tables: dict[str, list[dict]] = {}
    for fig in figs:
        tasks = tasks_for(fig, args.reps, args.seed, args.scale)
        res = runner.run(CAMPAIGNS["malleable"], tasks, label=f"malleable fig {fig}")
        tables[fig] = aggregate(fig, res, args.reps)
        write_csv(args.out / f"fig{fig.replace('.', '_')}.csv", tables[fig])
    sanity = None
    if not args.no_sanity:
        res = runner.run(CAMPAIGNS["malleable-sanity"], sanity_tasks_of(args))
        sanity = _sanity_rows(res, args.reps, args.scale)
        write_csv(args.out / "sanity.csv", sanity)
    pngs = []
    if not args.no_plots:
        from resilsched.reproduce.malleable_report import plot

        pngs = [plot(fig, tables[fig], args.out) for fig in figs]
    verdicts = claims(tables)
    text = summary(tables, sanity, verdicts, args, time.perf_counter() - t0)
    (args.out / "summary.md").write_text(text)
    print(text)
    for p in pngs:
        print(f"wrote {p}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace, runner: ExperimentRunner) -> int:
    from resilsched.reproduce.malleable_checks import report_lines

    res = runner.run(CAMPAIGNS[f"malleable-{args.only}"], check_tasks_of(args),
                     label=args.only)
    text = "\n".join(report_lines(args.only, res, args.reps, args.scale)) + "\n"
    (args.out / f"{args.only.replace('-', '_')}.txt").write_text(text)
    print(text, end="")
    return 0


def _sanity_rows(results: list[dict], reps: int, scale: int) -> list[dict[str, Any]]:
    rows = []
    for k, (n, p, years, expected) in enumerate(SANITY):
        runs = results[k * reps:(k + 1) * reps]
        rows.append({"n": n // scale, "p": p // scale, "mtbf_years": years,
                     "spec_failures": expected if scale == 1 else float("nan"),
                     "trace_failures": float(np.mean([r["trace_failures"] for r in runs])),
                     "failures_struck": float(np.mean([r["failures_struck"] for r in runs])),
                     "fault_free_days": float(np.mean([r["makespan"]["FF-NOREDIST"]
                                                       for r in runs])) / 86400,
                     "noredist_days": float(np.mean([r["makespan"]["NOREDIST"]
                                                     for r in runs])) / 86400})
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
