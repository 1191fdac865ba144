"""Reproduce the moldable paper's experiments (spec 000 §5-§6): Table 1 and Figs. 3-9.

- Table 1: T / L'(J, f) of LPA, BATCH, MINTIME, MINAREA (LPT) on the six models at the
  defaults (P = 7500, n = 500, lambda = 1e-7), and, when the sweeps ran, "over the entire set of
  experiments" as the paper computes it (mean over the configurations, maximum over all runs);
- ``--figures``: Figs. 3 and 5 (the 11 algorithm x priority combinations at the defaults) and
  Figs. 3-right and 6 (the four (P, n) combinations), expected and worst case;
- ``--sweeps``: Figs. 4 and 7-9 (P, n and lambda varied one at a time, LPT), expected and
  maximum per point;
- ``--theorems``: Theorems 1-10 and §5.1's lambda calibration shown by computation, one claims
  row each (`theorems`, campaign ``moldable-theorems``);
- ``--mix-gamma-scale X``: the mix models' sequential fraction gamma scaled by X after the same
  draws (issue 27's generator hypothesis; the other models and the default X = 1 unchanged).

"expected" = mean over sets of the per-set mean over scenarios (expectation of ratios, spec §7
item 21), "maximum" = max over all (set, scenario) pairs (`experiments` has the protocol and the
seeds). Outputs in ``--out`` (default ``results/moldable``): ``moldable.csv`` (one row per model,
configuration, algorithm and priority, with the standard error of each expected value),
``summary.md`` (the tables printed), and the PNG figures (`plots`).

Each (configuration, model, job set) is one task of the campaign ``moldable``
(`resilsched.campaign`), stored in ``--store`` (default ``<out>/campaign.sqlite``): after an
interruption (Ctrl-C, exit status 130) the same command resumes and prints the same tables;
``--fresh`` starts over, ``--jobs`` sets the worker processes, ``--dask ADDRESS|local`` runs
on Dask distributed. A task's key holds all its parameters (seed included), so runs with other
parameters share the store without mixing.

Usage::

    resilsched reproduce moldable --sets 30 --scenarios 100 [--figures] [--sweeps]

``python3 scripts/reproduce_moldable.py`` (a thin wrapper of this package) takes the same options.
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

from resilsched.campaign import Task, add_cli_options, run_script
from resilsched.campaign.experiment import Experiment, ExperimentRunner
from resilsched.commands.args import ReproductionParser
from resilsched.errors import InvalidInstance
from resilsched.heuristics.moldable.batch import ATTEMPT_ORDERS, batch_params
from resilsched.instances.moldable.generators import (
    MAX_GAMMA_SCALE,
    PAPER_MODELS,
    check_gamma_scale,
)
from resilsched.reproduce.arguments import count, seed
from resilsched.reproduce.moldable.experiments import (
    ALGOS,
    BATCH_EPS,
    BATCH_EPS2,
    COMBOS,
    DEFAULT,
    PAPER_TABLE1,
    PN,
    SWEEPS,
    Config,
    Request,
    Results,
    collect,
    request_tasks,
    run_config,
    run_set,
    set_tasks,
)
from resilsched.reproduce.moldable.tables import (
    aggregate,
    all_configs,
    combos_table,
    csv_rows,
    sweep_table,
    table1,
)
from resilsched.reproduce.moldable.theorems import (
    theorem_rows,
    theorem_tasks,
    theorems_markdown,
)

__all__ = ["ALGOS", "COMBOS", "PAPER_TABLE1", "main", "parser", "run_config", "run_set",
           "set_tasks"]

#: program name in the help and error lines (the script's name, as before the move)
PROG = "reproduce_moldable.py"


def _slack(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 1.0 <= value <= 4.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"{value} must be in [1, 4] (BATCH-LIST's area_slack)")
    return value


def _batch_range(name: str) -> Callable[[str], float]:
    """argparse type of --batch-eps / --batch-eps2: a number in BATCH-LIST's range of `name`."""
    low, high = next((p.low, p.high) for p in batch_params() if p.name == name)

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not low <= value <= high:  # also refuses nan
            raise argparse.ArgumentTypeError(f"{value} must be in [{low:g}, {high:g}] "
                                             f"(BATCH-LIST's {name})")
        return value

    return parse


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


