"""Reproduce the rigid-job experiments of Benoit et al. (spec 002 §8, §9): Figs. 4-8, Table 1
and the numerics of Proposition 3 (§4.4).

Scaled-down by default (10 synthetic sets x 20 scenarios, coarse grids) so that it runs in a few
minutes on 2 cores; ``--full`` uses the paper's sizes (30 sets x 1000 scenarios, q-bar in
{0, 0.1, ..., 0.9}, P in {5000, 6000, ..., 20000}, A7), which takes hours.

Metric (spec §8.3): normalised makespan T_ALG(f) / L(f) with L(f) = max(t_max(f), A(f)/P)
(`resilsched.bounds.rigid.lower_bound`), averaged over the scenarios of a job set, then over the
job sets. Scenarios are drawn once per (set, q-bar) and replayed for every heuristic, priority and
P (common random numbers). The Random priority uses one seed per (set, scenario) (A6).

- Fig. 4: R-SHELF-B/NB and R-SHELFFILL-B/NB with LPT, (a) vs q-bar at P = 10000, (b) vs P at
  q-bar = 0.3.
- Fig. 5: R-LIST-0/1/Q, R-SHELFFILL-B/NB x 7 priorities vs q-bar at P = 10000.
- Fig. 6: the same vs P at q-bar = 0.3.
- Table 1: the five heuristics with LPT on 30 Mira-like day-sets (or the days of an SWF log
  given with ``--swf``), q-bar in {0, 0.05, 0.1}; mean, std and max across the per-day means (A11).
  A (day, q-bar) whose calibrated q_j ask for more expected attempts than the sampler's cap is
  left out, one dominated by a single job's chain of attempts is flagged; one warning line.
- Figs. 7-8 (``--only fig78``): the same days with all seven priorities, per day.
- Prop. 3 (``--only prop3``): R-SHELF's expected makespan ratio at P = 10 (1.00005 and 1.07).
- ``--only fill-rule``: Fig. 4(b) (LPT, q-bar = 0.3, the P grid) with R-SHELFFILL-B/NB under
  both refill rules, ``fill=own`` (A17) and ``fill=any-queued`` (R32): the gain over R-SHELF
  at every P, its profile and the paper's 4.8-4.9 % (not run by default).
- ``--reservations fresh,fixed`` runs R-LIST-1/Q once per reservation mode (A3; ``fixed`` is the
  authors' simulator, issue 14), labelled ``R-LIST-1/fixed``; every claim is checked per mode,
  with a verdict that says "undetermined" when the runs are too few for the effect's noise.

Writes CSV, PNG and ``summary.md`` into ``--out`` (default ``results/rigid/``), prints the computed
numbers next to the paper's; progress goes to stderr. Simulations run as two campaigns
(`resilsched.campaign`), ``rigid-synthetic`` and ``rigid-table1``, stored in ``--store`` (default
``<out>/campaign.sqlite``): after an interruption (Ctrl-C, exit status 130), rerunning the same
command computes only the missing tasks and writes the same CSV files; ``--fresh`` starts over,
``--dask ADDRESS|local`` runs the tasks on Dask distributed.

    resilsched reproduce rigid                      # scaled-down, ~minutes
    resilsched reproduce rigid --full --jobs 8      # interrupt and rerun: it resumes
    resilsched reproduce rigid --only table1 --swf ANL-Intrepid-2009-1.swf --cores-per-node 4

``python scripts/reproduce_rigid.py`` (a thin wrapper of this package) takes the same options.

Modules: `config` (what to run, the paper's numbers), `tasks` (the campaign tasks),
`experiments` (Figs. 4-8 and Table 1, aggregation), `prop3` (§4.4), `claims` (the paper's claims
checked), `fillrule` (Fig. 4(b) under both refill rules), `report` (markdown tables), `plots`
(PNG); this one is the program: `run` and the command line.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from resilsched.campaign import Task, add_cli_options, run_script
from resilsched.commands.args import ReproductionParser
from resilsched.errors import InvalidInstance
from resilsched.instances.fields import MAX_PROCESSORS
from resilsched.instances.rigid.synthetic import PAPER_P_RANGE
from resilsched.reproduce.arguments import count, seed
from resilsched.reproduce.rigid.claims import (  # noqa: F401  (re-exported)
    best_priority,
    fig4_claims,
    fig5_claims,
    fig6_claims,
    fig78_claims,
    good_priority_claim,
    mode_view,
    prop3_claims,
    table1_claims,
)
from resilsched.reproduce.rigid.config import (  # noqa: F401  (re-exported)
    DEFAULT_EXPERIMENTS,
    EXPERIMENTS,
    FIVE,
    MIRA_QBARS,
    PAPER_BEST,
    PAPER_TABLE1,
    PRIORITIES7,
    PROG,
    PS_FULL,
    QBARS_FULL,
    RESERVATION_MODES,
    SHELVES4,
    SHORT,
    Config,
    log,
)
from resilsched.reproduce.rigid.experiments import (
    SYNTHETIC,
    agg_rows,
    synthetic,
    synthetic_plan,
    table1,
    table1_plan,
    write_csv,
)
from resilsched.reproduce.rigid.fillrule import fill_rule_claims
from resilsched.reproduce.rigid.prop3 import prop3_markdown, prop3_rows
from resilsched.reproduce.rigid.report import (
    claims_by_mode_markdown,
    fig78_markdown,
    synthetic_tables,
    table1_markdown,
    verdict_counts,
)
from resilsched.reproduce.rigid.tasks import (  # noqa: F401  (the experiments' task function)
    CAMPAIGNS,
    campaign_tasks,
    random_seed,
    run_task,
    run_tasks,
)


def _runner(cfg: Config) -> Callable[[str, Mapping[str, Any], list[dict[str, Any]], str],
                                     list[dict[str, Any]]]:
    """Run tasks as an experiment of `CAMPAIGNS`, whose task function is this package's
    `run_task` (by name: looked up at each call, so that tests can replace it)."""
    return functools.partial(run_tasks, cfg)


def synthetic_tasks(cfg: Config) -> list[Task]:
    """The tasks of ``rigid-synthetic`` for `cfg` (the spec form; none unless ``cfg.only`` asks
    for Figs. 4-6 or the fill rule)."""
    return campaign_tasks(synthetic_plan(cfg)["tasks"]) if set(SYNTHETIC) & set(cfg.only) \
        else []


def table1_tasks(cfg: Config) -> list[Task]:
    """The tasks of ``rigid-table1`` for `cfg` (the spec form; none unless ``cfg.only`` asks
    for Table 1 or Figs. 7-8)."""
    return campaign_tasks(table1_plan(cfg)["tasks"]) if {"table1", "fig78"} & set(cfg.only) \
        else []


def _claims(cfg: Config, res: dict[str, Any] | None, t1: dict[str, Any] | None,
            p3: list[dict[str, Any]] | None) -> dict[str, list]:
    """The claims of every experiment run, once per reservation mode of R-LIST-1/Q."""
    modes = list(cfg.reservations)
    by_mode: dict[str, list] = {m: [] for m in modes}
    for m in modes:
        out = by_mode[m]
        if res is not None:
            agg = mode_view(res["agg"], m)
            if "fig4" in cfg.only:
                out += fig4_claims(cfg, agg)
            if "fill-rule" in cfg.only:
                out += fill_rule_claims(cfg, res["agg"])
            if "fig5" in cfg.only:
                out += fig5_claims(cfg, agg)[0]
            if "fig6" in cfg.only:
                out += fig6_claims(cfg, agg)[0]
            if {"fig5", "fig6"} & set(cfg.only):
                out.append(good_priority_claim(cfg, agg))
        if t1 is not None:
            agg = mode_view(t1["agg"], m)
            out += table1_claims(t1, agg)
            if "fig78" in cfg.only:
                out += fig78_claims(t1, agg)
        if p3 is not None:
            out += prop3_claims(p3)
    return by_mode


def command_of(cfg: Config) -> str:
    """The command line of `cfg`'s sizes, grids and seeds (``--only`` left out)."""
    parts = ["resilsched reproduce rigid", f"--sets {cfg.sets}", f"--scenarios {cfg.scenarios}",
             f"--qbars {','.join(map(str, cfg.qbars))}", f"--Ps {','.join(map(str, cfg.Ps))}",
             f"--mira-days {cfg.mira_days}", f"--mira-scenarios {cfg.mira_scenarios}",
             f"--reservations {','.join(cfg.reservations)}"]
    if cfg.seed != Config.seed:
        parts.append(f"--seed {cfg.seed}")
    if cfg.mira_seed != Config.mira_seed:
        parts.append(f"--mira-seed {cfg.mira_seed}")
    if cfg.swf:
        parts.append(f"--swf {cfg.swf} --cores-per-node {cfg.cores_per_node}")
    return " ".join(parts)


