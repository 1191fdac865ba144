"""Reproduce the rigid-job experiments of Benoit et al. (spec 002 §8, §9): Figs. 4-6, Table 1.

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

Writes CSV, PNG and ``summary.md`` into ``--out`` (default ``results/rigid/``), prints the computed
numbers next to the paper's; progress goes to stderr. Simulations run as two campaigns
(`resilsched.campaign`), ``rigid-synthetic`` and ``rigid-table1``, stored in ``--store`` (default
``<out>/campaign.sqlite``): after an interruption (Ctrl-C, exit status 130), rerunning the same
command computes only the missing tasks and writes the same CSV files; ``--fresh`` starts over,
``--dask ADDRESS|local`` runs the tasks on Dask distributed.

    resilsched reproduce rigid                      # scaled-down, ~minutes
    resilsched reproduce rigid --full --jobs 8      # interrupt and rerun: it resumes
    resilsched reproduce rigid --only table1 --swf ANL-Intrepid-2009-1.swf --cores-per-node 4

``python scripts/reproduce_rigid.py`` (a thin wrapper of this module) takes the same options.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import math
import os
import sys
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from resilsched.bounds.rigid import lower_bound
from resilsched.campaign import (
    ResultStore,
    Task,
    add_cli_options,
    run_campaign,
    run_script,
)
from resilsched.heuristics.rigid import makespan
from resilsched.instances.failures import Scenario
from resilsched.instances.rigid import RigidInstance
from resilsched.instances.rigid.mira_like import mira_like_days
from resilsched.instances.rigid.scenarios import expected_total_failures, scenario_matrices
from resilsched.instances.rigid.swf import read_swf
from resilsched.instances.rigid.synthetic import paper_sets

#: program name in the help and error lines (the script's name, as before the move)
PROG = "reproduce_rigid.py"

PRIORITIES7 = ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "Random")
SHELVES4 = ("R-SHELF-B", "R-SHELF-NB", "R-SHELFFILL-B", "R-SHELFFILL-NB")
FIVE = ("R-LIST-0", "R-LIST-1", "R-LIST-Q", "R-SHELFFILL-B", "R-SHELFFILL-NB")
SHORT = {"R-LIST-0": "L0", "R-LIST-1": "L1", "R-LIST-Q": "LQ", "R-SHELF-B": "S-B",
         "R-SHELF-NB": "S-NB", "R-SHELFFILL-B": "SF-B", "R-SHELFFILL-NB": "SF-NB"}
#: A20: the paper's best priority per heuristic in Figs. 5(f) and 6(f).
PAPER_BEST = {"R-LIST-0": "LA", "R-LIST-1": "LA", "R-LIST-Q": "LPT", "R-SHELFFILL-B": "LPT",
              "R-SHELFFILL-NB": "LPT"}

QBARS_FULL = tuple(round(0.1 * k, 1) for k in range(10))
PS_FULL = tuple(range(5000, 20001, 1000))
QBARS_QUICK = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7)
PS_QUICK = (5000, 7500, 10000, 12500, 15000, 17500, 20000)
MIRA_QBARS = (0.0, 0.05, 0.1)

#: Table 1 of the paper (LPT, 30 Mira days): q-bar -> (avg failures, {heuristic: (avg, std, max)}).
PAPER_TABLE1: dict[float, tuple[float, dict[str, tuple[float, float, float]]]] = {
    0.0: (0.0, {"R-LIST-0": (1.067, 8.78e-2, 1.425), "R-LIST-1": (1.051, 8.19e-2, 1.425),
                "R-LIST-Q": (1.051, 8.17e-2, 1.425), "R-SHELFFILL-B": (1.407, 1.27e-1, 1.633),
                "R-SHELFFILL-NB": (1.441, 1.42e-1, 1.760)}),
    0.05: (15.2913, {"R-LIST-0": (1.031, 6.79e-2, 1.278), "R-LIST-1": (1.049, 6.87e-2, 1.292),
                     "R-LIST-Q": (1.061, 7.78e-2, 1.292), "R-SHELFFILL-B": (1.105, 1.20e-1, 1.475),
                     "R-SHELFFILL-NB": (1.117, 1.32e-1, 1.495)}),
    0.1: (254.453, {"R-LIST-0": (1.016, 4.66e-2, 1.249), "R-LIST-1": (1.025, 4.54e-2, 1.224),
                    "R-LIST-Q": (1.028, 4.97e-2, 1.245), "R-SHELFFILL-B": (1.052, 8.97e-2, 1.391),
                    "R-SHELFFILL-NB": (1.054, 9.28e-2, 1.407)}),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- configuration ------------------------------------------------------------------------------

@dataclass
class Config:
    """What to run; the defaults are the scaled-down reproduction."""

    sets: int = 10
    scenarios: int = 20
    qbars: tuple[float, ...] = QBARS_QUICK
    Ps: tuple[int, ...] = PS_QUICK
    P_default: int = 10000
    qbar_P_sweep: float = 0.3
    seed: int = 2020
    mira_days: int = 30
    mira_scenarios: int = 20
    mira_seed: int = 0
    swf: str | None = None
    cores_per_node: int = 1
    swf_P: int | None = None
    only: tuple[str, ...] = ("fig4", "fig5", "fig6", "table1")
    jobs: int = 2
    out: Path = field(default_factory=lambda: Path("results/rigid"))
    plots: bool = True
    reuse: Path | None = None  # read per-set rows from a previous run's CSV files
    store: Path | None = None  # campaign result store; None: <out>/campaign.sqlite
    fresh: bool = False  # delete the stored results of the campaigns this run uses first
    dask: str | None = None  # Dask scheduler address or "local"

    @property
    def store_path(self) -> Path:
        return self.store if self.store is not None else self.out / "campaign.sqlite"


# -- simulation tasks ---------------------------------------------------------------------------

def random_seed(set_index: int, scenario_index: int) -> int:
    """Seed of the Random priority for (job set, scenario) (A6)."""
    return 1_000_003 * set_index + scenario_index


def run_task(task: dict[str, Any]) -> list[dict[str, Any]]:
    """One (job set, heuristic, priority) over a list of (q-bar, P) points.

    Returns one row per point: the mean and max over scenarios of T/L(f), and the mean number
    of failures. With q-bar = 0 and a deterministic priority every scenario is the same, so a
    single simulation stands for all of them.
    """
    inst: RigidInstance = task["instance"]
    h, prio, k = task["heuristic"], task["priority"], task["set"]
    rows = []
    for q, P, matrix in task["points"]:
        inst_P = inst if P == inst.P else RigidInstance(P, inst.jobs, inst.name)
        mat = matrix
        if prio != "Random" and not mat.any():
            mat = mat[:1]
        ratios = []
        for s, row in enumerate(mat):
            T = makespan(inst_P, row, h, prio, seed=random_seed(k, s))
            L = lower_bound(inst_P, Scenario(tuple(int(x) for x in row)))
            ratios.append(float(T) / float(L))
        rows.append({"heuristic": h, "priority": prio, "qbar": q, "P": P, "set": k,
                     "mean_ratio": float(np.mean(ratios)), "max_ratio": float(np.max(ratios)),
                     "scenarios": int(matrix.shape[0]),
                     "mean_failures": float(matrix.sum(axis=1).mean())})
    return rows


def run_tasks(cfg: Config, name: str, config: Mapping[str, Any], tasks: list[dict[str, Any]],
              label: str) -> list[dict[str, Any]]:
    """Run tasks as campaign `name` of ``cfg.store_path`` (resumable); rows in task order.

    A task's key is its (heuristic, priority, set, (q-bar, P) points); `config` holds what
    else determines its rows (seeds, scenario count, instance source). Pool of ``cfg.jobs``
    processes, inline with ``jobs <= 1``, or Dask with ``cfg.dask``; progress on stderr.
    """
    camp = [Task({"heuristic": t["heuristic"], "priority": t["priority"], "set": t["set"],
                  "points": [(q, P) for q, P, _ in t["points"]]}, t) for t in tasks]
    with ResultStore(cfg.store_path) as store:
        if cfg.fresh:
            store.forget(name)
        per_task = run_campaign(name, camp, run_task, store, config=config, jobs=cfg.jobs,
                                dask=cfg.dask, label=label)
    return [row for rows in per_task for row in rows]


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# -- aggregation --------------------------------------------------------------------------------

def aggregate(rows: list[dict[str, Any]], keys: Sequence[str]) -> dict[tuple, dict[str, float]]:
    """Mean, std and max across job sets of the per-set mean ratio (A11), plus the pooled max."""
    groups: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in keys)].append(r)
    out = {}
    for key, rs in groups.items():
        means = np.array([r["mean_ratio"] for r in rs])
        out[key] = {"mean": float(means.mean()), "std": float(means.std(ddof=0)),
                    "max": float(means.max()), "pooled_max": max(r["max_ratio"] for r in rs),
                    "sets": len(rs), "mean_failures": float(np.mean([r["mean_failures"]
                                                                       for r in rs]))}
    return out


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Per-set rows written by `write_csv` (for ``--reuse``), with their numeric types."""
    types = {"qbar": float, "P": int, "set": int, "mean_ratio": float, "max_ratio": float,
             "scenarios": int, "mean_failures": float}
    with path.open(newline="") as fh:
        return [{k: types.get(k, str)(v) for k, v in r.items()} for r in csv.DictReader(fh)]


