"""Reproduce the experiments of the desktop-grid paper (spec 004 §4.5, Figs. 5-7, claims R1-R10).

For every machine set (synthetic SETI@home stand-in, spec 4.1, seed SEED + ms) and job set
(Docking@Home stand-in, spec 4.2, seed 100 + SEED + js), each of the 20 variants of spec 3.4
builds an allocation (timed: wall clock and CPU time of the global + local policy, spec 4.4),
which is then executed on RUNS disturbed traces (spec 4.3: delta ~ U[-alpha a(k), alpha a(k+1)],
merged; the same traces for every variant and job set of a machine set: common random numbers).
Reported per instance and variant: the horizon lambda, its ratio to the smallest horizon of the
20 variants (Fig. 5), the stability sigma = disturbed makespan / lambda of every run (Fig. 6:
per-instance maximum, and pooled), and the build time (Fig. 7). ``--absorb on|off|both`` runs
the instances as generated and/or after `absorb_short(2 p_max)` (A-11).

Each (absorb, machine set, job set) is one task of the campaign ``desktop``
(`resilsched.campaign`) stored in ``--store`` (default ``<out>/campaign.sqlite``): an
interrupted run resumes with the same command; every size option is in the task key, so reduced
and paper-size runs share a store without mixing. Outputs in ``--out`` (default
``results/desktop``): ``variants.csv`` (one row per instance and variant), ``runs.csv`` (one row
per disturbed run), ``fig5_horizon_ratio*.png``, ``fig6_stability*.png``, ``fig7_time*.png`` and
``summary.md`` (tables and the verdicts on R1-R10), also printed.

Paper size: ``--machine-sets 10 --job-sets 10 --hosts 500 --job-count 10000 --runs 30``
(the defaults); reduced sizes through the same options. ``--only r1-sizes|r9-cost`` runs one
check of `desktop_checks` on the same instances instead (R1 with the job sizes scaled; R9's
build costs with and without DAslack's shortcuts), written to ``<check>.txt``.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from resilsched.campaign import Task, add_cli_options, run_script
from resilsched.campaign.experiment import Experiment, ExperimentRunner
from resilsched.commands.args import ReproductionParser, integer
from resilsched.heuristics.desktop.policies import VARIANTS, parse_variant
from resilsched.reproduce.arguments import number
from resilsched.reproduce.desktop_checks import CHECKS
from resilsched.reproduce.desktop_grid import task_instance
from resilsched.reproduce.desktop_report import plots, summary

PROG = "reproduce_desktop.py"


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """All variants of one instance: horizon, H, build times and the disturbed makespans."""
    from resilsched.heuristics.desktop.executor import makespans, stack_traces
    from resilsched.heuristics.desktop.policies import GLOBAL, LOCAL
    from resilsched.instances.desktop import sample_disturbance
    from resilsched.instances.desktop.disturbance import periods_matrix

    inst = task_instance(task)
    traces = [periods_matrix(inst, sample_disturbance(inst, [task["seed"], task["machine_set"],
                                                             r], task["alpha"]))
              for r in range(task["runs"])]
    traces = stack_traces(inst, traces)  # once for the 20 variants
    inst.sorted_durations, inst.durations_by_position  # noqa: B018  (instance data, untimed)
    for mach in inst.machines:
        mach.e, mach.q  # noqa: B018
    out = {}
    for name in task["variants"]:
        g, loc, slack = parse_variant(name)
        t0, c0 = time.perf_counter(), time.process_time()
        sched = GLOBAL[g](inst, LOCAL[loc], slack)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[name] = {"horizon": sched.horizon, "H": sched.H, "wall": round(wall, 4),
                     "cpu": round(cpu, 4), "info": sched.info,
                     "makespans": makespans(inst, sched, traces)}
    return {"m": inst.m, "n": inst.n, "K": inst.K, "p_max": inst.p_max, "a_min": inst.a_min,
            "h1": inst.assumption_h1, "variants": out}


def tasks_of(args: argparse.Namespace) -> list[Task]:
    absorb = {"off": (False,), "on": (True,), "both": (False, True)}[args.absorb]
    out = []
    for ab in absorb:
        for ms in range(args.machine_sets):
            for js in range(args.job_sets):
                f = {"absorb": ab, "machine_set": ms, "job_set": js, "hosts": args.hosts,
                     "job_count": args.job_count, "runs": args.runs, "alpha": args.alpha,
                     "span_days": args.span_days, "seed": args.seed,
                     "variants": list(args.variants)}
                out.append(Task(f, f))
    return out


def check_tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks of the check ``--only`` on the instances of `tasks_of`."""
    from resilsched.reproduce.desktop_checks import check_tasks

    return check_tasks(args.only, tasks_of(args))