def _gamma_scale(text: str) -> float:
    """argparse type of --mix-gamma-scale: a number in (0, `MAX_GAMMA_SCALE`]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    try:
        return check_gamma_scale(value)
    except InvalidInstance:
        raise argparse.ArgumentTypeError(
            f"{text} must be in (0, {MAX_GAMMA_SCALE:g}]") from None


def _point_size(text: str) -> tuple[str, float, int, int]:
    """argparse type of --point-size: ``GRID=VALUE:SETSxSCENARIOS``, a point of a sweep grid."""
    try:
        point, size = text.split(":")
        name, value = point.split("=")
        sets, scenarios = (int(v) for v in size.lower().split("x"))
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not GRID=VALUE:SETSxSCENARIOS (e.g. lambda=1e-6:30x10)") from None
    if name not in SWEEPS:
        raise argparse.ArgumentTypeError(f"unknown grid {name!r} (choose from P,n,lambda)")
    grid = SWEEPS[name][0]
    if not any(abs(x - g) <= 1e-9 * abs(g) for g in grid):
        raise argparse.ArgumentTypeError(
            f"{value} is not a point of the {name} grid ({','.join(f'{g:g}' for g in grid)})")
    if not (1 <= sets <= 1000 and 1 <= scenarios <= 10_000):
        raise argparse.ArgumentTypeError(f"{size} must be in [1, 1000] x [1, 10000]")
    return name, x, sets, scenarios


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command-line options of the reproduction (every one with its default in the help)."""
    ap = ReproductionParser(prog=prog, description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=count(1000), default=30,
                    help="job sets per model for Table 1 and the figures, in [1, 1000] "
                         "(default %(default)s)")
    ap.add_argument("--scenarios", type=count(10_000), default=20,
                    help="failure scenarios per job set, in [1, 10000] (default %(default)s)")
    ap.add_argument("--seed", type=seed(32), default=2021,
                    help="root seed of the job sets and scenarios (default %(default)s)")
    ap.add_argument("--area-slack", type=_slack, default=1.1,
                    help="BATCH-LIST's area slack, in [1, 4] (default %(default)s; 1 = none)")
    ap.add_argument("--g1-exact", action="store_true",
                    help="BATCH: exact g=1 allotment (no DP, no slack) for the first batch "
                         "(default off)")
    ap.add_argument("--attempt-order", choices=ATTEMPT_ORDERS, default="desc_p",
                    help="BATCH: order of a job's allotted attempts in a batch; first_only "
                         "runs them all on the first allocation, as the authors' code "
                         "(default %(default)s)")
    ap.add_argument("--batch-eps", type=_batch_range("eps"), default=BATCH_EPS,
                    help="BATCH: MT-ALLOTMENT's accuracy eps (quantum eps X / g), in [0.05, 1] "
                         "(default %(default)s, the paper's)")
    ap.add_argument("--batch-eps2", type=_batch_range("eps2"), default=BATCH_EPS2,
                    help="BATCH: the bisection stops at Xmax / Xmin <= 1 + eps2, in "
                         "[0.001, 1] (default %(default)s, the paper's)")
    ap.add_argument("--mix-gamma-scale", type=_gamma_scale, default=1.0,
                    help="multiply the sequential fraction gamma of the mix and mix-low-com "
                         f"jobs by this factor (capped at 1), in (0, {MAX_GAMMA_SCALE:g}]; "
                         "the other models and the draws are unchanged (default %(default)s: "
                         "the paper's generator)")
    ap.add_argument("--theorems", action="store_true",
                    help="also show Theorems 1-10 and the lambda calibration by computation "
                         "(about a minute; default off)")
    ap.add_argument("--no-table", action="store_true",
                    help="skip Table 1 at the defaults (default: compute it)")
    ap.add_argument("--figures", action="store_true",
                    help="also run Figs. 3, 5 and 6: the 11 algorithm x priority combinations "
                         "at the defaults and at the four (P, n) combinations, with --sets "
                         "and --scenarios (default off)")
    ap.add_argument("--pn-sets", type=count(1000), default=None,
                    help="job sets per model at the four (P, n) combinations of Figs. 3-right "
                         "and 6 (default: --sets)")
    ap.add_argument("--pn-scenarios", type=count(10_000), default=None,
                    help="scenarios per job set at the four (P, n) combinations (default: "
                         "--scenarios)")
    ap.add_argument("--sweeps", action="store_true",
                    help="also run the P, n and lambda sweeps of Figs. 4, 7-9 (LPT) and the "
                         "four (P, n) combinations, then Table 1 over the entire set of "
                         "experiments (default off)")
    ap.add_argument("--sweep-sets", type=count(1000), default=30,
                    help="job sets per sweep point (default %(default)s)")
    ap.add_argument("--sweep-scenarios", type=count(10_000), default=20,
                    help="scenarios per job set in the sweeps (default %(default)s)")
    ap.add_argument("--point-size", type=_point_size, action="append", default=[],
                    metavar="GRID=VALUE:SETSxSCENARIOS",
                    help="sets x scenarios at one sweep point instead of --sweep-sets x "
                         "--sweep-scenarios, e.g. lambda=1e-6:30x10 (BATCH-LIST's DPs grow with "
                         "the failures); repeatable (default none)")
    ap.add_argument("--grids", type=_subset(("P", "n", "lambda")), default=("P", "n", "lambda"),
                    help="sweeps to run, a subset of P,n,lambda (default all)")
    ap.add_argument("--models", type=_subset(PAPER_MODELS), default=PAPER_MODELS,
                    help=f"speedup models, a subset of {','.join(PAPER_MODELS)} (default all)")
    ap.add_argument("--algos", type=_subset(tuple(ALGOS)), default=tuple(ALGOS),
                    help=f"algorithms, a subset of {','.join(ALGOS)} (default all)")
    ap.add_argument("--csv", type=Path, default=None,
                    help="also write every number to this CSV file (default: only "
                         "<out>/moldable.csv)")
    ap.add_argument("--no-plots", action="store_true",
                    help="do not draw the PNG figures (default: draw them; needs matplotlib)")
    ap.add_argument("--jobs", type=count(256), default=min(2, os.cpu_count() or 1),
                    help="worker processes, 1 runs inline (default %(default)s)")
    ap.add_argument("--out", type=Path, default=Path("results/moldable"),
                    help="output folder: CSV, summary.md, PNG, default store "
                         "(default %(default)s)")
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
        with ExperimentRunner(store_path, jobs=args.jobs, dask=args.dask,
                              fresh=list(CAMPAIGNS) if args.fresh else []) as runner:
            return _main(args, runner)

    return run_script(prog, args.dask, body)