def verdict(ours: float, paper: float) -> str:
    """For a claimed positive gap: same sign and at least half the size, or weaker."""
    if ours <= 0:
        return "contradicted"
    return "holds" if ours >= paper / 2 else "same sign, much smaller"


def agg_rows(agg: dict[tuple, dict[str, float]], keys: Sequence[str]) -> list[dict[str, Any]]:
    return [{**dict(zip(keys, k, strict=True)), **v} for k, v in sorted(agg.items())]


def pct(x: float) -> str:
    return f"{100 * x:+.1f}%"


# -- synthetic figures --------------------------------------------------------------------------

def synthetic(cfg: Config) -> dict[str, Any]:
    """Figs. 4-6 on the synthetic sets (spec §9.2-9.4)."""
    sets = paper_sets(cfg.seed, cfg.sets)
    qbars = sorted(set(cfg.qbars) | ({cfg.qbar_P_sweep} if {"fig4", "fig6"} & set(cfg.only)
                                      else set()))
    mats = {q: scenario_matrices(sets, q, cfg.scenarios, [cfg.seed, int(round(q * 1000))])
            for q in qbars}
    # (heuristic, priority) -> set of (q, P) points, merged over the requested figures
    want: dict[tuple[str, str], set[tuple[float, int]]] = defaultdict(set)
    if "fig4" in cfg.only:
        for h in SHELVES4:
            want[h, "LPT"] |= {(q, cfg.P_default) for q in cfg.qbars}
            want[h, "LPT"] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    if "fig5" in cfg.only:
        for h in FIVE:
            for pr in PRIORITIES7:
                want[h, pr] |= {(q, cfg.P_default) for q in cfg.qbars}
    if "fig6" in cfg.only:
        for h in FIVE:
            for pr in PRIORITIES7:
                want[h, pr] |= {(cfg.qbar_P_sweep, P) for P in cfg.Ps}
    tasks = []
    for (h, pr), points in sorted(want.items()):
        for k, inst in enumerate(sets):
            tasks.append({"instance": inst, "heuristic": h, "priority": pr, "set": k,
                          "points": [(q, P, mats[q][k]) for q, P in sorted(points)]})
    # expensive tasks first, for a better load balance
    tasks.sort(key=lambda t: -sum(m.sum() + m.shape[0] for _, _, m in t["points"]))
    log(f"[synthetic] {len(sets)} sets x {cfg.scenarios} scenarios, {len(want)} "
        f"(heuristic, priority) pairs, {len(tasks)} tasks")
    config = {"seed": cfg.seed, "scenarios": cfg.scenarios}  # set k does not depend on cfg.sets
    rows = (read_rows(cfg.reuse / "synthetic_per_set.csv") if cfg.reuse
            else run_tasks(cfg, "rigid-synthetic", config, tasks, "synthetic"))
    agg = aggregate(rows, ("heuristic", "priority", "qbar", "P"))
    expected = {q: float(np.mean([expected_total_failures(x, q) for x in sets])) for q in qbars}
    return {"rows": rows, "agg": agg, "expected_failures": expected}