#: the options the spec form of the experiments takes (`resilsched.campaign.experiment`)
ARGUMENTS = ("machine_sets", "job_sets", "hosts", "job_count", "runs", "alpha", "span_days",
             "absorb", "variants", "seed")
#: the experiments: every (absorb, machine set, job set) task, and each check of `--only`
CAMPAIGNS = {e.name: e for e in (
    Experiment("desktop", "resilsched.reproduce.desktop:run_task",
               "desktop grids: the 20 variants (spec 004 §4.5)",
               plan="resilsched.reproduce.desktop:tasks_of",
               options="resilsched.reproduce.desktop:parse_args", arguments=ARGUMENTS),
    *(Experiment(f"desktop-{check}", "resilsched.reproduce.desktop_checks:run_check",
                 f"desktop grids: the check {check}",
                 plan="resilsched.reproduce.desktop:check_tasks_of",
                 options="resilsched.reproduce.desktop:parse_args", arguments=ARGUMENTS,
                 fixed=("--only", check)) for check in CHECKS))}


def records(tasks: Sequence[Task], results: Sequence[dict]) -> list[dict[str, Any]]:
    """One record per (task, variant) with the horizon ratio and the sigmas of every run."""
    out = []
    for task, res in zip(tasks, results, strict=True):
        f = task.fields
        best = min(v["horizon"] for v in res["variants"].values())
        for name, v in res["variants"].items():
            out.append({"absorb": f["absorb"], "machine_set": f["machine_set"],
                        "job_set": f["job_set"], "variant": name, "horizon": v["horizon"],
                        "H": v["H"], "ratio": v["horizon"] / best, "wall": v["wall"],
                        "cpu": v["cpu"], "h1": res["h1"],
                        "sigmas": [mk / v["horizon"] for mk in v["makespans"]],
                        "makespans": v["makespans"]})
    return out


