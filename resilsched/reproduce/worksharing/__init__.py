"""Reproduce the worksharing paper's numbers (spec 003 §4): Tables 1, 3 and 4, E1-E6, synthetic
traces.

Usage::

    resilsched reproduce worksharing table4
    resilsched reproduce worksharing table3           (Tables 1 and 3)
    resilsched reproduce worksharing props            (Prop. 1, Prop. 2, the K forms)
    resilsched reproduce worksharing e5 [--trials 1000] [--p 5 10 25 50 100] [--no-rep-rule R]
    resilsched reproduce worksharing norep-rules [--trials 1000] [--p ...]
    resilsched reproduce worksharing e1|e2|e3|e4|e6 [--trials 1000]
    resilsched reproduce worksharing traces [--trials 100] [--p 5 10]
    resilsched reproduce worksharing all

The experiments are `experiments` (simulation of one configuration, the registered heuristics
looked up by name in the family's registry) and `table4` (the chart comparison); this module is
the program around them.

``python3 scripts/reproduce_worksharing.py`` (a thin wrapper of this module) takes the same
arguments.

Outputs go to ``--out`` (default ``worksharing_results/``): one CSV per experiment (one row
per configuration and heuristic: mean ratio to the omniscient reference, stdev, expected work,
chunk counts) and a printed summary beside the paper's numbers. The per-configuration claims
of §6.2 (greedy never outperformed, greedy and cyclic-rep always above no-rep) are checked
configuration by configuration (`claims`, ``<experiment>_per_config.csv``). The traces are
*synthetic stand-ins* (spec §4.3): their numbers are not comparable to Table 5.

Every configuration is one task of the campaign ``worksharing-<experiment>``
(`resilsched.campaign`), stored in ``--store`` (default ``<out>/campaign.sqlite``) with its
per-trial ratios: after an interruption (Ctrl-C, exit status 130) the same command resumes and
writes the same CSV files and summary. ``--fresh`` starts over, ``--jobs`` sets the worker
processes, ``--dask ADDRESS|local`` runs on Dask distributed.
"""

from __future__ import annotations

import argparse
import base64
import csv
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.campaign import Task, add_cli_options, run_script
from resilsched.campaign.experiment import Experiment, ExperimentRunner
from resilsched.commands.args import ReproductionParser
from resilsched.heuristics.worksharing.schedules import NO_REP_RULES
from resilsched.instances.worksharing.generators import (
    E_EPS,
    E_N,
    E_P,
    TRACES,
    e5_configs,
    e6_configs,
    synthetic_trace,
    write_trace_csvs,
)
from resilsched.reproduce.arguments import count
from resilsched.reproduce.worksharing.claims import ConfigRatios, best_average_reach, check_lines
from resilsched.reproduce.worksharing.experiments import (
    E5_HEURISTICS,
    best_fraction_curve,
    heuristics_named,
    run_config,
)
from resilsched.reproduce.worksharing.props import kforms_lines, prop1_lines, prop2_lines
from resilsched.reproduce.worksharing.table3 import table1_lines, table3_lines
from resilsched.reproduce.worksharing.table4 import table4_statistics
from resilsched.reproduce.worksharing.table4_exact import (
    table4_exact_statistics,
    write_table4_exact,
)

#: program name in the help and error lines (the script's name, as before the move)
PROG = "reproduce_worksharing.py"
PAPER_T4 = {  # rel min/max/avg/std, abs min/max/avg/std, success
    "cyclic": (1.1, 3.786, 2.143, 0.664, 1.1, 3.786, 2.239, 0.592, 0.00),
    "reverse": (1, 1.295, 1.055, 0.065, 1, 1.295, 1.117, 0.061, 12.42),
    "mirror": (1, 2.468, 1.504, 0.393, 1, 2.468, 1.575, 0.338, 12.37),
    "snake": (1, 1.199, 1.127, 0.059, 1, 1.291, 1.193, 0.059, 12.34),
    "fat-snake": (1, 1.442, 1.123, 0.115, 1, 1.530, 1.192, 0.143, 17.07),
    "greedy": (1, 1.055, 1.005, 0.015, 1, 1.224, 1.067, 0.074, 83.01),
    "best-of": (1, 1, 1, 0, 1, 1.224, 1.061, 0.069, 100.00),
}
PAPER_E5 = {"greedy": 0.852, "no-rep": 0.796}
#: E5's "greedy is almost optimal (> 99.5 %) in more than 21 % of the instances", and the
#: share of the no-rep gap greedy closes
PAPER_E5_ABOVE, PAPER_E5_GAP = 21.0, 27.4
PAPER_T5 = {"brute": 0.217, "no-rep": 0.536, "cyclic-rep": 0.565, "greedy": 0.708}