def best_priority(agg: dict[tuple, dict[str, float]], h: str, points: list[tuple[float, int]]
                  ) -> str:
    """The priority with the lowest mean ratio averaged over `points`."""
    scores = {}
    for pr in PRIORITIES7:
        vals = [agg[h, pr, q, P]["mean"] for q, P in points if (h, pr, q, P) in agg]
        if len(vals) == len(points):
            scores[pr] = float(np.mean(vals))
    return min(scores, key=scores.get)


def fig4_claims(cfg: Config, agg: dict) -> list[tuple[str, str, str, str]]:
    """(claim, paper, ours, verdict) rows of §9.2."""
    P0, q0 = cfg.P_default, cfg.qbar_P_sweep
    claims = []
    others = [P for P in cfg.Ps if P != P0]
    for fill, plain, paper in (("R-SHELFFILL-NB", "R-SHELF-NB", 0.049),
                               ("R-SHELFFILL-B", "R-SHELF-B", 0.048)):
        imp = [1 - agg[fill, "LPT", q0, P]["mean"] / agg[plain, "LPT", q0, P]["mean"]
               for P in others]
        at = 1 - agg[fill, "LPT", q0, P0]["mean"] / agg[plain, "LPT", q0, P0]["mean"]
        v = float(np.mean(imp))
        claims.append((f"Fig4b: {SHORT[fill]} improves on {SHORT[plain]} (avg over P != {P0})",
                       f"{100 * paper:.1f}%", f"{100 * v:.1f}% (at P={P0}: {100 * at:.1f}%)",
                       verdict(v, paper)))
    pts = [(q, P0) for q in cfg.qbars] + [(q0, P) for P in cfg.Ps]
    mx = max(agg["R-SHELFFILL-B", "LPT", q, P]["mean"] for q, P in pts)
    claims.append(("Fig4: max normalised makespan of SF-B-LPT", "1.2", f"{mx:.3f}",
                   "holds" if mx <= 1.25 else "differs"))
    return claims