def run(cfg: Config) -> dict[str, Any]:
    """Run the requested experiments, write the outputs, return everything computed."""
    cfg.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    result: dict[str, Any] = {}
    sections = [f"# Rigid jobs (spec 002): scaled-down reproduction\n\nsets={cfg.sets}, "
                f"scenarios={cfg.scenarios}, q-bar grid={list(cfg.qbars)}, P grid="
                f"{list(cfg.Ps)}, Mira days={cfg.mira_days} x {cfg.mira_scenarios} scenarios, "
                f"reservations of R-LIST-1/Q: {', '.join(cfg.reservations)}, seed={cfg.seed}"]
    res = None
    if set(SYNTHETIC) & set(cfg.only):
        res = synthetic(cfg, _runner(cfg))
        result["synthetic"] = res
        write_csv(cfg.out / "synthetic_per_set.csv", res["rows"])
        write_csv(cfg.out / "synthetic.csv",
                  agg_rows(res["agg"], ("heuristic", "priority", "qbar", "P")))
        best5 = fig5_claims(cfg, mode_view(res["agg"], cfg.reservations[0]))[1] \
            if "fig5" in cfg.only else {}
        sections.append(synthetic_tables(cfg, res, best5))
        sections.append("Expected failures per synthetic set: " + ", ".join(
            f"q-bar {q}: {v:.1f}" for q, v in res["expected_failures"].items()))
    t1 = None
    if {"table1", "fig78"} & set(cfg.only):
        t1 = table1(cfg, _runner(cfg))
        result["table1"] = t1
        write_csv(cfg.out / "table1_per_day.csv", t1["rows"])
        write_csv(cfg.out / "table1.csv", agg_rows(t1["agg"], ("heuristic", "priority", "qbar")))
        sections.append(table1_markdown(t1))
        if "fig78" in cfg.only:
            sections.append(fig78_markdown(t1))
    p3 = None
    if "prop3" in cfg.only:
        p3 = prop3_rows(samples=cfg.prop3_samples, seed=cfg.seed)
        result["prop3"] = p3
        write_csv(cfg.out / "prop3.csv", p3)
        sections.append(prop3_markdown(p3))
    by_mode = _claims(cfg, res, t1, p3)
    result["claims_by_mode"] = by_mode
    result["claims"] = by_mode[cfg.reservations[0]]
    sections.append("Claims (spec §9); \"undetermined\" when the decision lies within two "
                    "standard errors (± is two standard errors across sets); verdicts: "
                    f"{verdict_counts(by_mode)}\n\n"
                    + claims_by_mode_markdown(by_mode, command_of(cfg)))
    if cfg.plots:
        from resilsched.reproduce.rigid.plots import plots

        result["plots"] = plots(cfg, res, t1)
    elapsed = time.perf_counter() - t0
    sections.append(f"Re-rendered from the CSV files in {cfg.reuse}." if cfg.reuse else
                    f"Wall time {elapsed:.0f} s with "
                    + (f"Dask ({cfg.dask})." if cfg.dask else f"{cfg.jobs} worker(s).")
                    + f" Results stored in {cfg.store_path}.")
    text = "\n\n".join(sections) + "\n"
    (cfg.out / "summary.md").write_text(text)
    result["summary"] = text
    result["elapsed"] = elapsed
    return result