#: runs a list of tasks, returns their results in order (inline, or a campaign)
Runner = Callable[[Sequence[Task]], list[Any]]


def pack(x: np.ndarray) -> str:
    """float64 array -> base64 text (exact, ~2x smaller than JSON numbers)."""
    return base64.b64encode(np.ascontiguousarray(x, dtype="<f8").tobytes()).decode("ascii")


def unpack(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f8").copy()


def config_task(payload: dict[str, Any]) -> dict[str, Any]:
    """One configuration (a campaign task): per heuristic the packed ratios, expected work and
    chunk counts. Every draw is seeded from the payload (`run_config`'s ``config_seed``)."""
    risk = None if payload["trace"] is None else synthetic_trace(payload["trace"])
    r = run_config(payload["p"], payload["W"], payload["eps"],
                   heuristics_named(payload["heuristics"]),
                   payload["n"], payload["trials"], seed=payload["seed"], risk=risk,
                   trace_id=payload["trace"] or 0,
                   chunk_search=payload.get("chunk_search", "grid"),
                   no_rep_rule=payload.get("no_rep_rule", "grid"))
    return {h: {"ratios": pack(r.ratios[h]), "expected": float(r.expected[h]),
                "chunks": [int(c) for c in r.chunks[h]]} for h in payload["heuristics"]}


def inline(tasks: Sequence[Task]) -> list[Any]:
    return [config_task(t.payload) for t in tasks]


#: the options of each experiment that runs simulations (its spec form's arguments)
_ARGUMENTS = {**{w: ("trials",) for w in ("e1", "e2", "e3", "e4", "e6")},
              "e5": ("trials", "p", "chunk_search", "no_rep_rule"),
              "norep-rules": ("trials", "p"), "traces": ("trials", "p")}
#: those experiments, each a campaign ``worksharing-<experiment>`` of configurations
#: (`config_task`, by name; the tasks of `experiment_tasks`)
CAMPAIGNS = {f"worksharing-{w}": Experiment(
    f"worksharing-{w}", "resilsched.reproduce.worksharing:config_task", f"worksharing: {w}",
    plan="resilsched.reproduce.worksharing:experiment_tasks",
    options="resilsched.reproduce.worksharing:parse_args", arguments=arguments, fixed=(w,),
    spread=("p",)) for w, arguments in _ARGUMENTS.items()}


def campaign_runner(runner: ExperimentRunner, experiment: str) -> Runner:
    """Runs tasks as the experiment ``worksharing-<experiment>`` (resumable)."""
    def run(tasks: Sequence[Task]) -> list[Any]:
        return runner.run(CAMPAIGNS[f"worksharing-{experiment}"], tasks, label=experiment)
    return run


def run_table4(out: Path) -> None:
    t0 = time.perf_counter()
    stats = table4_statistics()
    dt = time.perf_counter() - t0
    keys = ["rel_min", "rel_max", "rel_avg", "rel_std", "abs_min", "abs_max", "abs_avg",
            "abs_std", "success"]
    with open(out / "table4.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["chart", *keys, *[f"paper_{k}" for k in keys]])
        for name, s in stats.items():
            w.writerow([name, *[round(s[k], 4) for k in keys], *PAPER_T4[name]])
    print(f"Table 4 ({stats['greedy']['count']} instances, {dt:.2f} s)")
    print(f"{'chart':10s} " + " ".join(f"{k:>8s}" for k in keys))
    for name, s in stats.items():
        print(f"{name:10s} " + " ".join(f"{s[k]:8.3f}" if k != "success" else f"{s[k]:8.2f}"
                                        for k in keys))
        print(f"{'  paper':10s} " + " ".join(f"{v:8.3f}" if i < 8 else f"{v:8.2f}"
                                             for i, v in enumerate(PAPER_T4[name])))
    print("\n".join(write_table4_exact(out / "table4_exact.csv", table4_exact_statistics())))


def sweep_tasks(configs, trials: int, heuristics, n=None, trace=None, chunk_search: str = "grid",
                no_rep_rule: str = "grid") -> list[Task]:
    """One task per configuration (p, W, eps[, n]) of a sweep.

    The task fields hold ``chunk_search`` and ``no_rep_rule`` only when they are not the default
    ``grid`` (so the results stored before the options existed stay valid)."""
    tasks = []
    for cfg in configs:
        p, W, eps = cfg[:3]
        nn = cfg[3] if len(cfg) > 3 else n
        fields = {"p": p, "W": W, "eps": eps, "n": nn, "heuristics": list(heuristics),
                  "trials": trials, "seed": 0, "trace": trace}
        if chunk_search != "grid":
            fields["chunk_search"] = chunk_search
        if no_rep_rule != "grid":
            fields["no_rep_rule"] = no_rep_rule
        tasks.append(Task(fields, fields))
    return tasks


def _sweep(name: str, configs, out: Path, trials: int, heuristics, n=None, trace=None,
           run: Runner = inline, chunk_search: str = "grid",
           no_rep_rule: str = "grid") -> list[ConfigRatios]:
    """Run configurations; CSV rows per (config, heuristic); returns each configuration's
    per-trial ratios.

    The tasks are `sweep_tasks`."""
    tasks = sweep_tasks(configs, trials, heuristics, n, trace, chunk_search, no_rep_rule)
    results = run(tasks)
    rows: list[ConfigRatios] = []
    with open(out / f"{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["p", "W", "eps", "n", "heuristic", "mean_ratio", "std_ratio", "expected_work",
                    "chunks"])
        for t, res in zip(tasks, results, strict=True):
            c = t.fields
            ratios = {h: unpack(res[h]["ratios"]) for h in heuristics}
            rows.append(ConfigRatios(c["p"], c["W"], c["eps"], c["n"], ratios))
            for h in heuristics:
                w.writerow([c["p"], c["W"], c["eps"], c["n"] if c["n"] is not None else "auto",
                            h, f"{ratios[h].mean():.6f}", f"{ratios[h].std():.6f}",
                            f"{res[h]['expected']:.6f}", ";".join(map(str, res[h]["chunks"][:4]))])
    return rows


def pooled(rows: Sequence[ConfigRatios]) -> dict[str, np.ndarray]:
    """Every configuration's ratios of each heuristic, concatenated (the paper's instances)."""
    return {h: np.concatenate([r.ratios[h] for r in rows]) for h in rows[0].ratios}


def _e5_stem(chunk_search: str, no_rep_rule: str) -> str:
    stem = "e5" if chunk_search == "grid" else f"e5_{chunk_search}"
    return stem if no_rep_rule == "grid" else f"{stem}_norep-{no_rep_rule}"


def gap_closed(greedy: float, no_rep: float) -> float:
    """Percent of no-rep's gap to the omniscient reference that greedy closes."""
    return 100 * (greedy - no_rep) / (1 - no_rep)


def e5_reach_lines(g: np.ndarray, level: float = 0.995) -> list[str]:
    """E5's "> 99.5 % in more than 21 % of the instances" under both readings."""
    reach = best_average_reach(g, level)
    share = 100 * float(np.mean(g > level))
    verdict = "reproduced" if reach > PAPER_E5_ABOVE else "differs"
    return [f"  greedy > {level} on {share:.1f} % of instances, per instance "
            f"(paper > {PAPER_E5_ABOVE:g} %: differs by {share - PAPER_E5_ABOVE:+.1f} points)",
            f"  Fig. 5's reading, the average over the best x % of instances >= {level}: up to "
            f"x = {reach:.1f} % of {g.size} instances (paper > {PAPER_E5_ABOVE:g} %: {verdict} "
            "under this reading)"]


def run_e5(out: Path, trials: int, ps, run: Runner = inline,
           chunk_search: str = "grid", no_rep_rule: str = "grid") -> dict:
    """E5 (§4.2): automatic chunk counts; greedy's by `chunk_search` (``grid``: maximise the
    exact expected work, §6 Q9; ``binary``: the paper's binary search, §5.2.3), no-rep's by
    `no_rep_rule` (`NO_REP_RULES`), written to ``e5.csv`` (``e5_binary.csv``,
    ``e5_norep-<rule>.csv``)."""
    configs = _e5_configs(ps)
    t0 = time.perf_counter()
    stem = _e5_stem(chunk_search, no_rep_rule)
    rows = _sweep(stem, configs, out, trials, E5_HEURISTICS, run=run, chunk_search=chunk_search,
                  no_rep_rule=no_rep_rule)
    r = pooled(rows)
    dt = time.perf_counter() - t0
    print(f"E5 (greedy's chunk counts: {chunk_search} search; no-rep's: {no_rep_rule}): "
          f"{len(configs)} configurations x {trials} trials = {len(configs) * trials} instances "
          f"in {dt:.1f} s")
    for h, v in r.items():
        paper = PAPER_E5.get(h)
        print(f"  {h:11s} mean {v.mean():.4f}  std {v.std():.4f}"
              + (f"   (paper {paper:.3f}, gap {100 * (v.mean() - paper):+.2f} points)"
                 if paper else ""))
    g = r["greedy"]
    print("\n".join(e5_reach_lines(g)))
    closed = gap_closed(g.mean(), r["no-rep"].mean())
    print(f"  greedy closes {closed:.1f} % of the no-rep gap (paper {PAPER_E5_GAP} %, gap "
          f"{closed - PAPER_E5_GAP:+.1f} points)")
    print("\n".join(check_lines("e5", rows, out, stem)))
    curves = {h: best_fraction_curve(v) for h, v in r.items()}
    with open(out / f"{stem}_fig5.csv", "w", newline="") as f:
        w = csv.writer(f)
        xs = list(next(iter(curves.values())))
        w.writerow(["heuristic", *[f"best_{x}%" for x in xs]])
        for h, c in curves.items():
            w.writerow([h, *[f"{c[x]:.4f}" for x in xs]])
    return {"seconds": dt, "means": {h: float(v.mean()) for h, v in r.items()},
            "greedy_above_995": float(np.mean(g > 0.995)),
            "greedy_best_average_reach": best_average_reach(g)}


def run_norep_rules(out: Path, trials: int, ps, run: Runner = inline) -> dict[str, float]:
    """Issue 27 §2: no-rep's mean and the gap greedy closes under every chunk-count rule of
    no-rep (`NO_REP_RULES`) on E5's configurations; the rule nearest both printed numbers."""
    configs = _e5_configs(ps)
    greedy = pooled(_sweep("norep_rules_greedy", configs, out, trials, ("greedy",),
                           run=run))["greedy"].mean()
    print(f"no-rep's chunk-count rule on E5 ({len(configs)} configurations x {trials} trials; "
          f"greedy mean {greedy:.4f}, paper {PAPER_E5['greedy']}):")
    print(f"  {'rule':11s} {'no-rep mean':>11s} {'gap':>7s}  {'greedy closes':>13s} {'gap':>6s}")
    means = {}
    for rule in NO_REP_RULES:
        nr = pooled(_sweep(f"norep_rules_{rule}", configs, out, trials, ("no-rep",), run=run,
                           no_rep_rule=rule))["no-rep"].mean()
        means[rule] = float(nr)
        closed = gap_closed(greedy, nr)
        print(f"  {rule:11s} {100 * nr:11.2f} {100 * (nr - PAPER_E5['no-rep']):+7.2f}  "
              f"{closed:12.1f} % {closed - PAPER_E5_GAP:+6.1f}")
    best = min(means, key=lambda k: abs(means[k] - PAPER_E5["no-rep"]))
    print(f"  paper: no-rep {100 * PAPER_E5['no-rep']:.1f}, greedy closes {PAPER_E5_GAP} %; "
          f"nearest rule: {best} (--no-rep-rule {best}, --param chunk_rule={best})")
    return means


#: the heuristics of E1-E4, E6 and the traces
FIXED_HEURISTICS = ("greedy", "brute", "no-rep", "cyclic-rep", "random-rep")
E6_HEURISTICS = ("greedy", "no-rep", "cyclic-rep")
TRACE_HEURISTICS = ("greedy", "brute", "no-rep", "cyclic-rep")


def _e5_configs(ps) -> list[tuple]:
    """E5's configurations with p in `ps`."""
    return [c for c in e5_configs() if c[0] in ps]


def fixed_configs(name: str) -> list[tuple]:
    """The configurations (p, W, eps, n) of E1-E4 (fixed chunk counts n)."""
    if name == "e1":
        return [(25, float(W), 0.001, 147) for W in range(1, 26)]
    if name == "e2":
        return [(p, 0.3 * p, 0.001, 147) for p in E_P]
    if name == "e3":
        ns = sorted({int(x) for x in np.geomspace(1, 500, 20)} | set(E_N))
        return [(25, 7.5, eps, n) for eps in (0.01, 0.001, 0.0001) for n in ns]
    return [(25, 7.5, float(eps), 147) for eps in np.geomspace(1e-4, 1, 13)]  # e4


def trace_configs(ps) -> list[tuple]:
    """The configurations (p, W, eps) of each trace."""
    return [(p, float(W), eps) for p in ps for W in range(1, p + 1) for eps in E_EPS]


def run_fixed(name: str, out: Path, trials: int, run: Runner = inline) -> None:
    configs = fixed_configs(name)
    rows = _sweep(name, configs, out, trials, FIXED_HEURISTICS, run=run)
    print(f"{name.upper()}: {len(configs)} configurations; overall mean ratios: "
          + ", ".join(f"{h} {v.mean():.3f}" for h, v in pooled(rows).items()))
    print("\n".join(check_lines(name, rows, out)))


def run_e6(out: Path, trials: int, run: Runner = inline) -> None:
    rows = _sweep("e6", e6_configs(), out, trials, E6_HEURISTICS, run=run)
    print(f"E6: {len(rows)} configurations; overall mean ratios: "
          + ", ".join(f"{h} {v.mean():.3f}" for h, v in pooled(rows).items()))
    print("\n".join(check_lines("e6", rows, out)))


def run_traces(out: Path, trials: int, ps, run: Runner = inline) -> None:
    write_trace_csvs(out / "traces")
    heur = TRACE_HEURISTICS
    print("Traces (SYNTHETIC stand-ins, spec §4.3; not comparable to Table 5):")
    allr: dict[str, list[np.ndarray]] = {h: [] for h in heur}
    for tid, (tname, *_rest) in TRACES.items():
        r = pooled(_sweep(f"trace{tid}_{tname}", trace_configs(ps), out, trials, heur,
                          trace=tid, run=run))
        for h in heur:
            allr[h].append(r[h])
        print(f"  trace {tid} {tname:9s}: " + ", ".join(f"{h} {v.mean():.3f}"
                                                       for h, v in r.items()))
    for h in heur:
        v = np.concatenate(allr[h])
        print(f"  all traces {h:10s} mean {v.mean():.3f} std {v.std():.3f} "
              f"(paper Table 5: {PAPER_T5[h]:.3f})")


def _trials(a: argparse.Namespace, w: str) -> int:
    """Simulated draws per configuration of experiment `w` (``--trials``)."""
    return a.trials or (100 if w == "traces" else 1000)


def _ps(a: argparse.Namespace, w: str) -> Sequence[int]:
    """Worker counts of experiment `w` (``--p``)."""
    return a.p or ((5, 10) if w == "traces" else E_P)


def experiment_tasks(a: argparse.Namespace) -> list[Task]:
    """Every task of the experiment ``a.what``: the sweeps its ``run_<what>`` runs, in order
    (the spec form, `CAMPAIGNS`)."""
    w, trials, ps = a.what, _trials(a, a.what), _ps(a, a.what)
    if w in ("e1", "e2", "e3", "e4"):
        return sweep_tasks(fixed_configs(w), trials, FIXED_HEURISTICS)
    if w == "e6":
        return sweep_tasks(e6_configs(), trials, E6_HEURISTICS)
    if w == "e5":
        return sweep_tasks(_e5_configs(ps), trials, E5_HEURISTICS, chunk_search=a.chunk_search,
                           no_rep_rule=a.no_rep_rule)
    if w == "norep-rules":
        configs = _e5_configs(ps)
        return sweep_tasks(configs, trials, ("greedy",)) + [
            t for rule in NO_REP_RULES
            for t in sweep_tasks(configs, trials, ("no-rep",), no_rep_rule=rule)]
    if w == "traces":
        return [t for tid in TRACES
                for t in sweep_tasks(trace_configs(ps), trials, TRACE_HEURISTICS, trace=tid)]
    return []  # table3, table4, props: no simulation


def run_table3() -> None:
    print("\n".join(table3_lines() + table1_lines()))


def run_props() -> None:
    print("\n".join(prop1_lines() + prop2_lines() + kforms_lines()))


EXPERIMENTS = ("table3", "table4", "props", "e1", "e2", "e3", "e4", "e5", "e6", "traces",
               "norep-rules")
#: most simulated draws per configuration (the paper uses 1000; memory grows as trials x p)
MAX_TRIALS = 100_000


def _parser(prog: str) -> argparse.ArgumentParser:
    ap = ReproductionParser(prog=prog, description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=[*EXPERIMENTS, "all"],
                    help="experiment: table3 (Tables 1 and 3, group charts), table4 (Table 4, "
                         "chart constants), props (Prop. 1, Prop. 2's bounds, the K_min / "
                         "K_upper forms), e1-e6 (idealised simulations of §4.2), traces "
                         "(synthetic stand-ins of §4.3), norep-rules (no-rep's chunk-count "
                         "rules scored on E5), or all")
    ap.add_argument("--trials", type=count(MAX_TRIALS), default=None,
                    help=f"simulated draws per configuration, 1..{MAX_TRIALS} "
                         "(default 1000; 100 for traces)")
    ap.add_argument("--p", type=int, nargs="+", default=None, choices=E_P, metavar="P",
                    help="worker counts of e5, norep-rules and traces, from "
                         f"{' '.join(map(str, E_P))} (default all of them for e5, 5 10 for "
                         "traces)")
    ap.add_argument("--chunk-search", choices=("grid", "binary"), default="grid",
                    help="e5: how greedy chooses its chunk counts: grid = maximise the exact "
                         "expected work (spec §6 Q9), binary = the paper's binary search over "
                         "[1 .. X/eps] (§5.2.3) (default grid)")
    ap.add_argument("--no-rep-rule", choices=NO_REP_RULES, default="grid",
                    help="e5: how no-rep chooses its chunk count: grid = maximise its exact "
                         "expected work (spec §6 Q9), binary = the paper's binary search, "
                         "per-worker = the same count on every worker, greedy = greedy's chunk "
                         "size (decision WS-20) (default grid)")
    ap.add_argument("--out", type=Path, default=Path("worksharing_results"),
                    help="output folder for the CSV files (default worksharing_results)")
    ap.add_argument("--jobs", type=count(1024), default=min(2, os.cpu_count() or 1),
                    help="worker processes, 1 runs inline (default min(2, CPU count))")
    add_cli_options(ap, "<out>/campaign.sqlite")
    return ap


def parse_args(argv: Sequence[str] | None, prog: str = PROG) -> argparse.Namespace:
    """The options `argv` (a bad one: one line on stderr, `SystemExit` 2)."""
    return _parser(prog).parse_args(argv)


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line arguments `argv`; exit status 0, 2 or 130.

    `prog` names the program in the help and in error lines (``resilsched reproduce
    worksharing`` when run from the CLI). Bad options are one-line errors with status 2.
    """
    ap = _parser(prog)
    a = ap.parse_args(argv)
    store = a.store or a.out / "campaign.sqlite"
    try:
        a.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        ap.error(f"--out {a.out}: {e.strerror or e}")
    if Path(store).is_dir():
        ap.error(f"--store {store}: is a directory")

    def body() -> int:
        todo = list(EXPERIMENTS) if a.what == "all" else [a.what]
        fresh = [f"worksharing-{w}" for w in todo] if a.fresh else []
        try:
            with ExperimentRunner(store, jobs=a.jobs, dask=a.dask, fresh=fresh) as runner:
                return _main(a, todo, runner)
        except (OSError, sqlite3.Error) as e:
            print(f"{prog}: error: --store {store}: {e}", file=sys.stderr, flush=True)
            return 2

    return run_script(prog, a.dask, body)


def _main(a: argparse.Namespace, todo: list[str], experiments: ExperimentRunner) -> int:
    for w in todo:
        runner = campaign_runner(experiments, w)
        if w == "table4":
            run_table4(a.out)
        elif w == "table3":
            run_table3()
        elif w == "props":
            run_props()
        elif w == "norep-rules":
            run_norep_rules(a.out, _trials(a, w), _ps(a, w), run=runner)
        elif w == "e5":
            run_e5(a.out, _trials(a, w), _ps(a, w), run=runner, chunk_search=a.chunk_search,
                   no_rep_rule=a.no_rep_rule)
        elif w in ("e1", "e2", "e3", "e4"):
            run_fixed(w, a.out, _trials(a, w), run=runner)
        elif w == "e6":
            run_e6(a.out, _trials(a, w), run=runner)
        elif w == "traces":
            run_traces(a.out, _trials(a, w), _ps(a, w), run=runner)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