def fig5_claims(cfg: Config, agg: dict) -> tuple[list, dict[str, str]]:
    P0 = cfg.P_default
    qs = list(cfg.qbars)
    pts = [(q, P0) for q in qs]
    best = {h: best_priority(agg, h, pts) for h in FIVE}
    claims = []
    la_best = all(min(PRIORITIES7, key=lambda pr: agg["R-LIST-0", pr, q, P0]["mean"]) == "LA"
                  for q in qs if q > 0)
    winners = ", ".join(
        f"q={q}:{min(PRIORITIES7, key=lambda pr, q=q: agg['R-LIST-0', pr, q, P0]['mean'])}"
        for q in qs if q > 0)
    claims.append(("Fig5a: LA is the best priority for R-LIST-0 at every q-bar > 0", "yes",
                   "yes" if la_best else f"no ({winners})",
                   "holds" if la_best else "contradicted"))
    for h in FIVE:
        claims.append((f"Fig5: best priority of {h} (mean over q-bar)", PAPER_BEST[h], best[h],
                       "holds" if best[h] == PAPER_BEST[h] or
                       {best[h], PAPER_BEST[h]} <= {"LA", "LPT"} else "differs"))
    curve = {h: {q: agg[h, PAPER_BEST[h], q, P0]["mean"] for q in qs} for h in FIVE}
    if len(qs) >= 3 and 0.0 in qs:
        q_end = max(qs)
        peaks = {h: max(qs, key=curve[h].get) for h in ("R-LIST-0", "R-LIST-1", "R-LIST-Q")}
        hump = [h for h, q in peaks.items() if 0 < q < q_end]
        where = ", ".join(f"{SHORT[h]}@{q}" for h, q in peaks.items())
        claims.append(("Fig5: list heuristics first increase then decrease with q-bar",
                       "yes", f"interior peak for {len(hump)}/3 ({where})",
                       "holds" if len(hump) == 3 else "partly" if hump else "differs"))
        down = [(h, pr) for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB") for pr in PRIORITIES7
                if pr != "LPT" and agg[h, pr, q_end, P0]["mean"] < agg[h, pr, 0.0, P0]["mean"]]
        up = [h for h in ("R-SHELFFILL-B", "R-SHELFFILL-NB")
              if agg[h, "LPT", q_end, P0]["mean"] > agg[h, "LPT", 0.0, P0]["mean"]]
        claims.append((f"Fig5: shelf heuristics decrease from q-bar = 0 to {q_end}, except LPT",
                       "yes", f"{len(down)}/12 non-LPT curves down, LPT up for {len(up)}/2",
                       "holds" if len(down) == 12 and len(up) == 2 else "partly"))
    wins = [q for q in qs if q > 0 and min(FIVE, key=lambda h: curve[h][q]) == "R-LIST-0"]
    qpos = [q for q in qs if q > 0]
    claims.append(("Fig5f: R-LIST-0 (LA) is the best heuristic under failures",
                   "every q-bar > 0", f"{len(wins)}/{len(qpos)} q-bar values",
                   "holds" if len(wins) == len(qpos) else "partly"))
    for h in FIVE:
        rise = max(curve[h][q] / curve[h][0.0] - 1 for q in qs) if 0.0 in curve[h] else math.nan
        if h == "R-LIST-0":
            paper, ok = "< 10%", rise < 0.10
        else:
            paper, ok = "20-30%", 0.15 <= rise <= 0.35
        claims.append((f"Fig5f: max rise of {h}-{PAPER_BEST[h]} over q-bar = 0", paper,
                       pct(rise), "holds" if ok else "differs"))
    for h, q, paper in (("R-SHELFFILL-NB", 0.3, 0.18), ("R-LIST-Q", 0.5, 0.26)):
        if q in curve[h]:
            gap = curve[h][q] / curve["R-LIST-0"][q] - 1
            claims.append((f"Fig5f: {h} above R-LIST-0 at q-bar = {q}", pct(paper), pct(gap),
                           verdict(gap, paper)))
    return claims, best