# -- command line ---------------------------------------------------------------------------------

def _grid(text: str, parse: Callable[[str], Any], check: Callable[[Any], str | None]) -> tuple:
    """A comma-separated, non-empty list of distinct values, each passing `check`."""
    items = [x.strip() for x in text.split(",")]
    if not text.strip() or any(not x for x in items):
        raise argparse.ArgumentTypeError(f"{text!r} must be a comma-separated list of values")
    values = []
    for x in items:
        try:
            v = parse(x)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{x!r} is not a number") from None
        problem = check(v)
        if problem:
            raise argparse.ArgumentTypeError(f"{x} {problem}")
        if v in values:
            raise argparse.ArgumentTypeError(f"{x} is given twice")
        values.append(v)
    return tuple(values)


def _qbars(text: str) -> tuple[float, ...]:
    return _grid(text, float, lambda q: None if math.isfinite(q) and 0 <= q < 1
                 else "must be in [0, 1)")


def _platforms(text: str) -> tuple[int, ...]:
    widest = PAPER_P_RANGE[1]
    return _grid(text, int, lambda P: None if P >= widest else
                 f"must be >= {widest} (the widest synthetic job)")


def _modes(text: str) -> tuple[str, ...]:
    return _grid(text, str, lambda m: None if m in RESERVATION_MODES else
                 f"is not a reservation mode ({', '.join(RESERVATION_MODES)})")