def parse_args(argv: Sequence[str] | None, prog: str = PROG) -> argparse.Namespace:
    """The options `argv` (a bad one: one line on stderr, `SystemExit` 2)."""
    return parser(prog).parse_args(argv)


def _batch(args: argparse.Namespace) -> dict[str, Any]:
    """BATCH-LIST's options, as `set_tasks` takes them."""
    return {"area_slack": args.area_slack, "g1_exact": args.g1_exact,
            "attempt_order": args.attempt_order, "mix_gamma_scale": args.mix_gamma_scale,
            "eps": args.batch_eps, "eps2": args.batch_eps2}


def tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks of Table 1, the figures and the sweeps the options ask for, in the order the
    reproduction runs them (`experiments.request_tasks`)."""
    return request_tasks(_requests(args)[0], args.seed, _batch(args), args.models)


def theorem_tasks_of(args: argparse.Namespace) -> list[Task]:
    """The tasks of ``--theorems`` (`theorems.theorem_tasks`)."""
    return theorem_tasks(args.seed)


#: the experiments (`resilsched.campaign.experiment`): the tables and figures, the theorems
CAMPAIGNS = {e.name: e for e in (
    Experiment("moldable", "resilsched.reproduce.moldable:run_set",
               "moldable jobs: Table 1, Figs. 3-9 (spec 000 §5-§6)",
               plan="resilsched.reproduce.moldable:tasks_of",
               options="resilsched.reproduce.moldable:parse_args",
               arguments=("sets", "scenarios", "seed", "area_slack", "g1_exact",
                          "attempt_order", "batch_eps", "batch_eps2", "mix_gamma_scale",
                          "no_table", "figures", "pn_sets", "pn_scenarios", "sweeps",
                          "sweep_sets", "sweep_scenarios", "grids", "models", "algos")),
    Experiment("moldable-theorems", "resilsched.reproduce.moldable.theorems:run_check",
               "moldable jobs: Theorems 1-10 and the lambda calibration",
               plan="resilsched.reproduce.moldable:theorem_tasks_of",
               options="resilsched.reproduce.moldable:parse_args", arguments=("seed",)))}


def _requests(args: argparse.Namespace) -> tuple[list[Request], dict[Config, set[str]]]:
    """What the options ask for, and the experiments each configuration belongs to."""
    lpt = tuple((a, "LPT") for a in args.algos)
    combos = tuple(c for c in COMBOS if c[0] in args.algos)
    reqs: list[Request] = []
    tags: dict[Config, set[str]] = {}

    def add(configs, which, sets, scenarios, tag):
        reqs.append(Request(tuple(configs), which, sets, scenarios))
        for c in configs:
            tags.setdefault(c, set()).add(tag)

    if not args.no_table:
        add([DEFAULT], lpt, args.sets, args.scenarios, "table1")
    if args.figures:
        add([DEFAULT], combos, args.sets, args.scenarios, "fig5")
        add(PN, combos, args.pn_sets or args.sets, args.pn_scenarios or args.scenarios, "fig6")
    if args.sweeps:
        sizes = _point_sizes(args)
        for name in args.grids:
            plain = [c for c in SWEEPS[name][1] if c not in sizes]
            add(plain, lpt, args.sweep_sets, args.sweep_scenarios, f"sweep-{name}")
            for c in SWEEPS[name][1]:
                if c in sizes:
                    add([c], lpt, *sizes[c], f"sweep-{name}")
        if not args.figures:
            add(PN, lpt, args.sweep_sets, args.sweep_scenarios, "fig6")
    return reqs, tags


def _point_sizes(args: argparse.Namespace) -> dict[Config, tuple[int, int]]:
    """The sweep configurations given their own sets x scenarios by --point-size."""
    out = {}
    for name, x, sets, scenarios in args.point_size:
        xs, configs = SWEEPS[name]
        i = min(range(len(xs)), key=lambda k: abs(xs[k] - x))
        out[configs[i]] = (sets, scenarios)
    return out


def report(args: argparse.Namespace, res: Results) -> list[str]:
    """The printed tables (also written to ``<out>/summary.md``)."""
    batch = (f"BATCH: eps={args.batch_eps:g}, eps2={args.batch_eps2:g}, "
             f"area_slack={args.area_slack}, "
             f"attempt_order={args.attempt_order}, g1_exact={args.g1_exact}")
    if args.mix_gamma_scale != 1.0:
        batch += f"; mix models' gamma x {args.mix_gamma_scale:g} (capped at 1)"
    lines = [f"# Moldable reproduction (spec 000), seed {args.seed}; {batch}", ""]
    if not args.no_table:
        lines += table1(res, args.algos, [DEFAULT],
                        f"Table 1 at the defaults ({DEFAULT.label()}), {args.sets} sets x "
                        f"{args.scenarios} scenarios, LPT: expected / maximum T/L', computed "
                        "(paper)")
    if args.figures:
        size = f"{args.sets} sets x {args.scenarios} scenarios"
        lines += combos_table(res, [DEFAULT], f"Figs. 3 (left) and 5: the 11 combinations at "
                              f"the defaults, {size}: expected (maximum) T/L'")
        size = (f"{args.pn_sets or args.sets} sets x {args.pn_scenarios or args.scenarios} "
                "scenarios")
        lines += combos_table(res, list(PN), f"Figs. 3 (right) and 6: the four (P, n) "
                              f"combinations (lambda = {DEFAULT.lam:g}), {size}: expected "
                              "(maximum) T/L'")
    if args.sweeps:
        size = f"{args.sweep_sets} sets x {args.sweep_scenarios} scenarios"
        sizes = _point_sizes(args)
        if sizes:
            size += " (" + "; ".join(f"{c.label()}: {a} x {b}"
                                     for c, (a, b) in sorted(sizes.items())) + ")"
        for name in args.grids:
            lines += sweep_table(res, name, args.algos, f"Sweep over {name} (Fig. 4 for mix, "
                                 f"Figs. 7-9 for all models), {size}, LPT: expected (maximum) "
                                 "T/L'")
        configs = all_configs(args.grids)
        agg = aggregate(res, args.models[0], args.algos[0], configs)
        runs = f"{agg[3]} (set, scenario) runs per model and algorithm" if agg else "incomplete"
        lines += table1(res, args.algos, configs,
                        f"Table 1 over the entire set of experiments as the paper computes it: "
                        f"mean over the {len(configs)} configurations (defaults, the four (P, "
                        f"n) combinations, the sweeps over {', '.join(args.grids)}) of the "
                        f"expected values, maximum over all their runs ({runs}); LPT; "
                        "computed (paper)")
    return lines


def _main(args: argparse.Namespace, runner: ExperimentRunner) -> int:
    def run(tasks: Sequence[Task]) -> list[Any]:
        return runner.run(CAMPAIGNS["moldable"], tasks)

    t0 = time.perf_counter()
    reqs, tags = _requests(args)
    res = collect(reqs, args.seed, _batch(args), run, args.models) if reqs else {}
    lines = report(args, res)
    if args.theorems:
        tasks = theorem_tasks_of(args)
        done = runner.run(CAMPAIGNS["moldable-theorems"], tasks)
        lines += theorems_markdown(theorem_rows(tasks, done))
    print("\n".join(lines))
    print(f"# total {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    rows = csv_rows(res, tags)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary.md").write_text("\n".join(lines) + "\n")
        for path in (args.out / "moldable.csv", args.csv):
            if path is not None:
                _write_csv(path, rows)
    except OSError as exc:
        print(f"{args.prog}: error: cannot write {exc.filename}: {exc.strerror}",
              file=sys.stderr)
        return 2
    if not args.no_plots and (args.figures or args.sweeps):
        from resilsched.reproduce.moldable.plots import plots

        for path in plots(res, args.out, args.figures, args.grids if args.sweeps else ()):
            print(f"# wrote {path}", file=sys.stderr)
    return 0


def _write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    keys = list(rows[0]) if rows else ["model"]
    with open(path, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=keys)
        wr.writeheader()
        wr.writerows(rows)


if __name__ == "__main__":
    raise SystemExit(main())