def fig6_claims(cfg: Config, agg: dict) -> tuple[list, dict[str, str]]:
    q0 = cfg.qbar_P_sweep
    pts = [(q0, P) for P in cfg.Ps]
    best = {h: best_priority(agg, h, pts) for h in FIVE}
    overall = min(((h, pr) for h in FIVE for pr in PRIORITIES7),
                  key=lambda hp: np.mean([agg[hp[0], hp[1], q, P]["mean"] for q, P in pts]))
    claims = [("Fig6f: best (heuristic, priority) over P", "R-LIST-0 LA", " ".join(overall),
               "holds" if overall == ("R-LIST-0", "LA") else "differs")]
    for h in FIVE:
        claims.append((f"Fig6: best priority of {h}", PAPER_BEST[h], best[h],
                       "holds" if best[h] == PAPER_BEST[h] else "differs"))
    l0 = [agg["R-LIST-0", "LA", q0, P]["mean"] for P in cfg.Ps]
    var = max(l0) / min(l0) - 1
    claims.append(("Fig6f: variation of R-LIST-0-LA across P", "< 10%", pct(var),
                   "holds" if var < 0.10 else "differs"))
    if 15000 in cfg.Ps:
        gap = agg["R-LIST-Q", "LPT", q0, 15000]["mean"] / agg["R-LIST-0", "LA", q0, 15000]["mean"]
        claims.append(("Fig6f: R-LIST-Q-LPT above R-LIST-0-LA at P = 15000", "+23%",
                       pct(gap - 1), verdict(gap - 1, 0.23)))
    return claims, best


def good_priority_claim(cfg: Config, agg: dict) -> tuple[str, str, str, str]:
    vals = [v["mean"] for (h, pr, q, P), v in agg.items()
            if h in FIVE and pr == PAPER_BEST[h] and (P == cfg.P_default or q == cfg.qbar_P_sweep)]
    mx = max(vals)
    return ("§5.3: heuristics with their best priority (A20) never more than 40% above L(f)",
            "<= 1.40", f"max {mx:.3f}", "holds" if mx <= 1.4 else "contradicted")


# -- Table 1 ------------------------------------------------------------------------------------

def table1(cfg: Config) -> dict[str, Any]:
    """The five heuristics with LPT on Mira-like days (or SWF days), q-bar in {0, 0.05, 0.1}."""
    # day k depends neither on cfg.mira_days nor on the days after it
    config: dict[str, Any] = {"seed": cfg.seed, "scenarios": cfg.mira_scenarios}
    if cfg.swf:
        days = read_swf(cfg.swf, P=cfg.swf_P, cores_per_node=cfg.cores_per_node)
        days = days[: cfg.mira_days]
        source = f"SWF {cfg.swf} (first {len(days)} days, cores/node {cfg.cores_per_node})"
        config |= {"swf_sha256": file_sha256(cfg.swf), "cores_per_node": cfg.cores_per_node,
                   "swf_P": cfg.swf_P}
    else:
        days = mira_like_days(cfg.mira_seed, cfg.mira_days)
        source = f"Mira-like stand-in, seed {cfg.mira_seed}, {len(days)} days"
        config |= {"mira_seed": cfg.mira_seed}
    mats = {q: scenario_matrices(days, q, cfg.mira_scenarios, [cfg.seed, 7, int(round(q * 1000))])
            for q in MIRA_QBARS}
    tasks = [{"instance": d, "heuristic": h, "priority": "LPT", "set": k,
              "points": [(q, d.P, mats[q][k]) for q in MIRA_QBARS]}
             for h in FIVE for k, d in enumerate(days)]
    tasks.sort(key=lambda t: -sum(m.sum() + m.shape[0] for _, _, m in t["points"]))
    log(f"[table1] {source}: {len(days)} days x {cfg.mira_scenarios} scenarios, "
        f"{len(tasks)} tasks")
    rows = (read_rows(cfg.reuse / "table1_per_day.csv") if cfg.reuse
            else run_tasks(cfg, "rigid-table1", config, tasks, "table1"))
    agg = aggregate(rows, ("heuristic", "qbar"))
    failures = {q: float(np.mean([m.sum(axis=1).mean() for m in mats[q]])) for q in MIRA_QBARS}
    expected = {q: float(np.mean([expected_total_failures(d, q) for d in days]))
                for q in MIRA_QBARS}
    return {"rows": rows, "agg": agg, "failures": failures, "expected": expected,
            "source": source, "jobs_per_day": float(np.mean([d.n for d in days]))}