def write_csv(out: Path, recs: list[dict[str, Any]]) -> None:
    keys = ["absorb", "machine_set", "job_set", "variant", "horizon", "H", "ratio", "wall",
            "cpu", "h1", "sigma_max", "sigma_median", "unstable_runs"]
    with (out / "variants.csv").open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(keys)
        for r in recs:
            s = sorted(r["sigmas"])
            wr.writerow([r["absorb"], r["machine_set"], r["job_set"], r["variant"], r["horizon"],
                         r["H"], f"{r['ratio']:.6f}", r["wall"], r["cpu"], r["h1"],
                         f"{s[-1]:.6f}", f"{s[len(s) // 2]:.6f}", sum(x > 1 for x in s)])
    with (out / "runs.csv").open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["absorb", "machine_set", "job_set", "variant", "run", "makespan", "sigma"])
        for r in recs:
            for k, (mk, sg) in enumerate(zip(r["makespans"], r["sigmas"], strict=True)):
                wr.writerow([r["absorb"], r["machine_set"], r["job_set"], r["variant"], k, mk,
                             f"{sg:.6f}"])


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None, prog: str) -> argparse.Namespace:
    ap = ReproductionParser(prog=prog, description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--machine-sets", type=integer(1, 100), default=10,
                    help="machine sets (default 10)")
    ap.add_argument("--job-sets", type=integer(1, 100), default=10, help="job sets (default 10)")
    ap.add_argument("--hosts", type=integer(1, 20_000), default=500,
                    help="hosts per machine set (500)")
    ap.add_argument("--job-count", type=integer(1, 200_000), default=10_000,
                    help="jobs per job set (10,000)")
    ap.add_argument("--runs", type=integer(0, 1000), default=30,
                    help="disturbed runs per instance (30)")
    ap.add_argument("--alpha", type=number(0, 1), default=1.0,
                    help="disturbance level in [0, 1]")
    ap.add_argument("--span-days", type=number(1, 3650), default=30.0,
                    help="length of the generated traces after the cut (days, default 30)")
    ap.add_argument("--absorb", choices=("off", "on", "both"), default="both",
                    help="absorb_short(2 p_max) off, on, or both (A-11; default both)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="subset of the 20 variants (default all)")
    ap.add_argument("--seed", type=integer(0, 2**32 - 1), default=0,
                    help="machine set ms uses seed SEED+ms, job set js 100+SEED+js")
    ap.add_argument("--jobs", type=integer(1, 256), default=min(2, os.cpu_count() or 1),
                    help="worker processes (default 2; 1 runs inline)")
    ap.add_argument("--out", type=Path, default=Path("results/desktop"))
    ap.add_argument("--only", choices=CHECKS, default=None,
                    help="run one check instead: r1-sizes (R1 with the job sizes scaled by "
                         "0.5, 1, 2, 3), r9-cost (build costs with and without DAslack's "
                         "shortcuts, D-7); instances as generated")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--stored-only", action="store_true",
                    help="run nothing: tables and plots of the tasks already in the store")
    add_cli_options(ap, "<out>/campaign.sqlite")
    a = ap.parse_args(argv)
    a.variants = tuple(v.strip() for v in a.variants.split(",") if v.strip())
    bad = [v for v in a.variants if v not in VARIANTS]
    if bad or not a.variants:
        ap.error(f"--variants: unknown {bad} (choose from {', '.join(VARIANTS)})")
    return a


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line options `argv`; exit status 0, 2 or 130."""
    args = parse_args(argv, prog)

    def body() -> int:

        args.out.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        tasks = tasks_of(args)
        name = f"desktop-{args.only}" if args.only else "desktop"
        with ExperimentRunner(args.store or args.out / "campaign.sqlite", jobs=args.jobs,
                              dask=args.dask, fresh=[name] if args.fresh else []) as runner:
            if args.only:
                return _check(args, runner)
            if args.stored_only:
                stored = runner.stored(CAMPAIGNS[name], tasks)
                tasks = [t for t in tasks if t.key in stored]
                results = [stored[t.key] for t in tasks]
                log(f"{len(tasks)} stored tasks of {len(tasks_of(args))}")
                if not tasks:
                    return 0
            else:
                results = runner.run(CAMPAIGNS[name], tasks)
        recs = records(tasks, results)
        write_csv(args.out, recs)
        made = [] if args.no_plots else plots(recs, args.out)
        text = summary(recs, args, time.perf_counter() - t0)
        (args.out / "summary.md").write_text(text)
        print(text)
        for p in made:
            log(f"wrote {p}")
        log(f"wrote {args.out / 'summary.md'}, variants.csv and runs.csv")
        return 0

    return run_script(prog, args.dask, body)


def _check(args: argparse.Namespace, runner: ExperimentRunner) -> int:
    from resilsched.reproduce.desktop_checks import report_lines

    exp = CAMPAIGNS[f"desktop-{args.only}"]
    tasks = check_tasks_of(args)
    if args.stored_only:
        stored = runner.stored(exp, tasks)
        results = [stored[t.key] for t in tasks if t.key in stored]
    else:
        results = runner.run(exp, tasks, label=args.only)
    if not results:
        log(f"0 stored tasks of {len(tasks)}")
        return 0
    size = (f"{len(results)} instances of {args.hosts} hosts and {args.job_count} jobs, "
            f"seed {args.seed}")
    text = "\n".join(report_lines(args.only, results, size)) + "\n"
    (args.out / f"{args.only.replace('-', '_')}.txt").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