def _file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"{text}: no such file")
    return text


def _folder(text: str) -> Path:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no such directory")
    return Path(text)


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The options of the reproduction, each with its default in its help."""
    d = Config()
    ap = ReproductionParser(prog=prog, description=__doc__.split("\n\n")[0],
                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=count(1000), default=None,
                    help=f"synthetic job sets (default {d.sets}; 30 with --full)")
    ap.add_argument("--scenarios", type=count(100_000), default=None,
                    help=f"failure scenarios per set and q-bar (default {d.scenarios}; 1000 "
                         "with --full)")
    ap.add_argument("--qbars", type=_qbars, default=None,
                    help="comma-separated q-bar grid, values in [0, 1) (default "
                         f"{','.join(map(str, d.qbars))}; 0,0.1,...,0.9 with --full)")
    ap.add_argument("--Ps", type=_platforms, default=None,
                    help=f"comma-separated P grid, values >= {PAPER_P_RANGE[1]} (default "
                         f"{','.join(map(str, d.Ps))}; 5000,6000,...,20000 with --full)")
    ap.add_argument("--full", action="store_true",
                    help="paper sizes: 30 sets, 1000 scenarios, full grids (about an hour of CPU "
                         "with both reservation modes and the compiled core, see "
                         "docs/performance.md; resumable; default off)")
    ap.add_argument("--seed", type=seed(63), default=d.seed,
                    help=f"seed of the synthetic sets and of every scenario (default {d.seed})")
    ap.add_argument("--mira-days", type=count(3650), default=d.mira_days,
                    help=f"Table 1: days of the Mira-like stand-in or of --swf "
                         f"(default {d.mira_days})")
    ap.add_argument("--mira-scenarios", type=count(100_000), default=None,
                    help=f"scenarios per Mira day and q-bar (default {d.mira_scenarios}; 1000 "
                         "with --full)")
    ap.add_argument("--mira-seed", type=seed(63), default=d.mira_seed,
                    help=f"seed of the Mira-like days (default {d.mira_seed})")
    ap.add_argument("--swf", type=_file, default=None,
                    help="SWF log for Table 1 instead of the Mira-like stand-in (default none)")
    ap.add_argument("--cores-per-node", type=count(1_000_000), default=None,
                    help=f"--swf: cores per node, to convert cores into nodes "
                         f"(default {d.cores_per_node})")
    ap.add_argument("--swf-P", type=count(MAX_PROCESSORS), default=None,
                    help="--swf: platform size override (default: from the log's header)")
    ap.add_argument("--only", type=str, default=",".join(DEFAULT_EXPERIMENTS),
                    help=f"subset of {','.join(EXPERIMENTS)}; fig78 runs all seven priorities "
                         f"on the Mira days (default {','.join(DEFAULT_EXPERIMENTS)})")
    ap.add_argument("--reservations", type=_modes, default=d.reservations,
                    help="comma-separated reservation modes of R-LIST-1/Q to run side by side, "
                         f"from {','.join(RESERVATION_MODES)}; fixed is the authors' simulator "
                         f"(default {','.join(d.reservations)})")
    ap.add_argument("--prop3-samples", type=count(10_000_000), default=d.prop3_samples,
                    help="Monte Carlo scenarios of the per-scenario mean ratio of Proposition 3 "
                         f"(default {d.prop3_samples})")
    ap.add_argument("--jobs", type=count(256), default=min(2, os.cpu_count() or 1),
                    help="worker processes, 1 runs inline (default 2)")
    ap.add_argument("--out", type=Path, default=d.out,
                    help=f"output folder for CSV, PNG and summary.md (default {d.out})")
    ap.add_argument("--no-plots", action="store_true",
                    help="no PNG files, no matplotlib (default: plots on)")
    ap.add_argument("--reuse", type=_folder, default=None,
                    help="re-render tables, claims and plots from the per-set CSV files of a "
                         "previous run in this directory (same configuration), no simulation "
                         "(default off)")
    add_cli_options(ap, "<out>/campaign.sqlite")
    defaults = {"fresh": "default off", "dask": "default: local processes, see --jobs"}
    for action in ap._actions:  # the shared campaign options, with their defaults too
        if action.dest in defaults:
            action.help = f"{action.help} ({defaults[action.dest]})"
    return ap


def parse_args(argv: Sequence[str] | None = None, prog: str = PROG) -> Config:
    """The `Config` of the command line `argv`; bad options exit with status 2 (one line)."""
    ap = build_parser(prog)
    a = ap.parse_args(argv)
    only = tuple(x.strip() for x in a.only.split(",") if x.strip())
    bad = set(only) - set(EXPERIMENTS)
    if bad or not only:
        ap.error(f"--only: unknown {sorted(bad)}" if bad else "--only: nothing to run")
    if a.swf is None and (a.cores_per_node is not None or a.swf_P is not None):
        ap.error("--cores-per-node and --swf-P apply only with --swf")
    cores = Config().cores_per_node if a.cores_per_node is None else a.cores_per_node
    cfg = Config(seed=a.seed, mira_days=a.mira_days, mira_seed=a.mira_seed, swf=a.swf,
                 cores_per_node=cores, swf_P=a.swf_P, only=only,
                 reservations=a.reservations, prop3_samples=a.prop3_samples, jobs=a.jobs,
                 out=a.out, plots=not a.no_plots, reuse=a.reuse, store=a.store, fresh=a.fresh,
                 dask=a.dask)
    if a.full:
        cfg.sets, cfg.scenarios, cfg.mira_scenarios = 30, 1000, 1000
        cfg.qbars, cfg.Ps = QBARS_FULL, PS_FULL
    if a.sets is not None:
        cfg.sets = a.sets
    if a.scenarios is not None:
        cfg.scenarios = a.scenarios
    if a.mira_scenarios is not None:
        cfg.mira_scenarios = a.mira_scenarios
    if a.qbars is not None:
        cfg.qbars = a.qbars
    if a.Ps is not None:
        cfg.Ps = a.Ps
    if "fig5" in only and 0.0 not in cfg.qbars:
        ap.error("--qbars must contain 0 (Fig. 5 rises are measured from q-bar = 0)")
    if {"fig4", "fig6", "fill-rule"} & set(only) and cfg.P_default not in cfg.Ps:
        ap.error(f"--Ps must contain {cfg.P_default}")
    return cfg


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line options `argv`; exit status 0, 2 or 130.

    `prog` names the program in the help and in error lines (``resilsched reproduce rigid``
    when run from the CLI).
    """
    cfg = parse_args(argv, prog)

    def body() -> int:
        try:
            result = run(cfg)
        except (InvalidInstance, FileNotFoundError) as e:  # an unusable SWF log, --reuse CSV
            print(f"{prog}: error: {e}", file=sys.stderr, flush=True)
            return 2
        print(result["summary"])
        for p in result.get("plots", []):
            log(f"wrote {p}")
        log(f"wrote {cfg.out / 'summary.md'} and CSV files in {result['elapsed']:.0f} s")
        return 0

    return run_script(prog, cfg.dask, body)


if __name__ == "__main__":
    sys.exit(main())