def table1_claims(t1: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    agg = t1["agg"]
    claims = []
    lists = ("R-LIST-0", "R-LIST-1", "R-LIST-Q")
    mx = max(agg[h, q]["max"] for h in lists for q in MIRA_QBARS)
    claims.append(("Table1: list heuristics, max of day-means", "< 1.5", f"{mx:.3f}",
                   "holds" if mx < 1.5 else "contradicted"))
    worse = all(min(agg[s, q]["mean"] for s in ("R-SHELFFILL-B", "R-SHELFFILL-NB")) >
                max(agg[h, q]["mean"] for h in lists) for q in MIRA_QBARS)
    claims.append(("Table1: shelf heuristics worse than list ones at every q-bar", "yes",
                   "yes" if worse else "no", "holds" if worse else "contradicted"))
    for q in (0.05, 0.1):
        best = min(FIVE, key=lambda h: agg[h, q]["mean"])
        claims.append((f"Table1: best heuristic at q-bar = {q}", "R-LIST-0", best,
                       "holds" if best == "R-LIST-0" else "differs"))
    l0, l1 = agg["R-LIST-0", 0.0]["mean"], agg["R-LIST-1", 0.0]["mean"]
    claims.append(("Table1: at q-bar = 0, R-LIST-0 worse than R-LIST-1", "1.067 > 1.051",
                   f"{l0:.3f} vs {l1:.3f}", "holds" if l0 > l1 else "differs"))
    nb_worse = all(agg["R-SHELFFILL-NB", q]["mean"] >= agg["R-SHELFFILL-B", q]["mean"]
                   for q in MIRA_QBARS)
    claims.append(("Table1 (A13): SF-NB worse than SF-B at every q-bar", "yes",
                   "yes" if nb_worse else "no", "holds" if nb_worse else "differs"))
    return claims


# -- reporting ----------------------------------------------------------------------------------

def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def synthetic_tables(cfg: Config, res: dict[str, Any], best5: dict[str, str]) -> str:
    agg = res["agg"]
    parts = []
    if "fig4" in cfg.only:
        head = ["q-bar"] + [SHORT[h] for h in SHELVES4]
        rows = [[q] + [f"{agg[h, 'LPT', q, cfg.P_default]['mean']:.3f}" for h in SHELVES4]
                for q in cfg.qbars]
        parts.append(f"Fig. 4(a) (LPT, P = {cfg.P_default}): mean T/L(f)\n\n"
                     + md_table(head, rows))
        rows = [[P] + [f"{agg[h, 'LPT', cfg.qbar_P_sweep, P]['mean']:.3f}" for h in SHELVES4]
                for P in cfg.Ps]
        parts.append(f"Fig. 4(b) (LPT, q-bar = {cfg.qbar_P_sweep}): mean T/L(f)\n\n"
                     + md_table(["P"] + head[1:], rows))
    if "fig5" in cfg.only:
        head = ["q-bar"] + [f"{SHORT[h]}-{PAPER_BEST[h]}" for h in FIVE] + \
               [f"best prio (ours) {SHORT[h]}" for h in FIVE]
        rows = []
        for q in cfg.qbars:
            r = [q] + [f"{agg[h, PAPER_BEST[h], q, cfg.P_default]['mean']:.3f}" for h in FIVE]
            r += [min(PRIORITIES7, key=lambda pr, h=h: agg[h, pr, q, cfg.P_default]["mean"])
                  for h in FIVE]
            rows.append(r)
        parts.append(f"Fig. 5(f) (P = {cfg.P_default}): mean T/L(f) with the paper's best "
                     "priority (A20), and the best priority we measure at each q-bar\n\n"
                     + md_table(head, rows))
    if "fig6" in cfg.only:
        q0 = cfg.qbar_P_sweep
        head = ["P"] + [f"{SHORT[h]}-{PAPER_BEST[h]}" for h in FIVE] + \
               [f"best prio (ours) {SHORT[h]}" for h in FIVE]
        rows = []
        for P in cfg.Ps:
            r = [P] + [f"{agg[h, PAPER_BEST[h], q0, P]['mean']:.3f}" for h in FIVE]
            r += [min(PRIORITIES7, key=lambda pr, h=h: agg[h, pr, q0, P]["mean"]) for h in FIVE]
            rows.append(r)
        parts.append(f"Fig. 6(f) (q-bar = {q0}): mean T/L(f)\n\n" + md_table(head, rows))
    return "\n\n".join(parts)


def table1_markdown(t1: dict[str, Any]) -> str:
    agg = t1["agg"]
    head = ["q-bar", "avg #failures (ours / expected / paper)"] + \
           [f"{SHORT[h]} avg (paper)" for h in FIVE]
    rows, rows2 = [], []
    for q in MIRA_QBARS:
        paper_f, paper = PAPER_TABLE1[q]
        rows.append([q, f"{t1['failures'][q]:.2f} / {t1['expected'][q]:.2f} / {paper_f}"] +
                    [f"{agg[h, q]['mean']:.3f} ({paper[h][0]:.3f})" for h in FIVE])
        rows2.append([q] + [f"{agg[h, q]['std']:.2e} ({paper[h][1]:.2e})" for h in FIVE] +
                     [f"{agg[h, q]['max']:.3f} ({paper[h][2]:.3f})" for h in FIVE])
    head2 = ["q-bar"] + [f"{SHORT[h]} std" for h in FIVE] + [f"{SHORT[h]} max" for h in FIVE]
    return (f"Table 1 analogue: {t1['source']}, {t1['jobs_per_day']:.1f} jobs/day, LPT; "
            "statistics across the per-day means (A11); paper values in parentheses\n\n"
            + md_table(head, rows) + "\n\n" + md_table(head2, rows2))


def claims_markdown(claims: list[tuple[str, str, str, str]]) -> str:
    return md_table(["claim", "paper", "ours", "verdict"], claims)


# -- plots --------------------------------------------------------------------------------------

def plots(cfg: Config, res: dict[str, Any] | None, t1: dict[str, Any] | None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    if res is not None:
        agg = res["agg"]
        P0, q0 = cfg.P_default, cfg.qbar_P_sweep
        if "fig4" in cfg.only:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
            for h in SHELVES4:
                axes[0].plot(cfg.qbars, [agg[h, "LPT", q, P0]["mean"] for q in cfg.qbars],
                             marker="o", label=h)
                axes[1].plot(cfg.Ps, [agg[h, "LPT", q0, P]["mean"] for P in cfg.Ps],
                             marker="o", label=h)
            axes[0].set(xlabel="q-bar", ylabel="normalised makespan T/L(f)",
                        title=f"(a) P = {P0}")
            axes[1].set(xlabel="P", title=f"(b) q-bar = {q0}")
            axes[0].legend(fontsize=8)
            fig.suptitle("Fig. 4: shelf heuristics, LPT")
            fig.tight_layout()
            made.append(cfg.out / "fig4.png")
            fig.savefig(made[-1], dpi=110)
            plt.close(fig)
        for fig_name, xs, pt in (("fig5", cfg.qbars, lambda x: (x, P0)),
                                 ("fig6", cfg.Ps, lambda x: (q0, x))):
            if fig_name not in cfg.only:
                continue
            fig, axes = plt.subplots(2, 3, figsize=(14, 8))
            for ax, h in zip(axes.flat, FIVE, strict=False):
                for pr in PRIORITIES7:
                    ax.plot(xs, [agg[(h, pr) + pt(x)]["mean"] for x in xs], marker=".", label=pr)
                ax.set(title=h, xlabel="q-bar" if fig_name == "fig5" else "P",
                       ylabel="T/L(f)")
            axes.flat[0].legend(fontsize=7)
            ax = axes.flat[5]
            for h in FIVE:
                ax.plot(xs, [agg[(h, PAPER_BEST[h]) + pt(x)]["mean"] for x in xs], marker="o",
                        label=f"{h}-{PAPER_BEST[h]}")
            ax.set(title="(f) best priorities (A20)", xlabel="q-bar" if fig_name == "fig5"
                   else "P")
            ax.legend(fontsize=7)
            what = f"Fig. 5: P = {P0}" if fig_name == "fig5" else f"Fig. 6: q-bar = {q0}"
            fig.suptitle(f"{what} ({cfg.sets} sets x {cfg.scenarios} scenarios)")
            fig.tight_layout()
            made.append(cfg.out / f"{fig_name}.png")
            fig.savefig(made[-1], dpi=110)
            plt.close(fig)
    if t1 is not None:
        per_day: dict[tuple[str, float], list[float]] = defaultdict(list)
        for r in t1["rows"]:
            per_day[r["heuristic"], r["qbar"]].append(r["mean_ratio"])
        fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
        for ax, q in zip(axes, MIRA_QBARS, strict=True):
            ax.boxplot([per_day[h, q] for h in FIVE])
            ax.set_xticks(range(1, 6), [SHORT[h] for h in FIVE])
            ax.set(title=f"q-bar = {q} (avg failures {t1['failures'][q]:.1f})")
        axes[0].set_ylabel("per-day mean T/L(f), LPT")
        fig.suptitle(f"Figs. 7-8 / Table 1 analogue: {t1['source']}")
        fig.tight_layout()
        made.append(cfg.out / "table1.png")
        fig.savefig(made[-1], dpi=110)
        plt.close(fig)
    return made


# -- driver -------------------------------------------------------------------------------------

def run(cfg: Config) -> dict[str, Any]:
    """Run the requested experiments, write the outputs, return everything computed."""
    cfg.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    result: dict[str, Any] = {"claims": []}
    sections = [f"# Rigid jobs (spec 002): scaled-down reproduction\n\nsets={cfg.sets}, "
                f"scenarios={cfg.scenarios}, q-bar grid={list(cfg.qbars)}, P grid="
                f"{list(cfg.Ps)}, seed={cfg.seed}"]
    res = None
    if {"fig4", "fig5", "fig6"} & set(cfg.only):
        res = synthetic(cfg)
        result["synthetic"] = res
        write_csv(cfg.out / "synthetic_per_set.csv", res["rows"])
        write_csv(cfg.out / "synthetic.csv",
                  agg_rows(res["agg"], ("heuristic", "priority", "qbar", "P")))
        best5: dict[str, str] = {}
        if "fig4" in cfg.only:
            result["claims"] += fig4_claims(cfg, res["agg"])
        if "fig5" in cfg.only:
            c, best5 = fig5_claims(cfg, res["agg"])
            result["claims"] += c
        if "fig6" in cfg.only:
            c, _ = fig6_claims(cfg, res["agg"])
            result["claims"] += c
        if {"fig5", "fig6"} & set(cfg.only):
            result["claims"].append(good_priority_claim(cfg, res["agg"]))
        sections.append(synthetic_tables(cfg, res, best5))
        sections.append("Expected failures per synthetic set: " + ", ".join(
            f"q-bar {q}: {v:.1f}" for q, v in res["expected_failures"].items()))
    t1 = None
    if "table1" in cfg.only:
        t1 = table1(cfg)
        result["table1"] = t1
        write_csv(cfg.out / "table1_per_day.csv", t1["rows"])
        write_csv(cfg.out / "table1.csv", agg_rows(t1["agg"], ("heuristic", "qbar")))
        result["claims"] += table1_claims(t1)
        sections.append(table1_markdown(t1))
    sections.append("Claims (spec §9)\n\n" + claims_markdown(result["claims"]))
    if cfg.plots:
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


def parse_args(argv: Sequence[str] | None = None, prog: str = PROG) -> Config:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", type=int, default=None, help="synthetic job sets (default 10)")
    ap.add_argument("--scenarios", type=int, default=None,
                    help="failure scenarios per set and q-bar (default 20)")
    ap.add_argument("--qbars", type=str, default=None, help="comma-separated q-bar grid")
    ap.add_argument("--Ps", type=str, default=None, help="comma-separated P grid")
    ap.add_argument("--full", action="store_true",
                    help="paper sizes: 30 sets, 1000 scenarios, full grids (hours)")
    ap.add_argument("--seed", type=int, default=2020)
    ap.add_argument("--mira-days", type=int, default=30)
    ap.add_argument("--mira-scenarios", type=int, default=None,
                    help="scenarios per Mira day and q-bar (default 20; 1000 with --full)")
    ap.add_argument("--mira-seed", type=int, default=0)
    ap.add_argument("--swf", type=str, default=None,
                    help="SWF log for Table 1 instead of the Mira-like stand-in")
    ap.add_argument("--cores-per-node", type=int, default=1)
    ap.add_argument("--swf-P", type=int, default=None, help="platform size override for --swf")
    ap.add_argument("--only", type=str, default="fig4,fig5,fig6,table1",
                    help="subset of fig4,fig5,fig6,table1")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="worker processes (default 2)")
    ap.add_argument("--out", type=Path, default=Path("results/rigid"))
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--reuse", type=Path, default=None,
                    help="re-render tables, claims and plots from the per-set CSV files of a "
                         "previous run in this directory (same configuration), no simulation")
    add_cli_options(ap, "<out>/campaign.sqlite")
    a = ap.parse_args(argv)
    only = tuple(x.strip() for x in a.only.split(",") if x.strip())
    bad = set(only) - {"fig4", "fig5", "fig6", "table1"}
    if bad:
        ap.error(f"--only: unknown {sorted(bad)}")
    cfg = Config(seed=a.seed, mira_days=a.mira_days, mira_seed=a.mira_seed, swf=a.swf,
                 cores_per_node=a.cores_per_node, swf_P=a.swf_P, only=only, jobs=a.jobs,
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
    if a.qbars:
        cfg.qbars = tuple(float(x) for x in a.qbars.split(","))
    if a.Ps:
        cfg.Ps = tuple(int(x) for x in a.Ps.split(","))
    if "fig5" in only and 0.0 not in cfg.qbars:
        ap.error("--qbars must contain 0 (Fig. 5 rises are measured from q-bar = 0)")
    if {"fig4", "fig6"} & set(only) and cfg.P_default not in cfg.Ps:
        ap.error(f"--Ps must contain {cfg.P_default}")
    return cfg


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the reproduction with command-line options `argv`; exit status 0, 2 or 130.

    `prog` names the program in the help and in error lines (``resilsched reproduce rigid``
    when run from the CLI).
    """
    cfg = parse_args(argv, prog)

    def body() -> int:
        result = run(cfg)
        print(result["summary"])
        for p in result.get("plots", []):
            log(f"wrote {p}")
        log(f"wrote {cfg.out / 'summary.md'} and CSV files in {result['elapsed']:.0f} s")
        return 0

    return run_script(prog, cfg.dask, body)


if __name__ == "__main__":
    sys.exit(main())
